//! Timings of candidate kernels against their tasks' references (`aorlta timecheck`): compile,
//! then the `kernel-time` leg (the per-launch protocol and the judge), both through the engine's
//! one door for legs ([`aorlta_core::Legs`]), which never uses the store here: a timing is a
//! measurement.
//!
//! One kernel source gives its two legs ([`time_source`]); a pool of completions gives one
//! [`TimecheckRow`] per completion as it is done ([`time_pool`]: its kernel extracted from its
//! code block as the `parse` leg does, compiled and timed), then a summary table by verdict
//! ([`timecheck_summary`]). The command line reads the files and prints.

use aorlta_check::{CoreError, Env, LegRunner, SkippedLine, Task, TaskSet};
use aorlta_core::read_pool;
use aorlta_kernel::KernelTools;
use aorlta_kernel::{KernelTaskDef, kernel_source};
use aorlta_record::{LegResult, LegState};
use serde_json::{Map, Value, json};
use std::path::Path;

/// The first line of a timecheck on the fake device: its times are a model's, said before any
/// figure is.
pub const FAKE_TIMES: &str = "fake device: it compiles no source and runs none; the times, speedups and \
     verdicts below are the fake device's model, not measurements";

/// The timing leg's parameters: the speedup required to be `faster`, the kernel seconds both
/// kernels may spend, the pairs to take, and whether every pair and launch is kept.
pub fn time_params(
    ratio: Option<f64>,
    budget_s: Option<f64>,
    pairs: Option<usize>,
    keep_samples: bool,
) -> Value {
    let mut params = Map::new();
    if let Some(r) = ratio {
        params.insert("ratio".into(), json!(r));
    }
    if let Some(b) = budget_s {
        params.insert("budget-s".into(), json!(b));
    }
    if let Some(p) = pairs {
        params.insert("pairs".into(), json!(p));
    }
    if keep_samples {
        params.insert("keep-samples".into(), json!(true));
    }
    Value::Object(params)
}

/// Stops the harness processes of an environment's kernel tools, if it has them.
pub fn shutdown(env: &Env) {
    if let Some(k) = env.kernel() {
        k.pool().shutdown();
    }
}

/// What one kernel source came to: its compile leg, and its timing leg when it compiled.
#[derive(Debug)]
pub struct Timed {
    /// The `compile` leg.
    pub compiled: LegResult,
    /// The `ref.speedup` leg, when the source compiled.
    pub timed: Option<LegResult>,
}

/// Compiles `source`, then times it when it compiled, both legs through `legs` (the engine's
/// door, which never uses the store here: a timing is a measurement).
pub fn time_source(legs: &dyn LegRunner, task: &Task, source: &str, params: &Value, env: &Env) -> Timed {
    let compiled = legs.run_on_source("compile", "kernel-compile", task, source, &Value::Null, env);
    let timed = (compiled.state == LegState::Clean)
        .then(|| legs.run_on_source("ref.speedup", "kernel-time", task, source, params, env));
    Timed { compiled, timed }
}

/// A number of a leg's detail.
pub fn detail_num(leg: &LegResult, key: &str) -> Option<f64> {
    leg.detail.as_ref()?.get(key)?.as_f64()
}

/// One completion's row: the leg that decided it (`task`, `parse`, `compile` or `time`), its
/// state and code, and the timing's figures.
#[derive(Debug, Clone)]
pub struct TimecheckRow {
    /// The completion's id.
    pub id: String,
    /// Its task.
    pub task: String,
    /// The leg that decided it.
    pub leg: &'static str,
    /// That leg's state.
    pub state: String,
    /// That leg's first code (`-` when none).
    pub verdict: String,
    /// The timing's speedup statistic.
    pub s: Option<f64>,
    /// The ratio it was judged against.
    pub ratio: Option<f64>,
    /// The pairs taken.
    pub pairs: Option<f64>,
}

impl TimecheckRow {
    fn of_leg(id: &str, task: &str, leg: &'static str, r: &LegResult) -> TimecheckRow {
        TimecheckRow {
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

/// A number with `digits` decimals, `-` when there is none.
pub fn fmt_num(x: Option<f64>, digits: usize) -> String {
    x.map(|v| format!("{v:.digits$}")).unwrap_or_else(|| "-".into())
}

/// Times every completion of the pool at `pool` (only those of task `only` when given):
/// `on_start` gets the malformed lines skipped and the number of completions to time, then
/// `on_row` each row as it is done. The rows, and how many lines were skipped.
#[allow(clippy::too_many_arguments)]
pub fn time_pool(
    legs: &dyn LegRunner,
    tasks: &TaskSet,
    only: Option<&str>,
    pool: &Path,
    params: &Value,
    env: &Env,
    on_start: &mut dyn FnMut(&[SkippedLine], usize),
    on_row: &mut dyn FnMut(&TimecheckRow),
) -> Result<(Vec<TimecheckRow>, usize), CoreError> {
    let (candidates, skipped) = read_pool(pool)?;
    let candidates: Vec<_> = candidates
        .into_iter()
        .filter(|c| only.is_none_or(|t| c.task == t))
        .collect();
    on_start(&skipped, candidates.len());
    let mut rows = Vec::with_capacity(candidates.len());
    for c in &candidates {
        let row = pool_row(legs, tasks, &c.id, &c.task, &c.completion, params, env);
        on_row(&row);
        rows.push(row);
    }
    Ok((rows, skipped.len()))
}

fn pool_row(
    legs: &dyn LegRunner,
    tasks: &TaskSet,
    id: &str,
    task_id: &str,
    completion: &str,
    params: &Value,
    env: &Env,
) -> TimecheckRow {
    let unjudged = |leg: &'static str, state: &str, verdict: &str| TimecheckRow {
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
        Some(t) => TimecheckRow::of_leg(id, task_id, "time", &t),
        None => TimecheckRow::of_leg(id, task_id, "compile", &compiled),
    }
}

/// The summary: completions per deciding leg and verdict, in order of first appearance, with
/// the median, lowest and highest speedup of those timed.
pub fn timecheck_summary(rows: &[TimecheckRow], skipped: usize) -> String {
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
    use aorlta_core::Legs;
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
        let profile = aorlta_core::LoadedProfile::load(
            &root.join("examples/kernels/profile.yaml"),
            &aorlta_core::adapters(),
            &aorlta_core::RewardRegistry::builtin(),
        )
        .unwrap();
        let parts = aorlta_core::EngineParts {
            adapters: legs_registry(),
            ..Default::default()
        };
        let engine = aorlta_core::Engine::new(profile, Arc::new(tasks.clone()), parts);
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

    fn row(leg: &'static str, verdict: &str, s: Option<f64>) -> TimecheckRow {
        TimecheckRow {
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
        let text = timecheck_summary(&rows, 1);
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
