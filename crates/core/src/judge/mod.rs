//! The timing judge (SPEC §3): pure statistics over interleaved per-launch times.
//!
//! (In progress.)

/// The judge's version; part of every timing leg's version identity.
pub const JUDGE_VERSION: &str = "judge-1";
