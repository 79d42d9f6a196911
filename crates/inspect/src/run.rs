//! A run as the inspector holds it: one compact [`Row`] per entry of `rewards.jsonl`, read once
//! at load, with the line's place in the file so the whole entry is read again only for its own
//! page; the run's [`Summary`]; and what the run's config adds when it is known (the
//! completions of its pools, its tasks, and how a completion's source is extracted).

use aorlta_record::{LegState, RewardEntry};
use serde::Serialize;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

/// Why a run could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// The file could not be read.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What the OS said.
        source: std::io::Error,
    },
    /// A line is not a reward entry.
    #[error("{path}:{line}: not a reward entry: {source}")]
    Entry {
        /// The file.
        path: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What the JSON reader said.
        source: serde_json::Error,
    },
}

/// Extracts the source (or the answer) a check reads from a completion, for a task id.
pub type Extractor = Arc<dyn Fn(&str, &str) -> Option<String> + Send + Sync>;

/// A task as its page shows it.
#[derive(Debug, Clone, Default, Serialize)]
pub struct TaskView {
    /// The task's kind (`qa`, `kernel`).
    pub kind: String,
    /// A kernel task's source language (`cuda`, `hip`, `triton`).
    pub language: Option<String>,
    /// The question, or the kernel's description.
    pub prompt: Option<String>,
    /// The reference answer or the reference kernel's source.
    pub reference: Option<String>,
    /// The rest of the task as written (sizes, tolerance, reference times …).
    pub spec: serde_json::Value,
}

/// What a run's config adds to its folder: the completions of its pools by candidate id, its
/// tasks by id, and the extraction its legs use. All empty for a bare folder.
#[derive(Default, Clone)]
pub struct RunSources {
    /// Candidate id → completion.
    pub completions: HashMap<String, String>,
    /// Task id → task.
    pub tasks: BTreeMap<String, TaskView>,
    /// How a completion's source (or answer) is found, when known.
    pub extract: Option<Extractor>,
}

impl std::fmt::Debug for RunSources {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RunSources")
            .field("completions", &self.completions.len())
            .field("tasks", &self.tasks.len())
            .field("extract", &self.extract.is_some())
            .finish()
    }
}

/// An entry's outcome in one word: what two runs are compared on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    /// Scored, and every rewarded leg clean (what the pass rate counts).
    Passed,
    /// Scored, and a rewarded leg not clean.
    Failed,
    /// Not scored: a leg the reward depends on is unsettled.
    Unscored,
}

impl Outcome {
    /// The word.
    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Passed => "passed",
            Outcome::Failed => "failed",
            Outcome::Unscored => "unscored",
        }
    }
}

/// One entry, as the table filters and sorts it.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// Its place in the run (input order, from 0).
    pub index: usize,
    /// The candidate id.
    pub id: String,
    /// The task id.
    pub task: String,
    /// The reward (`None` when unscored).
    pub reward: Option<f64>,
    /// Passed, failed or unscored.
    pub outcome: Outcome,
    /// The timing leg's speedup of a correct candidate, when measured.
    pub speedup: Option<f64>,
    /// The entry's own reason codes, and the first reason of each leg that broke or is
    /// unsettled, as `leg: code` (a skipped leg's reason only names the leg it needed).
    pub reasons: Vec<String>,
    /// Bit `1 << state` for every state among its legs.
    #[serde(skip)]
    pub states: u8,
    /// Lower-cased id, task, reasons and completion: what the text search reads.
    #[serde(skip)]
    pub hay: String,
    #[serde(skip)]
    place: Place,
}

/// The bit of a leg state in [`Row::states`].
pub(crate) fn state_bit(s: LegState) -> u8 {
    1 << (s as u8)
}

/// The counts a run's summary shows.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    /// Entries.
    pub count: usize,
    /// Scored entries.
    pub scored: usize,
    /// Entries that passed.
    pub passed: usize,
    /// Unscored entries.
    pub unscored: usize,
    /// Share of all entries that passed.
    pub pass_rate: f64,
    /// Mean reward over scored entries (`None` when none).
    pub mean_reward: Option<f64>,
    /// Geometric mean of the measured speedups of correct candidates.
    pub geomean_speedup: Option<f64>,
    /// Share of all entries that are correct and at least 1× (then 1.5×, 2×) faster.
    pub fast_p: Vec<(f64, f64)>,
    /// `leg: code` → entries, most first.
    pub reasons: Vec<(String, usize)>,
    /// Per leg in profile order: (name, clean, broke, unsettled, skipped).
    pub legs: Vec<(String, [usize; 4])>,
    /// Task id → entries.
    pub tasks: BTreeMap<String, usize>,
    /// Every measured speedup of a correct candidate.
    pub speedups: Vec<f64>,
}

