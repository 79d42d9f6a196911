//! The sources the Q&A lane's results depend on, beside what every leg depends on (the engine's
//! part, aorlta-core's `build/identities.rs`): the whole of `aorlta-answer` (its tasks, the
//! extraction, the normaliser, the adapters). Included with `#[path]` by `build.rs`, which hashes
//! them into `AORLTA_LANE_HASH`, and by aorlta-core's identity tests.

/// The folders under `crates/`, whole.
pub(super) const SOURCES: &[&str] = &["answer"];
