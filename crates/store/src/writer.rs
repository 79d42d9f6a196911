//! The persistent stores' writer: puts go into a bounded queue (a full queue makes the putting
//! worker wait, so memory stays flat however fast results come), and one thread commits them
//! many rows per transaction: a batch closes at [`MAX_BATCH_ROWS`] rows, [`LINGER`] after its
//! first row, or at a flush. Until its batch is committed a row is held in a pending map that
//! reads consult first, so a result put is found by the next lookup, as when every put was its
//! own transaction. Uncommitted rows are at most the queue and one batch:
//! [`MAX_UNCOMMITTED_ROWS`], which is what a killed process can lose.

use crate::stored::StoredEntry;
use std::collections::HashMap;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// Most rows committed in one transaction.
pub const MAX_BATCH_ROWS: usize = 1024;
/// Rows the queue holds before a put waits.
const QUEUE_ROWS: usize = 1024;
/// Most rows put and not yet committed at any moment: the queue and the batch being committed.
pub const MAX_UNCOMMITTED_ROWS: usize = QUEUE_ROWS + MAX_BATCH_ROWS;
/// How long a batch waits for more rows after its first.
pub(crate) const LINGER: Duration = Duration::from_millis(20);

/// Which table a row goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Table {
    /// Leg results.
    Legs,
    /// Reward entries.
    Entries,
}

impl Table {
    fn index(self) -> usize {
        match self {
            Table::Legs => 0,
            Table::Entries => 1,
        }
    }
}

/// What a row holds.
#[derive(Debug, Clone)]
pub(crate) enum Value {
    /// A leg result's JSON.
    Leg(Arc<str>),
    /// A reward entry.
    Entry(StoredEntry),
}

impl Value {
    /// Its table.
    pub(crate) fn table(&self) -> Table {
        match self {
            Value::Leg(_) => Table::Legs,
            Value::Entry(_) => Table::Entries,
        }
    }

    /// True when both hold the very same text (not a copy).
    fn same(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::Leg(a), Value::Leg(b)) => Arc::ptr_eq(a, b),
            (Value::Entry(a), Value::Entry(b)) => a.same(b),
            _ => false,
        }
    }
}

/// One row to store: a key and its value.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    /// The key.
    pub key: Box<str>,
    /// The value.
    pub value: Value,
    /// Whether it takes the place of the row stored under its key (one that failed its check)
    /// rather than giving way to it.
    pub replace: bool,
}

/// What commits a batch: one transaction for all its rows, keeping the value already stored
/// under a key (the first writer's; a key's results are the same whoever computes them) unless
/// the row replaces it.
pub(crate) trait Commit: Send + 'static {
    /// Commits every row or none; the error says why.
    fn commit(&mut self, rows: &[Row]) -> Result<(), String>;
}

enum Msg {
    Row(Row),
    Flush(mpsc::Sender<()>),
}

/// Rows put and not committed yet, and the failures to commit.
#[derive(Default)]
struct Shared {
    pending: [Mutex<HashMap<Box<str>, Value>>; 2],
    failures: Mutex<Failures>,
}

#[derive(Default)]
struct Failures {
    rows: u64,
    reported: u64,
    first: Option<String>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// The writer of one store.
pub(crate) struct Writer {
    tx: Option<SyncSender<Msg>>,
    thread: Option<JoinHandle<()>>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Writer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Writer").finish_non_exhaustive()
    }
}

impl Writer {
    /// Starts the writer thread; `store` names the store in warnings.
    pub(crate) fn start(store: String, committer: impl Commit) -> std::io::Result<Self> {
        let (tx, rx) = mpsc::sync_channel(QUEUE_ROWS);
        let shared = Arc::new(Shared::default());
        let s = Arc::clone(&shared);
        let thread = std::thread::Builder::new()
            .name("aorlta-cache-writer".into())
            .spawn(move || run(rx, committer, &s, &store))?;
        Ok(Writer {
            tx: Some(tx),
            thread: Some(thread),
            shared,
        })
    }

