//! The timing plan (`kernel-time`): pairs of launches, candidate and reference, in a seeded
//! random order within each pair, by the per-launch protocol of SPEC §4. Every launch, of
//! either kernel:
//! 1. runs on inputs restored from pageable host memory just before it (fresh inputs for each
//!    pair), with outputs and guard bands re-filled, outside its timed interval;
//! 2. runs in a freshly loaded module instance (unloaded after it), so no device global
//!    survives from one launch to the next;
//! 3. starts with a cold L2: persisting lines reset and twice the L2 size written;
//! 4. is timed alone between two events on one stream, and waited for before the next step;
//! 5. is read back after its stop event and before the next reset, and verified: guards,
//!    inputs, and outputs against the reference's output of the same pair (kept on the host).
//!
//! Both kernels use the same buffers, so no expected output is on the device while the
//! candidate runs. The loop stops after `pairs` pairs, or when the kernel time spent reaches
//! the budget, or as soon as `min_pairs` pairs can no longer fit in it (too slow to measure).

use crate::backend::{Backend, DevPtr};
use crate::check::damage;
use crate::data::{Images, Layout, compare_outputs, make_images, refill_inputs};
use crate::plan::{Kernel, Runner, Stop};
use crate::rng::SplitMix64;
use aorlta_record::kernel::harness::{
    BudgetStop, Clocks, Geometry, LaunchSample, Overhead, Party, TimeReport, TimeWork, TimedPair,
};
use std::time::Instant;

/// Throttle reasons that make a run's times untrustworthy: hardware slowdown, software and
/// hardware thermal slowdown, power brake (NVML's clocks-event reasons 0x8, 0x20, 0x40, 0x80).
/// The software power cap (0x4) is not counted: a loaded GPU sits at it routinely.
pub const THROTTLE_MASK: u64 = 0x8 | 0x20 | 0x40 | 0x80;

/// Bytes written to flush the L2: twice its size, at least 8 MiB.
pub fn flush_bytes(l2_bytes: u64) -> u64 {
    (2 * l2_bytes).max(8 << 20).div_ceil(4) * 4
}

/// Runs a timing job; `None` when it stopped before measuring anything worth reporting.
pub fn run<B: Backend>(r: &mut Runner<'_, B>, w: &TimeWork) -> Option<TimeReport> {
    let mut report = TimeReport {
        size: w.size,
        order_seed: w.order_seed,
        input_seed: w.input_seed,
        budget_s: w.budget_s,
        ..TimeReport::default()
    };
    match run_inner(r, w, &mut report) {
        Ok(()) => Some(report),
        Err(Stop) => {
            (!report.pairs.is_empty() || r.has(Party::Candidate, "timed-launch-mismatch")).then_some(report)
        }
    }
}

struct Setup {
    layout: Layout,
    set: Vec<DevPtr>,
    scratch: DevPtr,
    scratch_words: usize,
}

fn run_inner<B: Backend>(r: &mut Runner<'_, B>, w: &TimeWork, report: &mut TimeReport) -> Result<(), Stop> {
    let job = r.job;
    let reference = r.probe(&job.reference, Party::Reference)?;
    let candidate = r.probe(&job.candidate, Party::Candidate)?;
    let layout = match Layout::new(&job.task, w.size) {
        Ok(l) => l,
        Err(m) => {
            r.finding(Party::Harness, "bad-task", m);
            return Err(Stop);
        }
    };
    let g_ref = r.geometry(&reference, &layout)?;
    let g_cand = r.geometry(&candidate, &layout)?;
    report.reference_geometry = Some(g_ref);
    report.candidate_geometry = Some(g_cand);
    let flush = flush_bytes(r.b.device().l2_bytes);
    report.l2_flush_bytes = flush;
    let set = r.alloc_set(&layout)?;
    let scratch = match r.b.alloc(flush as usize) {
        Ok(p) => p,
        Err(e) => {
            r.free_set(&set);
            return Err(r.backend_err(Party::Harness, e));
        }
    };
    let setup = Setup {
        layout,
        set,
        scratch,
        scratch_words: (flush / 4) as usize,
    };
    report.clocks_start = r.b.clocks();
    let result = pairs(r, w, report, &setup, [(&candidate, g_cand), (&reference, g_ref)]);
    report.clocks_end = r.b.clocks();
    report.throttled = [&report.clocks_start, &report.clocks_end].iter().any(|c| {
        c.as_ref()
            .is_some_and(|c: &Clocks| c.throttle_reasons & THROTTLE_MASK != 0)
    });
    if !r.context_lost {
        r.free_set(&setup.set);
        r.free_set(&[setup.scratch]);
    }
    summarise(report);
    if !w.keep_launches {
        report.launches.clear();
    }
    result
}

