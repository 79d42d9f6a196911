//! `aorlta score` over many distinct Q&A completions (`aorlta bench score`): per store, a
//! workload written from the example's pools, scored by the real binary as a child process,
//! a fresh run on an empty store and then the cached rerun, each measured (wall and CPU time,
//! peak memory), the rerun's rewards compared bit for bit with the first run's. The SQLite
//! store and PostgreSQL side by side: PostgreSQL is a throwaway server in a temporary folder
//! (durable settings: `fsync` on) unless a URL names a running one; without server binaries
//! its row is left out, saying why.
//!
//! [`bench_score`] hands its progress to the caller (`say`) and returns the figures
//! ([`aorlta_bench::ScoreBenchReport`]); the command line prints.

use crate::bench_kernels::Say;
use anyhow::Context;
use aorlta_bench::{
    ProcessCost, ScoreBenchReport, StoreRow, Workload, compare_rewards, load_average, run_cache_counts,
    run_measured, write_workload,
};
use aorlta_pg_server::TempServer;
use aorlta_store::CACHE_URL_VAR;
use std::path::{Path, PathBuf};
use std::process::Command;

/// A store to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BenchStore {
    /// The embedded default: a SQLite file under the run's folder.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

/// The settings of a score benchmark.
#[derive(Debug, Clone)]
pub struct ScoreBench {
    /// The `aorlta` binary that scores.
    pub exe: PathBuf,
    /// Distinct Q&A completions to score, made from the example's pools.
    pub qa_distinct: usize,
    /// The Q&A example folder: `tasks.jsonl`, `before.jsonl` and `after.jsonl`.
    pub examples: PathBuf,
    /// The profile the pool is scored with.
    pub profile: PathBuf,
    /// Candidates scored at once.
    pub concurrency: usize,
    /// Keep the pools, configs and outputs in this folder instead of a temporary one.
    pub keep: Option<PathBuf>,
    /// The stores to measure, in order.
    pub stores: Vec<BenchStore>,
    /// A running PostgreSQL database to measure instead of a throwaway server.
    pub postgres_url: Option<String>,
}

/// What a score benchmark measured.
#[derive(Debug, Clone)]
pub struct ScoreBenchRun {
    /// One row per store measured.
    pub report: ScoreBenchReport,
    /// Why a store was left out, one line each.
    pub notes: Vec<String>,
    /// The folder of the workloads (removed at the end unless kept).
    pub root: PathBuf,
}

/// Measures the fresh run and the cached rerun of `args.qa_distinct` distinct completions on
/// each store, saying what it does as it goes.
pub fn bench_score(args: &ScoreBench, say: Say<'_>) -> anyhow::Result<ScoreBenchRun> {
    let tmp;
    let root = match &args.keep {
        Some(k) => k.clone(),
        None => {
            tmp = tempfile::Builder::new()
                .prefix("aorlta-bench-score-")
                .tempdir()
                .context("creating a temporary folder")?;
            tmp.path().to_path_buf()
        }
    };
    let tasks = args.examples.join("tasks.jsonl");
    let sources = [
        args.examples.join("before.jsonl"),
        args.examples.join("after.jsonl"),
    ];
    let mut rows = Vec::new();
    let mut notes = Vec::new();
    let mut server = None;
    // A salt of this run's own in every completion: a store that outlives the run (a named
    // PostgreSQL database) holds none of them before the first run.
    let salt = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_micros() as u64)
        % 1_000_000_007;
    for store in &args.stores {
        let (name, cache) = match store {
            BenchStore::Sqlite => ("sqlite", None),
            BenchStore::Postgres => match postgres(args, &mut server, say)? {
                Some(url) => ("postgres", Some(url)),
                None => {
                    notes.push(
                        "postgres: left out: no PostgreSQL server binaries (install Debian's `postgresql`, \
                         or give --postgres-url)"
                            .to_string(),
                    );
                    continue;
                }
            },
        };
        say(&format!(
            "{name}: writing {} distinct completions …",
            args.qa_distinct
        ));
        let w = write_workload(
            &root.join(name),
            &tasks,
            &sources,
            &args.profile,
            args.qa_distinct,
            args.concurrency,
            cache.as_deref(),
            salt,
        )?;
        rows.push(measure(&args.exe, name, &w, say)?);
    }
    Ok(ScoreBenchRun {
        report: ScoreBenchReport {
            concurrency: args.concurrency,
            cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
            rows,
        },
        notes,
        root,
    })
}

/// The URL of the PostgreSQL database to measure: the given URL, else a fresh database on a
/// throwaway server (kept in `server` until the benchmark ends); `None` without server binaries.
fn postgres(
    args: &ScoreBench,
    server: &mut Option<TempServer>,
    say: Say<'_>,
) -> anyhow::Result<Option<String>> {
    if let Some(u) = &args.postgres_url {
        return Ok(Some(u.clone()));
    }
    if aorlta_pg_server::find_bin().is_none() {
        return Ok(None);
    }
    say("postgres: starting a throwaway server …");
    let s = TempServer::start(true).map_err(|e| anyhow::anyhow!("starting a PostgreSQL server: {e}"))?;
    let url = s
        .create_db("bench")
        .map_err(|e| anyhow::anyhow!("creating the benchmark's database: {e}"))?;
    *server = Some(s);
    Ok(Some(url))
}

/// The fresh run and the rerun of one workload.
fn measure(exe: &Path, name: &str, w: &Workload, say: Say<'_>) -> anyhow::Result<StoreRow> {
    let out = w.dir.join("out");
    let load = load_average();
    say(&format!("{name}: first run (empty store) …"));
    let first = score(exe, &w.config)?;
    let first_rewards = w.dir.join("first-rewards.jsonl");
    std::fs::rename(out.join("rewards.jsonl"), &first_rewards).context("keeping the first run's rewards")?;
    say(&format!("{name}: cached rerun …"));
    let rerun = score(exe, &w.config)?;
    let rerun_cache = run_cache_counts(&out)?;
    let (differing, lines) = compare_rewards(&first_rewards, &out.join("rewards.jsonl"))?;
    anyhow::ensure!(
        lines == w.candidates,
        "the first run wrote {lines} reward lines for {} candidates",
        w.candidates
    );
    Ok(StoreRow {
        store: name.to_string(),
        candidates: w.candidates,
        distinct: w.distinct,
        first,
        rerun,
        rerun_cache,
        differing,
        goals: name == "sqlite",
        load,
    })
}

/// One `aorlta score` of the config as a child process (its progress bar on standard error).
fn score(exe: &Path, config: &Path) -> anyhow::Result<ProcessCost> {
    // The config names the store; the environment's choice is not this benchmark's.
    let mut cmd = Command::new(exe);
    cmd.arg("score").arg(config).env_remove(CACHE_URL_VAR);
    let m = run_measured(&mut cmd).with_context(|| format!("running `aorlta score {}`", config.display()))?;
    anyhow::ensure!(
        m.status.success(),
        "`aorlta score {}` failed ({}):\n{}",
        config.display(),
        m.status,
        m.stdout
    );
    Ok(m)
}
