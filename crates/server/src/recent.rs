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
pub(crate) const KEEP: usize = 2000;
/// The most bytes of one completion `/ui` keeps.
const MAX_COMPLETION: usize = 64 * 1024;

/// What `/ui` keeps of a completion: its first 64 KiB, copied once (never the whole text).
pub(crate) fn kept(completion: &str) -> String {
    if completion.len() <= MAX_COMPLETION {
        return completion.to_string();
    }
    let mut end = MAX_COMPLETION;
    while !completion.is_char_boundary(end) {
        end -= 1;
    }
    format!(
        "{}\n[… cut: /ui keeps the first 64 KiB of a completion]",
        &completion[..end]
    )
}

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

    /// Keeps `entries` (answered in this order) with their `completions` (as [`kept`] made
    /// them).
    pub fn record(&self, entries: &[RewardEntry], completions: Vec<String>) {
        let mut q = self.entries.lock().unwrap_or_else(|p| p.into_inner());
        for (e, c) in entries.iter().zip(completions) {
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

#[cfg(test)]
mod kept_tests {
    use super::*;

    #[test]
    fn a_long_completion_keeps_its_first_64_kib_cut_on_a_character() {
        assert_eq!(kept("short"), "short");
        // 'é' is two bytes: one straddles the limit, and the cut falls before it.
        let long = format!("{}é{}", "a".repeat(MAX_COMPLETION - 1), "b".repeat(100));
        let k = kept(&long);
        assert!(k.starts_with(&"a".repeat(MAX_COMPLETION - 1)));
        assert!(
            !k.contains('é') && !k.contains('b'),
            "{}",
            &k[MAX_COMPLETION - 8..]
        );
        assert!(k.ends_with("/ui keeps the first 64 KiB of a completion]"));
    }
}
