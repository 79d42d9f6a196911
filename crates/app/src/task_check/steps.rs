//! One kernel task's check, the steps of `aorlta task check` (the command's run over files is
//! the parent module). In order, each step only when the one before passed:
//!
//! 1. the reference compiles ([`compile`], the compile leg's own driver and limits);
//! 2. the tolerance sanity ([`task_sanity`]): an all-zero, constant or copied output must not
//!    match the reference's outputs within the task's tolerance;
//! 3. the reference against itself through the correctness leg (`kernel-run`): every size,
//!    every input family the task allows, guard bands and inputs checked, so a reference that
//!    writes out of bounds, changes its input or is not deterministic within its own tolerance
//!    fails here;
//! 4. the reference against itself through the timing leg (`kernel-time`, the per-launch
//!    protocol and the judge), an A/A run: it must come out `not-faster` (a task whose reference
//!    is "faster" than itself cannot be timed fairly); its median time and noise are reported.
//!
//! On the fake device the fake compiler compiles nothing and the fake device runs no source, so
//! ([`check_task_on_fake`]) the reference is compiled by the real compiler the task's language
//! needs when this machine has it (a compile failure fails the task; no compiler leaves the
//! step [`NOT_RUN`], saying why); the sanity and the run go through the harness on the fake
//! device's CPU stand-in of the task ([`FAKE`]: they find a tolerance that lets a zero output
//! pass against those values and faults of the task's sizes, launch expressions and buffers,
//! never a fault of the reference's code); the A/A timing is not run (the fake device's times
//! are a model's, never reported as measured). Each step not run says so in
//! [`TaskCheck::not_run`].
//!
//! A step that fails is data in the result ([`TaskCheck::pass`] false and why), never an `Err`.

use aorlta_check::{Env, LegRunner, Task};
use aorlta_kernel::{KernelEnv, KernelReason, KernelTaskDef, KernelTools, Sanity, Who, compile, task_sanity};
use aorlta_record::{LegResult, LegState};
use serde::Serialize;
use serde_json::Value;

/// What the A/A timing measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
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
#[derive(Debug, Clone, Default, PartialEq, Serialize, serde::Deserialize)]
pub struct TaskCheck {
    /// The task id.
    pub id: String,
    /// The task file.
    pub file: String,
    /// `pass`, `FAIL`, `-` (not reached), [`FAKE`] (ran on the fake device's stand-in only) or
    /// [`NOT_RUN`] for each step: compile, sanity, run, time.
    pub steps: [String; 4],
    /// The A/A timing, when it ran.
    pub aa: Option<AaTiming>,
    /// True when every step passed.
    pub pass: bool,
    /// Why it failed, or what passed.
    pub why: String,
    /// True when the checks ran on the fake device.
    pub fake_device: bool,
    /// The steps not run, or not run on real values (the fake device), each `step: what and
    /// why`; empty on a GPU.
    pub not_run: Vec<String>,
    /// What the result depends on, hashed: the task's content and reference, the AORLTA
    /// sources, the device, the compilers and the legs' parameters (empty for a file that did
    /// not load). A resumed check reuses a pass of the same key.
    #[serde(default)]
    pub key: String,
    /// True when this pass was read from an earlier run's results (`task check --resume`),
    /// not checked again.
    #[serde(default)]
    pub resumed: bool,
}

/// A step's mark when it ran on the fake device's CPU stand-in of the task, not on the
/// reference's own code and values.
pub const FAKE: &str = "fake";
/// A step's mark when it was not run.
pub const NOT_RUN: &str = "skip";

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

