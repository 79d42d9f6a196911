//! The accept loop under [`crate::serve`], shaped as axum's `serve-with-hyper` example: the
//! router, built once per service, is handed in; each accepted connection is served by hyper's
//! HTTP/1.1 server over a clone of it (a tower service made a hyper one by hyper-util's
//! `TowerToHyperService`), watched by hyper-util's graceful shutdown.
//!
//! Each connection takes a place under the cap ([`crate::connections`]) or is closed at once;
//! its request heads must arrive within `limits.header-read-timeout` (the wait for the next
//! request on an idle keep-alive connection included), its writes must make progress within
//! `limits.write-timeout` ([`crate::write_timeout`]), and each of its requests carries its
//! [`ConnHandle`] and marks it busy until the answer's head is ready.

use crate::config::Limits;
use crate::connections::{ConnHandle, Connections};
use crate::write_timeout::WriteTimeout;
use axum::Router;
use axum::response::Response;
use hyper::Request;
use hyper::body::Incoming;
use hyper::server::conn::http1;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use hyper_util::service::TowerToHyperService;
use std::convert::Infallible;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

/// How long the loop waits after a failed `accept` before trying again.
const ACCEPT_RETRY: Duration = Duration::from_millis(20);

/// Accepts connections on `listener` until `shutdown` completes, serving each with `router`;
/// then closes the listener and hands back the connections' graceful shutdown (awaiting it
/// waits until every connection has answered the request it was reading or answering).
pub(crate) async fn accept_loop(
    listener: TcpListener,
    router: Router,
    conns: Arc<Connections>,
    limits: &Limits,
    shutdown: impl Future<Output = ()>,
) -> GracefulShutdown {
    let mut http = http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(limits.header_read_timeout)
        .keep_alive(true);
    let write_limit = limits.write_timeout;
    let graceful = GracefulShutdown::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            a = listener.accept() => a,
            () = &mut shutdown => break,
        };
        let tcp = match accepted {
            Ok((tcp, _)) => tcp,
            Err(e) => {
                // Out of file descriptors (or another transient failure): make room, then
                // retry shortly rather than spin. Logged at debug: a flood would fill the log;
                // the room made is counted in `aorlta_connections_closed_at_cap_total`.
                tracing::debug!(error = %e, open = conns.open(), "accept failed");
                conns.evict_one();
                tokio::time::sleep(ACCEPT_RETRY).await;
                continue;
            }
        };
        let Some(slot) = conns.admit() else {
            drop(tcp);
            continue;
        };
        let service = TowerToHyperService::new(on_connection(router.clone(), slot.handle()));
        let io = WriteTimeout::new(TokioIo::new(nodelay(tcp)), write_limit);
        let conn = graceful.watch(http.serve_connection(io, service));
        tokio::spawn(async move {
            tokio::select! {
                r = conn => {
                    if let Err(e) = r {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                }
                () = slot.closed() => {
                    tracing::debug!("connection closed to make room");
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    graceful
}

/// The router as one connection serves it: each request carries the connection's handle and
/// marks the connection busy until its answer's head is ready.
fn on_connection(
    router: Router,
    conn: ConnHandle,
) -> impl tower::Service<Request<Incoming>, Response = Response, Error = Infallible, Future = impl Send> + Clone
{
    tower::service_fn(move |mut req: Request<Incoming>| {
        let busy = conn.busy();
        req.extensions_mut().insert(conn.clone());
        let answer = router.clone().oneshot(req);
        async move {
            let resp = answer.await;
            drop(busy);
            resp
        }
    })
}

/// Small JSON answers must not wait for Nagle's algorithm.
fn nodelay(tcp: TcpStream) -> TcpStream {
    if let Err(e) = tcp.set_nodelay(true) {
        tracing::debug!(error = %e, "could not set TCP_NODELAY");
    }
    tcp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::Metrics;
    use axum::Extension;
    use axum::routing::get;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    #[tokio::test]
    async fn each_connection_is_served_by_the_router_it_was_handed_and_counted_until_it_closes() {
        let router = Router::new().route(
            "/",
            get(|conn: Option<Extension<ConnHandle>>| async move { format!("conn={}", conn.is_some()) }),
        );
        let conns = Arc::new(Connections::new(4, Arc::new(Metrics::default())));
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let serving = tokio::spawn({
            let conns = Arc::clone(&conns);
            async move {
                let limits = Limits::default();
                let shutdown = async {
                    let _ = stopped.await;
                };
                accept_loop(listener, router, conns, &limits, shutdown).await
            }
        });
        let mut client = TcpStream::connect(addr).await.unwrap();
        client
            .write_all(b"GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
            .await
            .unwrap();
        let mut answer = String::new();
        client.read_to_string(&mut answer).await.unwrap();
        assert!(answer.starts_with("HTTP/1.1 200"), "{answer}");
        assert!(answer.ends_with("conn=true"), "{answer}");
        stop.send(()).unwrap();
        let graceful = serving.await.unwrap();
        graceful.shutdown().await;
        for _ in 0..100 {
            if conns.open() == 0 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(conns.open(), 0, "the closed connection gave its place back");
    }
}
