//! A scoring run (`aorlta score CONFIG`): every candidate of the pool(s) through the engine,
//! `concurrency` at once, `rewards.jsonl` written in input order as entries complete, then the
//! summary. Resumable: finished entries are in the cache, so a run started again after a kill
//! recomputes only what was not finished (and retries what was unsettled), besides the last
//! rows the store had not committed yet (at most [`crate::cache::MAX_UNCOMMITTED_ROWS`]).
//!
//! The pool is streamed, never held: a reader thread cuts it into chunks of lines, workers parse
//! and score a chunk at a time ([`Engine::score_batch`]: one store read for the whole chunk) and
//! serialise its entries, and this thread writes the chunks in order and counts them into the
//! summary. At most [`WINDOW_PER_WORKER`] chunks per worker are out at once, so memory stays
//! flat in the pool's size however uneven the work.

use super::config::RunConfig;
use super::engine::{Engine, EngineParts, Scored};
use super::pool::{count_lines, parse_line};
use super::summary::{Summary, SummaryBuilder};
use crate::cache::{Cache, CacheStats, Facts};
use crate::checks::{Env, Registry};
use crate::error::{CoreError, Result};
use crate::profile::LoadedProfile;
use crate::reward::RewardRegistry;
use crate::task::{SkippedLine, TaskSet};
use aorlta_record::Candidate;
use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Instant;

/// Most pool lines in one chunk (fewer when the pool is small, so every worker gets work).
pub const MAX_CHUNK: usize = 256;
/// Chunks handed out and not yet written, per worker.
pub const WINDOW_PER_WORKER: usize = 4;

/// A run ready to execute.
pub struct PreparedRun {
    /// The config.
    pub config: RunConfig,
    /// The engine.
    pub engine: Arc<Engine>,
    /// Pool lines that are not blank (malformed ones included): what a progress bar counts to.
    pub lines: usize,
    /// Malformed task lines, skipped (malformed pool lines are found while scoring).
    pub skipped: Vec<SkippedLine>,
    /// The cache.
    pub cache: Arc<dyn Cache>,
    /// The output folder's lock, held while this run exists.
    _lock: std::fs::File,
}

/// The lock file in a run's output folder.
pub const LOCK_FILE: &str = ".aorlta-score.lock";

/// Takes the output folder's lock (an exclusive `flock`, released when the run is dropped or
/// the process dies), or says that another run holds it.
fn lock_out(out: &std::path::Path) -> Result<std::fs::File> {
    let path = out.join(LOCK_FILE);
    let file = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|e| CoreError::io(&path, e))?;
    match fs4::FileExt::try_lock(&file) {
        Ok(()) => Ok(file),
        Err(fs4::TryLockError::WouldBlock) => Err(CoreError::invalid(
            out,
            format!(
                "another `aorlta score` is writing this output folder (it holds {}); wait for it \
                 to finish or give this run another `out`",
                path.display()
            ),
        )),
        Err(fs4::TryLockError::Error(e)) => Err(CoreError::io(&path, e)),
    }
}

/// What a finished run produced.
#[derive(Debug)]
pub struct RunReport {
    /// The summary.
    pub summary: Summary,
    /// Entry lookups in the cache during this run.
    pub cache: CacheStats,
    /// `rewards.jsonl`.
    pub rewards: PathBuf,
    /// `summary.json`.
    pub summary_json: PathBuf,
    /// `summary.md`.
    pub summary_md: PathBuf,
    /// Malformed task and pool lines, skipped, in input order.
    pub skipped: Vec<SkippedLine>,
    /// Why some results could not be stored, if any could not (the rewards are unaffected; a
    /// later run computes those again).
    pub store_warning: Option<String>,
}

