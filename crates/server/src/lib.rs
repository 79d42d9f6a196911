//! The AORLTA HTTP service: trainers post completions from many workers at once and get reward
//! entries back, computed by the same engine, legs, cache and reward functions as
//! `aorlta score`. [`app`] builds the router over an [`AppState`]; [`serve`] runs it on a
//! listener until a shutdown signal, then drains within a deadline: it stops accepting, answers
//! every request already accepted, and stops the workers.
//!
//! Nothing here judges anything: scoring is `aorlta-core`'s; this crate parses requests,
//! bounds the work (queue, time limits, sizes), shares identical work, and reports.

mod accept;
mod answer;
mod auth;
mod body;
mod config;
mod connections;
mod episode_store;
mod episodes;
mod error;
mod items;
mod json_body;
mod memory;
mod metrics;
mod openapi;
mod openrlhf;
mod queue;
mod reading;
mod recent;
mod routes;
mod serve;
mod signals;
mod state;
mod wire;
mod write_timeout;

pub use auth::{TOKEN_VAR, Token, check_bind};
pub use config::ServeConfig;
pub use error::{ApiError, ServerError};
pub use memory::limit_arenas;
pub use routes::app;
pub use serve::{Drained, serve};
pub use signals::shutdown_signals;
pub use state::{AppState, ServeEnv};
