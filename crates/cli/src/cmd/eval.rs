//! `aorlta eval --config C --before A.jsonl --after B.jsonl`: scores two pools of the same tasks
//! with the config's profile (sharing its cache) and compares them: pass rate, mean reward,
//! fast_p and geometric-mean speedup with bootstrap intervals, as a terminal table, `report.md`,
//! `report.json` and SVG plots.
//!
//! Each side is scored alone: the config's own `pool:` and `dataset:` files are never part of a
//! comparison. A side is read as a dataset (docs/DATA.md) when it is Parquet or when the config
//! has a `dataset:` section (whose mode and column mapping it is read with), else as a pool. A
//! side with no candidate scored is an error, as is one whose every line or row was skipped.

use anyhow::Context;
use aorlta_app::{RunConfig, execute, figures, prepare, side_config, side_entries, table, write_comparison};
use aorlta_record::RewardEntry;
use indicatif::ProgressBar;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `aorlta eval`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The run config naming the tasks, profile and cache (its `pool` and its `dataset` file
    /// are not used; a `dataset:` section says how the sides are read).
    #[arg(long)]
    pub config: PathBuf,
    /// The pool before (e.g. the base model's completions).
    #[arg(long)]
    pub before: PathBuf,
    /// The pool after (e.g. the trained model's completions).
    #[arg(long)]
    pub after: PathBuf,
    /// Output folder (default: the config's `out` followed by `-eval`).
    #[arg(long)]
    pub out: Option<PathBuf>,
}

/// Scores one side alone with a progress bar; its entries.
fn score_pool(
    config: &RunConfig,
    pool: &Path,
    out: PathBuf,
    label: &str,
) -> anyhow::Result<Vec<RewardEntry>> {
    let c = side_config(config, pool, out);
    let env = c.env()?;
    let run =
        prepare(c, aorlta_core::adapters(), env).with_context(|| format!("preparing the {label} pool"))?;
    for s in &run.skipped {
        eprintln!("skipped {s}");
    }
    let bar = ProgressBar::new(run.lines as u64).with_message(label.to_string());
    let report = execute(&run, &|_| bar.inc(1))?;
    bar.finish_and_clear();
    for s in &report.skipped[run.skipped.len()..] {
        eprintln!("skipped {s}");
    }
    side_entries(&report, label, pool)
}

/// Runs `aorlta eval`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let cwd = std::env::current_dir()?;
    let config = RunConfig::load(&args.config)?;
    let out = args.out.map(|o| cwd.join(o)).unwrap_or_else(|| {
        let mut o = config.out.clone().into_os_string();
        o.push("-eval");
        PathBuf::from(o)
    });
    std::fs::create_dir_all(&out).with_context(|| format!("creating {}", out.display()))?;
    let before = score_pool(&config, &cwd.join(&args.before), out.join("before"), "before")?;
    let after = score_pool(&config, &cwd.join(&args.after), out.join("after"), "after")?;
    let pools = [figures("before", &before, 11), figures("after", &after, 13)];
    let t = table(&pools);
    println!("{t}");
    let written = write_comparison(&out, &args.config, &args.before, &args.after, &pools, &t)?;
    println!("wrote {}", written.report.display());
    println!("wrote {}", written.rewards_svg.display());
    Ok(ExitCode::SUCCESS)
}