/// Loads the tasks, pool(s), profile and cache named by a config. `env` carries the kernel
/// tools when the profile has kernel legs.
pub fn prepare(config: RunConfig, adapters: Registry, env: Env) -> Result<PreparedRun> {
    let rewards = RewardRegistry::builtin();
    let profile = LoadedProfile::load(&config.profile, &adapters, &rewards)?;
    let (tasks, skipped) = TaskSet::load_all(&config.tasks)?;
    if tasks.is_empty() {
        return Err(CoreError::invalid(
            &config.path,
            "field `tasks`: no tasks were loaded",
        ));
    }
    let mut lines = 0;
    for pool in &config.pools {
        lines += count_lines(pool)?;
    }
    std::fs::create_dir_all(&config.out).map_err(|e| CoreError::io(&config.out, e))?;
    let lock = lock_out(&config.out)?;
    let cache = config.cache.open(config.concurrency.clamp(1, 64))?;
    let parts = EngineParts {
        adapters,
        rewards,
        cache: Some(Arc::clone(&cache)),
        env: Arc::new(env),
    };
    let engine = Arc::new(Engine::new(profile, Arc::new(tasks), parts));
    Ok(PreparedRun {
        config,
        engine,
        lines,
        skipped,
        cache,
        _lock: lock,
    })
}

/// A chunk of pool lines: its place in the run, its lines' bytes one after the other, and each
/// line's pool, number and end in those bytes.
struct Chunk {
    seq: usize,
    bytes: Vec<u8>,
    lines: Vec<(usize, usize, usize)>,
}

impl Chunk {
    fn new(seq: usize, lines: usize) -> Self {
        Chunk {
            seq,
            bytes: Vec::with_capacity(lines * 1024),
            lines: Vec::with_capacity(lines),
        }
    }

    /// Each line's pool, number and bytes.
    fn iter(&self) -> impl Iterator<Item = (usize, usize, &[u8])> {
        let mut start = 0;
        self.lines.iter().map(move |&(p, n, end)| {
            let line = &self.bytes[start..end];
            start = end;
            (p, n, line)
        })
    }
}

/// What one pool line became: its entry's JSON line, or a skipped line.
enum Done {
    Line(String),
    Skipped(SkippedLine),
}

