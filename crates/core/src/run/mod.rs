//! Running a profile over candidates: the engine (one candidate), scoring runs (a pool, in
//! parallel, resumable), summaries and the harness validation suite.

pub mod config;
pub mod dataset;
pub mod engine;
pub mod episodes;
pub mod eval;
pub mod plot;
pub mod pool;
pub mod score;
pub mod summary;
pub mod validation;

pub use config::RunConfig;
pub use engine::{Engine, EngineParts, Leg, LegStore, Legs, MAX_COMPLETION_BYTES, Scored, run_leg};
pub use summary::Summary;
