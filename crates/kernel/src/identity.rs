//! The identities the kernel lane's results carry in their cache keys: its own sources
//! ([`SOURCES`], every result of the lane) and the harness's build ([`HARNESS_BUILD`], the
//! results that go through the harness), both hashed at build time (`build.rs`), so an edit of
//! the lane or the harness is never served an old result and an edit elsewhere keeps them.

/// The build identity of the harness this build runs: the package version and a hash of the
/// harness's sources (crates/record, crates/judge and crates/gpu; `build.rs`), made as the
/// harness makes its own `aorlta_gpu::BUILD`. A harness that reports another is refused
/// (`pool.rs`), and the kernel legs that run the harness carry it in their cache keys.
pub const HARNESS_BUILD: &str = concat!(
    "aorlta ",
    env!("CARGO_PKG_VERSION"),
    "+src.",
    env!("AORLTA_HARNESS_HASH")
);

/// The identity of the sources the kernel lane's results depend on: the package version and a
/// hash of the whole of aorlta-kernel (`build/lane.rs`). The engine adds what every leg depends
/// on (the record types, the lane interface, the engine itself).
pub const SOURCES: &str = concat!(env!("CARGO_PKG_VERSION"), "+kernel.", env!("AORLTA_LANE_HASH"));

/// The sources of the legs that run the harness (`kernel-run`, `kernel-time`): the lane's and
/// the harness's build (the judge is part of the harness).
pub(crate) fn with_harness() -> String {
    format!("{SOURCES};{HARNESS_BUILD}")
}