fn pairs<B: Backend>(
    r: &mut Runner<'_, B>,
    w: &TimeWork,
    report: &mut TimeReport,
    s: &Setup,
    kernels: [(&Kernel, Geometry); 2],
) -> Result<(), Stop> {
    let mut order = SplitMix64::new(w.order_seed);
    let mut spent = 0.0f64;
    let mut cand_times: Vec<f64> = Vec::new();
    let mut ref_times: Vec<f64> = Vec::new();
    // Host images are allocated once and refilled: fresh inputs for every pair, read-backs
    // into the same memory every launch.
    let mut imgs = make_images(&s.layout, 0);
    let mut outs: [Images; 2] = [imgs.clone(), imgs.clone()];
    for p in 0..w.pairs {
        if let Some(last) = report.pairs.last() {
            let per_pair = last.candidate_s + last.reference_s;
            let missing = w.min_pairs.saturating_sub(report.pairs.len()) as f64;
            if spent >= w.budget_s || spent + missing * per_pair > w.budget_s {
                break;
            }
        }
        refill_inputs(
            &s.layout,
            SplitMix64::stream(w.input_seed, p as u64).next_u64(),
            &mut imgs,
        );
        let candidate_first = order.next_u64() & 1 == 1;
        let sides = if candidate_first { [0, 1] } else { [1, 0] };
        let mut times = [0.0f64; 2];
        for side in sides {
            let (k, g) = kernels[side];
            times[side] = step(r, s, k, &g, &imgs, &mut outs[side], p, report)?;
        }
        let cmp = compare_outputs(&s.layout, r.job.task.tolerance, &outs[1], &outs[0]);
        if cmp.mismatches > 0 {
            let first = cmp
                .first
                .map(|m| {
                    format!(
                        "; first at {}[{}]: expected {}, got {}",
                        m.buffer, m.index, m.expected, m.got
                    )
                })
                .unwrap_or_default();
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
        report.pairs.push(TimedPair {
            candidate_s: times[0],
            reference_s: times[1],
            candidate_first,
        });
        cand_times.push(times[0]);
        ref_times.push(times[1]);
        spent += times[0] + times[1];
        report.budget_used_s = spent;
    }
    if report.pairs.len() < w.min_pairs {
        report.budget_stop = Some(BudgetStop {
            candidate_lower_bound_s: cand_times.iter().copied().fold(f64::INFINITY, f64::min),
            reference_median_s: median(&mut ref_times),
            launches_done: cand_times.len(),
        });
    }
    Ok(())
}

/// One launch by the protocol: fresh module, restored buffers, cold L2, timed alone, read back
/// and checked before anything else touches the buffers.
#[allow(clippy::too_many_arguments)]
fn step<B: Backend>(
    r: &mut Runner<'_, B>,
    s: &Setup,
    k: &Kernel,
    g: &Geometry,
    imgs: &Images,
    back: &mut Images,
    pair: usize,
    report: &mut TimeReport,
) -> Result<f64, Stop> {
    let t0 = Instant::now();
    let inst = r.instantiate(k, g)?;
    let args = r.args(&s.layout, &s.set)?;
    r.upload(&s.set, imgs, Party::Harness)?;
    r.b.reset_persisting_l2()
        .map_err(|e| r.backend_err(Party::Harness, e))?;
    let fill =
        0x9E37_79B9u32 ^ (pair as u32).wrapping_mul(2_654_435_761) ^ u32::from(k.party == Party::Candidate);
    r.b.memset_d32(s.scratch, fill, s.scratch_words)
        .map_err(|e| r.backend_err(Party::Harness, e))?;
    r.b.synchronize().map_err(|e| r.backend_err(Party::Harness, e))?;
    let times = r.timed_launch(k.party, inst.func, g, &args)?;
    r.download_into(&s.set, k.party, back)?;
    r.release(inst)?;
    let (guards, inputs) = damage(&s.layout, imgs, back);
    report.verified_launches += 1;
    if !guards.is_empty() || !inputs.is_empty() {
        let code = if guards.is_empty() {
            "input-mutated"
        } else {
            "guard-overwritten"
        };
        let what = format!("timed pair {pair}: guards of {guards:?} broken, inputs {inputs:?} changed");
        if k.party == Party::Candidate {
            r.finding(Party::Candidate, "timed-launch-mismatch", what.clone());
        }
        r.finding(k.party, code, what);
        if !inputs.is_empty() && !guards.is_empty() {
            r.finding(
                k.party,
                "input-mutated",
                format!("timed pair {pair}: inputs {inputs:?} changed"),
            );
        }
        return Err(Stop);
    }
    let step_s = t0.elapsed().as_secs_f64();
    report.launches.push(LaunchSample {
        candidate: k.party == Party::Candidate,
        kernel_s: times.kernel_s,
        step_s,
        launch_wall_s: times.wall_s,
    });
    Ok(times.kernel_s)
}

fn median(xs: &mut [f64]) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    xs.sort_by(|a, b| a.total_cmp(b));
    let n = xs.len();
    if n % 2 == 1 {
        xs[n / 2]
    } else {
        0.5 * (xs[n / 2 - 1] + xs[n / 2])
    }
}

fn summarise(report: &mut TimeReport) {
    let mut step: Vec<f64> = report.launches.iter().map(|l| l.step_s).collect();
    let mut launch: Vec<f64> = report
        .launches
        .iter()
        .map(|l| (l.launch_wall_s - l.kernel_s).max(0.0))
        .collect();
    let mut kernel: Vec<f64> = report.launches.iter().map(|l| l.kernel_s).collect();
    if !step.is_empty() {
        report.overhead = Overhead {
            step_median_s: median(&mut step),
            launch_median_s: median(&mut launch),
            kernel_median_s: median(&mut kernel),
        };
    }
}
