//! The AORLTA HTTP service: trainers post completions from many workers at once and get reward
//! entries back, computed by the same engine, legs, cache and reward functions as
//! `aorlta score`. [`app`] builds the router over an [`AppState`]; [`serve`] runs it on a
//! listener until a shutdown signal, then drains within a deadline: it stops accepting, answers
//! every request already accepted, and stops the workers.
//!
//! Nothing here judges anything: scoring is `aorlta-core`'s; this crate parses requests,
//! bounds the work (queue, time limits, sizes), shares identical work, and reports.

pub mod answer;
pub mod auth;
pub mod body;
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
pub mod write_timeout;

pub use config::ServeConfig;
pub use error::{ApiError, ServerError};
pub use routes::app;
pub use state::AppState;

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
/// Connections are capped and request heads time-limited ([`conn`]); freed heap is handed back
/// to the OS every half minute ([`memory`]).
pub async fn serve(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
    force: impl Future<Output = ()>,
) -> std::io::Result<Drained> {
    let trimmer = memory::spawn_trimmer();
    let graceful = conn::accept_loop(listener, Arc::clone(&state), shutdown).await;
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
    let open = state.connections.open();
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

/// The first and the second SIGTERM or SIGINT (Ctrl-C), as two futures: the first starts the
/// drain, the second cuts it short. The handlers are installed before this returns, so it must
/// be called inside the runtime.
pub fn shutdown_signals() -> (
    impl Future<Output = ()> + Send + 'static,
    impl Future<Output = ()> + Send + 'static,
) {
    let (first_tx, first_rx) = tokio::sync::oneshot::channel::<()>();
    let (second_tx, second_rx) = tokio::sync::oneshot::channel::<()>();
    let mut signals = Signals::install();
    tokio::spawn(async move {
        let name = signals.next().await;
        tracing::info!("{name}: draining (a second signal exits at once)");
        let _ = first_tx.send(());
        let name = signals.next().await;
        tracing::warn!("{name} again: cutting the drain short");
        let _ = second_tx.send(());
    });
    let wait = |rx: tokio::sync::oneshot::Receiver<()>| async move {
        if rx.await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    (wait(first_rx), wait(second_rx))
}

/// The signal streams, installed once (a signal between the first and the second is not lost).
struct Signals {
    #[cfg(unix)]
    term: Option<tokio::signal::unix::Signal>,
    #[cfg(unix)]
    int: Option<tokio::signal::unix::Signal>,
}

impl Signals {
    fn install() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let install = |kind: SignalKind, name: &str| {
                signal(kind)
                    .map_err(|e| tracing::warn!(error = %e, "cannot handle {name}"))
                    .ok()
            };
            Signals {
                term: install(SignalKind::terminate(), "SIGTERM"),
                int: install(SignalKind::interrupt(), "SIGINT"),
            }
        }
        #[cfg(not(unix))]
        Signals {}
    }

    async fn next(&mut self) -> &'static str {
        #[cfg(unix)]
        {
            async fn recv(s: &mut Option<tokio::signal::unix::Signal>) {
                let got = match s {
                    Some(s) => s.recv().await.is_some(),
                    None => false,
                };
                if !got {
                    std::future::pending::<()>().await;
                }
            }
            tokio::select! {
                () = recv(&mut self.term) => "SIGTERM",
                () = recv(&mut self.int) => "SIGINT",
            }
        }
        #[cfg(not(unix))]
        {
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
            "Ctrl-C"
        }
    }
}
