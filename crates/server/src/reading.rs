//! The budget of request bodies being read, all connections together
//! (`limits.max-reading-bytes`): bytes count as they arrive, never by the `Content-Length` a
//! client declares, and are given back when the body is read or dropped. [`crate::body`] reads
//! under it; `/metrics` shows it.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The bodies being read now: how many and how many bytes, against the byte budget.
#[derive(Debug)]
pub struct Reading {
    limit: usize,
    bytes: AtomicUsize,
    bodies: AtomicUsize,
}

impl Reading {
    /// A budget of `limit` bytes for bodies being read at once.
    pub fn new(limit: usize) -> Arc<Self> {
        Arc::new(Reading {
            limit,
            bytes: AtomicUsize::new(0),
            bodies: AtomicUsize::new(0),
        })
    }

    /// Bytes of the bodies still arriving.
    pub fn bytes(&self) -> usize {
        self.bytes.load(Ordering::Acquire)
    }

    /// Bodies being read.
    pub fn bodies(&self) -> usize {
        self.bodies.load(Ordering::Acquire)
    }

    /// A new body's share of the budget, holding no bytes yet.
    pub(crate) fn start(self: &Arc<Self>) -> Share {
        self.bodies.fetch_add(1, Ordering::AcqRel);
        Share {
            owner: Arc::clone(self),
            bytes: 0,
        }
    }
}

/// One body's share of the budget; dropping it gives the bytes back.
#[derive(Debug)]
pub(crate) struct Share {
    owner: Arc<Reading>,
    bytes: usize,
}

impl Share {
    /// Takes `n` more bytes of the budget; false (taking none) when they do not fit.
    pub(crate) fn take(&mut self, n: usize) -> bool {
        let r = &self.owner;
        let taken = r
            .bytes
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |b| {
                b.checked_add(n).filter(|&t| t <= r.limit)
            })
            .is_ok();
        if taken {
            self.bytes += n;
        }
        taken
    }
}

impl Drop for Share {
    fn drop(&mut self) {
        self.owner.bytes.fetch_sub(self.bytes, Ordering::AcqRel);
        self.owner.bodies.fetch_sub(1, Ordering::AcqRel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_budget_counts_bytes_as_they_come_and_gives_them_back() {
        let r = Reading::new(10);
        let mut a = r.start();
        assert!(a.take(6));
        let mut b = r.start();
        assert!(!b.take(5), "6 + 5 is over 10");
        assert!(b.take(4));
        assert_eq!((r.bytes(), r.bodies()), (10, 2));
        drop(a);
        assert_eq!((r.bytes(), r.bodies()), (4, 1));
        drop(b);
        assert_eq!((r.bytes(), r.bodies()), (0, 0));
    }
}
