//! Connections: the accept loop under [`crate::serve`], with a cap on open connections and a
//! time limit on request heads, so that clients which open connections and send nothing (or a
//! head that never ends) cannot use up the process's file descriptors and starve everyone else.
//!
//! Every connection is served by hyper's HTTP/1.1 server with `header_read_timeout` (the head of
//! each request, including the wait for it on an idle keep-alive connection, must arrive within
//! `limits.header-read-timeout`). At most `limits.max-connections` are open at once (by default
//! a share of the process's file-descriptor limit). When the cap is reached, the connection
//! that has been idle longest (no request being answered on it) is closed to make room; only
//! when every open connection is busy is the new one closed at once. So a flood of idle
//! connections always gives way to a client with a request, and `/healthz` answers under it.
//!
//! Writes are time-limited too ([`crate::write_timeout`]), and each request carries a
//! [`ConnHandle`] so that an answer its client does not read can have its connection closed
//! ([`crate::answer`]). The accept loop hands back hyper's graceful shutdown; [`crate::serve`]
//! gives it its deadline.

use crate::routes::app;
use crate::state::AppState;
use crate::write_timeout::WriteTimeout;
use axum::body::Body;
use hyper::body::Incoming;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::server::graceful::GracefulShutdown;
use std::collections::HashMap;
use std::future::Future;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use tokio::sync::Notify;
use tower::ServiceExt;

/// One open connection's state, shared by its task and the tracker.
#[derive(Debug)]
struct Conn {
    /// Requests being answered on it now.
    busy: AtomicUsize,
    /// When it last started or finished a request (ms since the tracker's start).
    last_ms: AtomicU64,
    /// Told to close (evicted to make room).
    evict: Notify,
}

/// A request's connection, in the request's extensions: closing it drops the connection (and
/// the answer it was writing).
#[derive(Debug, Clone)]
pub struct ConnHandle(Arc<Conn>);

impl ConnHandle {
    /// Tells the connection to close.
    pub fn close(&self) {
        self.0.evict.notify_one();
    }

    /// A handle to no connection, and whether it was told to close (for tests).
    #[cfg(test)]
    pub(crate) fn detached() -> (ConnHandle, impl Fn() -> bool) {
        let conn = Arc::new(Conn {
            busy: AtomicUsize::new(0),
            last_ms: AtomicU64::new(0),
            evict: Notify::new(),
        });
        let watch = Arc::clone(&conn);
        let closed = move || {
            let n = watch.evict.notified();
            let mut n = std::pin::pin!(n);
            // A stored permit makes the first poll ready.
            std::future::Future::poll(
                n.as_mut(),
                &mut std::task::Context::from_waker(std::task::Waker::noop()),
            )
            .is_ready()
        };
        (ConnHandle(conn), closed)
    }
}

/// The open connections, for the cap and the `aorlta_connections` gauge.
#[derive(Debug)]
pub struct Connections {
    cap: usize,
    metrics: Arc<crate::metrics::Metrics>,
    start: Instant,
    next: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Conn>>>,
}

/// A connection's place under the cap; dropping it frees the place.
#[derive(Debug)]
pub struct Slot {
    id: u64,
    conn: Arc<Conn>,
    owner: Arc<Connections>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        if let Ok(mut m) = self.owner.open.lock() {
            m.remove(&self.id);
        }
    }
}

/// Marks a connection busy while a request on it is answered.
struct Busy(Arc<Conn>, Instant);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.last_ms.store(ms_since(self.1), Ordering::Relaxed);
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

fn ms_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

