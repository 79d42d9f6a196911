//! The identity the Q&A lane's results carry in their cache keys: its own sources, hashed at
//! build time (`build.rs`), so an edit of the lane is never served an old result and an edit
//! elsewhere keeps them.

/// The identity of the sources the Q&A lane's results depend on: the package version and a
/// hash of the whole of aorlta-answer (`build/lane.rs`). The engine adds what every leg depends
/// on (the record types, the lane interface, the engine itself).
pub const SOURCES: &str = concat!(env!("CARGO_PKG_VERSION"), "+qa.", env!("AORLTA_LANE_HASH"));
