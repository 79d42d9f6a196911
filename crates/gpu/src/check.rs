//! The correctness plan (`kernel-run`): on every listed size and seed, the candidate and then
//! the reference run once on identical inputs in their own buffer sets (guard bands around every
//! buffer, outputs pre-filled with the sentinel). Each case draws every input from one input
//! family its domain allows, each input in its own rotation through its families
//! ([`aorlta_record::family_for_case`]): a size's cases are consecutive turns of
//! the rotation, and a job has at least as many seeds per size as an input has families, so every
//! size draws each of them for it and a kernel right only on the typical law, or wrong only where
//! one family meets one size, shows wrong outputs here. The candidate is clean when its outputs match
//! the reference's within tolerance, every guard band is intact, every input is unchanged, and
//! the reference's set, filled before the candidate ran, is untouched.
//!
//! The candidate's module is loaded once for the job and kept across its cases, so a kernel that
//! counts its launches in a device global and skips work on later ones shows wrong outputs here.
//! Everything that decides the verdict is made after the candidate's launch: the harness's
//! device code is unloaded while it runs and loaded afresh after, the reference's module is
//! loaded fresh for each case after the candidate ran, the reference's output (the expected one)
//! exists only from then on, and the counters are zeroed before the checks run. Inputs are drawn
//! on the device from each case's secret seed and checked by regenerating them, so no copy of
//! anything lies on the device or in host memory a kernel can reach.
//!
//! A candidate that answered with a plan runs its whole plan where a kernel runs its launch
//! ([`crate::steps`]): its kernels looked up once for the job, its scratch buffers refilled with
//! the sentinel before every case and their guards checked with the other buffers'.

use crate::backend::Backend;
use crate::layout::{BufferSet, Draw, Layout};
use crate::plan::{RefSide, Runner, Stop};
use crate::steps::{AtSize, Candidate};
use crate::verify::{Counters, Damage, Expect};
use aorlta_record::{CaseReport, CheckReport, CheckWork, Geometry, Party};

/// Runs a correctness job; findings go to the runner.
pub(crate) fn run<B: Backend>(r: &mut Runner<'_, B>, w: &CheckWork) -> CheckReport {
    let mut report = CheckReport::default();
    let _ = run_inner(r, w, &mut report);
    report
}

fn run_inner<B: Backend>(r: &mut Runner<'_, B>, w: &CheckWork, report: &mut CheckReport) -> Result<(), Stop> {
    let job = r.job;
    let reference = r.reference()?;
    let first = Layout::new(&job.task, *w.sizes.first().unwrap_or(&0)).map_err(|m| bad_task(r, m))?;
    let candidate = Candidate::load(r, &first)?;
    let mut counters = Counters::new(r)?;
    let result = cases(r, w, report, &reference, &candidate, &mut counters);
    if !r.context_lost {
        counters.free(r);
        candidate.release(r)?;
    }
    result
}

fn bad_task<B: Backend>(r: &mut Runner<'_, B>, m: String) -> Stop {
    r.finding(Party::Harness, "bad-task", m);
    Stop
}

fn cases<B: Backend>(
    r: &mut Runner<'_, B>,
    w: &CheckWork,
    report: &mut CheckReport,
    reference: &RefSide<'_>,
    candidate: &Candidate,
    counters: &mut Counters,
) -> Result<(), Stop> {
    let job = r.job;
    let first_seed = w.seeds.first().copied().unwrap_or(0);
    for (size_pos, &size) in w.sizes.iter().enumerate() {
        let layout = Layout::new(&job.task, size).map_err(|m| bad_task(r, m))?;
        let g_ref = r.ref_geometry(reference, &layout)?;
        let cand = candidate.at_size(r, &layout)?;
        let cand_set = match r.alloc_set(&layout) {
            Ok(s) => s,
            Err(s) => {
                cand.free(r);
                return Err(s);
            }
        };
        let ref_set = match r.alloc_set(&layout) {
            Ok(s) => s,
            Err(s) => {
                cand.free(r);
                r.free_set(&cand_set);
                return Err(s);
            }
        };
        let sets = Sets {
            layout: &layout,
            cand: &cand_set,
            refr: &ref_set,
        };
        let result = (|| -> Result<(), Stop> {
            for (j, &seed) in w.seeds.iter().enumerate() {
                let draw = Draw::Case {
                    seed,
                    case: size_pos * w.seeds.len() + j,
                    first_seed,
                };
                let case = one_case(r, &sets, draw, (candidate, &cand), (reference, g_ref), counters)?;
                let ok = note_case(r, &case);
                report.cases.push(case);
                if !ok {
                    break;
                }
            }
            Ok(())
        })();
        cand.free(r);
        r.free_set(&cand_set);
        r.scrub_and_free(&layout, &ref_set);
        result?;
    }
    Ok(())
}

