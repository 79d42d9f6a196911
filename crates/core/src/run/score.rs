//! A scoring run (`aorlta score CONFIG`): every candidate of the pool(s) through the engine,
//! `concurrency` at once, `rewards.jsonl` written in input order as entries complete, then the
//! summary. Resumable: finished entries are in the cache, so a run started again after a kill
//! recomputes only what was not finished (and retries what was unsettled).

use super::config::RunConfig;
use super::engine::{Engine, EngineParts};
use super::pool::read_pool;
use super::summary::Summary;
use crate::cache::{Cache, CacheStats, SqliteCache};
use crate::checks::{Env, Registry};
use crate::error::{CoreError, Result};
use crate::profile::LoadedProfile;
use crate::reward::RewardRegistry;
use crate::task::{SkippedLine, TaskSet};
use aorlta_record::{Candidate, RewardEntry};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Instant;

/// A run ready to execute.
pub struct PreparedRun {
    /// The config.
    pub config: RunConfig,
    /// The engine.
    pub engine: Arc<Engine>,
    /// Candidates in input order.
    pub candidates: Vec<Candidate>,
    /// Malformed task and pool lines, skipped.
    pub skipped: Vec<SkippedLine>,
    /// The cache.
    pub cache: Arc<SqliteCache>,
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
}

/// Loads the tasks, pool(s), profile and cache named by a config. `env` carries the kernel
/// tools when the profile has kernel legs.
pub fn prepare(config: RunConfig, adapters: Registry, env: Env) -> Result<PreparedRun> {
    let rewards = RewardRegistry::builtin();
    let profile = LoadedProfile::load(&config.profile, &adapters, &rewards)?;
    let (tasks, mut skipped) = TaskSet::load_all(&config.tasks)?;
    if tasks.is_empty() {
        return Err(CoreError::invalid(
            &config.path,
            "field `tasks`: no tasks were loaded",
        ));
    }
    let mut candidates = Vec::new();
    for pool in &config.pools {
        let (c, s) = read_pool(pool)?;
        candidates.extend(c);
        skipped.extend(s);
    }
    std::fs::create_dir_all(&config.out).map_err(|e| CoreError::io(&config.out, e))?;
    let lock = lock_out(&config.out)?;
    let cache = Arc::new(SqliteCache::open(&config.cache)?);
    let parts = EngineParts {
        adapters,
        rewards,
        cache: Some(cache.clone() as Arc<dyn Cache>),
        env: Arc::new(env),
    };
    let engine = Arc::new(Engine::new(profile, Arc::new(tasks), parts));
    Ok(PreparedRun {
        config,
        engine,
        candidates,
        skipped,
        cache,
        _lock: lock,
    })
}

/// Scores every candidate; `on_done(done, entry)` is called as each finishes (any order).
pub fn execute(run: &PreparedRun, on_done: &(dyn Fn(usize, &RewardEntry) + Sync)) -> Result<RunReport> {
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
    let mut writer = std::io::BufWriter::new(file);
    let n = run.candidates.len();
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let before = run.cache.stats();
    let (tx, rx) = mpsc::channel::<(usize, RewardEntry)>();
    let mut entries: Vec<Option<RewardEntry>> = vec![None; n];
    let workers = run.config.concurrency.min(n.max(1));
    let write_result: Result<()> = std::thread::scope(|scope| {
        for _ in 0..workers {
            let tx = tx.clone();
            let (next, done) = (&next, &done);
            scope.spawn(move || {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let entry = run.engine.score(&run.candidates[i]);
                    on_done(done.fetch_add(1, Ordering::Relaxed) + 1, &entry);
                    if tx.send((i, entry)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(tx);
        // Write in input order as the prefix completes.
        let mut pending: BTreeMap<usize, RewardEntry> = BTreeMap::new();
        let mut written = 0;
        for (i, entry) in rx {
            pending.insert(i, entry);
            while let Some(e) = pending.remove(&written) {
                let line = serde_json::to_string(&e).expect("entries serialise");
                writeln!(writer, "{line}")
                    .and_then(|_| writer.flush())
                    .map_err(|err| CoreError::io(&rewards_path, err))?;
                entries[written] = Some(e);
                written += 1;
            }
        }
        Ok(())
    });
    write_result?;
    let entries: Vec<RewardEntry> = entries.into_iter().flatten().collect();
    let mut summary = Summary::of(&entries);
    summary.skipped_lines = run.skipped.len();
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
        "skipped_lines": run.skipped.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
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
    })
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
        execute(&first, &|_, _| {}).unwrap();
        drop(first);
        let again = prepare(config(dir.path()), Registry::builtin(), env(dir.path())).unwrap();
        assert_eq!(execute(&again, &|_, _| {}).unwrap().summary.count, 1);
    }
}
