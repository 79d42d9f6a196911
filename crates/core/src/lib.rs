//! AORLTA's engine: the reward functions and their contract, profiles, the legs' identities (the
//! keys of the result store, which is `aorlta-store`), and the run
//! scheduler, over the lanes' adapters (`aorlta-answer`, `aorlta-kernel`) and their interface
//! (`aorlta-check`). Nothing here knows about HTTP or runs a GPU in-process; kernel legs call
//! the `aorlta-harness` binary and read its record file.

pub mod profile;
mod reason;
pub mod reward;
pub mod run;
pub mod sources;

pub use aorlta_check::{CoreError, Registry, Result};
pub use reason::EngineReason;
pub use run::MAX_COMPLETION_BYTES;

/// Every adapter AORLTA ships: the answer lane's and the kernel lane's.
pub fn adapters() -> Registry {
    let mut r = Registry::default();
    aorlta_answer::register(&mut r);
    aorlta_kernel::register(&mut r);
    r
}

/// The AORLTA version string reward entries and the service report: the package version and a
/// hash of the record, core and harness sources. Cache keys carry narrower identities (see
/// [`sources`]), so an edit changes only the keys of the results it can change.
pub const AORLTA_VERSION: &str = concat!(
    "aorlta ",
    env!("CARGO_PKG_VERSION"),
    "+src.",
    env!("AORLTA_SRC_ALL")
);
