//! The correctness plan (`kernel-run`): on every listed size and seed, the reference and the
//! candidate each run once on identical inputs in their own buffers (guard bands around every
//! buffer, outputs pre-filled with the sentinel); the candidate is clean when its outputs match
//! the reference's within tolerance, every guard band is intact and every input is unchanged.
//!
//! Each kernel's module is loaded once for the job and kept across its cases, so a kernel that
//! counts its launches in a device global and skips work on later ones shows wrong outputs
//! here. The reference's outputs are read back and its buffers re-filled before the candidate
//! runs: no expected output stays on the device while the candidate runs.

use crate::backend::Backend;
use crate::data::{Layout, compare_outputs, data_of, guards_intact, make_images, same_bytes};
use crate::plan::{Kernel, Runner, Stop};
use aorlta_record::kernel::harness::{CaseReport, CheckReport, CheckWork, Party};

/// Runs a correctness job; findings go to the runner.
pub fn run<B: Backend>(r: &mut Runner<'_, B>, w: &CheckWork) -> CheckReport {
    let mut report = CheckReport::default();
    let _ = run_inner(r, w, &mut report);
    report
}

fn run_inner<B: Backend>(r: &mut Runner<'_, B>, w: &CheckWork, report: &mut CheckReport) -> Result<(), Stop> {
    let job = r.job;
    let reference = r.probe(&job.reference, Party::Reference)?;
    let candidate = r.probe(&job.candidate, Party::Candidate)?;
    let first = Layout::new(&job.task, *w.sizes.first().unwrap_or(&0)).map_err(|m| bad_task(r, m))?;
    let g_ref = r.geometry(&reference, &first)?;
    let g_cand = r.geometry(&candidate, &first)?;
    let ref_inst = r.instantiate(&reference, &g_ref)?;
    let cand_inst = match r.instantiate(&candidate, &g_cand) {
        Ok(i) => i,
        Err(s) => {
            let _ = r.release(ref_inst);
            return Err(s);
        }
    };
    let result = cases(
        r,
        w,
        report,
        (&reference, ref_inst.func),
        (&candidate, cand_inst.func),
    );
    if !r.context_lost {
        r.release(ref_inst)?;
        r.release(cand_inst)?;
    }
    result
}

fn bad_task<B: Backend>(r: &mut Runner<'_, B>, m: String) -> Stop {
    r.finding(Party::Harness, "bad-task", m);
    Stop
}

type Side<'k> = (&'k Kernel, crate::backend::FuncId);

fn cases<B: Backend>(
    r: &mut Runner<'_, B>,
    w: &CheckWork,
    report: &mut CheckReport,
    (reference, ref_f): Side<'_>,
    (candidate, cand_f): Side<'_>,
) -> Result<(), Stop> {
    let job = r.job;
    for &size in &w.sizes {
        let layout = Layout::new(&job.task, size).map_err(|m| bad_task(r, m))?;
        let g_ref = r.geometry(reference, &layout)?;
        let g_cand = r.geometry(candidate, &layout)?;
        let ref_set = r.alloc_set(&layout)?;
        let cand_set = match r.alloc_set(&layout) {
            Ok(s) => s,
            Err(s) => {
                r.free_set(&ref_set);
                return Err(s);
            }
        };
        let result = (|| -> Result<(), Stop> {
            let ref_args = r.args(&layout, &ref_set)?;
            let cand_args = r.args(&layout, &cand_set)?;
            for &seed in &w.seeds {
                let imgs = make_images(&layout, seed);
                // Reference first, read back, its buffers re-filled.
                r.upload(&ref_set, &imgs, Party::Harness)?;
                r.timed_launch(Party::Reference, ref_f, &g_ref, &ref_args)?;
                let want = r.download(&ref_set, &layout, Party::Reference)?;
                let (guards, inputs) = damage(&layout, &imgs, &want);
                if !guards.is_empty() || !inputs.is_empty() {
                    r.finding_at(
                        Party::Reference,
                        if guards.is_empty() {
                            "input-mutated"
                        } else {
                            "guard-overwritten"
                        },
                        format!("the reference broke its own buffers: guards {guards:?}, inputs {inputs:?}"),
                        Some(size),
                        Some(seed),
                    );
                    return Err(Stop);
                }
                r.upload(&ref_set, &imgs, Party::Harness)?;
                // Candidate on identical inputs, in its own buffers.
                r.upload(&cand_set, &imgs, Party::Harness)?;
                r.timed_launch(Party::Candidate, cand_f, &g_cand, &cand_args)?;
                let got = r.download(&cand_set, &layout, Party::Candidate)?;
                let (guards_broken, inputs_changed) = damage(&layout, &imgs, &got);
                let cmp = compare_outputs(&layout, job.task.tolerance, &want, &got);
                let case = CaseReport {
                    size,
                    seed,
                    candidate: g_cand,
                    reference: g_ref,
                    mismatches: cmp.mismatches,
                    max_abs_err: cmp.max_abs_err,
                    first_mismatch: cmp.first.clone(),
                    guards_broken,
                    inputs_changed,
                };
                note_case(r, &case);
                report.cases.push(case);
            }
            Ok(())
        })();
        r.free_set(&ref_set);
        r.free_set(&cand_set);
        result?;
    }
    Ok(())
}

/// Guard bands broken and inputs changed, by buffer name.
pub fn damage(
    layout: &Layout,
    sent: &crate::data::Images,
    back: &crate::data::Images,
) -> (Vec<String>, Vec<String>) {
    let mut guards = Vec::new();
    let mut inputs = Vec::new();
    for (k, b) in layout.bufs.iter().enumerate() {
        if !guards_intact(&back.0[k], b) {
            guards.push(b.name.clone());
        }
        if b.role == aorlta_record::kernel::Role::In
            && !same_bytes(data_of(&back.0[k], b), data_of(&sent.0[k], b))
        {
            inputs.push(b.name.clone());
        }
    }
    (guards, inputs)
}

fn note_case<B: Backend>(r: &mut Runner<'_, B>, case: &CaseReport) {
    let at = (Some(case.size), Some(case.seed));
    if !case.guards_broken.is_empty() && !r.has(Party::Candidate, "guard-overwritten") {
        r.finding_at(
            Party::Candidate,
            "guard-overwritten",
            format!(
                "wrote outside its buffers: guard bands of {}",
                case.guards_broken.join(", ")
            ),
            at.0,
            at.1,
        );
    }
    if !case.inputs_changed.is_empty() && !r.has(Party::Candidate, "input-mutated") {
        r.finding_at(
            Party::Candidate,
            "input-mutated",
            format!("changed its inputs: {}", case.inputs_changed.join(", ")),
            at.0,
            at.1,
        );
    }
    if case.mismatches > 0 && !r.has(Party::Candidate, "output-mismatch") {
        let first = case
            .first_mismatch
            .as_ref()
            .map(|m| {
                format!(
                    "; first at {}[{}]: expected {}, got {}",
                    m.buffer, m.index, m.expected, m.got
                )
            })
            .unwrap_or_default();
        r.finding_at(
            Party::Candidate,
            "output-mismatch",
            format!(
                "{} output elements outside tolerance at size {}{first}",
                case.mismatches, case.size
            ),
            at.0,
            at.1,
        );
    }
}
