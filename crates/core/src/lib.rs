//! AORLTA's engine: the checks (adapters), the timing judge, the reward functions and their
//! contract, profiles, the cache, and the run scheduler. Nothing here knows about HTTP or runs a
//! GPU in-process; kernel legs call the `aorlta-harness` binary and read its record file.

pub mod bench;
pub mod cache;
pub mod checks;
pub mod error;
pub mod hash;
pub mod judge;
pub mod profile;
pub mod reward;
pub mod run;
pub mod task;
pub mod yaml;

pub use error::{CoreError, Result};

/// The AORLTA version string used in version identities: the package version and a hash of the
/// sources that can change a result ([`aorlta_record::BUILD`]), so results of another build are
/// never reused from a cache.
pub const AORLTA_VERSION: &str = aorlta_record::BUILD;
