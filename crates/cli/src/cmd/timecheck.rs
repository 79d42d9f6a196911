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
use aorlta_check::{Env, LegRunner};
use aorlta_check::{Task, TaskSet};
use aorlta_core::run::Legs;
use aorlta_core::run::pool::read_pool;
use aorlta_kernel::KernelTools;
use aorlta_kernel::{KernelTaskDef, kernel_source};
use aorlta_record::{LegResult, LegState};
use serde_json::{Map, Value, json};
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

/// The first line of a timecheck on the fake device.
const FAKE_TIMES: &str = "fake device: it compiles no source and runs none; the times, speedups and \
     verdicts below are the fake device's model, not measurements";

/// Runs `aorlta timecheck`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let tasks_path = std::path::absolute(&args.tasks)?;
    let config = args.kernel.kernel_config()?;
    if config.fake_gpu {
        // Its times are a model's: said before any figure is.
        println!("{FAKE_TIMES}");
    }
    let (tasks, _) = TaskSet::load(&tasks_path, &aorlta_core::lanes())?;
    let params = time_params(&args);
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

/// The timing leg's parameters from the command line.
fn time_params(args: &Args) -> Value {
    let mut params = Map::new();
    if let Some(r) = args.ratio {
        params.insert("ratio".into(), json!(r));
    }
    if let Some(b) = args.budget {
        params.insert("budget-s".into(), json!(b));
    }
    if let Some(p) = args.pairs {
        params.insert("pairs".into(), json!(p));
    }
    if args.keep_samples {
        params.insert("keep-samples".into(), json!(true));
    }
    Value::Object(params)
}

fn shutdown(env: &Env) {
    if let Some(k) = env.kernel() {
        k.pool().shutdown();
    }
}

/// What one kernel source came to: its compile leg, and its timing leg when it compiled.
struct Timed {
    compiled: LegResult,
    timed: Option<LegResult>,
}

/// Compiles `source`, then times it when it compiled, both legs through `legs` (the engine's
/// door, which never uses the store here: a timing is a measurement).
fn time_source(legs: &dyn LegRunner, task: &Task, source: &str, params: &Value, env: &Env) -> Timed {
    let compiled = legs.run_on_source("compile", "kernel-compile", task, source, &Value::Null, env);
    let timed = (compiled.state == LegState::Clean)
        .then(|| legs.run_on_source("ref.speedup", "kernel-time", task, source, params, env));
    Timed { compiled, timed }
}

fn detail_num(leg: &LegResult, key: &str) -> Option<f64> {
    leg.detail.as_ref()?.get(key)?.as_f64()
}