/// Scores every candidate; `on_done(done)` is called as each pool line is finished with
/// (scored, or skipped as malformed), in any order.
pub fn execute(run: &PreparedRun, on_done: &(dyn Fn(usize) + Sync)) -> Result<RunReport> {
    let start = Instant::now();
    let runs_kernels = run
        .engine
        .profile()
        .profile
        .legs
        .iter()
        .any(|l| matches!(l.adapter.as_str(), "kernel-run" | "kernel-time"));
    if runs_kernels {
        crate::checks::kernel::pool::HarnessPool::warm(run.engine.env());
    }
    let out = &run.config.out;
    let rewards_path = out.join("rewards.jsonl");
    let file = std::fs::File::create(&rewards_path).map_err(|e| CoreError::io(&rewards_path, e))?;
    let mut writer = std::io::BufWriter::with_capacity(1 << 20, file);
    let concurrency = run.config.concurrency.max(1);
    let chunk_len = (run.lines / (concurrency * 8)).clamp(1, MAX_CHUNK);
    let workers = concurrency.min(run.lines.div_ceil(chunk_len).max(1));
    let before = run.cache.stats();
    let done = AtomicUsize::new(0);
    let mut builder = SummaryBuilder::default();
    let mut skipped = run.skipped.clone();
    let (work_tx, work_rx) = mpsc::sync_channel::<Chunk>(workers);
    let work_rx = Mutex::new(work_rx);
    std::thread::scope(|scope| -> Result<()> {
        let (done_tx, done_rx) = mpsc::channel::<Result<(usize, Vec<Done>, SummaryBuilder)>>();
        let window = workers * WINDOW_PER_WORKER;
        let (token_tx, token_rx) = mpsc::sync_channel::<()>(window);
        for _ in 0..window {
            token_tx.send(()).expect("the window has room for its tokens");
        }
        let reader_done = done_tx.clone();
        let pools = &run.config.pools;
        scope.spawn(move || {
            if let Err(e) = read_chunks(pools, chunk_len, &work_tx, &token_rx) {
                let _ = reader_done.send(Err(e));
            }
        });
        for _ in 0..workers {
            let done_tx = done_tx.clone();
            let (work_rx, done) = (&work_rx, &done);
            scope.spawn(move || {
                loop {
                    let next = work_rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok(chunk) = next else { break };
                    let (outcome, part) = score_chunk(run, &chunk, done, on_done);
                    if done_tx.send(Ok((chunk.seq, outcome, part))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        // Write chunks in input order as they complete; each written chunk frees a place in the
        // window for the reader.
        let mut pending: BTreeMap<usize, (Vec<Done>, SummaryBuilder)> = BTreeMap::new();
        let mut written = 0;
        for got in done_rx {
            let (seq, outcome, part) = got?;
            pending.insert(seq, (outcome, part));
            while let Some((items, part)) = pending.remove(&written) {
                for item in items {
                    match item {
                        Done::Line(line) => {
                            writer
                                .write_all(line.as_bytes())
                                .and_then(|_| writer.write_all(b"\n"))
                                .map_err(|err| CoreError::io(&rewards_path, err))?;
                        }
                        Done::Skipped(s) => skipped.push(s),
                    }
                }
                builder.merge(part);
                writer.flush().map_err(|err| CoreError::io(&rewards_path, err))?;
                written += 1;
                let _ = token_tx.send(());
            }
        }
        Ok(())
    })?;
    let store_warning = run.cache.flush().err().map(|e| e.to_string());
    let mut summary = builder.finish();
    summary.skipped_lines = skipped.len();
    summary.elapsed_s = start.elapsed().as_secs_f64();
    let after = run.cache.stats();
    let cache = CacheStats {
        hits: after.hits - before.hits,
        misses: after.misses - before.misses,
    };
    let summary_json = out.join("summary.json");
    let json = serde_json::json!({
        "config": run.config.path,
        "profile": run.engine.profile().profile.name,
        "profile_hash": run.engine.profile().hash,
        "summary": summary,
        "cache": {"hits": cache.hits, "misses": cache.misses, "hit_rate": cache.hit_rate()},
        "skipped_lines": skipped.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    });
    std::fs::write(
        &summary_json,
        serde_json::to_string_pretty(&json).expect("json") + "\n",
    )
    .map_err(|e| CoreError::io(&summary_json, e))?;
    let summary_md = out.join("summary.md");
    let title = format!("Scoring run: {}", run.config.path.display());
    std::fs::write(&summary_md, summary.to_markdown(&title)).map_err(|e| CoreError::io(&summary_md, e))?;
    Ok(RunReport {
        summary,
        cache,
        rewards: rewards_path,
        summary_json,
        summary_md,
        skipped,
        store_warning,
    })
}

/// The reader thread: the pools' non-blank lines in chunks of `chunk_len`, each sent once the
/// window has room for it.
fn read_chunks(
    pools: &[PathBuf],
    chunk_len: usize,
    work: &mpsc::SyncSender<Chunk>,
    tokens: &mpsc::Receiver<()>,
) -> Result<()> {
    let mut chunk = Chunk::new(0, chunk_len);
    let send = |chunk: &mut Chunk| -> bool {
        let next = Chunk::new(chunk.seq + 1, chunk_len);
        let full = std::mem::replace(chunk, next);
        tokens.recv().is_ok() && work.send(full).is_ok()
    };
    for (p, path) in pools.iter().enumerate() {
        let file = std::fs::File::open(path).map_err(|e| CoreError::io(path, e))?;
        let mut r = std::io::BufReader::with_capacity(1 << 20, file);
        let mut number = 0;
        loop {
            let start = chunk.bytes.len();
            let n = r
                .read_until(b'\n', &mut chunk.bytes)
                .map_err(|e| CoreError::io(path, e))?;
            if n == 0 {
                break;
            }
            number += 1;
            if chunk.bytes.last() == Some(&b'\n') {
                chunk.bytes.pop();
            }
            if chunk.bytes[start..].iter().all(u8::is_ascii_whitespace) {
                chunk.bytes.truncate(start);
                continue;
            }
            chunk.lines.push((p, number, chunk.bytes.len()));
            if chunk.lines.len() == chunk_len && !send(&mut chunk) {
                return Ok(());
            }
        }
    }
    if !chunk.lines.is_empty() {
        send(&mut chunk);
    }
    Ok(())
}

/// Parses and scores one chunk: its lines' outcomes in order, and their summary. An entry
/// found in the store is written and counted from its stored text; one whose text cannot be
/// read so is scored again whole.
fn score_chunk(
    run: &PreparedRun,
    chunk: &Chunk,
    done: &AtomicUsize,
    on_done: &(dyn Fn(usize) + Sync),
) -> (Vec<Done>, SummaryBuilder) {
    let mut part = SummaryBuilder::part();
    let mut slots: Vec<Option<Done>> = Vec::with_capacity(chunk.lines.len());
    let mut cands: Vec<Candidate> = Vec::with_capacity(chunk.lines.len());
    let mut at: Vec<usize> = Vec::with_capacity(chunk.lines.len());
    for (p, number, bytes) in chunk.iter() {
        match parse_line(&run.config.pools[p], number, bytes) {
            Some(Ok(c)) => {
                at.push(slots.len());
                slots.push(None);
                cands.push(c);
            }
            Some(Err(s)) => slots.push(Some(Done::Skipped(s))),
            None => {}
        }
    }
    let scored = run.engine.score_batch_stored(&cands);
    // Most entries' facts are the same few texts: each is read once per chunk.
    let mut facts: HashMap<Arc<str>, Option<Facts>> = HashMap::new();
    for ((i, scored), cand) in at.into_iter().zip(scored).zip(&cands) {
        let from_store = match &scored {
            Scored::Stored(s) => {
                if !facts.contains_key(s.facts_json()) {
                    facts.insert(s.facts_json().into(), s.facts());
                }
                let f = facts[s.facts_json()].as_ref();
                s.line(&cand.id).zip(f).map(|(line, f)| {
                    part.add_facts(s.reward(), f);
                    line
                })
            }
            Scored::Entry(_) => None,
        };
        let line = match from_store {
            Some(line) => line,
            None => {
                let entry = match scored {
                    Scored::Entry(e) => e,
                    Scored::Stored(_) => run.engine.score(cand),
                };
                part.add(&entry);
                serde_json::to_string(&entry).expect("entries serialise")
            }
        };
        slots[i] = Some(Done::Line(line));
    }
    for _ in 0..slots.len() {
        on_done(done.fetch_add(1, Ordering::Relaxed) + 1);
    }
    (slots.into_iter().flatten().collect(), part)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn config(dir: &std::path::Path) -> RunConfig {
        std::fs::write(
            dir.join("t.jsonl"),
            "{\"id\":\"a\",\"prompt\":\"1+1?\",\"answer\":\"2\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("pool.jsonl"),
            "{\"task\":\"a\",\"completion\":\"\\\\boxed{2}\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("p.yaml"),
            "name: qa\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n",
        )
        .unwrap();
        let path = dir.join("run.yaml");
        std::fs::write(
            &path,
            "tasks: t.jsonl\npool: pool.jsonl\nprofile: p.yaml\nout: out\nconcurrency: 1\n",
        )
        .unwrap();
        RunConfig::load(&path).unwrap()
    }

    fn env(dir: &std::path::Path) -> Env {
        Env {
            work_dir: dir.to_path_buf(),
            kernel: None,
        }
    }

    #[test]
    fn a_second_run_on_the_same_output_folder_is_refused_while_the_first_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let first = prepare(config(dir.path()), Registry::builtin(), env(dir.path())).unwrap();
        let err = prepare(config(dir.path()), Registry::builtin(), env(dir.path()))
            .err()
            .expect("the second run is refused")
            .to_string();
        assert!(err.contains("another `aorlta score`"), "{err}");
        assert!(err.contains(LOCK_FILE), "{err}");
        execute(&first, &|_| {}).unwrap();
        drop(first);
        let again = prepare(config(dir.path()), Registry::builtin(), env(dir.path())).unwrap();
        assert_eq!(execute(&again, &|_| {}).unwrap().summary.count, 1);
    }
}
