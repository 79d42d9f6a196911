//! Answers held for clients: every JSON answer of the scoring and task routes is counted from
//! the moment it is built until its last bytes are handed to the connection, so that clients
//! which do not read their answers cannot grow the service's memory without bound.
//!
//! An answer is handed over in 64 KiB pieces, each copied, so the connection's write buffer
//! holds at most a few pieces and the answer itself is freed when its last piece leaves. The
//! bytes held, all connections together, are bounded by `limits.max-unsent-bytes`: when a new
//! answer takes the total past it, the connections whose answers have made no progress for
//! longest (a client that stopped reading) are closed until it fits, which frees their answers.
//! A client that reads keeps its answer moving and is never the one closed while a stalled one
//! is held. `limits.write-timeout` ([`crate::write_timeout`]) closes a stalled connection in any
//! case.

use crate::connections::ConnHandle;
use crate::error::ApiError;
use crate::metrics::Metrics;
use axum::body::Body;
use axum::http::{HeaderValue, header};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use hyper::body::{Frame, SizeHint};
use serde::Serialize;
use std::collections::HashMap;
use std::convert::Infallible;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Instant;

/// The size of the pieces an answer is handed to its connection in.
const PIECE: usize = 64 << 10;

/// The answers held now, against the bound.
#[derive(Debug)]
pub struct Unsent {
    limit: usize,
    start: Instant,
    next: AtomicU64,
    /// Bytes of every answer held.
    bytes: AtomicUsize,
    /// Bytes of the answers whose connections were told to close (changed under `held`'s lock).
    cut_bytes: AtomicUsize,
    held: Mutex<HashMap<u64, Arc<Held>>>,
    metrics: Arc<Metrics>,
}

/// One answer held.
#[derive(Debug)]
struct Held {
    bytes: usize,
    /// When a piece of it last left (ms since the tracker's start).
    last_ms: AtomicU64,
    /// Its connection was told to close to make room.
    cut: AtomicBool,
    conn: Option<ConnHandle>,
}

impl Unsent {
    /// A tracker holding at most about `limit` bytes of answers.
    pub fn new(limit: usize, metrics: Arc<Metrics>) -> Arc<Self> {
        Arc::new(Unsent {
            limit,
            start: Instant::now(),
            next: AtomicU64::new(0),
            bytes: AtomicUsize::new(0),
            cut_bytes: AtomicUsize::new(0),
            held: Mutex::new(HashMap::new()),
            metrics,
        })
    }

    /// Bytes of answers built and not yet handed to their connections.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Acquire)
    }

    fn now_ms(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    /// Holds `data` as an answer on `conn`; closes stalled connections while the total is past
    /// the bound (never `conn` itself).
    pub fn hold(self: &Arc<Self>, data: Vec<u8>, conn: Option<ConnHandle>) -> AnswerBody {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let held = Arc::new(Held {
            bytes: data.len(),
            last_ms: AtomicU64::new(self.now_ms()),
            cut: AtomicBool::new(false),
            conn,
        });
        let mut map = self.held.lock().unwrap_or_else(|e| e.into_inner());
        map.insert(id, Arc::clone(&held));
        let total = self.bytes.fetch_add(held.bytes, Ordering::AcqRel) + held.bytes;
        self.make_room(&map, id, total);
        drop(map);
        AnswerBody {
            data,
            pos: 0,
            ticket: Some(Ticket {
                id,
                held,
                owner: Arc::clone(self),
            }),
        }
    }

    /// Closes the connections of the answers that made no progress for longest until the
    /// answers not being closed fit the bound.
    fn make_room(&self, map: &HashMap<u64, Arc<Held>>, new: u64, total: usize) {
        let mut live = total.saturating_sub(self.cut_bytes.load(Ordering::Acquire));
        if live <= self.limit {
            return;
        }
        let mut victims: Vec<(&u64, &Arc<Held>)> = map
            .iter()
            .filter(|(id, h)| **id != new && h.conn.is_some() && !h.cut.load(Ordering::Acquire))
            .collect();
        victims.sort_by_key(|(_, h)| h.last_ms.load(Ordering::Relaxed));
        for (_, h) in victims {
            if live <= self.limit {
                break;
            }
            h.cut.store(true, Ordering::Release);
            self.cut_bytes.fetch_add(h.bytes, Ordering::AcqRel);
            if let Some(c) = &h.conn {
                c.close();
            }
            self.metrics.add_unread_closed();
            live -= h.bytes;
        }
    }
}

