//! `kernel-run` (leg `ref.native`): correctness on the GPU. Both kernels compiled (cached),
//! fresh input seeds drawn from the run's secret (recorded in the detail after the run), every
//! listed size on every seed, through the harness's correctness plan ([`aorlta_gpu`'s `check`
//! module, run as a process]). Clean when every output matches the reference within tolerance,
//! every guard band is intact and every input is unchanged.
//!
//! Broke: `output-mismatch`, `guard-overwritten`, `input-mutated`, `device-faulted`, `hung`,
//! `launch-out-of-bounds`, `launch-failed`, `module-load-failed`, `kernel-not-found` and the
//! compile codes. Unsettled: `reference-broken`, `no-gpu`, `no-gpu-lease`, `driver-error`,
//! `harness-crashed`, `out-of-memory`, `bad-task`, and the compile leg's unsettled codes.

use super::exec::{compile_both, findings_outcome, inputs, run_job};
use crate::env::KernelTools;
use crate::reason::KernelReason;
use aorlta_check::Task;
use aorlta_check::params;
use aorlta_check::{Adapter, Env, LegInput, LegOutput};
use aorlta_record::{CheckWork, HARNESS_FORMAT, Work};
use serde::Deserialize;
use serde_json::json;

/// Bumped whenever the run leg's results can change.
pub(crate) const VERSION: &str = "2";

/// Parameters of `kernel-run`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub(crate) struct RunParams {
    /// Input seeds per size (1 to 32); raised where fewer would leave an input family of the
    /// task undrawn on a size ([`seeds_for`]).
    pub seeds: usize,
    /// Size indices to check; every size of the task when absent.
    pub sizes: Option<Vec<usize>>,
    /// A launch still running after this many seconds is `hung`.
    pub launch_timeout_s: f64,
}

impl Default for RunParams {
    fn default() -> Self {
        RunParams {
            seeds: 3,
            sizes: None,
            launch_timeout_s: 10.0,
        }
    }
}

fn check(p: &RunParams) -> Result<(), String> {
    if !(1..=32).contains(&p.seeds) {
        return Err("`seeds` must be 1 to 32".into());
    }
    if p.launch_timeout_s.is_nan() || p.launch_timeout_s <= 0.0 {
        return Err("`launch-timeout-s` must be positive".into());
    }
    Ok(())
}

/// Seeds per size: at least `asked`, and at least as many as the input families of the task's
/// most varied input, so that every input draws every family its domain allows on every size
/// ([`aorlta_record::family_for_case`]: a size's cases are consecutive turns of
/// each input's rotation). Not fewer: a kernel wrong only where a family meets a size (a
/// fixed-point sum that wraps only on the long products of the large size, only on inputs near
/// the top of the domain) passed whenever the seed put that family on a small size.
pub(crate) fn seeds_for(task: &crate::task::KernelTaskDef, asked: usize) -> usize {
    let families = task
        .spec
        .buffers
        .iter()
        .filter(|b| b.role != aorlta_record::Role::Out)
        .map(|b| aorlta_record::allowed_families(b).len())
        .max()
        .unwrap_or(1);
    asked.max(families)
}

/// `kernel-run`.
pub struct KernelRun;

/// What can change a harness leg's result besides its parameters: the compile identity
/// (compiler, architecture, reference, compile limits), the harness's record format and the
/// job deadline `job-timeout-s` (a `hung` verdict holds only under the deadline it passed).
pub(crate) fn harness_identity(task: &Task, env: &Env) -> String {
    let deadline = env
        .kernel()
        .and_then(|k| k.config().job_timeout_s)
        .map_or_else(|| "derived".to_string(), |s| s.to_string());
    // A module's outputs are those of the torch that runs it: its Python and version are part
    // of what the result depends on.
    let torch = match crate::task::KernelTaskDef::of(task).and_then(|k| k.torch.as_ref()) {
        Some(_) => {
            let python =
                crate::torch::torch_python(env.kernel().and_then(|k| k.config().torch_python.clone()));
            let version = crate::torch::has_torch(&python).unwrap_or_else(|_| "none".into());
            format!(";torch={}:{version}", python.display())
        }
        None => String::new(),
    };
    format!(
        "{};harness-format={}.{};job-timeout-s={deadline}{torch}",
        super::compile::compile_identity(task, env),
        HARNESS_FORMAT.major,
        HARNESS_FORMAT.minor
    )
}

