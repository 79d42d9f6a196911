//! GPU leases (docs/ARCHITECTURE.md, "GPU leases"). A timing job has its GPU alone, across
//! every process of the host: a shared GPU's timings are noise. Correctness and sanity jobs time
//! nothing, so up to `checks-per-gpu` of them share a GPU, each in a harness process (a CUDA
//! context, an address space) of its own, and never beside a timing job. Each GPU of the
//! configured set has a lock file under the lease folder (`gpu-<index>.lock`): a lease alone is
//! an exclusive `flock` on it, a shared one a shared `flock`; either is released when the lease
//! is dropped or the process dies (the kernel drops the lock with the file). Inside a process a
//! waiting timing job goes first: no new shared lease is granted while one waits, so a stream
//! of correctness jobs cannot starve the timings. A job waits, up to a limit, for a GPU.

use std::collections::HashMap;
use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

/// A lease could not be had.
#[derive(Debug, thiserror::Error)]
pub enum LeaseError {
    /// The lease folder or a lock file could not be used.
    #[error("lease folder {path}: {source}")]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// Every GPU stayed busy for the whole wait.
    #[error("no GPU of {gpus:?} was free within {waited_s:.1} s")]
    Busy {
        /// The set.
        gpus: Vec<u32>,
        /// Seconds waited.
        waited_s: f64,
    },
    /// The set is empty.
    #[error("no GPU is configured")]
    Empty,
}

/// How a job uses its GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Use {
    /// Nothing else runs on the GPU (timing).
    Alone,
    /// Beside other shared jobs, never beside a job alone (correctness, sanity).
    Shared,
}

/// Wakes this process's waiters the moment one of its leases is released, so a GPU freed
/// inside the process is taken at once rather than at a waiter's next poll.
#[derive(Debug, Default)]
struct Released {
    count: Mutex<u64>,
    cond: Condvar,
}

/// Which shared slots of each GPU this process holds.
type Slots = Arc<Mutex<HashMap<u32, Vec<bool>>>>;

/// The GPUs a process may lease, and where their lock files live.
#[derive(Debug)]
pub struct LeaseSet {
    dir: PathBuf,
    gpus: Vec<u32>,
    next: AtomicUsize,
    held: Arc<AtomicUsize>,
    released: Arc<Released>,
    shared_max: usize,
    slots: Slots,
    alone_waiting: AtomicUsize,
}

/// Use of one GPU until dropped: alone, or in one shared slot.
#[derive(Debug)]
pub struct Lease {
    gpu: u32,
    slot: usize,
    file: Option<File>,
    held: Arc<AtomicUsize>,
    released: Arc<Released>,
    shared: Option<Slots>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        // The lock goes with the file; only then are the slot freed and waiters woken.
        drop(self.file.take());
        if let Some(slots) = &self.shared {
            let mut m = slots.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(s) = m.get_mut(&self.gpu).and_then(|v| v.get_mut(self.slot)) {
                *s = false;
            }
        }
        self.held.fetch_sub(1, Ordering::Relaxed);
        let mut n = self.released.count.lock().unwrap_or_else(|e| e.into_inner());
        *n += 1;
        self.released.cond.notify_all();
    }
}

impl Lease {
    /// The leased GPU's ordinal.
    pub fn gpu(&self) -> u32 {
        self.gpu
    }

    /// The slot on the GPU: 0 for a lease alone, 0 to `checks-per-gpu - 1` for a shared one.
    /// Each slot has a harness process of its own.
    pub fn slot(&self) -> usize {
        self.slot
    }
}

/// Decrements a counter when dropped.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::Relaxed);
    }
}

impl LeaseSet {
    /// A lease set over `gpus` with lock files in `dir` (created if missing); one job per GPU
    /// at a time until [`LeaseSet::with_shared`].
    pub fn new(dir: &Path, gpus: Vec<u32>) -> Result<Self, LeaseError> {
        std::fs::create_dir_all(dir).map_err(|source| LeaseError::Io {
            path: dir.to_path_buf(),
            source,
        })?;
        Ok(LeaseSet {
            dir: dir.to_path_buf(),
            gpus,
            next: AtomicUsize::new(0),
            held: Arc::default(),
            released: Arc::default(),
            shared_max: 1,
            slots: Arc::default(),
            alone_waiting: AtomicUsize::new(0),
        })
    }

    /// Up to `n` shared leases of one GPU at once in this process (1: shared jobs are leased
    /// alone, as timing jobs are).
    pub fn with_shared(mut self, n: usize) -> Self {
        self.shared_max = n.max(1);
        self
    }

    /// Leases of this set held now by this process.
    pub fn held(&self) -> usize {
        self.held.load(Ordering::Relaxed)
    }

    /// The GPUs of the set.
    pub fn gpus(&self) -> &[u32] {
        &self.gpus
    }