fn one_candidate(
    legs: &dyn LegRunner,
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

/// One completion's row: the leg that decided it (`task`, `parse`, `compile` or `time`), its
/// state and code, and the timing's figures.
struct Row {
    id: String,
    task: String,
    leg: &'static str,
    state: String,
    verdict: String,
    s: Option<f64>,
    ratio: Option<f64>,
    pairs: Option<f64>,
}

impl Row {
    fn of_leg(id: &str, task: &str, leg: &'static str, r: &LegResult) -> Row {
        Row {
            id: id.to_string(),
            task: task.to_string(),
            leg,
            state: r.state.to_string(),
            verdict: r.first_code().unwrap_or("-").to_string(),
            s: detail_num(r, "s"),
            ratio: detail_num(r, "ratio"),
            pairs: detail_num(r, "pairs"),
        }
    }
}

fn fmt_num(x: Option<f64>, digits: usize) -> String {
    x.map(|v| format!("{v:.digits$}")).unwrap_or_else(|| "-".into())
}

const ROW_HEAD: (&str, &str, &str, &str, &str, &str, &str, &str) =
    ("ID", "TASK", "LEG", "STATE", "VERDICT", "S", "RATIO", "PAIRS");

fn print_row(r: (&str, &str, &str, &str, &str, &str, &str, &str)) {
    println!(
        "{:<34} {:<12} {:<8} {:<10} {:<24} {:>8} {:>6} {:>6}",
        r.0, r.1, r.2, r.3, r.4, r.5, r.6, r.7
    );
}

fn whole_pool(
    legs: &dyn LegRunner,
    tasks: &TaskSet,
    only: Option<&str>,
    pool: &Path,
    params: &Value,
    env: &Env,
) -> anyhow::Result<ExitCode> {
    let (candidates, skipped) = read_pool(pool)?;
    for s in &skipped {
        eprintln!("skipped {s}");
    }
    let candidates: Vec<_> = candidates
        .into_iter()
        .filter(|c| only.is_none_or(|t| c.task == t))
        .collect();
    println!(
        "timecheck {}: {} completions{}",
        pool.display(),
        candidates.len(),
        only.map(|t| format!(" of task {t}")).unwrap_or_default()
    );
    print_row(ROW_HEAD);
    let mut rows = Vec::with_capacity(candidates.len());
    for c in &candidates {
        let row = pool_row(legs, tasks, &c.id, &c.task, &c.completion, params, env);
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
        rows.push(row);
    }
    print!("{}", summary(&rows, skipped.len()));
    Ok(ExitCode::SUCCESS)
}

fn pool_row(
    legs: &dyn LegRunner,
    tasks: &TaskSet,
    id: &str,
    task_id: &str,
    completion: &str,
    params: &Value,
    env: &Env,
) -> Row {
    let unjudged = |leg: &'static str, state: &str, verdict: &str| Row {
        id: id.to_string(),
        task: task_id.to_string(),
        leg,
        state: state.to_string(),
        verdict: verdict.to_string(),
        s: None,
        ratio: None,
        pairs: None,
    };
    let Some(task) = tasks.get(task_id) else {
        return unjudged("task", "skipped", "no-task");
    };
    let Some(k) = KernelTaskDef::of(task) else {
        return unjudged("task", "skipped", "not-a-kernel-task");
    };
    let source = match kernel_source(completion, k) {
        Ok(s) => s,
        Err(reason) => return unjudged("parse", LegState::Broke.as_str(), &reason.code),
    };
    let Timed { compiled, timed } = time_source(legs, task, &source, params, env);
    match timed {
        Some(t) => Row::of_leg(id, task_id, "time", &t),
        None => Row::of_leg(id, task_id, "compile", &compiled),
    }
}

