//! AORLTA's engine: the checks (adapters), the timing judge, the reward functions and their
//! contract, profiles, the cache, and the run scheduler. Nothing here knows about HTTP or runs a
//! GPU in-process; kernel legs call the `aorlta-harness` binary and read its record file.

pub mod bench;
pub mod cache;
pub mod checks;
pub mod error;
pub(crate) mod generations;
pub mod hash;
/// The timing judge ([`aorlta_judge`]), for the timing leg and the reward functions.
pub use aorlta_judge as judge;
pub mod profile;
pub mod reward;
pub mod run;
pub mod sources;
pub mod task;
pub mod yaml;

pub use error::{CoreError, Result};

/// The AORLTA version string reward entries and the service report: the package version and a
/// hash of the record, core and harness sources. Cache keys carry narrower identities (see
/// [`sources`]), so an edit changes only the keys of the results it can change.
pub const AORLTA_VERSION: &str = concat!(
    "aorlta ",
    env!("CARGO_PKG_VERSION"),
    "+src.",
    env!("AORLTA_SRC_ALL")
);
