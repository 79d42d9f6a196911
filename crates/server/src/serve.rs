//! Running the service: [`serve`] builds the router once over the shared state, hands it to
//! the accept loop with the connections it owns ([`crate::connections`]), and on a shutdown
//! signal drains within a deadline: it stops accepting, answers every request already accepted,
//! stops the workers and commits the store.

use crate::accept::accept_loop;
use crate::connections::{Connections, default_max_connections};
use crate::memory;
use crate::routes::app;
use crate::state::AppState;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

/// How long a cut-short drain waits for the store to commit what it holds.
const COMMIT_WAIT: Duration = Duration::from_secs(5);

/// How a drain ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Drained {
    /// Every accepted request was answered and the workers finished their queues.
    Whole,
    /// `limits.drain-timeout` passed first.
    Deadline,
    /// A second signal came first.
    Signal,
}

/// Serves `state` on `listener` until `shutdown` completes, then drains: no new connections,
/// every request already accepted is answered, the workers finish their queues and stop, and
/// the store commits what they put in it. The drain has `limits.drain-timeout`; it ends early
/// when `force` completes (a second signal). Cut short, it still commits the store (waiting
/// at most five seconds) and says so in its result; the caller then exits without waiting for
/// the connections and workers left.
/// Connections are capped and request heads time-limited (`connections.rs`); freed heap is
/// handed back to the OS every half minute (`memory.rs`).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
    force: impl Future<Output = ()>,
) -> std::io::Result<Drained> {
    let trimmer = memory::spawn_trimmer();
    let router = app(Arc::clone(&state));
    let limits = &state.limits;
    let conns = Arc::new(Connections::new(
        limits.max_connections.unwrap_or_else(default_max_connections),
        Arc::clone(&state.metrics),
    ));
    let graceful = accept_loop(listener, router, Arc::clone(&conns), limits, shutdown).await;
    let deadline = Instant::now() + state.limits.drain_timeout;
    let mut force = std::pin::pin!(force);
    let mut drained = tokio::select! {
        () = graceful.shutdown() => Drained::Whole,
        () = tokio::time::sleep_until(deadline) => Drained::Deadline,
        () = &mut force => Drained::Signal,
    };
    if drained == Drained::Whole {
        tracing::info!("every accepted request is answered; stopping the workers");
        let s = Arc::clone(&state);
        let workers = tokio::task::spawn_blocking(move || s.scheduler.shutdown());
        drained = tokio::select! {
            r = workers => {
                r.map_err(std::io::Error::other)?;
                Drained::Whole
            }
            () = tokio::time::sleep_until(deadline) => Drained::Deadline,
            () = &mut force => Drained::Signal,
        };
    }
    trimmer.abort();
    let open = conns.open();
    match drained {
        Drained::Whole => {}
        Drained::Deadline => tracing::warn!(
            open_connections = open,
            "`limits.drain-timeout` ({} s) passed before every request was answered; \
             committing the store and exiting",
            state.limits.drain_timeout.as_secs_f64()
        ),
        Drained::Signal => tracing::warn!(
            open_connections = open,
            "a second signal: committing the store and exiting without waiting"
        ),
    }
    let s = Arc::clone(&state);
    let commit = tokio::task::spawn_blocking(move || s.flush_cache());
    if drained == Drained::Whole {
        commit.await.map_err(std::io::Error::other)?;
    } else if tokio::time::timeout(COMMIT_WAIT, commit).await.is_err() {
        tracing::error!(
            "the store did not commit within {} s; what it held is lost",
            COMMIT_WAIT.as_secs()
        );
    }
    Ok(drained)
}