/// The summary: completions per deciding leg and verdict, in order of first appearance, with
/// the median, lowest and highest speedup of those timed.
fn summary(rows: &[Row], skipped: usize) -> String {
    let mut groups: Vec<(&str, &str, &str, Vec<f64>, usize)> = Vec::new();
    for r in rows {
        let at = groups
            .iter()
            .position(|g| g.0 == r.leg && g.1 == r.verdict && g.2 == r.state);
        let g = match at {
            Some(i) => &mut groups[i],
            None => {
                groups.push((r.leg, &r.verdict, &r.state, Vec::new(), 0));
                groups.last_mut().expect("just pushed")
            }
        };
        g.4 += 1;
        if let Some(s) = r.s {
            g.3.push(s);
        }
    }
    let timed = rows.iter().filter(|r| r.leg == "time").count();
    let mut out = format!(
        "\nsummary: {} completions, {timed} timed; {skipped} malformed line{} skipped\n",
        rows.len(),
        if skipped == 1 { "" } else { "s" }
    );
    out.push_str(&format!(
        "{:<8} {:<24} {:<10} {:>5} {:>9} {:>8} {:>8}\n",
        "LEG", "VERDICT", "STATE", "COUNT", "S MEDIAN", "S MIN", "S MAX"
    ));
    for (leg, verdict, state, mut s, count) in groups {
        s.sort_by(f64::total_cmp);
        let median = (!s.is_empty()).then(|| {
            let m = s.len() / 2;
            if s.len() % 2 == 1 {
                s[m]
            } else {
                (s[m - 1] + s[m]) / 2.0
            }
        });
        out.push_str(&format!(
            "{leg:<8} {verdict:<24} {state:<10} {count:>5} {:>9} {:>8} {:>8}\n",
            fmt_num(median, 4),
            fmt_num(s.first().copied(), 4),
            fmt_num(s.last().copied(), 4)
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_check::{Adapter, LegInput, LegOutput};
    use std::sync::Arc;

    /// A `kernel-compile` that panics.
    struct PanickingCompile;

    impl Adapter for PanickingCompile {
        fn name(&self) -> &'static str {
            "kernel-compile"
        }
        fn version(&self) -> &'static str {
            "1"
        }
        fn check_params(&self, _: &Value) -> Result<(), String> {
            Ok(())
        }
        fn run(&self, _: &LegInput<'_>) -> LegOutput {
            panic!("boom")
        }
    }

    #[test]
    fn a_leg_that_panics_is_caught_and_reported_as_the_engine_reports_it() {
        let tasks = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels/tasks");
        let (tasks, _) = TaskSet::load(&tasks, &aorlta_core::lanes()).unwrap();
        let legs = Legs::new(legs_registry());
        let completion =
            "```cuda\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {}\n```";
        let row = pool_row(
            &legs,
            &tasks,
            "c1",
            "vector_add",
            completion,
            &Value::Null,
            &Env::default(),
        );
        assert_eq!((row.leg, row.state.as_str()), ("compile", "unsettled"));
        assert_eq!(row.verdict, "internal-error");
        let task = tasks.get("vector_add").unwrap();
        let Timed { compiled, timed } = time_source(&legs, task, "x", &Value::Null, &Env::default());
        assert!(timed.is_none(), "nothing is timed after a compile that panicked");
        assert_eq!(compiled.state, LegState::Unsettled);
        assert_eq!(compiled.reasons.len(), 1);
        assert_eq!(compiled.reasons[0].code, "internal-error");
        assert_eq!(
            compiled.reasons[0].detail,
            "adapter `kernel-compile` panicked: boom"
        );
        // The engine, scoring the same completion with the same adapters, reports the same leg.
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
        let profile = aorlta_core::profile::LoadedProfile::load(
            &root.join("examples/kernels/profile.yaml"),
            &aorlta_core::adapters(),
            &aorlta_core::reward::RewardRegistry::builtin(),
        )
        .unwrap();
        let parts = aorlta_core::run::EngineParts {
            adapters: legs_registry(),
            ..Default::default()
        };
        let engine = aorlta_core::run::Engine::new(profile, Arc::new(tasks.clone()), parts);
        let entry = engine.score(&aorlta_record::Candidate {
            id: "c1".into(),
            task: "vector_add".into(),
            completion: completion.into(),
        });
        let scored = entry.legs.iter().find(|l| l.name == "compile").unwrap();
        assert_eq!(
            (scored.state, &scored.reasons),
            (compiled.state, &compiled.reasons)
        );
    }

    fn legs_registry() -> aorlta_check::Registry {
        let mut adapters = aorlta_core::adapters();
        adapters.add(Arc::new(PanickingCompile));
        adapters
    }

    fn row(leg: &'static str, verdict: &str, s: Option<f64>) -> Row {
        Row {
            id: "i".into(),
            task: "t".into(),
            leg,
            state: "broke".into(),
            verdict: verdict.into(),
            s,
            ratio: None,
            pairs: None,
        }
    }

    #[test]
    fn the_summary_groups_rows_by_leg_and_verdict_in_order() {
        let rows = [
            row("time", "not-faster", Some(1.0)),
            row("parse", "no-code-block", None),
            row("time", "not-faster", Some(0.5)),
            row("time", "not-faster", Some(0.9)),
        ];
        let text = summary(&rows, 1);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[1],
            "summary: 4 completions, 3 timed; 1 malformed line skipped"
        );
        let words: Vec<&str> = lines[3].split_whitespace().collect();
        assert_eq!(
            words,
            ["time", "not-faster", "broke", "3", "0.9000", "0.5000", "1.0000"]
        );
        assert!(lines[4].starts_with("parse    no-code-block"));
        assert!(lines[4].ends_with("-"));
    }
}
