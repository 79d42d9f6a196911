//! The timing plan (`kernel-time`): pairs of launches, candidate and reference, in a seeded
//! random order within each pair, by the per-launch protocol. Every launch, of either kernel:
//! 1. runs on inputs drawn on the device by the harness's own code from the pair's secret seed
//!    just before it (the typical law, so speed is measured on representative data, unless the
//!    task sets `timed_inputs: families`), with outputs and guard bands re-filled, outside its
//!    timed interval;
//! 2. runs in a freshly loaded module instance (unloaded after it), so no device global
//!    survives from one launch to the next;
//! 3. starts with a cold L2: persisting lines reset and twice the L2 size written;
//! 4. is timed alone between two events on one stream;
//! 5. is verified on the device after its stop event and before anything else runs: guards,
//!    inputs, and outputs against the reference's output of the same inputs.
//!
//! What the candidate could reach while it ran decides nothing: the harness's device code is
//! unloaded during its launch and loaded afresh after it; the reference's set holds the pair's
//! inputs and sentinel outputs (never an expected output: when the reference was timed first,
//! its outputs are scrubbed before the candidate runs and made again after) and is checked
//! untouched afterwards; the counters are zeroed after the launch, before the checks run.
//!
//! The loop stops at the first declared look where `settled` says the verdict is reached, after
//! `pairs` pairs, when the kernel time spent reaches the budget, or as soon as `min_pairs` pairs
//! can no longer fit in it; a candidate launch that alone outlasts the budget's share of one
//! pair is cut where it stands (too slow to measure; the process is then replaced).

use crate::backend::{Backend, DevPtr};
use crate::check::other_sets;
use crate::draw::mix64;
use crate::layout::BufferSet;
use crate::layout::{Draw, Layout};
use crate::plan::{Kernel, Phase, RefSide, Runner, Stop, Timed};
use crate::steps::AtSize;
use crate::verify::{Counters, Expect};
use aorlta_record::TimedInputs;
use aorlta_record::{
    BudgetStop, Clocks, Geometry, LaunchSample, Overhead, Party, TimeReport, TimeWork, TimedPair,
};
use rand_core::{RngCore, SeedableRng};
use rand_pcg::Pcg64Mcg;
use std::time::Instant;

/// Throttle reasons that make a run's times untrustworthy: hardware slowdown, software and
/// hardware thermal slowdown, power brake (NVML's clocks-event reasons 0x8, 0x20, 0x40, 0x80).
/// The software power cap (0x4) is not counted: a loaded GPU sits at it routinely.
pub(crate) const THROTTLE_MASK: u64 = 0x8 | 0x20 | 0x40 | 0x80;

/// Seconds a cut launch's lower bound leaves for the work queued before it.
const CUT_MARGIN_S: f64 = 0.005;

/// Bytes written to flush the L2: twice its size, at least 8 MiB.
pub(crate) fn flush_bytes(l2_bytes: u64) -> u64 {
    (2 * l2_bytes).max(8 << 20).div_ceil(4) * 4
}

/// The input seed of pair `p` (the calibration launch uses `u64::MAX`).
pub(crate) fn pair_seed(input_seed: u64, p: u64) -> u64 {
    mix64(input_seed ^ mix64(p))
}

/// The inputs of pair `p`: the typical law, unless the task asks its timed launches to take
/// every input family in turn.
pub(crate) fn timed_draw(inputs: TimedInputs, input_seed: u64, p: usize) -> Draw {
    let seed = pair_seed(input_seed, p as u64);
    match inputs {
        TimedInputs::Typical => Draw::Typical(seed),
        TimedInputs::Families => Draw::Case {
            seed,
            case: p,
            first_seed: input_seed,
        },
    }
}

