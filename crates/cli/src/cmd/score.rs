//! `aorlta score CONFIG`: scores a pool with a profile, with a progress bar; writes
//! `rewards.jsonl` (through `rewards.jsonl.partial` while it runs), `summary.json` and
//! `summary.md` under the config's `out` folder and prints the summary table. Resumable through
//! the run's cache; a run that cannot finish (its output cannot be written, a thread cannot
//! start) exits non-zero with the error.

use anyhow::Context;
use aorlta_app::RunConfig;
use aorlta_app::{execute, prepare};
use aorlta_kernel::KernelTools;
use indicatif::{ProgressBar, ProgressStyle};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `aorlta score`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The run config (YAML); its paths are relative to it.
    pub config: PathBuf,
    /// Candidates scored at once, 1 to 256 (overrides the config).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Replay a file of episodes (JSONL, one turn a line: `{"episode", "task", "completion"}`)
    /// instead of the pool; writes `episodes.jsonl` under the config's `out` folder.
    #[arg(long, value_name = "FILE")]
    pub episodes: Option<PathBuf>,
    /// With `--episodes`: each turn's reward, `own`, `best-so-far` or `gain`.
    #[arg(long, default_value = "own", value_parser = turn_reward)]
    pub turn_reward: aorlta_record::TurnReward,
    /// With `--episodes`: the discount of the discounted sum, 0 to 1.
    #[arg(long, default_value_t = 1.0)]
    pub discount: f64,
}

fn turn_reward(s: &str) -> Result<aorlta_record::TurnReward, String> {
    serde_json::from_value(serde_json::Value::String(s.to_string()))
        .map_err(|_| format!("`{s}` is not one of own, best-so-far, gain"))
}

/// Runs `aorlta score`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let mut config = RunConfig::load(&args.config)?;
    if let Some(c) = args.concurrency {
        if let Some(why) = aorlta_app::concurrency_problem(c) {
            anyhow::bail!("--concurrency: {why}");
        }
        config.concurrency = c;
    }
    let env = config.env()?;
    let run = prepare(config, aorlta_core::adapters(), env).context("preparing the run")?;
    if let Some(file) = &args.episodes {
        let out = run.config.out.join("episodes.jsonl");
        let r = aorlta_app::replay(&run.engine, file, args.turn_reward, args.discount, &out)?;
        println!("{} episodes, {} turns", r.episodes, r.turns);
        println!("wrote {}", out.display());
        return Ok(ExitCode::SUCCESS);
    }
    for s in &run.skipped {
        eprintln!("skipped {s}");
    }
    let bar = if args.quiet {
        ProgressBar::hidden()
    } else {
        ProgressBar::new(run.lines as u64)
    };
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} {per_sec} eta {eta}",
        )
        .expect("template")
        .progress_chars("=> "),
    );
    let report = execute(&run, &|_| bar.inc(1))?;
    bar.finish_and_clear();
    for s in &report.skipped[run.skipped.len()..] {
        eprintln!("skipped {s}");
    }
    if let Some(w) = &report.store_warning {
        eprintln!("warning: {w}");
    }
    for n in &report.notes {
        eprintln!("note: {n}");
    }
    print!("{}", report.summary.to_terminal());
    // Rows that failed their check are said only when there were some.
    let rejected = match report.cache.rejected {
        0 => String::new(),
        n => format!(", {n} stored results rejected (failed their check; computed again)"),
    };
    println!(
        "\ncache: {} hits, {} misses ({:.1}% hit rate){rejected} in {}",
        report.cache.hits,
        report.cache.misses,
        100.0 * report.cache.hit_rate(),
        run.cache.describe()
    );
    // What the GPUs did, when kernel legs ran on them.
    if let Some(k) = run.engine.env().kernel()
        && let Ok(gpus) = k.gpu_set()
    {
        let s = k.pool().stats();
        if s.jobs > 0 {
            let wall = report.summary.elapsed_s.max(1e-9);
            println!(
                "gpu: {} harness jobs on {} GPU(s), busy {:.1}% of {:.2} s (a GPU with at least one job); {} harness processes started, {} replaced after a fault, hang or crash",
                s.jobs,
                gpus.len(),
                100.0 * s.busy_share(wall, gpus.len()),
                wall,
                s.started,
                s.replaced
            );
        }
    }
    println!("wrote {}", report.rewards.display());
    println!("wrote {}", report.summary_json.display());
    println!("wrote {}", report.summary_md.display());
    Ok(ExitCode::SUCCESS)
}
