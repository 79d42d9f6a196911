//! A scoring run (`aorlta score CONFIG`): every candidate of the pool(s) through the engine,
//! `concurrency` at once, `rewards.jsonl` written in input order as entries complete, then the
//! summary. Resumable: finished entries are in the cache, so a run started again after a kill
//! recomputes only what was not finished (and retries what was unsettled), besides the last
//! rows the store had not committed yet (at most [`aorlta_store::MAX_UNCOMMITTED_ROWS`]).
//!
//! The pool is streamed, never held: a reader thread cuts it into chunks of lines, workers parse
//! and score a chunk at a time ([`Engine::score_batch`]: one store read for the whole chunk) and
//! serialise its entries, and this thread writes the chunks in order and counts them into the
//! summary. At most [`WINDOW_PER_WORKER`] chunks per worker are out at once, so memory stays
//! flat in the pool's size however uneven the work.

use crate::config::RunConfig;
use crate::summary::{Summary, SummaryBuilder};
use aorlta_check::{CoreError, Result};
use aorlta_check::{Env, Registry};
use aorlta_check::{SkippedLine, TaskSet};
use aorlta_core::LoadedProfile;
use aorlta_core::RewardRegistry;
use aorlta_core::{Engine, EngineParts, Scored};
use aorlta_core::{count_pool_lines, is_json_object, parse_pool_line, pool_candidate};
use aorlta_record::{Candidate, PoolLine};
use aorlta_store::{Cache, CacheStats, Facts, StoredEntry};
use std::collections::BTreeMap;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, mpsc};
use std::time::Instant;

/// Most pool lines in one chunk (fewer when the pool is small, so every worker gets work).
pub(crate) const MAX_CHUNK: usize = 256;
/// Chunks handed out and not yet written, per worker.
pub(crate) const WINDOW_PER_WORKER: usize = 4;

use crate::config::{PARTIAL_REWARDS_FILE, REWARDS_FILE};

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
    /// Entry lookups in the cache during this run, and the stored rows it rejected.
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
    /// What the run could not check before scoring (a kernel task's tolerance sanity with no
    /// GPU), one line each.
    pub notes: Vec<String>,
}

