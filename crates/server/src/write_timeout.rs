//! A connection's I/O with a write time limit: when the socket takes no bytes for
//! `limits.write-timeout` (its client stopped reading and the buffers are full), the next write
//! fails with `TimedOut` and hyper closes the connection, dropping the answer it held. hyper's
//! HTTP/1.1 server limits how long a request head may take to arrive, never how long an answer
//! may wait for its reader; this is the other half.
//!
//! The limit is on progress, as nginx's `send_timeout`: it runs from the first write the socket
//! refused and starts again whenever a byte is taken, so a large answer to a slow reader is not
//! cut while it moves.

use hyper::rt::{Read, ReadBufCursor, Sleep, Timer, Write};
use hyper_util::rt::TokioTimer;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

/// `io` whose writes fail once the socket has refused bytes for `limit`.
pub(crate) struct WriteTimeout<T> {
    io: T,
    limit: Duration,
    timer: TokioTimer,
    stalled: Option<Pin<Box<dyn Sleep>>>,
}

impl<T> WriteTimeout<T> {
    /// Wraps `io`.
    pub(crate) fn new(io: T, limit: Duration) -> Self {
        WriteTimeout {
            io,
            limit,
            timer: TokioTimer::new(),
            stalled: None,
        }
    }

    /// After a write: progress clears the clock; a refusal starts it (or checks it).
    fn watch<R>(&mut self, cx: &mut Context<'_>, r: Poll<io::Result<R>>) -> Poll<io::Result<R>> {
        match r {
            Poll::Pending => {
                let limit = self.limit;
                let timer = &self.timer;
                let sleep = self.stalled.get_or_insert_with(|| timer.sleep(limit));
                match sleep.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!(
                            "the client took no bytes of its answer for {} s",
                            limit.as_secs_f64()
                        ),
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
            ready => {
                self.stalled = None;
                ready
            }
        }
    }
}

impl<T: Read + Unpin> Read for WriteTimeout<T> {
    fn poll_read(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: ReadBufCursor<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().io).poll_read(cx, buf)
    }
}

impl<T: Write + Unpin> Write for WriteTimeout<T> {
    fn poll_write(self: Pin<&mut Self>, cx: &mut Context<'_>, buf: &[u8]) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.io).poll_write(cx, buf);
        this.watch(cx, r)
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.io).poll_flush(cx);
        this.watch(cx, r)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.io).poll_shutdown(cx);
        this.watch(cx, r)
    }

    fn is_write_vectored(&self) -> bool {
        self.io.is_write_vectored()
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let r = Pin::new(&mut this.io).poll_write_vectored(cx, bufs);
        this.watch(cx, r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper_util::rt::TokioIo;

    #[tokio::test]
    async fn a_write_the_peer_never_takes_fails_after_the_limit() {
        let (a, _b) = tokio::io::duplex(1024);
        let mut io = WriteTimeout::new(TokioIo::new(a), Duration::from_millis(200));
        let t0 = std::time::Instant::now();
        let big = vec![0u8; 4096];
        let err = loop {
            match std::future::poll_fn(|cx| Pin::new(&mut io).poll_write(cx, &big)).await {
                Ok(_) => continue,
                Err(e) => break e,
            }
        };
        assert_eq!(err.kind(), io::ErrorKind::TimedOut);
        let waited = t0.elapsed();
        assert!(
            waited >= Duration::from_millis(200) && waited < Duration::from_secs(5),
            "{waited:?}"
        );
    }
}
