//! What the kernel legs share: finding their inputs (the kernel environment, the task, the
//! extracted source), compiling both kernels, running a harness job on a leased GPU, and
//! turning the harness's findings into a leg's state and reasons.

use super::env::KernelEnv;
use super::pool::PoolError;
use crate::compiler::{CompileFailure, Compiled, Who, compile};
use crate::env::KernelTools;
use crate::reason::KernelReason;
use crate::task::KernelTaskDef;
use aorlta_check::{LegInput, LegOutput};
use aorlta_record::eval_count;
use aorlta_record::{
    HARNESS_FORMAT, HarnessJob, HarnessRecord, JobReference, KernelImage, Party, TorchJob, Work,
};
use aorlta_record::{KernelTask, Reference, Role};
use aorlta_record::{LegState, Reason};
use std::time::Duration;

/// The inputs every kernel leg needs.
pub(crate) struct Inputs<'a> {
    /// The kernel environment.
    pub env: &'a KernelEnv,
    /// The task.
    pub task: &'a KernelTaskDef,
    /// The candidate's source.
    pub source: &'a str,
}

/// The kernel environment, the kernel task and the source, or the unsettled output saying
/// which is missing.
pub(crate) fn inputs<'a>(input: &'a LegInput<'a>) -> Result<Inputs<'a>, LegOutput> {
    let Some(task) = KernelTaskDef::of(input.task) else {
        return Err(LegOutput::unsettled(
            KernelReason::WrongTaskKind,
            format!("task {} is not a kernel task", input.task.id),
        ));
    };
    let Some(env) = input.env.kernel() else {
        return Err(LegOutput::unsettled(
            KernelReason::NoKernelEnv,
            "the run config has no `kernel:` section, so no compiler or GPU is set up",
        ));
    };
    let Some(source) = input.extracted else {
        return Err(LegOutput::unsettled(
            KernelReason::NoParsedKernel,
            "this leg needs a clean `parse` leg before it",
        ));
    };
    Ok(Inputs { env, task, source })
}

/// A kernel leg's output, labelled `fake_gpu: true` in its detail when it ran on the fake
/// device: a record that says it compiled, ran or timed a kernel there says that no GPU did
/// (docs/REWARDS.md, "Kernel legs").
pub(crate) fn labelled(input: &LegInput<'_>, mut out: LegOutput) -> LegOutput {
    if input.env.kernel().is_some_and(KernelEnv::is_fake) {
        match &mut out.detail {
            Some(serde_json::Value::Object(o)) => {
                o.insert("fake_gpu".into(), true.into());
            }
            Some(other) => {
                let was = other.take();
                *other = serde_json::json!({"fake_gpu": true, "detail": was});
            }
            None => out.detail = Some(serde_json::json!({"fake_gpu": true})),
        }
    }
    out
}

/// A compile failure as a leg output.
pub(crate) fn failed(f: CompileFailure) -> LegOutput {
    LegOutput {
        state: f.state,
        reasons: vec![Reason::new(f.code, f.detail)],
        detail: None,
        extracted: None,
    }
}

/// What a job's candidate runs against: the reference kernel compiled, or the task's PyTorch
/// module with the Python that runs it.
pub(crate) enum RefBuilt {
    /// The reference kernel's code object.
    Kernel(Compiled),
    /// The module, for the harness's reference process.
    Torch(TorchJob),
}

/// The task's reference, ready for a job: compiled (cached), or its module with a Python that
/// has torch (`unsettled no-torch` without one).
pub(crate) fn reference(env: &KernelEnv, task: &KernelTaskDef) -> Result<RefBuilt, LegOutput> {
    let Some(m) = &task.torch else {
        return compile(env, task, &task.reference_source, Who::Reference)
            .map(RefBuilt::Kernel)
            .map_err(failed);
    };
    let python = crate::torch::torch_python(env.config().torch_python.clone());
    crate::torch::has_torch(&python).map_err(|why| LegOutput::unsettled(KernelReason::NoTorch, why))?;
    let spec = &task.spec;
    let Reference::Torch(t) = &spec.reference else {
        unreachable!("a task with a module has a torch reference")
    };
    let buffer_names = |role_in: bool| {
        spec.buffers
            .iter()
            .filter(|b| (b.role == Role::In) == role_in && !t.state.contains_key(&b.name))
            .map(|b| b.name.clone())
            .collect::<Vec<_>>()
    };
    Ok(RefBuilt::Torch(TorchJob {
        python,
        module: m.file.clone(),
        sha256: m.sha256.clone(),
        class: m.class.clone(),
        init: t.init.clone(),
        state: t.state.clone(),
        forward: if t.forward.is_empty() {
            buffer_names(true)
        } else {
            t.forward.clone()
        },
        outputs: buffer_names(false),
        shapes: t.shapes.clone(),
        compile: false,
    }))
}

/// Builds the reference and compiles the candidate (both cached).
pub(crate) fn compile_both(i: &Inputs<'_>) -> Result<(RefBuilt, Compiled), LegOutput> {
    let reference = reference(i.env, i.task)?;
    let candidate = compile(i.env, i.task, i.source, Who::Candidate).map_err(failed)?;
    Ok((reference, candidate))
}

