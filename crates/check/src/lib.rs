//! AORLTA's lane and adapter interfaces and task model: what a leg gets ([`LegInput`], [`Env`])
//! and answers ([`LegOutput`]), the [`Adapter`] trait and its [`Registry`], the [`Lane`] trait
//! (a kind of task: its task files and rules, its `parse`, its adapters) and [`Lanes`] by name,
//! tasks and their loading, content hashes, YAML reading with lines, and the errors of AORLTA's
//! own machinery. It names no lane: each lane is a crate on this one alone, and the engine in
//! `aorlta-core` runs the lanes it is given.

mod adapter;
mod error;
mod generations;
mod hash;
pub mod input;
mod lane;
mod reason;
mod task;
mod task_set;
pub mod yaml;

pub use adapter::{Adapter, Env, LegInput, LegOutput, LegRunner, Registry, params};
pub use error::{CoreError, Result};
pub use generations::Generations;
pub use hash::{feed, hash_parts, hash_str};
pub use lane::{Lane, Lanes, ParseReason};
pub use reason::ReasonCode;
pub use task::{SkippedLine, Task};
pub use task_set::TaskSet;
