//! Stable, machine-readable types that cross a process or file boundary: the task and pool
//! formats, the leg results and reward entries the service answers with, and (in `kernel`) the
//! kernel task spec, the harness job and the harness record. Nothing here runs a check.
//!
//! # Format version
//! Every document that leaves a process carries a [`FormatVersion`].
//! - 1.0: first version: leg results, reward entries, Q&A tasks, pools, kernel tasks, harness
//!   jobs and records.
//! - 1.1: reward entries carry `feedback`; kernel tasks may declare `bytes` and `flops`;
//!   episodes (their settings, turns and the lines `aorlta score --episodes` replays).

pub mod contract;
pub mod entry;
pub mod episode;
pub mod kernel;
pub mod leg;
pub mod task;

pub use entry::{Parts, RewardEntry, VersionIdentity};
pub use leg::{LegResult, LegState, Reason};
pub use task::{Candidate, PoolLine, QaTask};

use serde::{Deserialize, Serialize};

/// A `{major, minor}` version of the record formats. A reader accepts any minor of its major.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FormatVersion {
    /// Bumped on an incompatible change.
    pub major: u32,
    /// Bumped when fields are added.
    pub minor: u32,
}

/// The version this build writes.
pub const FORMAT_VERSION: FormatVersion = FormatVersion { major: 1, minor: 1 };

impl Default for FormatVersion {
    fn default() -> Self {
        FORMAT_VERSION
    }
}