pub(crate) fn image(c: &Compiled) -> KernelImage {
    KernelImage {
        path: c.cubin.clone(),
        symbols: c.symbols.clone(),
        launch: c.launch.clone(),
        plan: None,
    }
}

/// The fake device computes on the CPU: every size is scaled down until no buffer holds more
/// than this many elements.
const FAKE_MAX_ELEMENTS: u64 = 1 << 14;

/// The task as the fake device runs it: each size's variables halved until every buffer fits.
/// A task whose reference is a PyTorch module keeps its own sizes (a dimension it derives, such
/// as a convolution's output length, would not follow a halving): each one too large becomes
/// its smallest.
pub(crate) fn shrink_for_fake(task: &KernelTask) -> KernelTask {
    let mut t = task.clone();
    let longest = |size: &std::collections::BTreeMap<String, i64>| {
        task.buffers
            .iter()
            .filter_map(|b| eval_count(&b.len, size).ok())
            .max()
            .unwrap_or(0)
    };
    if matches!(task.reference, Reference::Torch(_)) {
        if let Some(smallest) = task.sizes.iter().min_by_key(|s| longest(s)).cloned() {
            for size in &mut t.sizes {
                if longest(size) > FAKE_MAX_ELEMENTS {
                    *size = smallest.clone();
                }
            }
        }
        return t;
    }
    for size in &mut t.sizes {
        for _ in 0..64 {
            if longest(size) <= FAKE_MAX_ELEMENTS {
                break;
            }
            for v in size.values_mut() {
                if *v > 1 {
                    *v = (*v / 2).max(1);
                }
            }
        }
    }
    t
}

/// True when a job failed for want of device memory: the harness's allocation
/// (`out-of-memory`) or the reference process's (PyTorch's `CUDA out of memory`).
pub(crate) fn out_of_memory(why: &str) -> bool {
    why.contains("out-of-memory") || why.to_ascii_lowercase().contains("out of memory")
}

/// True when correctness and sanity jobs share a GPU (`checks-per-gpu` above 1).
pub(crate) fn shares_gpus(env: &KernelEnv) -> bool {
    env.config().checks_per_gpu > 1
}

/// True when the harness or the reference ran out of device memory in a record's findings; a
/// candidate's findings never count (a job is run again alone for the task's buffers, never
/// for anything a candidate did).
pub(crate) fn ran_out_of_memory(findings: &[aorlta_record::Finding]) -> bool {
    findings
        .iter()
        .any(|f| f.party != Party::Candidate && out_of_memory(&format!("{} {}", f.code, f.detail)))
}

/// Runs a job on a leased GPU, leased as the work's kind asks: a timing alone, a correctness or
/// sanity job beside others (`checks-per-gpu`). A shared job in which the harness or the
/// reference ran out of device memory runs again with the GPU alone ([`ran_out_of_memory`]).
/// A job whose work runs no candidate (the tolerance sanity) names none: `candidate` is `None`.
pub(crate) fn run_job(
    i: &Inputs<'_>,
    reference: &RefBuilt,
    candidate: Option<&Compiled>,
    work: Work,
    launch_timeout_s: f64,
    deadline_s: f64,
) -> Result<HarnessRecord, LegOutput> {
    use crate::lease::Use;
    let how = match work {
        Work::Time(_) | Work::Launch(_) => Use::Alone,
        Work::Check(_) | Work::Sanity(_) => Use::Shared,
    };
    // One attempt, leased as `how` says.
    let run = |how: Use| -> Result<HarnessRecord, LegOutput> {
        let env = i.env;
        let fake = env.is_fake();
        let task = if fake {
            shrink_for_fake(&i.task.spec)
        } else {
            i.task.spec.clone()
        };
        // A candidate that answered with a plan runs it whole; the plan is checked again here, so
        // nothing but a plan that holds reaches the harness.
        let plan = match candidate {
            Some(_) => crate::extract::plan_of(i.source, &i.task.spec)
                .map_err(|e| LegOutput::broke(KernelReason::PlanInvalid, e.describe()))?,
            None => None,
        };
        let leases = env
            .leases()
            .map_err(|e| LegOutput::unsettled(KernelReason::NoGpu, e))?;
        let wait = Duration::from_secs_f64(env.config().lease_wait_s);
        let waiting = crate::timeline::span("lease-wait", || i.task.spec.id.clone());
        let lease = leases
            .acquire_as(wait, how)
            .map_err(|e| LegOutput::unsettled(KernelReason::NoGpuLease, e.to_string()))?;
        drop(waiting);
        let mut job = HarnessJob {
            format: HARNESS_FORMAT,
            id: format!("{}-{}", i.task.spec.id, env.next_job()),
            task,
            reference: match reference {
                RefBuilt::Kernel(c) => JobReference::Kernel(image(c)),
                RefBuilt::Torch(t) => JobReference::Torch(t.clone()),
            },
            candidate: candidate.map(image).unwrap_or(KernelImage {
                path: std::path::PathBuf::new(),
                symbols: Vec::new(),
                launch: None,
                plan: None,
            }),
            record: std::path::PathBuf::new(),
            launch_timeout_s,
            work: work.clone(),
        };
        job.candidate.plan = plan;
        // A module's first job starts its process and may compile it (`torch.compile`): time no
        // candidate is charged for.
        let deadline_s = match reference {
            RefBuilt::Torch(_) => deadline_s + 180.0,
            RefBuilt::Kernel(_) => deadline_s,
        };
        let deadline = env.config().job_timeout_s.unwrap_or(deadline_s);
        let out = env
            .pool()
            .run(env, lease, &mut job, Duration::from_secs_f64(deadline));
        out.map_err(|e| match e {
            PoolError::Start(code, detail) => LegOutput::with_code(LegState::Unsettled, &code, detail),
            PoolError::Timeout(s) => LegOutput::broke(
                KernelReason::Hung,
                format!("the harness job ran past its {s:.1} s deadline and was killed"),
            ),
            PoolError::Crashed(d) => LegOutput::unsettled(KernelReason::HarnessCrashed, d),
            PoolError::Io(d) => LegOutput::unsettled(KernelReason::WorkDirError, d),
        })
    };
    if how == Use::Alone || !shares_gpus(i.env) {
        return run(how);
    }
    let first = run(how);
    let short = match &first {
        Ok(rec) => ran_out_of_memory(&rec.findings),
        Err(o) => o
            .reasons
            .iter()
            .any(|r| out_of_memory(&format!("{} {}", r.code, r.detail))),
    };
    if short { run(Use::Alone) } else { first }
}

