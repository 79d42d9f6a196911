//! `aorlta bench score`: `aorlta score` over many distinct Q&A completions, a fresh run and then
//! the cached rerun, each as its own process, with wall and CPU time and peak memory, for the
//! SQLite store and for PostgreSQL side by side; exits non-zero when a goal is missed.
//! PostgreSQL is a throwaway server in a temporary folder (durable settings: `fsync` on) unless
//! `--postgres-url` names a running one; without server binaries its row is left out, saying
//! why.
//!
//! The measurements are [`aorlta_app::bench_score`]'s; this file parses the flags and prints.

use anyhow::Context;
use aorlta_app::{BenchStore, ScoreBench, bench_score};
use aorlta_bench::StoreRow;
use std::path::PathBuf;
use std::process::ExitCode;

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
    let bench = ScoreBench {
        exe: std::env::current_exe().context("finding the aorlta binary")?,
        qa_distinct: args.qa_distinct,
        examples: args.examples.clone(),
        profile: args.profile.clone(),
        concurrency: args.concurrency,
        keep: args.keep.clone(),
        stores: args
            .stores
            .iter()
            .map(|s| match s {
                Store::Sqlite => BenchStore::Sqlite,
                Store::Postgres => BenchStore::Postgres,
            })
            .collect(),
        postgres_url: args.postgres_url.clone(),
    };
    let run = bench_score(&bench, &mut |line| eprintln!("{line}"))?;
    let report = &run.report;
    println!("\n{report}");
    for n in &run.notes {
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
        println!("outputs kept in {}", run.root.display());
    }
    Ok(if report.rows.iter().all(StoreRow::meets_goals) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