impl Connections {
    /// A tracker admitting at most `cap` open connections, counting those closed at the cap.
    pub fn new(cap: usize, metrics: Arc<crate::metrics::Metrics>) -> Self {
        Connections {
            cap: cap.max(1),
            metrics,
            start: Instant::now(),
            next: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.open.lock().map(|m| m.len()).unwrap_or(0)
    }

    /// The cap.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// A place for a new connection. At the cap, the connection idle longest is told to close
    /// and the new one takes its place; `None` when every open connection is busy.
    pub fn admit(self: &Arc<Self>) -> Option<Slot> {
        let mut open = self.open.lock().ok()?;
        if open.len() >= self.cap {
            let idle = open
                .iter()
                .filter(|(_, c)| c.busy.load(Ordering::Acquire) == 0)
                .min_by_key(|(_, c)| c.last_ms.load(Ordering::Relaxed))
                .map(|(id, _)| *id)?;
            if let Some(c) = open.remove(&idle) {
                c.evict.notify_one();
                self.metrics.add_connection_refused();
            }
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let conn = Arc::new(Conn {
            busy: AtomicUsize::new(0),
            last_ms: AtomicU64::new(ms_since(self.start)),
            evict: Notify::new(),
        });
        open.insert(id, Arc::clone(&conn));
        Some(Slot {
            id,
            conn,
            owner: Arc::clone(self),
        })
    }

    /// Tells the connection idle longest to close (after `accept` failed for want of file
    /// descriptors).
    fn evict_one(&self) {
        let Ok(mut open) = self.open.lock() else { return };
        let idle = open
            .iter()
            .filter(|(_, c)| c.busy.load(Ordering::Acquire) == 0)
            .min_by_key(|(_, c)| c.last_ms.load(Ordering::Relaxed))
            .map(|(id, _)| *id);
        if let Some(c) = idle.and_then(|id| open.remove(&id)) {
            c.evict.notify_one();
            self.metrics.add_connection_refused();
        }
    }
}

/// The default connection cap: three quarters of the process's soft file-descriptor limit
/// (the rest is for the cache, compile folders, harness processes and logs), at most 65,536.
pub fn default_max_connections() -> usize {
    // `None` is no limit.
    let soft = match rustix::process::getrlimit(rustix::process::Resource::Nofile).current {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => 1 << 20,
    };
    (soft / 4 * 3).clamp(16, 65_536)
}

/// Accepts connections on `listener` until `shutdown` completes, serving each with the router;
/// then closes the listener and hands back the connections' graceful shutdown (awaiting it
/// waits until every connection has answered the request it was reading or answering).
pub async fn accept_loop(
    listener: tokio::net::TcpListener,
    state: Arc<AppState>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> GracefulShutdown {
    let router = app(Arc::clone(&state));
    let conns = Arc::clone(&state.connections);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(state.limits.header_read_timeout)
        .keep_alive(true);
    let write_limit = state.limits.write_timeout;
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
                tokio::time::sleep(Duration::from_millis(20)).await;
                continue;
            }
        };
        let Some(slot) = conns.admit() else {
            state.metrics.add_connection_refused();
            drop(tcp);
            continue;
        };
        if let Err(e) = tcp.set_nodelay(true) {
            // Small JSON answers must not wait for Nagle's algorithm.
            tracing::debug!(error = %e, "could not set TCP_NODELAY");
        }
        let conn_state = Arc::clone(&slot.conn);
        let start = conns.start;
        let router = router.clone();
        let service = hyper::service::service_fn(move |mut req: hyper::Request<Incoming>| {
            conn_state.busy.fetch_add(1, Ordering::AcqRel);
            let busy = Busy(Arc::clone(&conn_state), start);
            req.extensions_mut().insert(ConnHandle(Arc::clone(&conn_state)));
            let answer = router.clone().oneshot(req.map(Body::new));
            async move {
                let resp = answer.await;
                drop(busy);
                resp
            }
        });
        let io = WriteTimeout::new(TokioIo::new(tcp), write_limit);
        let conn = graceful.watch(http.serve_connection(io, service));
        tokio::spawn(async move {
            tokio::select! {
                r = conn => {
                    if let Err(e) = r {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                }
                () = slot.conn.evict.notified() => {
                    tracing::debug!("connection closed to make room");
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    graceful
}
