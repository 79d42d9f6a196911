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
use super::pool::{candidate, count_lines, parse_line};
use super::summary::{Summary, SummaryBuilder};
use crate::cache::{Cache, CacheStats, Facts, StoredEntry};
use crate::checks::{Env, Registry};
use crate::error::{CoreError, Result};
use crate::profile::LoadedProfile;
use crate::reward::RewardRegistry;
use crate::task::{SkippedLine, TaskSet};
use aorlta_record::{Candidate, PoolLine};
use std::collections::BTreeMap;
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

/// A chunk of pool lines: its place in the run, its lines' bytes one after the other (each
/// followed by a newline), and each line's pool, number, start and end in those bytes.
struct Chunk {
    seq: usize,
    bytes: Vec<u8>,
    lines: Vec<(usize, usize, usize, usize)>,
}

impl Chunk {
    fn new(seq: usize, lines: usize) -> Self {
        Chunk {
            seq,
            bytes: Vec::with_capacity(lines * 1024),
            lines: Vec::with_capacity(lines),
        }
    }

    /// Ends the line that began at `start` (line `number` of pool `p`): kept unless blank.
    fn end_line(&mut self, p: usize, number: usize, start: usize) {
        if self.bytes[start..].iter().all(u8::is_ascii_whitespace) {
            self.bytes.truncate(start);
        } else {
            self.lines.push((p, number, start, self.bytes.len()));
            self.bytes.push(b'\n');
        }
    }

    /// The candidates of the chunk's lines, and its malformed lines, in order. The lines are
    /// read by one JSON reader, one value after another, as long as each value is its line
    /// (then the reader's buffers serve every line); from a line that is not, each line is read
    /// alone, as [`parse_line`] reads it.
    fn parse(&self, pools: &[PathBuf]) -> (Vec<Candidate>, Vec<SkippedLine>) {
        let mut cands = Vec::with_capacity(self.lines.len());
        let mut skipped = Vec::new();
        let mut stream = serde_json::Deserializer::from_slice(&self.bytes).into_iter::<PoolLine>();
        let mut alone = self.lines.len();
        for (i, &(_, number, _, end)) in self.lines.iter().enumerate() {
            match stream.next() {
                Some(Ok(line))
                    if stream.byte_offset() <= end
                        && self.bytes[stream.byte_offset()..end]
                            .iter()
                            .all(u8::is_ascii_whitespace) =>
                {
                    cands.push(candidate(line, number));
                }
                _ => {
                    alone = i;
                    break;
                }
            }
        }
        for &(p, number, start, end) in &self.lines[alone..] {
            match parse_line(&pools[p], number, &self.bytes[start..end]) {
                Some(Ok(c)) => cands.push(c),
                Some(Err(s)) => skipped.push(s),
                None => {}
            }
        }
        (cands, skipped)
    }
}