/// A loaded run.
#[derive(Debug)]
pub struct Run {
    /// The name the pages give it (its folder's name).
    pub name: String,
    /// The run folder (empty for a run held in memory).
    pub dir: PathBuf,
    /// Its `rewards.jsonl` (empty for a run held in memory).
    pub file: PathBuf,
    /// One row per entry, in input order.
    pub rows: Vec<Row>,
    /// Candidate id → its place in `rows`.
    pub by_id: HashMap<String, usize>,
    /// The counts.
    pub summary: Summary,
    /// Seconds the load took.
    pub load_s: f64,
    /// What the config adds.
    pub sources: RunSources,
    /// The entries of a run held in memory ([`Run::from_entries`]); empty for a file's.
    held: Vec<RewardEntry>,
}

/// The speedup `kernel-time` measured for an entry whose other rewarded legs are clean, as
/// `aorlta eval` counts it.
fn speedup_of(e: &RewardEntry) -> Option<f64> {
    let correct = e.scored
        && e.legs
            .iter()
            .filter(|l| !l.informational && l.adapter != "kernel-time")
            .all(|l| l.state == LegState::Clean);
    e.legs
        .iter()
        .find(|l| {
            l.adapter == "kernel-time" && matches!(l.first_code(), None | Some("faster") | Some("not-faster"))
        })
        .filter(|l| l.state == LegState::Clean || l.state == LegState::Broke)
        .and_then(|l| l.detail.as_ref()?.get("s")?.as_f64())
        .filter(|s| correct && s.is_finite() && *s > 0.0)
}

/// The entry's outcome.
pub(crate) fn outcome_of(e: &RewardEntry) -> Outcome {
    if !e.scored {
        Outcome::Unscored
    } else if !e.legs.is_empty()
        && e.legs
            .iter()
            .filter(|l| !l.informational)
            .all(|l| l.state == LegState::Clean)
    {
        Outcome::Passed
    } else {
        Outcome::Failed
    }
}

/// Where a row's whole entry is kept.
#[derive(Debug, Clone, Copy)]
enum Place {
    /// A line of the run's file: its first byte and its length.
    File { offset: u64, len: usize },
    /// An entry held in memory, by its place in [`Run::held`].
    Memory(usize),
}

/// Rows and counts made one entry at a time.
#[derive(Default)]
struct Indexer {
    rows: Vec<Row>,
    leg_order: Vec<String>,
    legs: HashMap<String, [usize; 4]>,
    reasons: HashMap<String, usize>,
    s: Summary,
    reward_sum: f64,
}

impl Indexer {
    fn push(&mut self, e: &RewardEntry, place: Place, sources: &RunSources) {
        let s = &mut self.s;
        let outcome = outcome_of(e);
        let speedup = speedup_of(e);
        let mut row_reasons: Vec<String> = e.reasons.iter().map(|r| r.code.clone()).collect();
        let mut states = 0u8;
        let mut hay = format!("{}\n{}\n", e.id, e.task);
        for r in &e.reasons {
            hay.push_str(&r.detail);
            hay.push('\n');
        }
        for l in &e.legs {
            states |= state_bit(l.state);
            if !self.legs.contains_key(&l.name) {
                self.leg_order.push(l.name.clone());
            }
            self.legs.entry(l.name.clone()).or_default()[l.state as usize] += 1;
            if !matches!(l.state, LegState::Clean | LegState::Skipped)
                && let Some(r) = l.reasons.first()
            {
                row_reasons.push(format!("{}: {}", l.name, r.code));
            }
            for r in &l.reasons {
                hay.push_str(&r.code);
                hay.push(' ');
                hay.push_str(&r.detail);
                hay.push('\n');
            }
        }
        for r in &row_reasons {
            *self.reasons.entry(r.clone()).or_default() += 1;
        }
        if let Some(c) = sources.completions.get(&e.id) {
            hay.push_str(c);
        }
        s.count += 1;
        match outcome {
            Outcome::Passed => s.passed += 1,
            Outcome::Unscored => s.unscored += 1,
            Outcome::Failed => {}
        }
        if let Some(x) = e.reward {
            s.scored += 1;
            self.reward_sum += x;
        }
        if let Some(x) = speedup {
            s.speedups.push(x);
        }
        *s.tasks.entry(e.task.clone()).or_default() += 1;
        self.rows.push(Row {
            index: self.rows.len(),
            id: e.id.clone(),
            task: e.task.clone(),
            reward: e.reward,
            outcome,
            speedup,
            reasons: row_reasons,
            states,
            hay: hay.to_lowercase(),
            place,
        });
    }

