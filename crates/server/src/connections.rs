//! The open connections: how many, which are busy, and which to close when the cap is reached,
//! so that clients which open connections and send nothing (or a head that never ends) cannot
//! use up the process's file descriptors and starve everyone else.
//!
//! At most `limits.max-connections` are open at once (by default a share of the process's
//! file-descriptor limit). When the cap is reached, the connection that has been idle longest
//! (no request being answered on it) is closed to make room; only when every open connection is
//! busy is the new one closed at once. So a flood of idle connections always gives way to a
//! client with a request, and `/healthz` answers under it.
//!
//! [`crate::serve`] owns the [`Connections`] of one service and its accept loop takes a [`Slot`]
//! for each connection; each request carries a [`ConnHandle`] so that an answer its client does
//! not read can have its connection closed ([`crate::answer`]). Nothing here knows the router or
//! the shared state.

use crate::metrics::Metrics;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Instant;
use tokio::sync::Notify;

/// One open connection's state, shared by its task, its requests and the tracker.
#[derive(Debug)]
struct Conn {
    /// Requests being answered on it now.
    busy: AtomicUsize,
    /// When it last started or finished a request (ms since `epoch`).
    last_ms: AtomicU64,
    /// The tracker's start, which `last_ms` counts from.
    epoch: Instant,
    /// Told to close (evicted to make room).
    evict: Notify,
}

impl Conn {
    fn new(epoch: Instant) -> Arc<Self> {
        Arc::new(Conn {
            busy: AtomicUsize::new(0),
            last_ms: AtomicU64::new(ms_since(epoch)),
            epoch,
            evict: Notify::new(),
        })
    }

    fn is_idle(&self) -> bool {
        self.busy.load(Ordering::Acquire) == 0
    }
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

    /// Marks the connection busy until the guard is dropped (a request on it is being
    /// answered): the cap never closes a busy connection to make room.
    pub(crate) fn busy(&self) -> Busy {
        self.0.busy.fetch_add(1, Ordering::AcqRel);
        Busy(Arc::clone(&self.0))
    }

    /// A handle to no connection, and whether it was told to close (for tests).
    #[cfg(test)]
    pub(crate) fn detached() -> (ConnHandle, impl Fn() -> bool) {
        let conn = Conn::new(Instant::now());
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

/// Marks a connection busy while a request on it is answered.
#[derive(Debug)]
pub(crate) struct Busy(Arc<Conn>);

impl Drop for Busy {
    fn drop(&mut self) {
        self.0.last_ms.store(ms_since(self.0.epoch), Ordering::Relaxed);
        self.0.busy.fetch_sub(1, Ordering::AcqRel);
    }
}

fn ms_since(start: Instant) -> u64 {
    u64::try_from(start.elapsed().as_millis()).unwrap_or(u64::MAX)
}

/// The open connections of one service: the cap, and the `aorlta_connections` gauge and
/// `aorlta_connections_closed_at_cap_total` counter.
#[derive(Debug)]
pub(crate) struct Connections {
    cap: usize,
    metrics: Arc<Metrics>,
    start: Instant,
    next: AtomicU64,
    open: Mutex<HashMap<u64, Arc<Conn>>>,
}

/// A connection's place under the cap; dropping it frees the place.
#[derive(Debug)]
pub(crate) struct Slot {
    id: u64,
    conn: Arc<Conn>,
    owner: Arc<Connections>,
}

impl Slot {
    /// The handle its requests carry.
    pub(crate) fn handle(&self) -> ConnHandle {
        ConnHandle(Arc::clone(&self.conn))
    }

    /// Completes when the connection is told to close (to make room, or because its client
    /// does not take its answers).
    pub(crate) async fn closed(&self) {
        self.conn.evict.notified().await;
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut open = self.owner.lock();
        open.remove(&self.id);
        self.owner.metrics.set_connections(open.len());
    }
}

impl Connections {
    /// A tracker admitting at most `cap` open connections, counting those closed at the cap.
    pub(crate) fn new(cap: usize, metrics: Arc<Metrics>) -> Self {
        metrics.set_connections(0);
        Connections {
            cap: cap.max(1),
            metrics,
            start: Instant::now(),
            next: AtomicU64::new(0),
            open: Mutex::new(HashMap::new()),
        }
    }

    /// The map of open connections (a panic elsewhere while it was held leaves it usable).
    fn lock(&self) -> MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Connections open now.
    pub(crate) fn open(&self) -> usize {
        self.lock().len()
    }

    /// A place for a new connection. At the cap, the connection idle longest is told to close
    /// and the new one takes its place; `None` (counted as closed at the cap) when every open
    /// connection is busy.
    pub(crate) fn admit(self: &Arc<Self>) -> Option<Slot> {
        let mut open = self.lock();
        if open.len() >= self.cap && !self.evict_idlest(&mut open) {
            self.metrics.add_connection_refused();
            return None;
        }
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let conn = Conn::new(self.start);
        open.insert(id, Arc::clone(&conn));
        self.metrics.set_connections(open.len());
        Some(Slot {
            id,
            conn,
            owner: Arc::clone(self),
        })
    }

    /// Tells the connection idle longest to close (after `accept` failed for want of file
    /// descriptors).
    pub(crate) fn evict_one(&self) {
        let mut open = self.lock();
        self.evict_idlest(&mut open);
    }

    /// Tells the connection idle longest to close and forgets it; false when every one is busy.
    fn evict_idlest(&self, open: &mut HashMap<u64, Arc<Conn>>) -> bool {
        let idle = open
            .iter()
            .filter(|(_, c)| c.is_idle())
            .min_by_key(|(_, c)| c.last_ms.load(Ordering::Relaxed))
            .map(|(id, _)| *id);
        let Some(c) = idle.and_then(|id| open.remove(&id)) else {
            return false;
        };
        c.evict.notify_one();
        self.metrics.add_connection_refused();
        self.metrics.set_connections(open.len());
        true
    }
}

/// The default connection cap: three quarters of the process's soft file-descriptor limit
/// (the rest is for the cache, compile folders, harness processes and logs), at most 65,536.
pub(crate) fn default_max_connections() -> usize {
    // `None` is no limit.
    let soft = match rustix::process::getrlimit(rustix::process::Resource::Nofile).current {
        Some(n) => usize::try_from(n).unwrap_or(usize::MAX),
        None => 1 << 20,
    };
    (soft / 4 * 3).clamp(16, 65_536)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn at_the_cap_the_idlest_connection_gives_way_unless_every_one_is_busy() {
        let metrics = Arc::new(Metrics::default());
        let conns = Arc::new(Connections::new(2, Arc::clone(&metrics)));
        let a = conns.admit().unwrap();
        let b = conns.admit().unwrap();
        let a_busy = a.handle().busy();
        let c = conns.admit().expect("b is idle and gives way");
        assert_eq!(conns.open(), 2);
        let (_b_busy, _c_busy) = (b.handle().busy(), c.handle().busy());
        assert!(conns.admit().is_none(), "a and c are busy");
        drop(a_busy);
        drop(a);
        assert_eq!(conns.open(), 1);
        let text = metrics.render(&crate::metrics::Gauges::default());
        assert!(text.contains("aorlta_connections 1\n"), "{text}");
        assert!(
            text.contains("aorlta_connections_closed_at_cap_total 2\n"),
            "{text}"
        );
        drop((b, c));
        assert_eq!(conns.open(), 0);
    }
}