/// Loads the tasks, pool(s), profile and cache named by a config. `env` carries the kernel
/// tools when the profile has kernel legs. A concurrency out of range, or a pool that is one of
/// the run's own outputs, is refused before anything is opened.
pub fn prepare(mut config: RunConfig, adapters: Registry, env: Env) -> Result<PreparedRun> {
    config.check_concurrency()?;
    config
        .check_pools()
        .and_then(|()| config.check_dataset())
        .map_err(|message| CoreError::invalid(&config.path, message))?;
    let rewards = RewardRegistry::builtin();
    let profile = LoadedProfile::load(&config.profile, &adapters, &rewards)?;
    // A dataset becomes a pool (and its answer mode's tasks) under the output folder first.
    let dataset_dir = config.out.join("dataset");
    let named_tasks = !config.tasks.is_empty();
    let dataset_skipped = config.materialise_dataset(&dataset_dir)?;
    let (tasks, mut skipped) = TaskSet::load_all(&config.tasks, &aorlta_core::lanes())?;
    if tasks.is_empty() {
        // Say so in the terms of the fields the config has: a dataset's rows, or its `tasks:`.
        let message = match (&config.dataset, named_tasks) {
            (Some(d), false) => format!(
                "field `dataset`: no row of {} is usable ({} skipped{})",
                d.file.display(),
                dataset_skipped.len(),
                dataset_skipped
                    .first()
                    .map(|s| format!("; the first: {s}"))
                    .unwrap_or_default()
            ),
            _ => "field `tasks`: no tasks were loaded".to_string(),
        };
        return Err(CoreError::invalid(&config.path, message));
    }
    skipped.extend(dataset_skipped);
    let mut lines = 0;
    for pool in &config.pools {
        lines += count_pool_lines(pool)?;
    }
    std::fs::create_dir_all(&config.out).map_err(|e| CoreError::io(&config.out, e))?;
    let lock = lock_out(&config.out)?;
    let cache = config.cache.open(config.concurrency.min(64))?;
    let parts = EngineParts {
        adapters,
        rewards,
        cache: Some(Arc::clone(&cache)),
        env: Arc::new(env),
        max_completion_bytes: aorlta_core::MAX_COMPLETION_BYTES,
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

    /// Where its lines are, for messages: `pool.jsonl:3-9`.
    fn place(&self, pools: &[PathBuf]) -> String {
        match (self.lines.first(), self.lines.last()) {
            (Some(&(p, first, ..)), Some(&(q, last, ..))) if p == q => {
                format!("{}:{first}-{last}", pools[p].display())
            }
            (Some(&(p, first, ..)), Some(&(q, last, ..))) => {
                format!("{}:{first} to {}:{last}", pools[p].display(), pools[q].display())
            }
            _ => "an empty chunk".into(),
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
        for (i, &(_, number, start, end)) in self.lines.iter().enumerate() {
            match stream.next() {
                Some(Ok(line))
                    if stream.byte_offset() <= end
                        && is_json_object(&self.bytes[start..end])
                        && self.bytes[stream.byte_offset()..end]
                            .iter()
                            .all(u8::is_ascii_whitespace) =>
                {
                    cands.push(pool_candidate(line, number));
                }
                _ => {
                    alone = i;
                    break;
                }
            }
        }
        for &(p, number, start, end) in &self.lines[alone..] {
            match parse_pool_line(&pools[p], number, &self.bytes[start..end]) {
                Some(Ok(c)) => cands.push(c),
                Some(Err(s)) => skipped.push(s),
                None => {}
            }
        }
        (cands, skipped)
    }
}

/// What one chunk became: its entries' JSON lines (each ending in a newline) and their number,
/// its malformed lines, and its part of the summary.
struct Scoring {
    lines: Vec<u8>,
    entries: usize,
    skipped: Vec<SkippedLine>,
    part: SummaryBuilder,
}

/// Scores every candidate; `on_done(done)` is called as each pool line is finished with
/// (scored, or skipped as malformed), in any order.
///
/// Entries go to [`PARTIAL_REWARDS_FILE`] while the run lasts; when every one is written it
/// becomes [`REWARDS_FILE`], and the summaries are written after it (the previous run's are
/// removed first). So a run that stops part-way (killed, or failed) leaves the previous run's
/// outputs as they were beside its partial file, never a partial `rewards.jsonl` beside a
/// complete summary. A failure to write, to read the pool or to start a thread stops the run:
/// the other threads are told to stop and joined, what was scored is committed to the store
/// (so running it again resumes), and the error says how far it got.
pub fn execute(run: &PreparedRun, on_done: &(dyn Fn(usize) + Sync)) -> Result<RunReport> {
    let start = Instant::now();
    run.config.check_concurrency()?;
    let runs_kernels = run
        .engine
        .profile()
        .profile
        .legs
        .iter()
        .any(|l| matches!(l.adapter.as_str(), "kernel-run" | "kernel-time"));
    // A task whose tolerance a kernel computing nothing would pass is refused before anything
    // is scored: each task a pool names (a folder of a hundred tasks scored on five is not
    // checked a hundred times).
    let mut notes = Vec::new();
    if runs_kernels {
        let mut named = std::collections::BTreeSet::new();
        for pool in &run.config.pools {
            named.extend(aorlta_core::pool_task_ids(pool)?);
        }
        let tasks = run
            .engine
            .tasks()
            .iter()
            .map(|t| &**t)
            .filter(|t| named.contains(&t.id));
        notes = aorlta_kernel::check_tolerances(run.engine.env(), tasks)?;
        aorlta_kernel::warm_harnesses(run.engine.env());
    }
    let out = &run.config.out;
    let partial = out.join(PARTIAL_REWARDS_FILE);
    // A chunk's lines are one buffer, written in one call: no buffering of its own.
    let mut file = std::fs::File::create(&partial).map_err(|e| CoreError::io(&partial, e))?;
    let before = run.cache.stats();
    let mut builder = SummaryBuilder::default();
    let mut skipped = run.skipped.clone();
    let mut entries = 0;
    let scored = score_in_order(run, on_done, |s: Scoring| {
        file.write_all(&s.lines).map_err(|e| CoreError::io(&partial, e))?;
        entries += s.entries;
        skipped.extend(s.skipped);
        builder.merge(s.part);
        Ok(())
    })
    .and_then(|()| file.sync_all().map_err(|e| CoreError::io(&partial, e)));
    drop(file);
    if let Err(cause) = scored {
        // Commit what was scored, so that running again resumes; the run's error is the news.
        let _ = run.cache.flush();
        return Err(CoreError::Stopped {
            cause: Box::new(cause),
            partial,
            entries,
        });
    }
    let store_warning = run.cache.flush().err().map(|e| e.to_string());
    let mut summary = builder.finish();
    summary.skipped_lines = skipped.len();
    summary.elapsed_s = start.elapsed().as_secs_f64();
    summary.fake_gpu = on_fake_gpu(&run.engine);
    let after = run.cache.stats();
    let cache = CacheStats {
        hits: after.hits - before.hits,
        misses: after.misses - before.misses,
        rejected: after.rejected - before.rejected,
    };
    let summary_json = out.join("summary.json");
    let summary_md = out.join("summary.md");
    // The previous run's summaries go before its rewards are replaced: no summary ever stands
    // beside rewards it does not describe.
    for old in [&summary_json, &summary_md] {
        match std::fs::remove_file(old) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(CoreError::io(old, e)),
            _ => {}
        }
    }
    let rewards_path = out.join(REWARDS_FILE);
    std::fs::rename(&partial, &rewards_path).map_err(|e| CoreError::io(&rewards_path, e))?;
    let json = serde_json::json!({
        "config": run.config.path,
        "profile": run.engine.profile().profile.name,
        "profile_hash": run.engine.profile().hash,
        "summary": summary,
        "cache": {
            "hits": cache.hits,
            "misses": cache.misses,
            "hit_rate": cache.hit_rate(),
            "rejected": cache.rejected,
        },
        "skipped_lines": skipped.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
    });
    write_whole(
        &summary_json,
        (serde_json::to_string_pretty(&json).expect("json") + "\n").as_bytes(),
    )?;
    let title = format!("Scoring run: {}", run.config.path.display());
    write_whole(&summary_md, summary.to_markdown(&title).as_bytes())?;
    Ok(RunReport {
        summary,
        cache,
        rewards: rewards_path,
        summary_json,
        summary_md,
        skipped,
        store_warning,
        notes,
    })
}

/// True when the engine's kernel legs run on the fake device: its profile has a kernel leg and
/// its kernel tools are the fake device's.
fn on_fake_gpu(engine: &Engine) -> bool {
    use aorlta_kernel::KernelTools;
    let kernel_legs = engine
        .profile()
        .profile
        .legs
        .iter()
        .any(|l| l.adapter.starts_with("kernel-"));
    kernel_legs
        && engine
            .env()
            .kernel()
            .is_some_and(aorlta_kernel::KernelEnv::is_fake)
}

/// Writes `path` through a partial file renamed over it, so that it is whole or absent.
fn write_whole(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut name = path.as_os_str().to_owned();
    name.push(".partial");
    let partial = PathBuf::from(name);
    std::fs::write(&partial, bytes).map_err(|e| CoreError::io(&partial, e))?;
    std::fs::rename(&partial, path).map_err(|e| CoreError::io(path, e))
}

/// Scores the pools' chunks on the run's threads and hands each chunk's [`Scoring`] to `write`
/// in input order. The first error (from `write`, the reader, or a thread that would not
/// start) stops the run: the threads are told to stop, every channel they could wait on is
/// closed, and they are joined before the error is returned.
fn score_in_order(
    run: &PreparedRun,
    on_done: &(dyn Fn(usize) + Sync),
    mut write: impl FnMut(Scoring) -> Result<()>,
) -> Result<()> {
    let chunk_len = (run.lines / (run.config.concurrency * 8)).clamp(1, MAX_CHUNK);
    let workers = run.config.concurrency.min(run.lines.div_ceil(chunk_len).max(1));
    let done = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let (stop, done) = (&stop, &done);
    std::thread::scope(|scope| -> Result<()> {
        let (work_tx, work_rx) = mpsc::sync_channel::<Chunk>(workers);
        // Shared by the workers alone: when the last one ends, the reader's sends fail.
        let work_rx = Arc::new(Mutex::new(work_rx));
        let (done_tx, done_rx) = mpsc::channel::<Result<(usize, Scoring)>>();
        let window = workers * WINDOW_PER_WORKER;
        let (token_tx, token_rx) = mpsc::sync_channel::<()>(window);
        for _ in 0..window {
            token_tx.send(()).expect("the window has room for its tokens");
        }
        let reader_done = done_tx.clone();
        let pools = &run.config.pools;
        let started = start_thread(scope, "aorlta-reader".into(), move || {
            if let Err(e) = read_chunks(pools, chunk_len, &work_tx, &token_rx, stop) {
                let _ = reader_done.send(Err(e));
            }
        })
        .map_err(|e| CoreError::Thread {
            what: "starting the pool's reader thread".into(),
            message: e.to_string(),
        });
        let mut started = started.map(|_| ());
        for i in 0..workers {
            if started.is_err() {
                break;
            }
            let done_tx = done_tx.clone();
            let work_rx = Arc::clone(&work_rx);
            started = start_thread(scope, format!("aorlta-score-{i}"), move || {
                while !stop.load(Ordering::Relaxed) {
                    let next = work_rx.lock().unwrap_or_else(|e| e.into_inner()).recv();
                    let Ok(chunk) = next else { break };
                    if stop.load(Ordering::Relaxed) {
                        break;
                    }
                    // A panic is reported as the run's error, so the writer never waits for a
                    // chunk that will not come.
                    let scoring = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        score_chunk(run, &chunk, done, on_done)
                    }))
                    .map(|s| (chunk.seq, s))
                    .map_err(|panic| CoreError::Thread {
                        what: format!("worker thread {} scoring {}", i + 1, chunk.place(pools)),
                        message: panic_message(&*panic),
                    });
                    if done_tx.send(scoring).is_err() {
                        break;
                    }
                }
            })
            .map(|_| ())
            .map_err(|e| CoreError::Thread {
                what: format!("starting worker thread {} of {workers}", i + 1),
                message: e.to_string(),
            });
        }
        drop((done_tx, work_rx));
        // Write chunks in input order as they complete; each written chunk frees a place in the
        // window for the reader.
        let written = started.and_then(|()| {
            let mut pending: BTreeMap<usize, Scoring> = BTreeMap::new();
            let mut next = 0;
            for got in &done_rx {
                let (seq, scoring) = got?;
                pending.insert(seq, scoring);
                while let Some(s) = pending.remove(&next) {
                    write(s)?;
                    next += 1;
                    let _ = token_tx.send(());
                }
            }
            Ok(())
        });
        if written.is_err() {
            // Every thread that could be waiting is released: the reader by the stop flag and
            // the closed token channel, the workers by the flag and the closed result channel,
            // and a reader waiting to hand a chunk by the workers' ending.
            stop.store(true, Ordering::Relaxed);
        }
        drop((token_tx, done_rx));
        written
    })
}

