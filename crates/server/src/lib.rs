//! The AORLTA HTTP service: trainers post completions from many workers at once and get reward
//! entries back, computed by the same engine, legs, cache and reward functions as
//! `aorlta score`. [`app`] builds the router over an [`AppState`]; [`serve`] runs it on a
//! listener until a shutdown signal, then drains within a deadline: it stops accepting, answers
//! every request already accepted, and stops the workers.
//!
//! Nothing here judges anything: scoring is `aorlta-core`'s; this crate parses requests,
//! bounds the work (queue, time limits, sizes), shares identical work, and reports.

mod accept;
pub mod answer;
pub mod auth;
pub mod body;
pub mod config;
pub mod connections;
pub mod episode_store;
pub mod episodes;
pub mod error;
pub mod items;
pub mod json_body;
pub mod memory;
pub mod metrics;
pub mod openapi;
pub mod openrlhf;
pub mod queue;
pub mod reading;
pub mod recent;
pub mod routes;
mod serve;
mod signals;
pub mod state;
pub mod wire;
pub mod write_timeout;

pub use config::ServeConfig;
pub use error::{ApiError, ServerError};
pub use routes::app;
pub use serve::{Drained, serve};
pub use signals::shutdown_signals;
pub use state::AppState;