/// Runs a timing job; `None` when it stopped before measuring anything worth reporting.
/// `settled(pairs)` is asked at every declared look.
pub(crate) fn run<B: Backend>(
    r: &mut Runner<'_, B>,
    w: &TimeWork,
    settled: &dyn Fn(&[TimedPair]) -> bool,
) -> Option<TimeReport> {
    let mut report = TimeReport {
        size: w.size,
        order_seed: w.order_seed,
        input_seed: w.input_seed,
        budget_s: w.budget_s,
        ..TimeReport::default()
    };
    match run_inner(r, w, &mut report, settled) {
        Ok(()) => Some(report),
        Err(Stop) => {
            (!report.pairs.is_empty() || r.has(Party::Candidate, "timed-launch-mismatch")).then_some(report)
        }
    }
}

struct Setup {
    layout: Layout,
    cand: BufferSet,
    refr: BufferSet,
    scratch: DevPtr,
    scratch_words: usize,
    /// [`TimeWork::symmetric`].
    symmetric: bool,
}

/// The two buffer sets of one pair: which the candidate runs in, which the reference.
#[derive(Clone, Copy)]
struct Sides<'a> {
    cand: &'a BufferSet,
    refr: &'a BufferSet,
}

impl Setup {
    /// The sets as allocated, or swapped (a symmetric timing's coin for the pair).
    fn sides(&self, swap: bool) -> Sides<'_> {
        if swap {
            Sides {
                cand: &self.refr,
                refr: &self.cand,
            }
        } else {
            Sides {
                cand: &self.cand,
                refr: &self.refr,
            }
        }
    }
}

fn run_inner<B: Backend>(
    r: &mut Runner<'_, B>,
    w: &TimeWork,
    report: &mut TimeReport,
    settled: &dyn Fn(&[TimedPair]) -> bool,
) -> Result<(), Stop> {
    let job = r.job;
    let reference = r.reference()?;
    let layout = match Layout::new(&job.task, w.size) {
        Ok(l) => l,
        Err(m) => {
            r.finding(Party::Harness, "bad-task", m);
            return Err(Stop);
        }
    };
    // One kernel, probed (a fresh module instance is loaded for every timed launch), or a plan
    // at the timed size (its kernels loaded afresh for every timed run).
    let (kernel, plan) = match &job.candidate.plan {
        None => (Some(r.probe(&job.candidate, Party::Candidate)?), None),
        Some(_) => (None, Some(crate::steps::plan_at_size(r, &layout)?)),
    };
    let g_ref = r.ref_geometry(&reference, &layout);
    let g_cand = match (&g_ref, &kernel, &plan) {
        (Err(_), _, _) => Err(Stop),
        (Ok(_), Some(k), _) => r.geometry(k, &layout),
        (Ok(_), None, Some(at)) => Ok(at.geometry()),
        (Ok(_), None, None) => unreachable!("a candidate is a kernel or a plan"),
    };
    let (Ok(g_ref), Ok(g_cand)) = (g_ref, g_cand) else {
        free_plan(r, &plan);
        return Err(Stop);
    };
    report.reference_geometry = Some(g_ref);
    report.candidate_geometry = Some(g_cand);
    let flush = flush_bytes(r.b.device().l2_bytes);
    report.l2_flush_bytes = flush;
    let cand = match r.alloc_set(&layout) {
        Ok(s) => s,
        Err(s) => {
            free_plan(r, &plan);
            return Err(s);
        }
    };
    let refr = match r.alloc_set(&layout) {
        Ok(s) => s,
        Err(s) => {
            r.free_set(&cand);
            free_plan(r, &plan);
            return Err(s);
        }
    };
    let scratch = match r.b.alloc(flush as usize) {
        Ok(p) => p,
        Err(e) => {
            r.free_set(&cand);
            r.free_set(&refr);
            free_plan(r, &plan);
            return Err(r.backend_err(Party::Harness, e));
        }
    };
    let mut counters = match Counters::new(r) {
        Ok(c) => c,
        Err(s) => {
            r.free_set(&cand);
            r.free_set(&refr);
            r.free_all(&[scratch]);
            free_plan(r, &plan);
            return Err(s);
        }
    };
    let setup = Setup {
        layout,
        cand,
        refr,
        scratch,
        scratch_words: (flush / 4) as usize,
        symmetric: w.symmetric,
    };
    report.clocks_start = r.b.clocks();
    let kernels = Kernels {
        candidate: match (&kernel, &plan) {
            (Some(k), _) => Cand::One(k, g_cand),
            (None, Some(at)) => Cand::Plan(at),
            (None, None) => unreachable!("a candidate is a kernel or a plan"),
        },
        reference: (&reference, g_ref),
    };
    let before = r.phases;
    let result = pairs(r, w, report, &setup, &kernels, &mut counters, settled);
    let n = report.pairs.len().max(1) as f64;
    let phases = Phase::ALL
        .iter()
        .map(|p| {
            (
                p.name().to_string(),
                (r.phases[*p as usize] - before[*p as usize]) / n,
            )
        })
        .collect();
    report.clocks_end = r.b.clocks();
    report.throttled = [&report.clocks_start, &report.clocks_end].iter().any(|c| {
        c.as_ref()
            .is_some_and(|c: &Clocks| c.throttle_reasons & THROTTLE_MASK != 0)
    });
    if !r.context_lost {
        r.free_set(&setup.cand);
        r.scrub_and_free(&setup.layout, &setup.refr);
        r.free_all(&[setup.scratch]);
        counters.free(r);
        free_plan(r, &plan);
    }
    summarise(report);
    report.overhead.phases = phases;
    if !w.keep_launches {
        report.launches.clear();
    }
    result
}

