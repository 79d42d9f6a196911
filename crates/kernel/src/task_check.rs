//! `aorlta task check`'s work on one loaded kernel task: what a team runs on a task it writes
//! before anyone trains on it. In order, each step only when the one before passed:
//!
//! 1. the reference compiles ([`compile`], the compile leg's own driver and limits);
//! 2. the tolerance sanity ([`task_sanity`]): an all-zero, constant or copied output must not
//!    match the reference's outputs within the task's tolerance;
//! 3. the reference against itself through the correctness leg ([`crate::KernelRun`]): every size,
//!    every input family the task allows, guard bands and inputs checked, so a reference that
//!    writes out of bounds, changes its input or is not deterministic within its own tolerance
//!    fails here;
//! 4. the reference against itself through the timing leg ([`crate::KernelTime`], the per-launch
//!    protocol and the judge), an A/A run: it must come out `not-faster` (a task whose reference
//!    is "faster" than itself cannot be timed fairly); its median time and noise are reported.
//!
//! A step that fails is data in the result ([`TaskCheck::pass`] false and why), never an `Err`.

use crate::compiler::{Who, compile};
use crate::env::KernelTools;
use crate::sanity::{Sanity, task_sanity};
use crate::task::KernelTaskDef;
use aorlta_check::{Env, LegRunner, Task};
use aorlta_record::{LegResult, LegState};
use serde::Serialize;
use serde_json::Value;

/// What the A/A timing measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AaTiming {
    /// The judge's verdict code (`not-faster` is the one that passes).
    pub verdict: String,
    /// The leg's state.
    pub state: String,
    /// `median(reference) / median(reference again)`.
    pub s: Option<f64>,
    /// The reference's median launch time in seconds (the first of the two copies).
    pub median_s: Option<f64>,
    /// The other copy's median launch time in seconds.
    pub median_again_s: Option<f64>,
    /// The judge's noise floor: the larger relative MAD of the two copies, at least its
    /// minimum floor.
    pub floor: Option<f64>,
    /// The reference's raw relative MAD (MAD / median, not scaled by 1.4826).
    pub rel_mad: Option<f64>,
    /// Pairs the judge used.
    pub pairs: Option<f64>,
    /// The ratio the verdict was decided at.
    pub ratio: Option<f64>,
}

/// One task's check.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct TaskCheck {
    /// The task id.
    pub id: String,
    /// The task file.
    pub file: String,
    /// `pass`, `FAIL` or `-` (not reached) for each step: compile, sanity, run, time.
    pub steps: [String; 4],
    /// The A/A timing, when it ran.
    pub aa: Option<AaTiming>,
    /// True when every step passed.
    pub pass: bool,
    /// Why it failed, or what passed.
    pub why: String,
}

/// The names of [`TaskCheck::steps`], in order.
pub const STEPS: [&str; 4] = ["compile", "sanity", "run", "a/a"];

/// What the correctness and timing legs run with (their legs' parameters, as a profile gives
/// them; `null` for the defaults).
#[derive(Debug, Clone, Default)]
pub struct CheckParams {
    /// The `kernel-run` leg's parameters.
    pub run: Value,
    /// The `kernel-time` leg's parameters.
    pub time: Value,
}

impl TaskCheck {
    fn failed(mut self, step: usize, why: String) -> Self {
        self.steps[step] = "FAIL".into();
        self.why = format!("{}: {why}", STEPS[step]);
        self
    }
}

/// `code: detail` of a leg's first reason.
fn reason(leg: &LegResult) -> String {
    match leg.reasons.first() {
        Some(r) if r.detail.is_empty() || r.detail.starts_with(&format!("{}:", r.code)) => {
            if r.detail.is_empty() {
                r.code.clone()
            } else {
                r.detail.clone()
            }
        }
        Some(r) => format!("{}: {}", r.code, r.detail),
        None => leg.state.to_string(),
    }
}

fn num(leg: &LegResult, key: &str) -> Option<f64> {
    leg.detail.as_ref()?.get(key)?.as_f64()
}

