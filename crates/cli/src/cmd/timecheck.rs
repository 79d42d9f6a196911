//! `aorlta timecheck (--task ID --candidate FILE | --pool FILE) [--ratio R] [--budget S]
//! [--keep-samples]`: timings of candidate kernels against their tasks' references (compile,
//! then the `kernel-time` leg: the per-launch protocol and the judge).
//!
//! With `--candidate`, one kernel source: the verdict and the measurement record on the
//! terminal. Exit status: 0 for a settled verdict (faster or not), 1 when the candidate does not
//! compile, 3 when the timing is unsettled.
//!
//! With `--pool`, every completion of a pool (JSONL lines as the score pools have: `task`,
//! `completion`, optional `id`): its kernel extracted from its code block as the `parse` leg
//! does, compiled and timed, one row per completion as it is done, then a summary table by
//! verdict. A malformed line is reported with its line number and skipped. Exit status 0 once
//! every line was reported (the verdicts are in the rows).
//!
//! Relative paths (`--candidate`, `--pool`, `--tasks`, `--config`) are resolved against the
//! caller's folder before anything runs.

use anyhow::{Context, bail};
use aorlta_app::{
    FAKE_TIMES, TimecheckRow, Timed, detail_num, fmt_num, shutdown, time_params, time_pool, time_source,
    timecheck_summary,
};
use aorlta_check::{Env, Task, TaskSet};
use aorlta_core::Legs;
use aorlta_record::LegState;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Exit code of an unsettled timing (no GPU, noise, budget).
pub(crate) const EXIT_UNSETTLED: u8 = 3;

/// Arguments of `aorlta timecheck`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["candidate", "pool"])))]
pub(crate) struct Args {
    /// The task's id (with `--candidate`; with `--pool`, only that task's completions).
    #[arg(long)]
    pub task: Option<String>,
    /// The candidate's kernel source (a `.cu` or `.hip` file).
    #[arg(long, conflicts_with = "pool", requires = "task")]
    pub candidate: Option<PathBuf>,
    /// A pool of completions (JSONL: task, completion, id), each timed against its task's
    /// reference.
    #[arg(long)]
    pub pool: Option<PathBuf>,
    /// The task files (a folder or a file).
    #[arg(long, default_value = "examples/kernels/tasks")]
    pub tasks: PathBuf,
    /// The speedup required to be `faster`.
    #[arg(long)]
    pub ratio: Option<f64>,
    /// Kernel seconds both kernels may spend.
    #[arg(long)]
    pub budget: Option<f64>,
    /// Pairs to take.
    #[arg(long)]
    pub pairs: Option<usize>,
    /// Keep every pair and launch in the record.
    #[arg(long)]
    pub keep_samples: bool,
    /// The config, GPUs, fake device and compiler.
    #[command(flatten)]
    pub kernel: super::kernel_args::KernelArgs,
}

/// Runs `aorlta timecheck`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let tasks_path = std::path::absolute(&args.tasks)?;
    let config = args.kernel.kernel_config()?;
    if config.fake_gpu {
        // Its times are a model's: said before any figure is.
        println!("{FAKE_TIMES}");
    }
    let (tasks, _) = TaskSet::load(&tasks_path, &aorlta_core::lanes())?;
    let params = time_params(args.ratio, args.budget, args.pairs, args.keep_samples);
    let code = match (&args.candidate, &args.pool) {
        (Some(candidate), _) => {
            let candidate = std::path::absolute(candidate)?;
            let source = std::fs::read_to_string(&candidate)
                .with_context(|| format!("cannot read {}", candidate.display()))?;
            let id = args.task.as_deref().unwrap_or_default();
            let Some(task) = tasks.get(id) else {
                bail!("no task `{id}` in {}", tasks_path.display());
            };
            let env = aorlta_kernel::env_with_kernel(&config)?;
            let code = one_candidate(&Legs::builtin(), task, &candidate, &source, &params, &env)?;
            shutdown(&env);
            code
        }
        (None, Some(pool)) => {
            let pool = std::path::absolute(pool)?;
            let env = aorlta_kernel::env_with_kernel(&config)?;
            let code = whole_pool(
                &Legs::builtin(),
                &tasks,
                args.task.as_deref(),
                &pool,
                &params,
                &env,
            );
            shutdown(&env);
            code?
        }
        (None, None) => unreachable!("clap requires --candidate or --pool"),
    };
    Ok(code)
}

/// Times one candidate source and prints its verdict and measurement record.
fn one_candidate(
    legs: &Legs,
    task: &Task,
    candidate: &Path,
    source: &str,
    params: &Value,
    env: &Env,
) -> anyhow::Result<ExitCode> {
    let Timed { compiled, timed } = time_source(legs, task, source, params, env);
    let Some(leg) = timed else {
        println!("compile: {}", serde_json::to_string_pretty(&compiled)?);
        return Ok(ExitCode::from(1));
    };
    let d = leg.detail.clone().unwrap_or(Value::Null);
    println!(
        "{} {}: {} ({}), s = {}, ratio = {}",
        task.id,
        candidate.display(),
        leg.first_code().unwrap_or(""),
        leg.state,
        detail_num(&leg, "s")
            .map(|s| format!("{s:.4}"))
            .unwrap_or_else(|| "-".into()),
        detail_num(&leg, "ratio")
            .map(|s| format!("{s}"))
            .unwrap_or_else(|| "-".into()),
    );
    if let Some(r) = leg.reasons.first() {
        println!("{}", r.detail);
    }
    println!("{}", serde_json::to_string_pretty(&d)?);
    Ok(match leg.state {
        LegState::Clean | LegState::Broke => ExitCode::SUCCESS,
        _ => ExitCode::from(EXIT_UNSETTLED),
    })
}

const ROW_HEAD: (&str, &str, &str, &str, &str, &str, &str, &str) =
    ("ID", "TASK", "LEG", "STATE", "VERDICT", "S", "RATIO", "PAIRS");

fn print_row(r: (&str, &str, &str, &str, &str, &str, &str, &str)) {
    println!(
        "{:<34} {:<12} {:<8} {:<10} {:<24} {:>8} {:>6} {:>6}",
        r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7
    );
}

/// Times every completion of a pool, printing a row for each as it is done, then the summary.
fn whole_pool(
    legs: &Legs,
    tasks: &TaskSet,
    only: Option<&str>,
    pool: &Path,
    params: &Value,
    env: &Env,
) -> anyhow::Result<ExitCode> {
    let (rows, skipped) = time_pool(
        legs,
        tasks,
        only,
        pool,
        params,
        env,
        &mut |skipped, completions| {
            for s in skipped {
                eprintln!("skipped {s}");
            }
            println!(
                "timecheck {}: {} completions{}",
                pool.display(),
                completions,
                only.map(|t| format!(" of task {t}")).unwrap_or_default()
            );
            print_row(ROW_HEAD);
        },
        &mut |row: &TimecheckRow| {
            print_row((
                &row.id,
                &row.task,
                row.leg,
                &row.state,
                &row.verdict,
                &fmt_num(row.s, 4),
                &fmt_num(row.ratio, 2),
                &fmt_num(row.pairs, 0),
            ));
        },
    )?;
    print!("{}", timecheck_summary(&rows, skipped));
    Ok(ExitCode::SUCCESS)
}
