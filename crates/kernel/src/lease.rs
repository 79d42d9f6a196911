//! GPU leases (docs/ARCHITECTURE.md, "GPU leases"): a GPU is used by one timing or correctness job at a time, across every
//! process of the host. Each GPU of the configured set has a lock file under the lease folder
//! (`gpu-<index>.lock`); a lease is an exclusive `flock` on it, held while the job runs and
//! released when the lease is dropped or the process dies (the kernel drops the lock with the
//! file). A job waits, up to a limit, for any GPU of the set to be free rather than share one.

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

/// Wakes this process's waiters the moment one of its leases is released, so a GPU freed
/// inside the process is taken at once rather than at a waiter's next poll.
#[derive(Debug, Default)]
struct Released {
    count: Mutex<u64>,
    cond: Condvar,
}

/// The GPUs a process may lease, and where their lock files live.
#[derive(Debug)]
pub struct LeaseSet {
    dir: PathBuf,
    gpus: Vec<u32>,
    next: AtomicUsize,
    held: Arc<AtomicUsize>,
    released: Arc<Released>,
}

/// Exclusive use of one GPU until dropped.
#[derive(Debug)]
pub struct Lease {
    gpu: u32,
    file: Option<File>,
    held: Arc<AtomicUsize>,
    released: Arc<Released>,
}

impl Drop for Lease {
    fn drop(&mut self) {
        // The lock goes with the file; only then are waiters woken.
        drop(self.file.take());
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
}

impl LeaseSet {
    /// A lease set over `gpus` with lock files in `dir` (created if missing).
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
        })
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

    /// A free GPU now, if any (trying them from a rotating start, so jobs spread).
    pub fn try_acquire(&self) -> Result<Option<Lease>, LeaseError> {
        if self.gpus.is_empty() {
            return Err(LeaseError::Empty);
        }
        let start = self.next.fetch_add(1, Ordering::Relaxed);
        for k in 0..self.gpus.len() {
            let gpu = self.gpus[(start + k) % self.gpus.len()];
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
            match fs4::FileExt::try_lock(&file) {
                Ok(()) => {
                    self.held.fetch_add(1, Ordering::Relaxed);
                    return Ok(Some(Lease {
                        gpu,
                        file: Some(file),
                        held: Arc::clone(&self.held),
                        released: Arc::clone(&self.released),
                    }));
                }
                Err(fs4::TryLockError::WouldBlock) => {}
                Err(fs4::TryLockError::Error(source)) => return Err(LeaseError::Io { path, source }),
            }
        }
        Ok(None)
    }

    /// Waits up to `wait` for a free GPU.
    /// A release inside this process wakes the waiter at once; one by another process is seen
    /// at the next poll (2 ms, doubling to 50 ms).
    pub fn acquire(&self, wait: Duration) -> Result<Lease, LeaseError> {
        let start = Instant::now();
        let mut pause = Duration::from_millis(2);
        loop {
            let seen = *self.released.count.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(l) = self.try_acquire()? {
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
    fn an_empty_set_is_an_error() {
        let d = tempfile::tempdir().unwrap();
        let set = LeaseSet::new(d.path(), vec![]).unwrap();
        assert!(matches!(set.acquire(Duration::ZERO), Err(LeaseError::Empty)));
    }
}