/// Checks one kernel task, its correctness and timing legs run through `legs` (the engine's
/// door); a task of another kind fails at once.
pub fn check_task(legs: &dyn LegRunner, env: &Env, task: &Task, params: &CheckParams) -> TaskCheck {
    let mut out = TaskCheck {
        id: task.id.clone(),
        steps: std::array::from_fn(|_| "-".to_string()),
        ..TaskCheck::default()
    };
    let Some(def) = KernelTaskDef::of(task) else {
        return out.failed(0, "not a kernel task".into());
    };
    out.file = def.file.display().to_string();
    let Some(kenv) = env.kernel() else {
        return out.failed(0, "no kernel tools".into());
    };
    if let Err(f) = compile(kenv, def, &def.reference_source, Who::Reference) {
        return out.failed(
            0,
            format!("the reference does not compile: {}: {}", f.code, f.detail),
        );
    }
    out.steps[0] = "pass".into();
    match task_sanity(env, task) {
        Sanity::Sound(_) => out.steps[1] = "pass".into(),
        Sanity::Unsound(why) => return out.failed(1, why),
        Sanity::NotRun(why) => return out.failed(1, format!("not run: {why}")),
    }
    let source = def.reference_source.as_str();
    let run = legs.run_on_source("ref.native", "kernel-run", task, source, &params.run, env);
    if run.state != LegState::Clean {
        return out.failed(
            2,
            format!("the reference against itself: {} {}", run.state, reason(&run)),
        );
    }
    out.steps[2] = "pass".into();
    let time = legs.run_on_source("ref.speedup", "kernel-time", task, source, &params.time, env);
    let aa = AaTiming {
        verdict: time.first_code().unwrap_or("-").to_string(),
        state: time.state.to_string(),
        s: num(&time, "s"),
        median_s: num(&time, "median_reference"),
        median_again_s: num(&time, "median_candidate"),
        floor: num(&time, "floor"),
        rel_mad: num(&time, "rel_mad_reference"),
        pairs: num(&time, "valid_pairs"),
        ratio: num(&time, "ratio"),
    };
    let settled_not_faster = time.state == LegState::Broke && aa.verdict == "not-faster";
    out.aa = Some(aa);
    if !settled_not_faster {
        let hint = match (time.state, out.aa.as_ref().map(|a| a.verdict.as_str())) {
            (LegState::Clean, _) => "; the reference is judged faster than itself: the timing cannot be fair",
            (_, Some("too-slow-to-measure")) => "; raise the timing leg's budget-s or shrink the timed size",
            (LegState::Unsettled, _) => "; the A/A timing did not settle",
            _ => "",
        };
        return out.failed(3, format!("{} {}{hint}", time.state, reason(&time)));
    }
    out.steps[3] = "pass".into();
    out.pass = true;
    out.why = "compiles, sound tolerance, clean against itself, A/A not-faster".into();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::Reason;

    fn leg(reasons: Vec<Reason>) -> LegResult {
        LegResult {
            name: "l".into(),
            adapter: "a".into(),
            state: LegState::Broke,
            reasons,
            informational: false,
            detail: Some(serde_json::json!({"s": 1.01})),
            elapsed_s: 0.0,
            cached: false,
        }
    }

    #[test]
    fn a_reason_reads_code_then_detail_once() {
        assert_eq!(reason(&leg(vec![])), "broke");
        assert_eq!(reason(&leg(vec![Reason::new("x", "")])), "x");
        assert_eq!(reason(&leg(vec![Reason::new("x", "x: why")])), "x: why");
        assert_eq!(reason(&leg(vec![Reason::new("x", "why")])), "x: why");
        assert_eq!(num(&leg(vec![]), "s"), Some(1.01));
        assert_eq!(num(&leg(vec![]), "floor"), None);
    }

    #[test]
    fn a_failed_step_names_itself() {
        let c = TaskCheck::default().failed(1, "zeros pass".into());
        assert_eq!(c.steps[1], "FAIL");
        assert_eq!(c.why, "sanity: zeros pass");
        assert!(!c.pass);
    }
}
