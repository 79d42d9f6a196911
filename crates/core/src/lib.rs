//! AORLTA's engine, what `serve` and `score` share: the engine and its one door for legs, the
//! reward functions and their contract, profiles, and the legs' identities (the keys of the
//! result store, which is `aorlta-store`), over the lanes' adapters (`aorlta-answer`,
//! `aorlta-kernel`) and their interface (`aorlta-check`). Nothing here knows about HTTP, writes
//! a run's outputs or runs a GPU in-process (the commands over it are `aorlta-app`'s); kernel
//! legs call the `aorlta-harness` binary and read its record file.

pub mod profile;
mod reason;
pub mod reward;
pub mod run;
pub mod sources;

pub use aorlta_check::{CoreError, Lanes, Registry, Result};
pub use reason::EngineReason;
pub use run::MAX_COMPLETION_BYTES;

/// The lanes AORLTA ships, by name: Q&A (`aorlta-answer`) and kernels (`aorlta-kernel`).
pub fn lanes() -> Lanes {
    Lanes::default()
        .with(std::sync::Arc::new(aorlta_answer::QaLane))
        .with(std::sync::Arc::new(aorlta_kernel::KernelLane))
}

/// Every adapter AORLTA ships: `parse` over its lanes and each lane's own.
pub fn adapters() -> Registry {
    lanes().adapters()
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
