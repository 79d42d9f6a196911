//! `aorlta bench score`: `aorlta score` over many distinct Q&A completions, a fresh run and then
//! the cached rerun, each as its own process, with wall and CPU time and peak memory; exits
//! non-zero when a goal is missed (`aorlta_core::bench::score`).

use anyhow::Context;
use aorlta_core::bench::score::{
    Measured, ScoreBenchReport, StoreRow, Workload, compare_rewards, run_cache_counts, run_measured,
    write_workload,
};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

/// Arguments of `aorlta bench score`.
#[derive(Debug, clap::Args)]
pub struct Args {
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
}

/// Runs the benchmark and prints its table.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
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
    let stores: [(&str, Option<String>); 1] = [("sqlite", None)];
    for (name, cache) in stores {
        eprintln!("{name}: writing {} distinct completions …", args.qa_distinct);
        let w = write_workload(
            &root.join(name),
            &tasks,
            &sources,
            &args.profile,
            args.qa_distinct,
            args.concurrency,
            cache.as_deref(),
        )?;
        rows.push(measure(name, &w)?);
    }
    let report = ScoreBenchReport {
        concurrency: args.concurrency,
        cpus: std::thread::available_parallelism().map_or(1, |n| n.get()),
        rows,
    };
    println!("\n{report}");
    if args.keep.is_some() {
        println!("outputs kept in {}", root.display());
    }
    Ok(if report.rows.iter().all(StoreRow::meets_goals) {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

/// The fresh run and the rerun of one workload.
fn measure(name: &str, w: &Workload) -> anyhow::Result<StoreRow> {
    let out = w.dir.join("out");
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
    })
}

/// One `aorlta score` of the config as a child process (its progress bar on standard error).
fn score(config: &Path) -> anyhow::Result<Measured> {
    let exe = std::env::current_exe().context("finding the aorlta binary")?;
    let m = run_measured(Command::new(exe).arg("score").arg(config))
        .with_context(|| format!("running `aorlta score {}`", config.display()))?;
    anyhow::ensure!(
        m.status.success(),
        "`aorlta score {}` failed ({}):\n{}",
        config.display(),
        m.status,
        m.stdout
    );
    Ok(m)
}
