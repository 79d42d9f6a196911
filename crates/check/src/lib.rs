//! AORLTA's adapter interface and task model: what a leg gets ([`LegInput`], [`Env`]) and
//! answers ([`LegOutput`]), the [`Adapter`] trait and its [`Registry`], tasks and their loading,
//! content hashes, YAML reading with lines, and the errors of AORLTA's own machinery. The answer
//! and kernel lanes build on this crate alone; the engine in `aorlta-core` runs them.

mod adapter;
mod error;
mod generations;
mod hash;
pub mod input;
pub mod kernel_rules;
mod reason;
mod task;
pub mod yaml;

pub use adapter::{Adapter, Env, LegInput, LegOutput, LegRunner, Registry, params};
pub use error::{CoreError, Result};
pub use generations::Generations;
pub use hash::{feed, hash_parts, hash_str};
pub use reason::ReasonCode;
pub use task::{KernelTaskDef, SkippedLine, Task, TaskKind, TaskSet};