    /// Queues a row (waiting while the queue is full), to replace the stored one when
    /// `replace`. A key already pending keeps its value.
    pub(crate) fn put(&self, key: &str, value: Value, replace: bool) {
        let table = value.table();
        {
            let mut p = lock(&self.shared.pending[table.index()]);
            if p.contains_key(key) {
                return;
            }
            p.insert(key.into(), value.clone());
        }
        let row = Row {
            key: key.into(),
            value,
            replace,
        };
        if let Some(tx) = &self.tx
            && tx.send(Msg::Row(row)).is_err()
        {
            // The writer thread is gone (it panicked): nothing will commit this row.
            lock(&self.shared.pending[table.index()]).remove(key);
        }
    }

    /// The value of a row put and not committed yet.
    pub(crate) fn pending(&self, table: Table, key: &str) -> Option<Value> {
        lock(&self.shared.pending[table.index()]).get(key).cloned()
    }

    /// [`Writer::pending`] for many keys, under one lock.
    pub(crate) fn pending_many(&self, table: Table, keys: &[&str]) -> Vec<Option<Value>> {
        let p = lock(&self.shared.pending[table.index()]);
        if p.is_empty() {
            return vec![None; keys.len()];
        }
        keys.iter().map(|k| p.get(*k).cloned()).collect()
    }

    /// Waits until every row queued so far is committed (or failed); an error when rows failed
    /// to commit since the last flush.
    pub(crate) fn flush(&self) -> Result<(), String> {
        // A row is pending from before it is queued until its batch is done: with none
        // pending, everything queued so far is done and the writer need not be asked.
        let idle = self.shared.pending.iter().all(|p| lock(p).is_empty());
        if !idle {
            let (ack, done) = mpsc::channel();
            let sent = self
                .tx
                .as_ref()
                .is_some_and(|tx| tx.send(Msg::Flush(ack)).is_ok());
            if !sent || done.recv().is_err() {
                return Err("the writer thread stopped".into());
            }
        }
        let mut f = lock(&self.shared.failures);
        if f.rows > f.reported {
            let new = f.rows - f.reported;
            f.reported = f.rows;
            return Err(format!(
                "{new} results could not be stored (they are computed again when asked for); first error: {}",
                f.first.as_deref().unwrap_or("unknown")
            ));
        }
        Ok(())
    }
}

