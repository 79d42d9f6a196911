//! Stable, machine-readable types that cross a process or file boundary: the task and pool
//! formats, the leg results and reward entries the service answers with, and (in `kernel`) the
//! kernel task spec, the harness job and the harness record. Nothing here runs a check.
//!
//! # Format version
//! Every document that leaves a process carries a [`FormatVersion`].
//! - 1.0: first version: leg results, reward entries, Q&A tasks, pools, kernel tasks, harness
//!   jobs and records.

pub mod contract;
pub mod entry;
pub mod kernel;
pub mod leg;
pub mod task;

pub use entry::{Parts, RewardEntry, VersionIdentity};
pub use leg::{LegResult, LegState, Reason};
pub use task::{Candidate, PoolLine, QaTask};

use serde::{Deserialize, Serialize};

/// A `{major, minor}` version of the record formats. A reader accepts any minor of its major.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct FormatVersion {
    /// Bumped on an incompatible change.
    pub major: u32,
    /// Bumped when fields are added.
    pub minor: u32,
}

/// The harness's build identity: the package version and a hash of the sources the harness is
/// built from (crates/record and crates/gpu; see `build.rs`). The harness reports it, so that a
/// harness built from other sources is never used, and the kernel legs that run the harness
/// carry it in their cache keys.
pub const BUILD: &str = concat!(
    "aorlta ",
    env!("CARGO_PKG_VERSION"),
    "+src.",
    env!("AORLTA_SOURCE_HASH")
);

/// The version this build writes.
pub const FORMAT_VERSION: FormatVersion = FormatVersion { major: 1, minor: 0 };

impl Default for FormatVersion {
    fn default() -> Self {
        FORMAT_VERSION
    }
}
