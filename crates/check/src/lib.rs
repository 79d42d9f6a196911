//! AORLTA's adapter interface and task model: what a leg gets ([`LegInput`], [`Env`]) and
//! answers ([`LegOutput`]), the [`Adapter`] trait and its [`Registry`], tasks and their loading,
//! content hashes, YAML reading with lines, and the errors of AORLTA's own machinery. The answer
//! and kernel lanes build on this crate alone; the engine in `aorlta-core` runs them.

mod adapter;
pub mod error;
pub mod generations;
pub mod hash;
pub mod task;
pub mod yaml;

pub use adapter::{Adapter, Env, LegInput, LegOutput, Registry, params};
pub use error::{CoreError, Result};
