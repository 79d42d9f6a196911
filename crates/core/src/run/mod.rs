//! Running a profile over candidates: the engine (one candidate), scoring runs (a pool, in
//! parallel, resumable), summaries, and GPU leases.

pub mod engine;

pub use engine::{Engine, EngineParts};
