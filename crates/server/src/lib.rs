//! The AORLTA HTTP service: trainers post completions from many workers at once and get reward
//! entries back, computed by the same engine, legs, cache and reward functions as
//! `aorlta score`. [`app`] builds the router over an [`AppState`]; [`serve`] runs it on a
//! listener until a shutdown signal, then drains: it stops accepting, answers every request
//! already accepted, and stops the workers.
//!
//! Nothing here judges anything: scoring is `aorlta-core`'s; this crate parses requests,
//! bounds the work (queue, time limits, sizes), shares identical work, and reports.

pub mod bench;
pub mod config;
pub mod conn;
pub mod error;
pub mod items;
pub mod memory;
pub mod metrics;
pub mod openrlhf;
pub mod queue;
pub mod routes;
pub mod state;
pub mod wire;

pub use config::ServeConfig;
pub use error::{ApiError, ServerError};
pub use routes::app;
pub use state::AppState;

use std::future::Future;
use std::sync::Arc;

/// Serves `state` on `listener` until `shutdown` completes, then drains: no new connections,
/// every request already accepted is answered, the workers finish their queues and stop, and
/// the store commits what they put in it.
/// Connections are capped and request heads time-limited ([`conn`]); freed heap is handed back
/// to the OS every half minute ([`memory`]).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let trimmer = memory::spawn_trimmer();
    conn::accept_loop(listener, Arc::clone(&state), shutdown).await;
    trimmer.abort();
    tracing::info!("every accepted request is answered; stopping the workers");
    let s = Arc::clone(&state);
    tokio::task::spawn_blocking(move || {
        s.scheduler.shutdown();
        s.flush_cache();
    })
    .await
    .map_err(std::io::Error::other)?;
    Ok(())
}

/// Completes on SIGTERM or SIGINT (Ctrl-C).
pub async fn shutdown_signal() {
    let ctrl_c = async {
        if tokio::signal::ctrl_c().await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    #[cfg(unix)]
    let term = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut s) => {
                s.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    #[cfg(not(unix))]
    let term = std::future::pending::<()>();
    tokio::select! {
        _ = ctrl_c => tracing::info!("SIGINT: draining"),
        _ = term => tracing::info!("SIGTERM: draining"),
    }
}
