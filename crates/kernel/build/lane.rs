//! The sources the kernel lane's results depend on, beside what every leg depends on (the
//! engine's part, aorlta-core's `build/identities.rs`) and the harness the run and timing legs
//! go through (`HARNESS_BUILD`): the whole of `aorlta-kernel` (its tasks and rules, the source
//! extraction, the compile seam with the Triton driver script and the HIP portability headers,
//! the harness seam, the adapters). Included with `#[path]` by `build.rs`, which hashes them into
//! `AORLTA_LANE_HASH`, and by aorlta-core's identity tests.

/// The folders under `crates/`, whole.
pub(super) const SOURCES: &[&str] = &["kernel"];
