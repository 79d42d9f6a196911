//! Running a profile over candidates: the engine (one candidate, its legs through one door) and
//! the candidate pools it reads.

pub mod engine;
pub mod pool;

pub use engine::{Engine, EngineParts, Leg, LegStore, Legs, MAX_COMPLETION_BYTES, Scored, run_leg};