/// Candidate codes, most serious first: the first is the leg's main reason.
const SEVERITY: &[&str] = &[
    "timed-launch-mismatch",
    "hung",
    "device-faulted",
    "launch-out-of-bounds",
    "kernel-not-found",
    "module-load-failed",
    "launch-failed",
    "guard-overwritten",
    "input-mutated",
    "output-mismatch",
];

/// The leg output the record's findings call for, or `None` when there are none.
pub(crate) fn findings_outcome(rec: &HarnessRecord) -> Option<LegOutput> {
    if rec.findings.is_empty() {
        return None;
    }
    let cand: Vec<_> = rec
        .findings
        .iter()
        .filter(|f| f.party == Party::Candidate)
        .collect();
    let fault = cand
        .iter()
        .any(|f| matches!(f.code.as_str(), "hung" | "device-faulted"));
    let other: Vec<_> = rec
        .findings
        .iter()
        .filter(|f| f.party != Party::Candidate)
        .collect();
    if !(other.is_empty() || fault && rec.context_lost) {
        let reasons = other
            .iter()
            .map(|f| match f.party {
                Party::Reference => Reason::new(
                    KernelReason::ReferenceBroken.as_str(),
                    format!("the reference: {}: {}", f.code, f.detail),
                ),
                _ => Reason::new(f.code.clone(), f.detail.clone()),
            })
            .collect();
        return Some(LegOutput {
            state: LegState::Unsettled,
            reasons,
            detail: None,
            extracted: None,
        });
    }
    let mut reasons: Vec<Reason> = Vec::new();
    for code in SEVERITY {
        if let Some(f) = cand.iter().find(|f| f.code == *code) {
            reasons.push(Reason::new(f.code.clone(), f.detail.clone()));
        }
    }
    for f in &cand {
        if !reasons.iter().any(|r| r.code == f.code) {
            reasons.push(Reason::new(f.code.clone(), f.detail.clone()));
        }
    }
    Some(LegOutput {
        state: LegState::Broke,
        reasons,
        detail: None,
        extracted: None,
    })
}

#[cfg(test)]
mod oom_tests {
    use super::ran_out_of_memory;
    use aorlta_record::{Finding, Party};

    fn finding(party: Party, code: &str, detail: &str) -> Finding {
        Finding {
            party,
            code: code.into(),
            detail: detail.into(),
            size: None,
            seed: None,
        }
    }

    #[test]
    fn only_the_harness_or_the_reference_running_out_of_memory_is_run_again_alone() {
        let harness = finding(
            Party::Harness,
            "out-of-memory",
            "cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY",
        );
        let reference = finding(
            Party::Reference,
            "reference-failed",
            "OutOfMemoryError: CUDA out of memory. Tried to allocate 4.00 GiB",
        );
        let candidate = finding(Party::Candidate, "launch-failed", "out of memory");
        let mismatch = finding(Party::Candidate, "output-mismatch", "element 3");
        assert!(ran_out_of_memory(std::slice::from_ref(&harness)));
        assert!(ran_out_of_memory(&[mismatch.clone(), reference]));
        assert!(!ran_out_of_memory(&[candidate]), "a candidate's finding never");
        assert!(!ran_out_of_memory(&[mismatch]));
        assert!(!ran_out_of_memory(&[finding(
            Party::Harness,
            "driver-error",
            "cuMemcpyDtoH"
        )]));
    }
}