/// The empty result of a check of `task`, its kernel definition and kernel tools; a failed
/// result when the task is not a kernel task or there are no kernel tools.
fn start<'a>(
    env: &'a Env,
    task: &'a Task,
    fake_device: bool,
) -> Result<(TaskCheck, &'a KernelTaskDef, &'a KernelEnv), Box<TaskCheck>> {
    let mut out = TaskCheck {
        id: task.id.clone(),
        steps: std::array::from_fn(|_| "-".to_string()),
        fake_device,
        ..TaskCheck::default()
    };
    let Some(def) = KernelTaskDef::of(task) else {
        return Err(Box::new(out.failed(0, "not a kernel task".into())));
    };
    out.file = def.file.display().to_string();
    let Some(kenv) = env.kernel() else {
        return Err(Box::new(out.failed(0, "no kernel tools".into())));
    };
    Ok((out, def, kenv))
}

/// Checks one kernel task, its correctness and timing legs run through `legs` (the engine's
/// door); a task of another kind fails at once. On the fake device this is
/// [`check_task_on_fake`] with no real compiler.
pub fn check_task(legs: &dyn LegRunner, env: &Env, task: &Task, params: &CheckParams) -> TaskCheck {
    let (mut out, def, kenv) = match start(env, task, false) {
        Ok(s) => s,
        Err(failed) => return *failed,
    };
    if kenv.is_fake() {
        return check_task_on_fake(legs, env, None, task, params);
    }
    if def.torch.is_some() {
        return check_torch_task(out, env, task, false);
    }
    if let Err(f) = compile(kenv, def, &def.reference_source, Who::Reference) {
        return out.failed(
            0,
            format!("the reference does not compile: {}: {}", f.code, f.detail),
        );
    }
    out.steps[0] = "pass".into();
    if let Err(why) = sound(env, task) {
        return out.failed(1, why);
    }
    out.steps[1] = "pass".into();
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

/// The tolerance sanity on real outputs as a step: why it failed or did not run, if it did.
fn sound(env: &Env, task: &Task) -> Result<(), String> {
    match task_sanity(env, task) {
        Sanity::Sound(_) => Ok(()),
        Sanity::Unsound(why) => Err(why),
        Sanity::NotRun(why) => Err(format!("not run: {why}")),
    }
}

/// What the fake device leaves unchecked in the sanity step.
const SANITY_NOT_RUN: &str = "sanity: the tolerance sanity on the reference's real outputs was not run (the fake device \
     computes a CPU stand-in of the task; only a tolerance loose against its values was looked for)";
/// What the fake device leaves unchecked in the run step.
const RUN_NOT_RUN: &str = "run: the reference against itself was not run (the fake device runs no source; only the \
     task's sizes, launch expressions and buffers went through the harness)";
/// What the fake device leaves unchecked in the timing step.
const AA_NOT_RUN: &str =
    "a/a: the A/A timing was not run (the fake device's times are a model's, not measurements)";

/// [`check_task`] on the fake device: the reference compiled by `real`, the tools of the real
/// compilers ([`KernelEnv::real_compilers`]; a compiler missing there, or no `real`,
/// leaves the compile step not run, saying why); the sanity and the run on the fake device's
/// stand-in ([`FAKE`]); no A/A timing. Every step not run, or not run on real values, is named
/// in [`TaskCheck::not_run`]; a task passes when no step failed.
pub fn check_task_on_fake(
    legs: &dyn LegRunner,
    env: &Env,
    real: Option<&KernelEnv>,
    task: &Task,
    params: &CheckParams,
) -> TaskCheck {
    let (mut out, def, kenv) = match start(env, task, true) {
        Ok(s) => s,
        Err(failed) => return *failed,
    };
    if def.torch.is_some() {
        return check_torch_task(out, env, task, true);
    }
    match real.map(|r| compile(r, def, &def.reference_source, Who::Reference)) {
        Some(Ok(_)) => out.steps[0] = "pass".into(),
        Some(Err(f)) if !is_missing_compiler(&f.code) => {
            return out.failed(
                0,
                format!("the reference does not compile: {}: {}", f.code, f.detail),
            );
        }
        missing => {
            let why = match missing {
                Some(Err(f)) => f.detail,
                _ => "no real compiler was set up".into(),
            };
            out.steps[0] = NOT_RUN.into();
            out.not_run
                .push(format!("compile: the reference was not compiled: {why}"));
        }
    }
    // The fake compiler stands in for the later steps' compiles.
    if let Err(f) = compile(kenv, def, &def.reference_source, Who::Reference) {
        return out.failed(0, format!("{}: {}", f.code, f.detail));
    }
    match task_sanity(env, task) {
        Sanity::Sound(_) => out.steps[1] = FAKE.into(),
        Sanity::Unsound(why) => {
            return out.failed(1, format!("{why} (on the fake device's stand-in values)"));
        }
        Sanity::NotRun(why) => return out.failed(1, format!("not run: {why}")),
    }
    out.not_run.push(SANITY_NOT_RUN.into());
    let source = def.reference_source.as_str();
    let run = legs.run_on_source("ref.native", "kernel-run", task, source, &params.run, env);
    if run.state != LegState::Clean {
        return out.failed(
            2,
            format!("the task on the fake device: {} {}", run.state, reason(&run)),
        );
    }
    out.steps[2] = FAKE.into();
    out.not_run.push(RUN_NOT_RUN.into());
    out.steps[3] = NOT_RUN.into();
    out.not_run.push(AA_NOT_RUN.into());
    out.pass = true;
    out.why = format!(
        "on the fake device: {}; {} step{} not run",
        if out.steps[0] == "pass" {
            "the reference compiles"
        } else {
            "the reference not compiled"
        },
        out.not_run.len(),
        if out.not_run.len() == 1 { "" } else { "s" }
    );
    out
}

/// What a task whose reference is a PyTorch module leaves unchecked in the run step.
const TORCH_RUN_NOT_RUN: &str = "run: the reference against itself was not run (a PyTorch reference is no kernel: \
     check a candidate of yours with `aorlta timecheck`)";
/// What it leaves unchecked in the timing step.
const TORCH_AA_NOT_RUN: &str = "a/a: the A/A timing against the module was not run (it needs a kernel computing \
     the module's op as the candidate)";

/// [`check_task`] of a task whose reference is a PyTorch module: the module runs in the
/// reference process (a Python with torch is here), and its outputs, real ones on the fake
/// device too (torch computes them on the CPU), are told from a kernel that computes nothing
/// by the task's tolerance. No kernel runs against it here.
fn check_torch_task(mut out: TaskCheck, env: &Env, task: &Task, fake: bool) -> TaskCheck {
    let python = aorlta_kernel::torch_python(env.kernel().and_then(|k| k.config().torch_python.clone()));
    match aorlta_kernel::has_torch(&python) {
        Ok(_) => out.steps[0] = "pass".into(),
        Err(why) => return out.failed(0, format!("{}: {why}", KernelReason::NoTorch)),
    }
    if let Err(why) = sound(env, task) {
        return out.failed(1, why);
    }
    out.steps[1] = "pass".into();
    out.steps[2] = NOT_RUN.into();
    out.not_run.push(TORCH_RUN_NOT_RUN.into());
    out.steps[3] = NOT_RUN.into();
    out.not_run.push(TORCH_AA_NOT_RUN.into());
    out.pass = true;
    out.why = format!(
        "the PyTorch module runs{} and its tolerance is sound; {} steps not run",
        if fake {
            " (on the CPU, for the fake device)"
        } else {
            ""
        },
        out.not_run.len()
    );
    out
}

/// True for the compile failures that mean no compiler can run here (no compiler, no AMD
/// architecture to compile for, no compile jail): not a fault of the reference.
fn is_missing_compiler(code: &str) -> bool {
    use KernelReason as R;
    [R::NoCompiler, R::NoHipArch, R::CompileSandboxUnavailable]
        .iter()
        .any(|r| r.as_str() == code)
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