    fn finish(self) -> (Vec<Row>, Summary) {
        let mut s = self.s;
        s.pass_rate = if s.count > 0 {
            s.passed as f64 / s.count as f64
        } else {
            0.0
        };
        s.mean_reward = (s.scored > 0).then(|| self.reward_sum / s.scored as f64);
        if !s.speedups.is_empty() {
            let logs: f64 = s.speedups.iter().map(|x| x.ln()).sum();
            s.geomean_speedup = Some((logs / s.speedups.len() as f64).exp());
            let count = s.count as f64;
            s.fast_p = [1.0, 1.5, 2.0]
                .iter()
                .map(|p| (*p, s.speedups.iter().filter(|x| **x > *p).count() as f64 / count))
                .collect();
        }
        let mut reasons: Vec<(String, usize)> = self.reasons.into_iter().collect();
        reasons.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        s.reasons = reasons;
        let legs = self.legs;
        s.legs = self
            .leg_order
            .into_iter()
            .map(|name| (name.clone(), legs[&name]))
            .collect();
        (self.rows, s)
    }
}

impl Run {
    /// Loads `dir/rewards.jsonl` (or `dir` itself when it is a file) with what `sources` adds.
    pub fn load(dir: &Path, sources: RunSources) -> Result<Run, LoadError> {
        let start = Instant::now();
        let (dir, file) = if dir.is_file() {
            (
                dir.parent().unwrap_or(Path::new(".")).to_path_buf(),
                dir.to_path_buf(),
            )
        } else {
            (dir.to_path_buf(), dir.join("rewards.jsonl"))
        };
        let io = |source| LoadError::Io {
            path: file.clone(),
            source,
        };
        let mut r = std::io::BufReader::with_capacity(1 << 20, std::fs::File::open(&file).map_err(io)?);
        let mut ix = Indexer::default();
        let (mut offset, mut line, mut buf) = (0u64, 0usize, Vec::new());
        loop {
            buf.clear();
            let n = r.read_until(b'\n', &mut buf).map_err(io)?;
            if n == 0 {
                break;
            }
            line += 1;
            let at = offset;
            offset += n as u64;
            if buf.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let e: RewardEntry = serde_json::from_slice(&buf).map_err(|source| LoadError::Entry {
                path: file.clone(),
                line,
                source,
            })?;
            ix.push(&e, Place::File { offset: at, len: n }, &sources);
        }
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_else(|| dir.display().to_string());
        Ok(Run::made(name, dir, file, ix, Vec::new(), sources, start))
    }

    /// A run of entries held in memory (what a service answered), named `name`.
    pub fn from_entries(name: &str, entries: Vec<RewardEntry>, sources: RunSources) -> Run {
        let start = Instant::now();
        let mut ix = Indexer::default();
        for (i, e) in entries.iter().enumerate() {
            ix.push(e, Place::Memory(i), &sources);
        }
        Run::made(
            name.to_string(),
            PathBuf::new(),
            PathBuf::new(),
            ix,
            entries,
            sources,
            start,
        )
    }

    fn made(
        name: String,
        dir: PathBuf,
        file: PathBuf,
        ix: Indexer,
        held: Vec<RewardEntry>,
        sources: RunSources,
        start: Instant,
    ) -> Run {
        let (rows, summary) = ix.finish();
        let by_id = rows.iter().map(|r| (r.id.clone(), r.index)).collect();
        Run {
            name,
            dir,
            file,
            rows,
            by_id,
            summary,
            load_s: start.elapsed().as_secs_f64(),
            sources,
            held,
        }
    }

    /// The whole entry of row `index`: read again from the file, or the one held.
    pub fn entry(&self, index: usize) -> Result<RewardEntry, LoadError> {
        let row = &self.rows[index];
        let (offset, len) = match row.place {
            Place::Memory(i) => return Ok(self.held[i].clone()),
            Place::File { offset, len } => (offset, len),
        };
        let io = |source| LoadError::Io {
            path: self.file.clone(),
            source,
        };
        let mut f = std::fs::File::open(&self.file).map_err(io)?;
        f.seek(SeekFrom::Start(offset)).map_err(io)?;
        let mut buf = vec![0; len];
        f.read_exact(&mut buf).map_err(io)?;
        let e: RewardEntry = serde_json::from_slice(&buf).map_err(|source| LoadError::Entry {
            path: self.file.clone(),
            line: index + 1,
            source,
        })?;
        if e.id != row.id {
            return Err(LoadError::Io {
                path: self.file.clone(),
                source: std::io::Error::other(
                    "the file changed since it was loaded; start the inspector again",
                ),
            });
        }
        Ok(e)
    }

    /// The reason codes of the run, most frequent first (what the reason filter offers).
    pub fn reason_choices(&self) -> impl Iterator<Item = &str> {
        self.summary.reasons.iter().map(|(r, _)| r.as_str())
    }
}
