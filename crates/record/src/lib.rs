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
mod entry;
pub mod episode;
pub mod kernel;
mod leg;
mod task;
mod version;

pub use entry::{Parts, RewardEntry, VersionIdentity};
pub use leg::{LegResult, LegState, Reason};
pub use task::{Candidate, PoolLine, QaTask};
pub use version::{FORMAT_VERSION, FormatVersion};
