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
use aorlta_app::DatasetSpec;
use aorlta_app::RunConfig;
use aorlta_app::{Series, histogram_svg};
use aorlta_app::{execute, prepare};
use aorlta_app::{figures, table};
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

fn score_pool(
    config: &RunConfig,
    pool: &Path,
    out: PathBuf,
    label: &str,
) -> anyhow::Result<Vec<RewardEntry>> {
    let mut c = config.clone();
    let parquet = pool
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("pq"));
    // The side alone: never the config's own pool or dataset file.
    match (&config.dataset, parquet) {
        (Some(spec), _) => {
            c.pools = Vec::new();
            c.dataset = Some(DatasetSpec {
                file: pool.to_path_buf(),
                ..spec.clone()
            });
        }
        (None, true) => {
            c.pools = Vec::new();
            c.dataset = Some(DatasetSpec {
                file: pool.to_path_buf(),
                mode: Default::default(),
                columns: Default::default(),
            });
        }
        (None, false) => {
            c.pools = vec![pool.to_path_buf()];
            c.dataset = None;
        }
    }
    c.out = out;
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
    let text = std::fs::read_to_string(&report.rewards)?;
    let entries: Vec<RewardEntry> = text.lines().map(serde_json::from_str).collect::<Result<_, _>>()?;
    if entries.is_empty() {
        anyhow::bail!(
            "the {label} side {} gave no candidate to score ({} lines or rows skipped)",
            pool.display(),
            report.skipped.len()
        );
    }
    Ok(entries)
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
    let rewards_svg = out.join("rewards.svg");
    std::fs::write(
        &rewards_svg,
        histogram_svg(
            "Reward distribution, before and after",
            "reward",
            &[
                Series {
                    label: "before",
                    values: &pools[0].rewards,
                },
                Series {
                    label: "after",
                    values: &pools[1].rewards,
                },
            ],
            -1.55,
            1.0,
            17,
        ),
    )?;
    let mut plots = String::from("![rewards](rewards.svg)\n");
    if pools.iter().any(|p| !p.speedups.is_empty()) {
        let logs: Vec<Vec<f64>> = pools
            .iter()
            .map(|p| p.speedups.iter().map(|s| s.log2()).collect())
            .collect();
        std::fs::write(
            out.join("speedups.svg"),
            histogram_svg(
                "Measured speedup of correct kernels (log2)",
                "log2(speedup)",
                &[
                    Series {
                        label: "before",
                        values: &logs[0],
                    },
                    Series {
                        label: "after",
                        values: &logs[1],
                    },
                ],
                -3.0,
                3.0,
                24,
            ),
        )?;
        plots.push_str("\n![speedups](speedups.svg)\n");
    }
    let md = format!(
        "# Before / after\n\nconfig `{}`, before `{}`, after `{}`; intervals are 95% bootstrap intervals \
         ({} resamples of each pool's entries).\n\n{t}\n{plots}",
        args.config.display(),
        args.before.display(),
        args.after.display(),
        aorlta_app::RESAMPLES
    );
    std::fs::write(out.join("report.md"), md)?;
    std::fs::write(
        out.join("report.json"),
        serde_json::to_string_pretty(&pools)? + "\n",
    )?;
    println!("wrote {}", out.join("report.md").display());
    println!("wrote {}", rewards_svg.display());
    Ok(ExitCode::SUCCESS)
}
