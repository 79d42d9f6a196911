//! `aorlta bench score`: `aorlta score` over many distinct Q&A completions, a fresh run and then
//! the cached rerun, each as its own process, with wall and CPU time and peak memory, for the
//! SQLite store and for PostgreSQL side by side; exits non-zero when a goal is missed
//! (`aorlta_bench::score`). PostgreSQL is a throwaway server in a temporary folder
//! (durable settings: `fsync` on) unless `--postgres-url` names a running one; without server
//! binaries its row is left out, saying why.

use anyhow::Context;
use aorlta_bench::score::{
    Measured, ScoreBenchReport, StoreRow, Workload, compare_rewards, load_average, run_cache_counts,
    run_measured, write_workload,
};
use aorlta_pg_server::TempServer;
use aorlta_store::CACHE_URL_VAR;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Arguments of `aorlta bench score`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Distinct Q&A completions to score, made from the example's pools.
    #[arg(long, default_value_t = 100_000)]
    pub qa_distinct: usize,
    /// The Q&A example folder: `tasks.jsonl`, `before.jsonl` and `after.jsonl`.
    #[arg(long, default_value = "examples/qa")]
    pub examples: PathBuf,
    /// The profile the pool is scored with.
    #[arg(long, default_value = "examples/qa/profile.yaml")]
    pub profile: PathBuf,
    /// Candidates scored at once (the run config's `concurrency`).
    #[arg(long, default_value_t = 2)]
    pub concurrency: usize,
    /// Keep the generated pool, configs and outputs in this folder instead of a temporary one.
    #[arg(long)]
    pub keep: Option<PathBuf>,
    /// The stores to measure, in order.
    #[arg(long, value_delimiter = ',', default_value = "sqlite,postgres")]
    pub stores: Vec<Store>,
    /// A running PostgreSQL database to measure (`postgres://user@host:port/db`) instead of a
    /// throwaway server.
    #[arg(long)]
    pub postgres_url: Option<String>,
}

/// A store to measure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum Store {
    /// The embedded default: a SQLite file under the run's folder.
    Sqlite,
    /// PostgreSQL.
    Postgres,
}

/// Runs the benchmark and prints its table.
pub(super) fn run(args: Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.qa_distinct > 0, "--qa-distinct must be at least 1");
    anyhow::ensure!(args.concurrency > 0, "--concurrency must be at least 1");
    if cfg!(debug_assertions) {
        println!("note: a debug build; run `cargo run --release -- bench score` for figures worth quoting");
    }
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
            Store::Sqlite => ("sqlite", None),
            Store::Postgres => match postgres(&args, &mut server)? {
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
        eprintln!("{name}: writing {} distinct completions …", args.qa_distinct);
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
        rows.push(measure(name, &w)?);
    }
    let report = ScoreBenchReport {
        concurrency: args.concurrency,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        rows,
    };
    println!("\n{report}");
    for n in &notes {
        println!("  {n}");
    }
    if report.rows.iter().any(|r| r.store == "postgres") {
        println!(
            "  postgres: {}; peak memory is aorlta's own, not the server's",
            match &args.postgres_url {
                Some(u) => format!("the database at {}", aorlta_store::redact_url(u)),
                None => "a throwaway server on this machine, over a unix socket, fsync on".into(),
            }
        );
    }
    if args.keep.is_some() {
        println!("outputs kept in {}", root.display());
    }
    Ok(if report.rows.iter().all(StoreRow::meets_goals) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// The URL of the PostgreSQL database to measure: `--postgres-url`, else a fresh database on a
/// throwaway server (kept in `server` until the benchmark ends); `None` without server binaries.
fn postgres(args: &Args, server: &mut Option<TempServer>) -> anyhow::Result<Option<String>> {
    if let Some(u) = &args.postgres_url {
        return Ok(Some(u.clone()));
    }
    if aorlta_pg_server::find_bin().is_none() {
        return Ok(None);
    }
    eprintln!("postgres: starting a throwaway server …");
    let s = TempServer::start(true).map_err(|e| anyhow::anyhow!("starting a PostgreSQL server: {e}"))?;
    let url = s
        .create_db("bench")
        .map_err(|e| anyhow::anyhow!("creating the benchmark's database: {e}"))?;
    *server = Some(s);
    Ok(Some(url))
}

/// The fresh run and the rerun of one workload.
fn measure(name: &str, w: &Workload) -> anyhow::Result<StoreRow> {
    let out = w.dir.join("out");
    let load = load_average();
    eprintln!("{name}: first run (empty store) …");
    let first = score(&w.config)?;
    let first_rewards = w.dir.join("first-rewards.jsonl");
    std::fs::rename(out.join("rewards.jsonl"), &first_rewards).context("keeping the first run's rewards")?;
    eprintln!("{name}: cached rerun …");
    let rerun = score(&w.config)?;
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
fn score(config: &Path) -> anyhow::Result<Measured> {
    let exe = std::env::current_exe().context("finding the aorlta binary")?;
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
