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
mod input;
mod lane;
mod reason;
mod task;
mod task_set;
mod yaml;

pub use crate::adapter::{Adapter, Env, LegInput, LegOutput, LegRunner, Registry, params};
pub use crate::error::{CoreError, Result};
pub use crate::generations::Generations;
pub use crate::hash::{feed, hash_parts, hash_str};
pub use crate::input::{TEXT_LIMIT, open_input, read_input, read_input_text};
pub use crate::lane::{Lane, Lanes, ParseReason};
pub use crate::reason::ReasonCode;
pub use crate::task::{SkippedLine, Task};
pub use crate::task_set::TaskSet;
pub use crate::yaml::{load_yaml, parse_yaml, yaml_error, yaml_section};