    /// The lock file of one GPU.
    pub fn lock_path(&self, gpu: u32) -> PathBuf {
        self.dir.join(format!("gpu-{gpu}.lock"))
    }

    fn open(&self, gpu: u32) -> Result<(File, PathBuf), LeaseError> {
        let path = self.lock_path(gpu);
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| LeaseError::Io {
                path: path.clone(),
                source,
            })?;
        Ok((file, path))
    }

    fn lease(&self, gpu: u32, slot: usize, file: File, shared: bool) -> Lease {
        self.held.fetch_add(1, Ordering::Relaxed);
        Lease {
            gpu,
            slot,
            file: Some(file),
            held: Arc::clone(&self.held),
            released: Arc::clone(&self.released),
            shared: shared.then(|| Arc::clone(&self.slots)),
        }
    }

    /// A GPU to use alone now, if any (trying them from a rotating start, so jobs spread).
    pub fn try_acquire(&self) -> Result<Option<Lease>, LeaseError> {
        self.try_acquire_as(Use::Alone)
    }

    /// A lease of `how` now, if one is free.
    pub fn try_acquire_as(&self, how: Use) -> Result<Option<Lease>, LeaseError> {
        if self.gpus.is_empty() {
            return Err(LeaseError::Empty);
        }
        let shared = how == Use::Shared && self.shared_max > 1;
        if shared && self.alone_waiting.load(Ordering::Relaxed) > 0 {
            return Ok(None);
        }
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        for k in 0..self.gpus.len() {
            let gpu = self.gpus[(start + k) % self.gpus.len()];
            if !shared {
                let (file, path) = self.open(gpu)?;
                match fs4::FileExt::try_lock(&file) {
                    Ok(()) => return Ok(Some(self.lease(gpu, 0, file, false))),
                    Err(fs4::TryLockError::WouldBlock) => continue,
                    Err(fs4::TryLockError::Error(source)) => return Err(LeaseError::Io { path, source }),
                }
            }
            let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
            let taken = slots.entry(gpu).or_insert_with(|| vec![false; self.shared_max]);
            let Some(slot) = taken.iter().position(|t| !*t) else {
                continue;
            };
            let (file, path) = self.open(gpu)?;
            match fs4::FileExt::try_lock_shared(&file) {
                Ok(()) => {
                    taken[slot] = true;
                    drop(slots);
                    return Ok(Some(self.lease(gpu, slot, file, true)));
                }
                Err(fs4::TryLockError::WouldBlock) => {}
                Err(fs4::TryLockError::Error(source)) => return Err(LeaseError::Io { path, source }),
            }
        }
        Ok(None)
    }

    /// Waits up to `wait` for a GPU to use alone.
    pub fn acquire(&self, wait: Duration) -> Result<Lease, LeaseError> {
        self.acquire_as(wait, Use::Alone)
    }

    /// Waits up to `wait` for a lease of `how`. While one waits for a GPU alone, this process
    /// grants no new shared lease. A release inside this process wakes the waiter at once; one
    /// by another process is seen at the next poll (2 ms, doubling to 50 ms).
    pub fn acquire_as(&self, wait: Duration, how: Use) -> Result<Lease, LeaseError> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(2);
        let _waiting = (how == Use::Alone).then(|| {
            self.alone_waiting.fetch_add(1, Ordering::Relaxed);
            Waiting(&self.alone_waiting)
        });
        loop {
            let seen = *self.released.count.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(l) = self.try_acquire_as(how)? {
                return Ok(l);
            }
            if start.elapsed() >= wait {
                return Err(LeaseError::Busy {
                    gpus: self.gpus.clone(),
                    waited_s: start.elapsed().as_secs_f64(),
                });
            }
            let guard = self.released.count.lock().unwrap_or_else(|e| e.into_inner());
            let timeout = pause.min(wait.saturating_sub(start.elapsed()));
            let _ = self
                .released
                .cond
                .wait_timeout_while(guard, timeout, |n| *n == seen)
                .unwrap_or_else(|e| e.into_inner());
            pause = (pause * 2).min(Duration::from_millis(50));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_job_per_gpu_and_release_on_drop() {
        let d = tempfile::tempdir().unwrap();
        let set = LeaseSet::new(d.path(), vec![0, 1]).unwrap();
        let a = set.acquire(Duration::from_millis(10)).unwrap();
        let b = set.acquire(Duration::from_millis(10)).unwrap();
        assert_ne!(a.gpu(), b.gpu());
        assert_eq!(set.held(), 2);
        let err = set.acquire(Duration::from_millis(30)).unwrap_err();
        assert!(matches!(err, LeaseError::Busy { .. }), "{err}");
        let freed = a.gpu();
        drop(a);
        assert_eq!(set.acquire(Duration::from_millis(10)).unwrap().gpu(), freed);
    }

    #[test]
    fn leases_hold_across_sets_and_a_waiter_gets_the_gpu_when_freed() {
        let d = tempfile::tempdir().unwrap();
        let one = LeaseSet::new(d.path(), vec![3]).unwrap();
        let other = LeaseSet::new(d.path(), vec![3]).unwrap();
        let held = one.acquire(Duration::from_millis(10)).unwrap();
        assert!(other.try_acquire().unwrap().is_none());
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            drop(held);
        });
        let got = other.acquire(Duration::from_secs(5)).unwrap();
        assert_eq!(got.gpu(), 3);
        t.join().unwrap();
    }

    #[test]
    fn a_lock_held_by_another_process_is_respected_and_freed_when_it_dies() {
        let d = tempfile::tempdir().unwrap();
        let set = LeaseSet::new(d.path(), vec![0]).unwrap();
        let lock = set.lock_path(0);
        // `flock` from util-linux holds the lock while its command runs, if present; the command
        // inherits the lock, so the whole process group is killed.
        let child = std::os::unix::process::CommandExt::process_group(
            std::process::Command::new("flock")
                .arg("-x")
                .arg(&lock)
                .args(["sleep", "30"]),
            0,
        )
        .spawn();
        let Ok(mut child) = child else {
            eprintln!("skipped: no `flock` program");
            return;
        };
        let t = Instant::now();
        while t.elapsed() < Duration::from_secs(5) {
            if set.try_acquire().unwrap().is_none() {
                break;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        assert!(
            set.try_acquire().unwrap().is_none(),
            "the other process holds GPU 0"
        );
        // The process group the test started.
        crate::compiler::sandbox::kill_group(child.id());
        child.wait().unwrap();
        assert!(
            set.acquire(Duration::from_secs(2)).is_ok(),
            "released when the holder died"
        );
    }

    #[test]
    fn shared_leases_share_a_gpu_up_to_the_limit_and_never_beside_one_alone() {
        let d = tempfile::tempdir().unwrap();
        let set = LeaseSet::new(d.path(), vec![0]).unwrap().with_shared(3);
        let other = LeaseSet::new(d.path(), vec![0]).unwrap().with_shared(3);
        let a = set.try_acquire_as(Use::Shared).unwrap().unwrap();
        let b = set.try_acquire_as(Use::Shared).unwrap().unwrap();
        let c = set.try_acquire_as(Use::Shared).unwrap().unwrap();
        let mut slots = vec![a.slot(), b.slot(), c.slot()];
        slots.sort();
        assert_eq!(slots, vec![0, 1, 2], "each shared lease has a slot of its own");
        assert!(
            set.try_acquire_as(Use::Shared).unwrap().is_none(),
            "three at most"
        );
        // Another process's set (another open file) shares too, but no one has it alone.
        let o = other.try_acquire_as(Use::Shared).unwrap().unwrap();
        assert!(set.try_acquire().unwrap().is_none());
        assert!(other.try_acquire().unwrap().is_none());
        drop(b);
        let again = set.try_acquire_as(Use::Shared).unwrap().unwrap();
        assert_eq!(again.slot(), slots[1], "a freed slot is used again");
        drop((a, c, again, o));
        let alone = set.acquire(Duration::from_millis(10)).unwrap();
        assert_eq!(alone.slot(), 0);
        assert!(
            set.try_acquire_as(Use::Shared).unwrap().is_none(),
            "nothing beside a lease alone"
        );
        assert!(other.try_acquire_as(Use::Shared).unwrap().is_none());
        // At one slot, a shared lease is a lease alone.
        let single = LeaseSet::new(d.path(), vec![1]).unwrap();
        let s = single.try_acquire_as(Use::Shared).unwrap().unwrap();
        assert!(single.try_acquire_as(Use::Shared).unwrap().is_none());
        drop(s);
    }

    #[test]
    fn a_waiting_timing_job_goes_before_new_shared_ones() {
        let d = tempfile::tempdir().unwrap();
        let set = Arc::new(LeaseSet::new(d.path(), vec![0]).unwrap().with_shared(4));
        let first = set.try_acquire_as(Use::Shared).unwrap().unwrap();
        let waiter = {
            let set = Arc::clone(&set);
            std::thread::spawn(move || set.acquire(Duration::from_secs(10)).map(|l| l.slot()))
        };
        let t = Instant::now();
        while set.alone_waiting.load(Ordering::Relaxed) == 0 && t.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(1));
        }
        assert!(
            set.try_acquire_as(Use::Shared).unwrap().is_none(),
            "a free slot, but a timing job waits"
        );
        drop(first);
        assert_eq!(waiter.join().unwrap().unwrap(), 0);
        assert!(
            set.try_acquire_as(Use::Shared).unwrap().is_some(),
            "shared again once it ran"
        );
    }

    #[test]
    fn an_empty_set_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        let set = LeaseSet::new(d.path(), vec![]).unwrap();
        assert!(matches!(set.acquire(Duration::ZERO), Err(LeaseError::Empty)));
    }
}