impl Drop for Writer {
    /// Commits what is queued, then stops the thread.
    fn drop(&mut self) {
        drop(self.tx.take());
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// The writer thread: batches rows and commits them until every sender is gone and the queue
/// is empty.
fn run(rx: Receiver<Msg>, mut committer: impl Commit, shared: &Shared, store: &str) {
    let mut batch: Vec<Row> = Vec::with_capacity(MAX_BATCH_ROWS);
    let mut acks: Vec<mpsc::Sender<()>> = Vec::new();
    let take = |m: Msg, batch: &mut Vec<Row>, acks: &mut Vec<mpsc::Sender<()>>| match m {
        Msg::Row(r) => batch.push(r),
        Msg::Flush(a) => acks.push(a),
    };
    let mut open = true;
    while open {
        match rx.recv() {
            Ok(m) => take(m, &mut batch, &mut acks),
            Err(_) => break,
        }
        let deadline = Instant::now() + LINGER;
        while batch.len() < MAX_BATCH_ROWS && acks.is_empty() {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            match rx.recv_timeout(deadline - now) {
                Ok(m) => take(m, &mut batch, &mut acks),
                Err(RecvTimeoutError::Timeout) => break,
                Err(RecvTimeoutError::Disconnected) => {
                    open = false;
                    break;
                }
            }
        }
        if !batch.is_empty() {
            if let Err(e) = committer.commit(&batch) {
                let mut f = lock(&shared.failures);
                if f.first.is_none() {
                    eprintln!("warning: cache {store}: write failed: {e}");
                    f.first = Some(e);
                }
                f.rows += batch.len() as u64;
            }
            for r in batch.drain(..) {
                let mut p = lock(&shared.pending[r.value.table().index()]);
                if p.get(&r.key).is_some_and(|v| v.same(&r.value)) {
                    p.remove(&r.key);
                }
            }
        }
        for a in acks.drain(..) {
            let _ = a.send(());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Records batch sizes; fails the batches whose first key starts with `fail`.
    struct Recorder(Arc<Mutex<Vec<usize>>>, Arc<AtomicUsize>);

    impl Commit for Recorder {
        fn commit(&mut self, rows: &[Row]) -> Result<(), String> {
            std::thread::sleep(Duration::from_millis(1));
            lock(&self.0).push(rows.len());
            if rows[0].key.starts_with("fail") {
                return Err("disk full".into());
            }
            self.1.fetch_add(rows.len(), Ordering::SeqCst);
            Ok(())
        }
    }

    #[test]
    fn rows_are_batched_readable_until_committed_and_flushed() {
        let sizes = Arc::new(Mutex::new(Vec::new()));
        let stored = Arc::new(AtomicUsize::new(0));
        let w = Writer::start("t".into(), Recorder(sizes.clone(), stored.clone())).unwrap();
        for i in 0..5000 {
            w.put(&format!("k{i}"), Value::Leg(format!("v{i}").into()), false);
        }
        w.flush().unwrap();
        assert_eq!(stored.load(Ordering::SeqCst), 5000);
        assert!(
            w.pending(Table::Legs, "k4999").is_none(),
            "committed rows leave the pending map"
        );
        let sizes = lock(&sizes).clone();
        assert!(sizes.iter().all(|&n| n <= MAX_BATCH_ROWS), "{sizes:?}");
        assert!(
            sizes.len() < 5000 / 8,
            "many rows per transaction: {} batches",
            sizes.len()
        );
        w.put("fail-1", Value::Leg("x".into()), false);
        let err = w.flush().unwrap_err();
        assert!(
            err.contains("1 results could not be stored") && err.contains("disk full"),
            "{err}"
        );
        w.flush().unwrap();
    }

    /// Commits only once the gate is opened.
    struct Gated(mpsc::Receiver<()>, Arc<AtomicUsize>);

    impl Commit for Gated {
        fn commit(&mut self, rows: &[Row]) -> Result<(), String> {
            let _ = self.0.recv();
            self.1.fetch_add(rows.len(), Ordering::SeqCst);
            Ok(())
        }
    }

    #[test]
    fn a_pending_row_is_read_and_a_second_put_of_its_key_is_not_queued() {
        let (open, gate) = mpsc::channel();
        let stored = Arc::new(AtomicUsize::new(0));
        let w = Writer::start("t".into(), Gated(gate, stored.clone())).unwrap();
        w.put("a", Value::Leg("first".into()), false);
        w.put("a", Value::Leg("second".into()), false);
        match w.pending(Table::Legs, "a") {
            Some(Value::Leg(v)) => assert_eq!(&*v, "first"),
            other => panic!("not pending: {other:?}"),
        }
        assert!(w.pending(Table::Entries, "a").is_none(), "tables are apart");
        for _ in 0..3 {
            open.send(()).unwrap();
        }
        w.flush().unwrap();
        assert_eq!(stored.load(Ordering::SeqCst), 1);
        assert!(w.pending(Table::Legs, "a").is_none());
    }

    #[test]
    fn dropping_the_writer_commits_what_is_queued() {
        let stored = Arc::new(AtomicUsize::new(0));
        let w = Writer::start("t".into(), Recorder(Arc::default(), stored.clone())).unwrap();
        for i in 0..1500 {
            w.put(&format!("k{i}"), Value::Leg("".into()), false);
        }
        drop(w);
        assert_eq!(stored.load(Ordering::SeqCst), 1500);
    }
}