impl Adapter for KernelRun {
    fn sources(&self) -> Option<String> {
        Some(crate::identity::with_harness())
    }
    fn name(&self) -> &'static str {
        "kernel-run"
    }
    fn version(&self) -> &'static str {
        VERSION
    }
    fn check_params(&self, p: &serde_json::Value) -> Result<(), String> {
        check(&params::<RunParams>(p)?)
    }
    fn identity(&self, task: &Task, _params: &serde_json::Value, env: &Env) -> String {
        harness_identity(task, env)
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        crate::exec::labelled(input, run_leg_here(input))
    }
}

fn run_leg_here(input: &LegInput<'_>) -> LegOutput {
    let p: RunParams = match params(input.params) {
        Ok(p) => p,
        Err(e) => return LegOutput::unsettled(KernelReason::BadParams, e),
    };
    let i = match inputs(input) {
        Ok(i) => i,
        Err(o) => return o,
    };
    let (reference, candidate) = match compile_both(&i) {
        Ok(c) => c,
        Err(o) => return o,
    };
    let n_sizes = i.task.spec.sizes.len();
    let sizes = p.sizes.clone().unwrap_or_else(|| (0..n_sizes).collect());
    if let Some(bad) = sizes.iter().find(|s| **s >= n_sizes) {
        return LegOutput::unsettled(
            KernelReason::BadParams,
            format!("size {bad}: the task has {n_sizes} sizes"),
        );
    }
    let purpose = format!("{}/{}/check", i.task.spec.id, aorlta_check::hash_str(i.source));
    let seeds: Vec<u64> = (0..seeds_for(i.task, p.seeds))
        .map(|_| i.env.next_seed(&purpose))
        .collect();
    let launch_timeout = if i.env.is_fake() {
        p.launch_timeout_s.min(0.3)
    } else {
        p.launch_timeout_s
    };
    let launches = (sizes.len() * seeds.len() * 2) as f64;
    let deadline = 60.0 + launch_timeout * 2.0 + launches * 0.5;
    let work = Work::Check(CheckWork {
        sizes: sizes.clone(),
        seeds: seeds.clone(),
    });
    let rec = match run_job(&i, &reference, Some(&candidate), work, launch_timeout, deadline) {
        Ok(r) => r,
        Err(o) => return o,
    };
    let cases = rec.check.as_ref().map(|c| c.cases.as_slice()).unwrap_or_default();
    let detail = json!({
        "seeds": seeds,
        "sizes": sizes,
        "cases": cases.len(),
        "max_abs_err": cases.iter().map(|c| c.max_abs_err).fold(0.0f64, f64::max),
        "candidate_geometry": cases.first().map(|c| c.candidate),
        "first_mismatch": cases.iter().find_map(|c| c.first_mismatch.clone()),
        "first_failure": crate::feedback::first_failure(cases),
        "device": rec.device.as_ref().map(|d| json!({"name": d.name, "uuid": d.uuid, "driver": d.driver})),
        "target": super::compile::target_label(i.task, i.env),
        "harness_s": rec.elapsed_s,
    });
    match findings_outcome(&rec) {
        Some(o) => o.with_detail(detail),
        None if cases.len() == sizes.len() * seeds.len() => LegOutput::clean().with_detail(detail),
        None => LegOutput::unsettled(
            KernelReason::HarnessIncomplete,
            format!(
                "the harness ran {} of {} cases and reported nothing",
                cases.len(),
                sizes.len() * seeds.len()
            ),
        )
        .with_detail(detail),
    }
}