/// What one chunk became: its entries' JSON lines (each ending in a newline), its malformed
/// lines, and its part of the summary.
struct Scoring {
    lines: Vec<u8>,
    skipped: Vec<SkippedLine>,
    part: SummaryBuilder,
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
    // A chunk's lines are one buffer, written in one call: no buffering of its own.
    let mut writer = file;
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
        let (done_tx, done_rx) = mpsc::channel::<Result<(usize, Scoring)>>();
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
                    let scoring = score_chunk(run, &chunk, done, on_done);
                    if done_tx.send(Ok((chunk.seq, scoring))).is_err() {
                        break;
                    }
                }
            });
        }
        drop(done_tx);
        // Write chunks in input order as they complete; each written chunk frees a place in the
        // window for the reader.
        let mut pending: BTreeMap<usize, Scoring> = BTreeMap::new();
        let mut written = 0;
        for got in done_rx {
            let (seq, scoring) = got?;
            pending.insert(seq, scoring);
            while let Some(s) = pending.remove(&written) {
                writer
                    .write_all(&s.lines)
                    .map_err(|err| CoreError::io(&rewards_path, err))?;
                skipped.extend(s.skipped);
                builder.merge(s.part);
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
        let mut start = chunk.bytes.len();
        loop {
            let buf = r.fill_buf().map_err(|e| CoreError::io(path, e))?;
            if buf.is_empty() {
                if chunk.bytes.len() > start {
                    // A last line without a newline.
                    chunk.end_line(p, number + 1, start);
                }
                break;
            }
            let (take, ended) = match memchr::memchr(b'\n', buf) {
                Some(i) => (i, true),
                None => (buf.len(), false),
            };
            chunk.bytes.extend_from_slice(&buf[..take]);
            r.consume(take + usize::from(ended));
            if !ended {
                continue;
            }
            number += 1;
            chunk.end_line(p, number, start);
            if chunk.lines.len() == chunk_len && !send(&mut chunk) {
                return Ok(());
            }
            start = chunk.bytes.len();
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
) -> Scoring {
    let mut out = Scoring {
        lines: Vec::with_capacity(chunk.bytes.len()),
        skipped: Vec::new(),
        part: SummaryBuilder::part(),
    };
    let (cands, skipped) = chunk.parse(&run.config.pools);
    out.skipped = skipped;
    let scored = run.engine.score_batch_stored(&cands);
    // Most entries' facts are the same few texts (shared by the store's reads): each is read
    // once per chunk.
    let mut facts: Vec<(&StoredEntry, Option<Facts>, usize)> = Vec::new();
    for (scored, cand) in scored.iter().zip(&cands) {
        let from_store = match scored {
            Scored::Stored(s) => {
                let at = match facts.iter().position(|(o, _, _)| o.same_facts(s)) {
                    Some(at) => at,
                    None => {
                        facts.push((s, s.facts(), 0));
                        facts.len() - 1
                    }
                };
                let readable = facts[at].1.is_some() && s.write_line(&cand.id, &mut out.lines);
                if readable {
                    out.part.add_reward(s.reward());
                    facts[at].2 += 1;
                }
                readable
            }
            Scored::Entry(_) => false,
        };
        if !from_store {
            let again;
            let entry = match scored {
                Scored::Entry(e) => e,
                Scored::Stored(_) => {
                    again = run.engine.score(cand);
                    &again
                }
            };
            out.part.add(entry);
            serde_json::to_writer(&mut out.lines, entry).expect("entries serialise");
        }
        out.lines.push(b'\n');
    }
    for (_, f, n) in &facts {
        if let Some(f) = f
            && *n > 0
        {
            out.part.add_facts_times(f, *n);
        }
    }
    for _ in 0..cands.len() + out.skipped.len() {
        on_done(done.fetch_add(1, Ordering::Relaxed) + 1);
    }
    out
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

    /// The lines of `text` read as the reader thread cuts them, into one chunk.
    fn chunk_of(text: &[u8]) -> Chunk {
        let mut c = Chunk::new(0, 16);
        let mut number = 0;
        for line in text.split(|&b| b == b'\n') {
            number += 1;
            let start = c.bytes.len();
            c.bytes.extend_from_slice(line);
            c.end_line(0, number, start);
        }
        c
    }

    #[test]
    fn a_chunk_reads_its_lines_as_each_line_alone_would_be_read() {
        let text: &[u8] = b"{\"task\":\"a\",\"completion\":\"x\\ny\"}  \n\n   \n\
            {\"task\":\"b\",\"completion\":\"z\",\"id\":\"c2\"}\n\
            {\"task\":\"c\",\"completion\":\"w\"} {\"task\":\"d\",\"completion\":\"v\"}\n\
            {\"task\":\n\"e\",\"completion\":\"u\"}\n\
            \xff\n{\"task\":\"f\",\"completion\":\"t\"}";
        let pools = [PathBuf::from("p.jsonl")];
        let (cands, skipped) = chunk_of(text).parse(&pools);
        let mut alone = (Vec::new(), Vec::new());
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            match parse_line(&pools[0], i + 1, line) {
                Some(Ok(c)) => alone.0.push(c),
                Some(Err(s)) => alone.1.push(s),
                None => {}
            }
        }
        assert_eq!(cands, alone.0);
        assert_eq!(
            skipped.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            alone.1.iter().map(|s| s.to_string()).collect::<Vec<_>>()
        );
        assert_eq!(
            cands.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(),
            ["a#1", "c2", "f#9"]
        );
        assert_eq!(cands[0].completion, "x\ny");
        assert_eq!(skipped.len(), 4, "{skipped:?}");
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