/// The message a panic was raised with.
fn panic_message(panic: &(dyn std::any::Any + Send)) -> String {
    match (panic.downcast_ref::<&str>(), panic.downcast_ref::<String>()) {
        (Some(s), _) => format!("panicked: {s}"),
        (_, Some(s)) => format!("panicked: {s}"),
        _ => "panicked".into(),
    }
}

/// Starts a thread of the run named `name` in `scope`; an error when the system will not start
/// it. Unit tests make a chosen call fail (`tests::fail_thread_start`), which no build but
/// theirs contains.
fn start_thread<'scope, F>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    name: String,
    f: F,
) -> std::io::Result<std::thread::ScopedJoinHandle<'scope, ()>>
where
    F: FnOnce() + Send + 'scope,
{
    #[cfg(test)]
    if tests::thread_start_fails() {
        return Err(std::io::Error::from_raw_os_error(
            rustix::io::Errno::AGAIN.raw_os_error(),
        ));
    }
    std::thread::Builder::new().name(name).spawn_scoped(scope, f)
}

/// The reader thread: the pools' non-blank lines in chunks of `chunk_len`, each sent once the
/// window has room for it, until `stop` is set or nobody takes them.
fn read_chunks(
    pools: &[PathBuf],
    chunk_len: usize,
    work: &mpsc::SyncSender<Chunk>,
    tokens: &mpsc::Receiver<()>,
    stop: &AtomicBool,
) -> Result<()> {
    let mut chunk = Chunk::new(0, chunk_len);
    let send = |chunk: &mut Chunk| -> bool {
        let next = Chunk::new(chunk.seq + 1, chunk_len);
        let full = std::mem::replace(chunk, next);
        tokens.recv().is_ok() && !stop.load(Ordering::Relaxed) && work.send(full).is_ok()
    };
    for (p, path) in pools.iter().enumerate() {
        let file = aorlta_check::open_input(path)?;
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
        entries: 0,
        skipped: Vec::new(),
        part: SummaryBuilder::part(),
    };
    let (cands, skipped) = chunk.parse(&run.config.pools);
    out.skipped = skipped;
    out.entries = cands.len();
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
    use std::cell::Cell;
    use std::time::Duration;

    thread_local! {
        /// Thread starts on this thread still to succeed before one fails; `None`: none fails.
        static FAIL_START_AFTER: Cell<Option<usize>> = const { Cell::new(None) };
    }

    /// Makes the thread start after `n` more succeed on this thread fail (the reader's is the
    /// first of a run, then the workers'), once.
    pub(super) fn fail_thread_start(n: usize) {
        FAIL_START_AFTER.with(|c| c.set(Some(n)));
    }

    /// True when this thread start is the one [`fail_thread_start`] chose.
    pub(super) fn thread_start_fails() -> bool {
        FAIL_START_AFTER.with(|c| match c.get() {
            Some(0) => {
                c.set(None);
                true
            }
            Some(n) => {
                c.set(Some(n - 1));
                false
            }
            None => false,
        })
    }

    /// `f` on its own thread, or a failure naming `what` when it has not returned within a
    /// minute (a hang fails the test rather than blocking it).
    fn within_a_minute<T: Send + 'static>(what: &str, f: impl FnOnce() -> T + Send + 'static) -> T {
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || tx.send(f()));
        rx.recv_timeout(Duration::from_secs(60))
            .unwrap_or_else(|_| panic!("{what} did not return within a minute: it hangs"))
    }

    /// [`config`] with `n` pool lines and `concurrency: 2`.
    fn config_of(dir: &std::path::Path, n: usize) -> RunConfig {
        config(dir);
        let line = "{\"task\":\"a\",\"completion\":\"\\\\boxed{2}\"}\n";
        std::fs::write(dir.join("pool.jsonl"), line.repeat(n)).unwrap();
        let path = dir.join("run.yaml");
        let text = std::fs::read_to_string(&path).unwrap();
        std::fs::write(&path, text.replace("concurrency: 1", "concurrency: 2")).unwrap();
        RunConfig::load(&path).unwrap()
    }

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
        Env::new(dir)
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
            \xff\n[\"g\",\"s\"]\n{\"task\":\"f\",\"completion\":\"t\"}";
        let pools = [PathBuf::from("p.jsonl")];
        let (cands, skipped) = chunk_of(text).parse(&pools);
        let mut alone = (Vec::new(), Vec::new());
        for (i, line) in text.split(|&b| b == b'\n').enumerate() {
            match parse_pool_line(&pools[0], i + 1, line) {
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
            ["a#1", "c2", "f#10"]
        );
        assert_eq!(cands[0].completion, "x\ny");
        assert_eq!(skipped.len(), 5, "{skipped:?}");
        assert_eq!(skipped[4].message, aorlta_core::NOT_AN_OBJECT);
        // An array read first, where the lines are read as one stream.
        let (cands, skipped) =
            chunk_of(b"[\"g\",\"s\"]\n{\"task\":\"f\",\"completion\":\"t\"}").parse(&pools);
        assert_eq!(cands.iter().map(|c| c.id.as_str()).collect::<Vec<_>>(), ["f#2"]);
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].place.ends_with("p.jsonl:1"), "{skipped:?}");
        assert_eq!(skipped[0].message, aorlta_core::NOT_AN_OBJECT);
    }

    #[test]
    fn a_second_run_on_the_same_output_folder_is_refused_while_the_first_holds_it() {
        let dir = tempfile::tempdir().unwrap();
        let first = prepare(config(dir.path()), aorlta_core::adapters(), env(dir.path())).unwrap();
        let err = prepare(config(dir.path()), aorlta_core::adapters(), env(dir.path()))
            .err()
            .expect("the second run is refused")
            .to_string();
        assert!(err.contains("another `aorlta score`"), "{err}");
        assert!(err.contains(LOCK_FILE), "{err}");
        execute(&first, &|_| {}).unwrap();
        drop(first);
        let again = prepare(config(dir.path()), aorlta_core::adapters(), env(dir.path())).unwrap();
        assert_eq!(execute(&again, &|_| {}).unwrap().summary.count, 1);
    }

    #[test]
    fn a_thread_that_will_not_start_stops_the_run_with_the_error_and_it_resumes() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_path_buf();
        for fails in [0, 2] {
            let path = path.clone();
            let err = within_a_minute("a run whose thread would not start", move || {
                let run = prepare(config_of(&path, 40), aorlta_core::adapters(), env(&path)).unwrap();
                fail_thread_start(fails);
                execute(&run, &|_| {}).err().map(|e| e.to_string())
            })
            .expect("the run fails");
            let which = if fails == 0 {
                "starting the pool's reader thread"
            } else {
                "starting worker thread 2 of 2"
            };
            assert!(err.contains(which), "{err}");
            assert!(err.contains("os error 11"), "the system's error is said: {err}");
            assert!(err.contains("running it again resumes"), "{err}");
            assert!(!dir.path().join("out").join(REWARDS_FILE).exists(), "{err}");
        }
        let run = prepare(
            config_of(dir.path(), 40),
            aorlta_core::adapters(),
            env(dir.path()),
        )
        .unwrap();
        let report = execute(&run, &|_| {}).unwrap();
        assert_eq!(report.summary.count, 40);
        assert!(!dir.path().join("out").join(PARTIAL_REWARDS_FILE).exists());
    }

    #[test]
    fn a_worker_that_panics_stops_the_run_with_the_panic_instead_of_hanging() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().to_path_buf();
        let err = within_a_minute("a run whose worker panicked", move || {
            let run = prepare(config_of(&path, 2000), aorlta_core::adapters(), env(&path)).unwrap();
            let progress = |n: usize| assert!(n < 100, "the progress bar broke at {n}");
            execute(&run, &progress).err().map(|e| e.to_string())
        })
        .expect("the run fails");
        assert!(err.contains("worker thread"), "{err}");
        assert!(err.contains("the progress bar broke at 1"), "{err}");
        assert!(err.contains("pool.jsonl:"), "the chunk is named: {err}");
    }
}