struct Sets<'a> {
    layout: &'a Layout,
    cand: &'a BufferSet,
    refr: &'a BufferSet,
}

fn one_case<B: Backend>(
    r: &mut Runner<'_, B>,
    s: &Sets<'_>,
    draw: Draw,
    (candidate, cand): (&Candidate, &AtSize),
    (reference, g_ref): (&RefSide<'_>, Geometry),
    counters: &mut Counters,
) -> Result<CaseReport, Stop> {
    let seed = draw.seed();
    let size_seed = |r: &mut Runner<'_, B>, code: &str, what: String| {
        let size = r.job.task.sizes.iter().position(|v| *v == s.layout.vars);
        r.finding_at(Party::Reference, code, what, size, Some(seed));
        Stop
    };
    if !r.helpers_loaded {
        r.helpers_on()?;
    }
    r.fill_set(s.layout, s.cand, draw, false)?;
    r.fill_set(s.layout, s.refr, draw, false)?;
    cand.fill(r, draw)?;
    r.helpers_off()?;
    cand.run(r, candidate, s.layout, s.cand)?;
    // From here on, everything is made after the candidate's launch.
    r.helpers_on()?;
    counters.reset(r)?;
    let cand_check = r.check_set(counters, s.layout, s.cand, draw, Expect::Written)?;
    let scratch_check = cand.check(r, counters, draw)?;
    let untouched = r.check_set(counters, s.layout, s.refr, draw, Expect::Untouched)?;
    r.run_ref(reference, &g_ref, s.layout, s.refr, crate::plan::Op::Forward)?;
    let ref_check = r.check_set(counters, s.layout, s.refr, draw, Expect::Written)?;
    let cmp = r.compare_sets(counters, s.layout, s.refr, s.cand, r.job.task.tolerance)?;
    let words = counters.read(r, Party::Harness)?;
    let ref_damage = ref_check.damage(s.layout, &words);
    let other = untouched.damage(s.layout, &words);
    let own = cand_check.damage(s.layout, &words);
    if !ref_damage.is_empty() && other.is_empty() {
        return Err(size_seed(
            r,
            if ref_damage.guards.is_empty() {
                "input-mutated"
            } else {
                "guard-overwritten"
            },
            format!(
                "the reference broke its own buffers: guards {:?}, inputs {:?}",
                ref_damage.guards, ref_damage.inputs
            ),
        ));
    }
    // A reference run in a set the candidate wrote into proves nothing about the outputs.
    let cmp = if other.is_empty() {
        cmp.result(&words)
    } else {
        Default::default()
    };
    let first_mismatch = match cmp.first {
        Some(at) => Some(r.mismatch(s.layout, s.refr, s.cand, at)?),
        None => None,
    };
    let mut guards_broken = own.guards;
    if let Some((check, scratch)) = scratch_check {
        guards_broken.extend(check.damage(scratch, &words).guards);
    }
    guards_broken.extend(other_sets(&other));
    Ok(CaseReport {
        size: r
            .job
            .task
            .sizes
            .iter()
            .position(|v| *v == s.layout.vars)
            .unwrap_or(0),
        seed,
        families: s.layout.families(draw),
        candidate: cand.geometry(),
        reference: g_ref,
        mismatches: cmp.mismatches,
        max_abs_err: cmp.max_abs_err,
        first_mismatch,
        guards_broken,
        inputs_changed: own.inputs,
    })
}

/// Names for damage found in the reference's set, which the candidate was never given.
pub(crate) fn other_sets(d: &Damage) -> Vec<String> {
    d.guards
        .iter()
        .chain(&d.inputs)
        .chain(&d.outputs)
        .map(|n| format!("the harness's other allocations ({n} of the reference's set)"))
        .collect()
}

/// Adds the case's findings; false when the case failed (later seeds of the size are skipped).
fn note_case<B: Backend>(r: &mut Runner<'_, B>, case: &CaseReport) -> bool {
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
        let families = crate::layout::families_text(&case.families);
        r.finding_at(
            Party::Candidate,
            "output-mismatch",
            format!(
                "{} output elements outside tolerance at size {} (inputs: {families}){first}",
                case.mismatches, case.size
            ),
            at.0,
            at.1,
        );
    }
    case.guards_broken.is_empty() && case.inputs_changed.is_empty() && case.mismatches == 0
}