/// An answer's place in the tracker; dropping it gives the bytes back.
#[derive(Debug)]
struct Ticket {
    id: u64,
    held: Arc<Held>,
    owner: Arc<Unsent>,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        // Under the lock, so that `make_room` sees the totals and the map agree.
        let mut map = self.owner.held.lock().unwrap_or_else(|e| e.into_inner());
        map.remove(&self.id);
        if self.held.cut.load(Ordering::Acquire) {
            self.owner.cut_bytes.fetch_sub(self.held.bytes, Ordering::AcqRel);
        }
        self.owner.bytes.fetch_sub(self.held.bytes, Ordering::AcqRel);
    }
}

/// The body of a held answer: its bytes in pieces, counted until the last piece leaves.
#[derive(Debug)]
pub struct AnswerBody {
    data: Vec<u8>,
    pos: usize,
    ticket: Option<Ticket>,
}

impl hyper::body::Body for AnswerBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        let this = self.get_mut();
        if this.pos >= this.data.len() {
            this.ticket = None;
            return Poll::Ready(None);
        }
        let end = (this.pos + PIECE).min(this.data.len());
        let piece = Bytes::copy_from_slice(&this.data[this.pos..end]);
        this.pos = end;
        if end == this.data.len() {
            // The last piece: the answer is the connection's now.
            this.data = Vec::new();
            this.pos = 0;
            this.ticket = None;
        } else if let Some(t) = &this.ticket {
            t.held.last_ms.store(t.owner.now_ms(), Ordering::Relaxed);
        }
        Poll::Ready(Some(Ok(Frame::data(piece))))
    }

    fn is_end_stream(&self) -> bool {
        self.pos >= self.data.len()
    }

    fn size_hint(&self) -> SizeHint {
        SizeHint::with_exact((self.data.len() - self.pos) as u64)
    }
}

/// A 200 answer of `value` as JSON, held in `unsent` until it is handed to `conn`.
pub(crate) fn json<T: Serialize>(unsent: &Arc<Unsent>, conn: Option<ConnHandle>, value: &T) -> Response {
    let data = match serde_json::to_vec(value) {
        Ok(d) => d,
        Err(e) => return ApiError::internal(format!("writing an answer: {e}")).into_response(),
    };
    let len = data.len();
    let mut resp = Response::new(Body::new(unsent.hold(data, conn)));
    let h = resp.headers_mut();
    h.insert(header::CONTENT_TYPE, HeaderValue::from_static("application/json"));
    h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    resp
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn an_answer_is_counted_until_its_last_piece_leaves() {
        let u = Unsent::new(1 << 20, Arc::new(Metrics::default()));
        let mut body = u.hold(vec![b'x'; 3 * PIECE + 1], None);
        assert_eq!(u.bytes(), 3 * PIECE + 1);
        let mut pieces = Vec::new();
        while let Some(f) = body.frame().await {
            pieces.push(f.unwrap().into_data().unwrap().len());
            if pieces.len() < 4 {
                assert_eq!(u.bytes(), 3 * PIECE + 1, "still held after {pieces:?}");
            }
        }
        assert_eq!(pieces, [PIECE, PIECE, PIECE, 1]);
        assert_eq!(u.bytes(), 0, "given back with the last piece");
        let small = u.hold(b"{}".to_vec(), None);
        assert_eq!(u.bytes(), 2);
        drop(small);
        assert_eq!(u.bytes(), 0, "given back when the connection drops it");
    }

    #[tokio::test]
    async fn past_the_bound_the_stalled_connection_is_closed_not_the_moving_one() {
        let u = Unsent::new(4 * PIECE, Arc::new(Metrics::default()));
        let (ca, a_closed) = ConnHandle::detached();
        let (cb, b_closed) = ConnHandle::detached();
        let (cc, c_closed) = ConnHandle::detached();
        let mut a = u.hold(vec![b'a'; 2 * PIECE], Some(ca));
        let b = u.hold(vec![b'b'; PIECE + 1], Some(cb));
        std::thread::sleep(std::time::Duration::from_millis(20));
        // a's client reads; b's does not.
        a.frame().await.unwrap().unwrap();
        let c = u.hold(vec![b'c'; 2 * PIECE], Some(cc));
        assert!(b_closed(), "b made no progress for longest");
        assert!(!a_closed(), "a moves");
        assert!(!c_closed(), "the new answer is never the one closed");
        drop(b);
        assert_eq!(u.bytes(), 4 * PIECE);
        drop((a, c));
        assert_eq!(u.bytes(), 0);
    }
}
