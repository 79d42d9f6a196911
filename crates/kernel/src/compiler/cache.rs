//! Compile outcomes shared by every leg and thread of a process: one compile per key however
//! many threads ask for it at once (the reference of a task is compiled once, the candidate
//! compiled by the `compile` leg is reused by the legs after it), at most `slots` compilers
//! running at a time, and a bounded memory: two generations of entries, the older dropped when
//! the newer fills, with the code objects only it held deleted from disk. A long-running
//! service therefore holds at most `2 * max_entries` outcomes and their files.

use super::{CompileFailure, Compiled};
use aorlta_check::Generations;
use std::sync::{Arc, Condvar, Mutex, OnceLock};

type Outcome = Result<Compiled, CompileFailure>;
type Cell = Arc<OnceLock<Outcome>>;

/// The process's compile outcomes.
pub struct CompileCache {
    entries: Mutex<Generations<String, Cell>>,
    running: Mutex<usize>,
    slot_freed: Condvar,
    slots: usize,
}

impl std::fmt::Debug for CompileCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompileCache")
            .field(
                "max_entries",
                &self.entries.lock().unwrap_or_else(|e| e.into_inner()).cap(),
            )
            .field("slots", &self.slots)
            .finish_non_exhaustive()
    }
}

impl CompileCache {
    /// A cache of at most `2 * max_entries` outcomes with `slots` compilers at a time.
    pub fn new(max_entries: usize, slots: usize) -> Self {
        CompileCache {
            entries: Mutex::new(Generations::new(max_entries)),
            running: Mutex::new(0),
            slot_freed: Condvar::new(),
            slots: slots.max(1),
        }
    }

    /// Compilers allowed at once.
    pub fn slots(&self) -> usize {
        self.slots
    }

    /// Outcomes held.
    pub fn len(&self) -> usize {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    /// True when nothing is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    fn cell(&self, key: &str) -> Cell {
        let mut g = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        let (cell, dropped) = g.get_or_insert_with(key, Cell::default);
        let cell = Arc::clone(cell);
        drop(g);
        // The code objects only the emptied generation held go with it (outside the lock).
        for c in dropped {
            if let Some(Ok(c)) = c.get() {
                let _ = std::fs::remove_file(&c.cubin);
            }
        }
        cell
    }

    fn forget(&self, key: &str) {
        self.entries.lock().unwrap_or_else(|e| e.into_inner()).remove(key);
    }

    /// The outcome for `key`: the cached one (and `true`), or `compile()`'s, run in a compiler
    /// slot by exactly one of the threads asking. An outcome `keep` refuses (an unsettled one,
    /// which a retry may change) is handed to the threads that waited for it and then
    /// forgotten, and so is a cached code object whose file has gone.
    pub fn get_or_compile(
        &self,
        key: &str,
        keep: impl Fn(&Outcome) -> bool,
        compile: impl FnOnce() -> Outcome,
    ) -> (Outcome, bool) {
        let mut cell = self.cell(key);
        if matches!(cell.get(), Some(Ok(c)) if !c.cubin.is_file()) {
            self.forget(key);
            cell = self.cell(key);
        }
        let mut ran = false;
        let out = cell
            .get_or_init(|| {
                ran = true;
                self.with_slot(compile)
            })
            .clone();
        if !keep(&out) {
            self.forget(key);
        }
        (out, !ran)
    }

    fn with_slot<T>(&self, f: impl FnOnce() -> T) -> T {
        let mut n = self.running.lock().unwrap_or_else(|e| e.into_inner());
        while *n >= self.slots {
            n = self.slot_freed.wait(n).unwrap_or_else(|e| e.into_inner());
        }
        *n += 1;
        drop(n);
        let out = f();
        let mut n = self.running.lock().unwrap_or_else(|e| e.into_inner());
        *n -= 1;
        self.slot_freed.notify_one();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reason::KernelReason;
    use aorlta_record::LegState;
    use std::sync::atomic::{AtomicUsize, Ordering};

    fn compiled(dir: &std::path::Path, name: &str) -> Outcome {
        let cubin = dir.join(name);
        std::fs::write(&cubin, b"x").unwrap();
        Ok(Compiled {
            cubin,
            symbols: vec![],
            bytes: 1,
            compile_s: 0.1,
            cached: false,
            launch: None,
        })
    }

    #[test]
    fn many_threads_asking_for_one_key_compile_it_once() {
        let d = tempfile::tempdir().unwrap();
        let cache = CompileCache::new(100, 2);
        let runs = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    let (out, _) = cache.get_or_compile(
                        "k",
                        |_| true,
                        || {
                            runs.fetch_add(1, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(50));
                            compiled(d.path(), "k.cubin")
                        },
                    );
                    assert!(out.is_ok());
                });
            }
        });
        assert_eq!(runs.load(Ordering::SeqCst), 1);
        let (_, cached) = cache.get_or_compile("k", |_| true, || unreachable!());
        assert!(cached);
    }

    #[test]
    fn at_most_slots_compilers_run_at_once() {
        let d = tempfile::tempdir().unwrap();
        let cache = CompileCache::new(100, 3);
        let now = AtomicUsize::new(0);
        let most = AtomicUsize::new(0);
        std::thread::scope(|s| {
            for k in 0..12 {
                let (cache, now, most, d) = (&cache, &now, &most, d.path());
                s.spawn(move || {
                    let _ = cache.get_or_compile(
                        &format!("k{k}"),
                        |_| true,
                        || {
                            let n = now.fetch_add(1, Ordering::SeqCst) + 1;
                            most.fetch_max(n, Ordering::SeqCst);
                            std::thread::sleep(std::time::Duration::from_millis(20));
                            now.fetch_sub(1, Ordering::SeqCst);
                            compiled(d, &format!("k{k}.cubin"))
                        },
                    );
                });
            }
        });
        assert_eq!(most.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn memory_and_files_stay_bounded_and_refused_outcomes_are_retried() {
        let d = tempfile::tempdir().unwrap();
        let cache = CompileCache::new(4, 1);
        for k in 0..20 {
            let name = format!("k{k}.cubin");
            let _ = cache.get_or_compile(&name, |_| true, || compiled(d.path(), &name));
        }
        assert!(cache.len() <= 8, "{}", cache.len());
        let files = std::fs::read_dir(d.path()).unwrap().count();
        assert!(files <= 8, "{files} code objects left");
        // An unsettled outcome is not kept: the next ask compiles again.
        let unsettled = || Err(CompileFailure::unsettled(KernelReason::NoCompiler, "none"));
        let keep = |o: &Outcome| {
            o.as_ref()
                .map_or_else(|f| f.state != LegState::Unsettled, |_| true)
        };
        let (out, cached) = cache.get_or_compile("u", keep, unsettled);
        assert!(out.is_err() && !cached);
        let (out, cached) = cache.get_or_compile("u", keep, || compiled(d.path(), "u.cubin"));
        assert!(out.is_ok() && !cached);
        // A code object deleted behind the cache's back is compiled again.
        std::fs::remove_file(d.path().join("u.cubin")).unwrap();
        let (out, cached) = cache.get_or_compile("u", keep, || compiled(d.path(), "u.cubin"));
        assert!(out.is_ok() && !cached);
    }
}