/// Frees a plan's scratch buffers (nothing for one kernel).
fn free_plan<B: Backend>(r: &mut Runner<'_, B>, plan: &Option<AtSize>) {
    if let Some(at) = plan {
        at.free(r);
    }
}

struct Kernels<'k> {
    candidate: Cand<'k>,
    reference: (&'k RefSide<'k>, Geometry),
}

/// The candidate a timing runs: one kernel and its geometry, or a plan at the timed size
/// (docs/PLANS.md): its whole plan is the candidate's side of every pair, its scratch buffers
/// filled before and checked after every timed run like the candidate's own buffers.
#[derive(Clone, Copy)]
enum Cand<'k> {
    /// One kernel.
    One(&'k Kernel, Geometry),
    /// A plan.
    Plan(&'k AtSize),
}

/// What one pair measured.
struct PairTimes {
    candidate_s: f64,
    reference_s: f64,
}

/// How a pair ended.
enum PairOutcome {
    /// Both launches measured and verified.
    Done(PairTimes),
    /// The candidate's launch was cut after this many seconds.
    Cut(f64),
}

fn pairs<B: Backend>(
    r: &mut Runner<'_, B>,
    w: &TimeWork,
    report: &mut TimeReport,
    s: &Setup,
    k: &Kernels<'_>,
    c: &mut Counters,
    settled: &dyn Fn(&[TimedPair]) -> bool,
) -> Result<(), Stop> {
    let mut order = Pcg64Mcg::seed_from_u64(w.order_seed);
    // A stream of its own, so that the order within pairs is the same with or without it.
    let mut side_coin = Pcg64Mcg::seed_from_u64(mix64(w.order_seed ^ 0x51DE_51DE_51DE_51DE));
    let mut spent = 0.0f64;
    let mut cand_times: Vec<f64> = Vec::new();
    let mut ref_times: Vec<f64> = Vec::new();
    // One cold reference launch first: a reference time exists before any candidate launch,
    // so a candidate cut at its first launch is bounded against it.
    r.helpers_on()?;
    let calibration = reference_launch(
        r,
        s,
        s.sides(false),
        k,
        Draw::Typical(pair_seed(w.input_seed, u64::MAX)),
        c,
        0,
    )?;
    ref_times.push(calibration);
    // A candidate launch longer than this alone proves that `min_pairs` pairs cannot fit.
    let cut_s = w.budget_s / w.min_pairs.max(1) as f64 + CUT_MARGIN_S;
    for p in 0..w.pairs {
        if w.looks.contains(&report.pairs.len()) && settled(&report.pairs) {
            report.settled_at = Some(report.pairs.len());
            break;
        }
        if let Some(last) = report.pairs.last() {
            let per_pair = last.candidate_s + last.reference_s;
            let missing = w.min_pairs.saturating_sub(report.pairs.len()) as f64;
            if spent >= w.budget_s || spent + missing * per_pair > w.budget_s {
                break;
            }
        }
        let draw = timed_draw(r.job.task.timed_inputs, w.input_seed, p);
        let candidate_first = order.next_u64() & 1 == 1;
        let sides = s.sides(s.symmetric && side_coin.next_u64() & 1 == 1);
        let t0 = Instant::now();
        let times = match one_pair(r, s, sides, k, c, draw, p, candidate_first, cut_s)? {
            PairOutcome::Done(t) => t,
            PairOutcome::Cut(waited) => {
                report.budget_stop = Some(BudgetStop {
                    candidate_lower_bound_s: (waited - CUT_MARGIN_S).max(0.0),
                    reference_median_s: median(&mut ref_times),
                    launches_done: cand_times.len(),
                });
                report.cut = true;
                return Ok(());
            }
        };
        let wall_s = t0.elapsed().as_secs_f64();
        report.verified_launches += 2;
        for (candidate, kernel_s) in [(true, times.candidate_s), (false, times.reference_s)] {
            report.launches.push(LaunchSample {
                candidate,
                kernel_s,
                step_s: wall_s / 2.0,
                launch_wall_s: kernel_s,
            });
        }
        report.pairs.push(TimedPair {
            candidate_s: times.candidate_s,
            reference_s: times.reference_s,
            candidate_first,
            wall_s,
        });
        cand_times.push(times.candidate_s);
        ref_times.push(times.reference_s);
        spent += times.candidate_s + times.reference_s;
        report.budget_used_s = spent;
    }
    if report.settled_at.is_none() && w.looks.contains(&report.pairs.len()) && settled(&report.pairs) {
        report.settled_at = Some(report.pairs.len());
    }
    if report.pairs.len() < w.min_pairs && report.settled_at.is_none() {
        report.budget_stop = Some(BudgetStop {
            candidate_lower_bound_s: cand_times.iter().copied().fold(f64::INFINITY, f64::min),
            reference_median_s: median(&mut ref_times),
            launches_done: cand_times.len(),
        });
    }
    Ok(())
}

/// A timed reference launch in the reference's set, filled for `draw` first; its own checks are
/// read before anything else runs. Returns the kernel seconds.
#[allow(clippy::too_many_arguments)]
fn reference_launch<B: Backend>(
    r: &mut Runner<'_, B>,
    s: &Setup,
    sides: Sides<'_>,
    k: &Kernels<'_>,
    draw: Draw,
    c: &mut Counters,
    salt: u32,
) -> Result<f64, Stop> {
    r.fill_set(&s.layout, sides.refr, draw, false)?;
    let t = run_reference(r, s, sides, k, salt, true)?;
    c.reset(r)?;
    let check = r.check_set(c, &s.layout, sides.refr, draw, Expect::Written)?;
    let words = c.read(r, Party::Reference)?;
    reference_sane(r, &check.damage(&s.layout, &words))?;
    Ok(t)
}

/// The reference in its own set (already filled): a fresh module, a cold L2 when `cold`, timed
/// alone; in a symmetric timing, with the harness's device code unloaded around it as around
/// the candidate's. Returns the kernel seconds.
fn run_reference<B: Backend>(
    r: &mut Runner<'_, B>,
    s: &Setup,
    sides: Sides<'_>,
    k: &Kernels<'_>,
    salt: u32,
    cold: bool,
) -> Result<f64, Stop> {
    let (kernel, g) = k.reference;
    // `cold` is the timed launch; the untimed one after a candidate needs no symmetry.
    let symmetric = s.symmetric && cold;
    if symmetric {
        r.helpers_off()?;
    }
    // The L2 made cold as for the candidate: the last thing queued before the start event.
    let t = r.run_ref_after(
        kernel,
        &g,
        &s.layout,
        sides.refr,
        crate::plan::Op::Time,
        &mut |r| {
            if cold {
                r.flush_l2(s.scratch, s.scratch_words, salt)
            } else {
                Ok(())
            }
        },
    )?;
    if symmetric {
        r.helpers_on()?;
    }
    Ok(t)
}

fn reference_sane<B: Backend>(r: &mut Runner<'_, B>, d: &crate::verify::Damage) -> Result<(), Stop> {
    if d.is_empty() {
        return Ok(());
    }
    let code = if d.guards.is_empty() {
        "input-mutated"
    } else {
        "guard-overwritten"
    };
    r.finding(
        Party::Reference,
        code,
        format!(
            "the reference broke its own buffers in a timed launch: guards {:?}, inputs {:?}",
            d.guards, d.inputs
        ),
    );
    Err(Stop)
}

/// One pair by the protocol.
#[allow(clippy::too_many_arguments)]
fn one_pair<B: Backend>(
    r: &mut Runner<'_, B>,
    s: &Setup,
    sides: Sides<'_>,
    k: &Kernels<'_>,
    c: &mut Counters,
    draw: Draw,
    p: usize,
    candidate_first: bool,
    cut_s: f64,
) -> Result<PairOutcome, Stop> {
    let salt = 2 * p as u32 + 1;
    let mut reference_s = None;
    if candidate_first {
        r.fill_set(&s.layout, sides.cand, draw, false)?;
        r.fill_set(&s.layout, sides.refr, draw, false)?;
    } else {
        reference_s = Some(reference_launch(r, s, sides, k, draw, c, salt + 1)?);
        // The reference's output would be an expected output while the candidate runs.
        r.fill_set(&s.layout, sides.refr, draw, true)?;
        r.fill_set(&s.layout, sides.cand, draw, false)?;
    }
    if let Cand::Plan(at) = k.candidate {
        at.fill(r, draw)?;
    }
    let candidate_s = match candidate_launch(r, s, sides, k, salt, cut_s)? {
        Timed::Done(t) => t.kernel_s,
        Timed::Late(waited) => return Ok(PairOutcome::Cut(waited)),
    };
    // Everything from here is made after the candidate's launch.
    c.reset(r)?;
    let own = r.check_set(c, &s.layout, sides.cand, draw, Expect::Written)?;
    let scratch = match k.candidate {
        Cand::Plan(at) => at.check(r, c, draw)?,
        Cand::One(..) => None,
    };
    let other = r.check_set(c, &s.layout, sides.refr, draw, Expect::Untouched)?;
    let reference_s = match reference_s {
        Some(t) => {
            run_reference(r, s, sides, k, salt + 1, false)?;
            t
        }
        None => run_reference(r, s, sides, k, salt + 1, true)?,
    };
    let sane = r.check_set(c, &s.layout, sides.refr, draw, Expect::Written)?;
    let cmp = r.compare_sets(c, &s.layout, sides.refr, sides.cand, r.job.task.tolerance)?;
    let words = c.read(r, Party::Harness)?;
    let own = own.damage(&s.layout, &words);
    let other = other.damage(&s.layout, &words);
    if other.is_empty() {
        reference_sane(r, &sane.damage(&s.layout, &words))?;
    }
    let mut guards = own.guards.clone();
    if let Some((check, layout)) = &scratch {
        guards.extend(check.damage(layout, &words).guards);
    }
    guards.extend(other_sets(&other));
    if !guards.is_empty() || !own.inputs.is_empty() {
        let what = format!(
            "timed pair {p}: guards of {guards:?} broken, inputs {:?} changed",
            own.inputs
        );
        r.finding(Party::Candidate, "timed-launch-mismatch", what.clone());
        if !guards.is_empty() {
            r.finding(Party::Candidate, "guard-overwritten", what);
        }
        if !own.inputs.is_empty() {
            r.finding(
                Party::Candidate,
                "input-mutated",
                format!("timed pair {p}: inputs {:?} changed", own.inputs),
            );
        }
        return Err(Stop);
    }
    let cmp = cmp.result(&words);
    if cmp.mismatches > 0 {
        let first = match cmp.first {
            Some(at) => {
                let m = r.mismatch(&s.layout, sides.refr, sides.cand, at)?;
                format!(
                    "; first at {}[{}]: expected {}, got {}",
                    m.buffer, m.index, m.expected, m.got
                )
            }
            None => String::new(),
        };
        r.finding(
            Party::Candidate,
            "timed-launch-mismatch",
            format!(
                "timed pair {p}: {} output elements differ from the reference's{first}",
                cmp.mismatches
            ),
        );
        return Err(Stop);
    }
    Ok(PairOutcome::Done(PairTimes {
        candidate_s,
        reference_s,
    }))
}

/// The candidate's launch: the harness's device code unloaded, a fresh module, a cold L2, timed
/// alone and waited for at most `cut_s`; the device code is loaded afresh after it. A plan runs
/// whole in its place: a fresh module, a cold L2 before its first step, every step timed and
/// the times summed, the whole waited for at most `cut_s`.
fn candidate_launch<B: Backend>(
    r: &mut Runner<'_, B>,
    s: &Setup,
    sides: Sides<'_>,
    k: &Kernels<'_>,
    salt: u32,
    cut_s: f64,
) -> Result<Timed, Stop> {
    let (kernel, g) = match k.candidate {
        Cand::One(kernel, g) => (kernel, g),
        Cand::Plan(at) => {
            r.helpers_off()?;
            let t = crate::steps::timed_plan(r, at, &s.layout, sides.cand, cut_s, |r| {
                r.flush_l2(s.scratch, s.scratch_words, salt)
            })?;
            if let Timed::Done(_) = t {
                r.helpers_on()?;
            }
            return Ok(t);
        }
    };
    r.helpers_off()?;
    let inst = r.instantiate(kernel, &g)?;
    let args = r.args(Party::Candidate, &s.layout, sides.cand)?;
    r.flush_l2(s.scratch, s.scratch_words, salt)?;
    let t = r.timed_launch_within(Party::Candidate, inst.func, &g, &args, cut_s)?;
    if let Timed::Done(_) = t {
        r.release(inst)?;
        r.helpers_on()?;
    }
    Ok(t)
}

/// The judge's median, so the harness and the judge agree on one; NaN for no times.
fn median(xs: &mut [f64]) -> f64 {
    aorlta_judge::median_in_place(xs).unwrap_or(f64::NAN)
}

fn summarise(report: &mut TimeReport) {
    let mut step: Vec<f64> = report.pairs.iter().map(|p| p.wall_s / 2.0).collect();
    let mut outside: Vec<f64> = report
        .pairs
        .iter()
        .map(|p| ((p.wall_s - p.candidate_s - p.reference_s) / 2.0).max(0.0))
        .collect();
    let mut kernel: Vec<f64> = report
        .pairs
        .iter()
        .flat_map(|p| [p.candidate_s, p.reference_s])
        .collect();
    if !step.is_empty() {
        report.overhead = Overhead {
            step_median_s: median(&mut step),
            outside_median_s: median(&mut outside),
            kernel_median_s: median(&mut kernel),
            phases: Default::default(),
        };
    }
}
