//! What `/ui` shows: the latest [`KEEP`] entries this service answered, with their
//! completions, and the inspector (`aorlta-inspect`, the same as `aorlta inspect`) over a
//! snapshot of them, made again only when entries came since the last one.

use aorlta_check::TaskSet;
use aorlta_inspect::{Extractor, Inspector, Run, RunSources, TaskView, task_sources};
use aorlta_record::RewardEntry;
use std::collections::{BTreeMap, VecDeque};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

/// The most answered entries `/ui` keeps (the oldest go first).
pub const KEEP: usize = 2000;
/// The most bytes of one completion `/ui` keeps.
const MAX_COMPLETION: usize = 64 * 1024;

/// The latest answered entries, with their completions, and the pages' last snapshot of them.
pub struct Recent {
    entries: Mutex<VecDeque<(RewardEntry, String)>>,
    answered: AtomicU64,
    snapshot: Mutex<Option<(u64, Arc<Inspector>)>>,
    tasks: BTreeMap<String, TaskView>,
    extract: Extractor,
}

impl std::fmt::Debug for Recent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Recent")
            .field("answered", &self.answered.load(Ordering::Relaxed))
            .finish()
    }
}

impl Recent {
    /// Nothing answered yet, over the service's tasks.
    pub fn new(tasks: Arc<TaskSet>) -> Self {
        let (tasks, extract) = task_sources(tasks);
        Recent {
            entries: Mutex::new(VecDeque::new()),
            answered: AtomicU64::new(0),
            snapshot: Mutex::new(None),
            tasks,
            extract,
        }
    }

    /// Keeps `entries` (answered in this order) with their `completions`.
    pub fn record(&self, entries: &[RewardEntry], completions: Vec<String>) {
        let mut q = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        for (e, mut c) in entries.iter().zip(completions) {
            if c.len() > MAX_COMPLETION {
                let mut end = MAX_COMPLETION;
                while !c.is_char_boundary(end) {
                    end -= 1;
                }
                c.truncate(end);
                c.push_str("\n[… cut: /ui keeps the first 64 KiB of a completion]");
            }
            if q.len() == KEEP {
                q.pop_front();
            }
            q.push_back((e.clone(), c));
        }
        self.answered.fetch_add(entries.len() as u64, Ordering::Release);
    }

    /// The inspector over what was answered, made again when entries came since the last.
    pub fn snapshot(&self) -> Arc<Inspector> {
        let answered = self.answered.load(Ordering::Acquire);
        let mut snap = self.snapshot.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((n, ins)) = &*snap
            && *n == answered
        {
            return Arc::clone(ins);
        }
        let (entries, completions): (Vec<RewardEntry>, Vec<(String, String)>) = self
            .entries
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .map(|(e, c)| (e.clone(), (e.id.clone(), c.clone())))
            .unzip();
        let sources = RunSources {
            completions: completions.into_iter().collect(),
            tasks: self.tasks.clone(),
            extract: Some(Arc::clone(&self.extract)),
        };
        let ins = Arc::new(Inspector {
            runs: vec![Run::from_entries("answered", entries, sources)],
            base: "/ui".into(),
        });
        *snap = Some((answered, Arc::clone(&ins)));
        ins
    }
}
