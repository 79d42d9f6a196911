//! The shutdown signals: the first SIGTERM or SIGINT starts the drain, the second cuts it
//! short ([`crate::serve`]).

use std::future::Future;

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
