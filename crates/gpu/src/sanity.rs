//! A task's tolerance sanity (`Work::Sanity`): does its tolerance tell its reference's outputs
//! from the outputs of a kernel that computes nothing? On every listed size the reference runs
//! once on inputs of the typical law in a buffer set of its own; each output is read back to the
//! host and compared, with the task's tolerance and the harness's own comparison
//! ([`crate::draw::compare_region`]), with an all-zero output, the best constant output, and a
//! copy of each input of the same type and length. No candidate runs in this job, so reading
//! the reference's outputs back is safe; the set is scrubbed before it is freed.
//!
//! For a PyTorch reference it also measures the module's own precision: on each correctness size,
//! for each case of input families (as the correctness job draws them), the reference process
//! runs the module in its own precision and again in double precision on copies of the same
//! inputs, and reports where the two differ most in units of the tolerance
//! ([`PrecisionCase`]). Nothing of it reaches a candidate: the job runs none.

use crate::backend::Backend;
use crate::draw::{as_f64, bits_ok, from_f64};
use crate::layout::{BufferSet, Draw, Layout};
use crate::plan::{RefSide, Runner, Stop};
use aorlta_record::Dtype;
use aorlta_record::Tolerance;
use aorlta_record::{Party, PrecisionCase, SanityCase, SanityReport, SanityWork};

/// Runs a sanity job; findings go to the runner.
pub(crate) fn run<B: Backend>(r: &mut Runner<'_, B>, w: &SanityWork) -> SanityReport {
    let mut report = SanityReport::default();
    let _ = run_inner(r, w, &mut report);
    report
}

fn run_inner<B: Backend>(
    r: &mut Runner<'_, B>,
    w: &SanityWork,
    report: &mut SanityReport,
) -> Result<(), Stop> {
    let job = r.job;
    let reference = r.reference()?;
    for &size in &w.sizes {
        let layout = Layout::new(&job.task, size).map_err(|m| {
            r.finding(Party::Harness, "bad-task", m);
            Stop
        })?;
        let g = r.ref_geometry(&reference, &layout)?;
        let set = r.alloc_set(&layout)?;
        let result = (|| -> Result<Vec<Vec<u8>>, Stop> {
            if !r.helpers_loaded {
                r.helpers_on()?;
            }
            r.fill_set(&layout, &set, Draw::Typical(w.seed), false)?;
            r.run_ref(&reference, &g, &layout, &set, crate::plan::Op::Forward)?;
            read_back(r, &layout, &set)
        })();
        r.scrub_and_free(&layout, &set);
        let data = result?;
        let cases = crate::profile::timed("sanity_judge", || {
            judge_size(size, &layout, &data, job.task.tolerance)
        });
        report.cases.extend(cases);
    }
    if let RefSide::Torch(t) = reference {
        for size in precision_sizes(&w.sizes, &job.task.timed_sizes) {
            precision_at(r, t, w.seed, size, report)?;
        }
    }
    Ok(())
}

/// The sizes a module's own precision is measured at: the listed sizes that are not timed (the
/// timed ones, `timed_sizes` or else the first, are the largest, and their double-precision
/// copies could need twice their memory), or every listed size when all are timed.
fn precision_sizes(sizes: &[usize], timed: &[usize]) -> Vec<usize> {
    let timed = if timed.is_empty() { &[0][..] } else { timed };
    let rest: Vec<usize> = sizes.iter().copied().filter(|s| !timed.contains(s)).collect();
    if rest.is_empty() { sizes.to_vec() } else { rest }
}

/// At one size, for as many cases as the input families need for every input to be drawn from
/// each of its families once (as the correctness job draws them), the module run in its own
/// precision and in double precision on the same inputs; one [`PrecisionCase`] per case.
fn precision_at<B: Backend>(
    r: &mut Runner<'_, B>,
    t: &aorlta_record::TorchJob,
    seed: u64,
    size: usize,
    report: &mut SanityReport,
) -> Result<(), Stop> {
    let job = r.job;
    let layout = Layout::new(&job.task, size).map_err(|m| {
        r.finding(Party::Harness, "bad-task", m);
        Stop
    })?;
    let cases = layout
        .bufs
        .iter()
        .filter(|b| b.is_input())
        .map(|b| b.families.len())
        .max()
        .unwrap_or(0)
        .max(1);
    // One set for every case, as the correctness job keeps its reference's set across seeds:
    // each case draws its inputs again.
    let set = r.alloc_set(&layout)?;
    let result = (|| -> Result<(), Stop> {
        if !r.helpers_loaded {
            r.helpers_on()?;
        }
        for case in 0..cases {
            let draw = Draw::Case {
                seed: seed ^ (case as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15),
                case,
                first_seed: seed,
            };
            r.fill_set(&layout, &set, draw, false)?;
            let found = r.torch_precision(t, &layout, &set, job.task.tolerance)?;
            report.precision.push(PrecisionCase {
                size,
                inputs: crate::layout::families_text(&layout.families(draw)),
                ..found
            });
        }
        Ok(())
    })();
    r.scrub_and_free(&layout, &set);
    result
}

/// The data of every output, and of every input that could stand in for one (same element type
/// and length), copied to the host; the other inputs are left empty (a module's large weights
/// are never read back).
fn read_back<B: Backend>(
    r: &mut Runner<'_, B>,
    layout: &Layout,
    set: &BufferSet,
) -> Result<Vec<Vec<u8>>, Stop> {
    r.issue()?;
    let outputs: Vec<_> = layout.bufs.iter().filter(|b| b.is_output()).collect();
    let mut out = Vec::with_capacity(layout.bufs.len());
    for (k, b) in layout.bufs.iter().enumerate() {
        let needed = b.is_output() || outputs.iter().any(|o| o.dtype == b.dtype && o.len == b.len);
        if !needed {
            out.push(Vec::new());
            continue;
        }
        let mut bytes = vec![0u8; b.data_bytes];
        // SAFETY: the buffer's data region holds `data_bytes` bytes of a live allocation.
        unsafe { r.b.copy_d2h(&mut bytes, set.data(k)) }.map_err(|e| r.backend_err(Party::Harness, e))?;
        out.push(bytes);
    }
    Ok(out)
}

/// Elements one thread judges at a time.
const CHUNK: usize = 1 << 22;

/// Elements decoded at a time within a chunk (their bits fit a core's first-level cache).
const BLOCK: usize = 1 << 11;

/// `f` over the element ranges of `n` elements, on the machine's cores (a module's output can hold
/// billions of elements); the results in the ranges' order.
fn over_chunks<T: Send>(n: usize, f: impl Fn(std::ops::Range<usize>) -> T + Sync) -> Vec<T> {
    let ranges: Vec<std::ops::Range<usize>> = (0..n).step_by(CHUNK).map(|s| s..(s + CHUNK).min(n)).collect();
    let threads = std::thread::available_parallelism()
        .map_or(1, |t| t.get())
        .min(ranges.len());
    if threads <= 1 {
        return ranges.into_iter().map(f).collect();
    }
    let next = std::sync::atomic::AtomicUsize::new(0);
    let mut done: Vec<(usize, T)> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                scope.spawn(|| {
                    let mut mine = Vec::new();
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(r) = ranges.get(i) else {
                            return mine;
                        };
                        mine.push((i, f(r.clone())));
                    }
                })
            })
            .collect();
        workers
            .into_iter()
            .flat_map(|w| w.join().unwrap_or_else(|p| std::panic::resume_unwind(p)))
            .collect()
    });
    done.sort_by_key(|(i, _)| *i);
    done.into_iter().map(|(_, t)| t).collect()
}

/// The bits of elements `from..from + out.len()` of `data` (what [`load`] gives one at a time),
/// the element type matched once per block instead of once per element.
fn decode(data: &[u8], dtype: Dtype, from: usize, out: &mut [u64]) {
    let size = crate::draw::elem_size(dtype);
    let bytes = &data[from * size..(from + out.len()) * size];
    match size {
        2 => {
            for (o, b) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                *o = u64::from(u16::from_le_bytes([b[0], b[1]]));
            }
        }
        4 => {
            for (o, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                *o = u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            }
        }
        _ => {
            for (o, b) in out.iter_mut().zip(bytes.chunks_exact(8)) {
                *o = u64::from_le_bytes(b.try_into().expect("eight bytes"));
            }
        }
    }
}

/// The blocks of `r`: each block's first element and its length.
fn blocks(r: std::ops::Range<usize>) -> impl Iterator<Item = (usize, usize)> {
    r.clone().step_by(BLOCK).map(move |s| (s, BLOCK.min(r.end - s)))
}

/// What stands in for an output: zeros, one constant, or the data of an input of the same type
/// and length.
#[derive(Clone, Copy)]
enum StandIn<'a> {
    Bits(u64),
    Copy(&'a [u8]),
}

/// Whether every element of `want` is within the tolerance of the stand-in, and whether any
/// differs from it at all; threads stop early once one element is out.
fn stands_in(want: &[u8], dtype: Dtype, n: usize, tol: Tolerance, got: StandIn<'_>) -> (bool, bool) {
    let out = std::sync::atomic::AtomicBool::new(false);
    let parts = over_chunks(n, |r| {
        let (mut differs, mut worst) = (false, 0.0);
        let (mut w, mut g) = ([0u64; BLOCK], [0u64; BLOCK]);
        for (s, len) in blocks(r) {
            if out.load(std::sync::atomic::Ordering::Relaxed) {
                return (false, differs);
            }
            let (w, g) = (&mut w[..len], &mut g[..len]);
            decode(want, dtype, s, w);
            match got {
                StandIn::Bits(bits) => g.fill(bits),
                StandIn::Copy(data) => decode(data, dtype, s, g),
            }
            for (&w, &g) in w.iter().zip(g.iter()) {
                differs |= w != g;
                if !bits_ok(w, g, dtype, tol, &mut worst) {
                    out.store(true, std::sync::atomic::Ordering::Relaxed);
                    return (false, differs);
                }
            }
        }
        (true, differs)
    });
    (parts.iter().all(|p| p.0), parts.iter().any(|p| p.1))
}

/// What one pass over an output finds: its largest finite magnitude, its non-finite elements,
/// and the interval every value's tolerance interval shares (empty, or none where a value is not
/// finite).
struct Stats {
    max_abs: f64,
    non_finite: u64,
    lo: f64,
    hi: f64,
}

impl Stats {
    /// Nothing seen yet: every point shared.
    const NONE: Stats = Stats {
        max_abs: 0.0,
        non_finite: 0,
        lo: f64::NEG_INFINITY,
        hi: f64::INFINITY,
    };
}

/// `values` (element bits, read by `value`) added to `s`.
#[inline(always)]
fn add_values(s: &mut Stats, bits: &[u64], tol: Tolerance, value: impl Fn(u64) -> f64) {
    for &b in bits {
        let v = value(b);
        if v.is_finite() {
            s.max_abs = s.max_abs.max(v.abs());
            let t = tol.atol + tol.rtol * v.abs();
            s.lo = s.lo.max(v - t);
            s.hi = s.hi.min(v + t);
        } else {
            s.non_finite += 1;
        }
    }
}

fn stats(want: &[u8], dtype: Dtype, n: usize, tol: Tolerance) -> Stats {
    let parts = over_chunks(n, |r| {
        let mut s = Stats::NONE;
        let mut w = [0u64; BLOCK];
        for (start, len) in blocks(r) {
            let w = &mut w[..len];
            decode(want, dtype, start, w);
            // One loop per element type, so that each is compiled with its conversion inlined.
            match dtype {
                Dtype::F32 => add_values(&mut s, w, tol, |b| as_f64(Dtype::F32, b)),
                Dtype::F16 => add_values(&mut s, w, tol, |b| as_f64(Dtype::F16, b)),
                Dtype::Bf16 => add_values(&mut s, w, tol, |b| as_f64(Dtype::Bf16, b)),
                other => add_values(&mut s, w, tol, |b| as_f64(other, b)),
            }
        }
        s
    });
    parts.into_iter().fold(Stats::NONE, |a, b| Stats {
        max_abs: a.max_abs.max(b.max_abs),
        non_finite: a.non_finite + b.non_finite,
        lo: a.lo.max(b.lo),
        hi: a.hi.min(b.hi),
    })
}

/// The cases of one size: one per output.
pub(crate) fn judge_size(
    size: usize,
    layout: &Layout,
    data: &[Vec<u8>],
    tolerance: Option<Tolerance>,
) -> Vec<SanityCase> {
    let mut cases = Vec::new();
    for (k, b) in layout.bufs.iter().enumerate() {
        if !b.is_output() {
            continue;
        }
        let tol = tolerance.unwrap_or_else(|| Tolerance::default_for(b.dtype));
        let want = &data[k];
        let n = b.len as usize;
        let st = stats(want, b.dtype, n, tol);
        let zero_passes = n > 0 && stands_in(want, b.dtype, n, tol, StandIn::Bits(0)).0;
        // The middle of the values' shared tolerance interval, when there are values, every one
        // is finite and the intervals share a point (`|c - v| <= atol + rtol |v|` for every `v`).
        let best = (n > 0 && st.non_finite == 0 && st.lo <= st.hi).then(|| st.lo + (st.hi - st.lo) / 2.0);
        let constant_passes = best.filter(|c| {
            let bits = from_f64(b.dtype, *c);
            let (ok, differs) = stands_in(want, b.dtype, n, tol, StandIn::Bits(bits));
            ok && differs
        });
        let copy_passes = layout
            .bufs
            .iter()
            .enumerate()
            .filter(|(j, i)| *j != k && i.is_input() && i.dtype == b.dtype && i.len == b.len)
            .filter(|(j, _)| {
                let (ok, differs) = stands_in(want, b.dtype, n, tol, StandIn::Copy(&data[*j]));
                ok && differs
            })
            .map(|(_, i)| i.name.clone())
            .collect();
        cases.push(SanityCase {
            size,
            output: b.name.clone(),
            len: b.len,
            max_abs: st.max_abs,
            non_finite: st.non_finite,
            zero_passes,
            constant_passes,
            copy_passes,
        });
    }
    cases
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::KernelTask;

    /// `y = f(x)` over `n` floats.
    fn layout_of(n: usize) -> Layout {
        let task: KernelTask = serde_json::from_value(serde_json::json!({
            "id": "t", "prompt": "p", "reference": "r.cu",
            "signature": "void t(const float* x, float* y, int n)",
            "buffers": [
                {"name": "x", "dtype": "f32", "len": "n", "role": "in"},
                {"name": "y", "dtype": "f32", "len": "n", "role": "out"}
            ],
            "scalars": {"n": "n"}, "sizes": [{"n": n}],
            "grid": ["1", "1", "1"], "block": ["4", "1", "1"]
        }))
        .unwrap();
        Layout::new(&task, 0).unwrap()
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn a_modules_precision_is_measured_on_the_sizes_that_are_not_timed() {
        use super::precision_sizes;
        assert_eq!(precision_sizes(&[0, 1, 2], &[]), vec![1, 2]);
        assert_eq!(precision_sizes(&[0, 1, 2], &[1]), vec![0, 2]);
        assert_eq!(precision_sizes(&[0], &[]), vec![0]);
        assert_eq!(precision_sizes(&[0, 1], &[0, 1]), vec![0, 1]);
    }

    #[test]
    fn zeros_constants_and_copies_that_fit_the_tolerance_are_found() {
        let l = layout_of(4);
        let x = f32s(&[0.5, -0.25, 0.125, 1.0]);
        let tight = Some(Tolerance {
            atol: 1e-6,
            rtol: 1e-4,
        });
        // y = 2x: nothing cheap matches.
        let y = f32s(&[1.0, -0.5, 0.25, 2.0]);
        let c = &judge_size(0, &l, &[x.clone(), y.clone()], tight)[0];
        assert!(
            !c.zero_passes && c.constant_passes.is_none() && c.copy_passes.is_empty(),
            "{c:?}"
        );
        assert_eq!(c.max_abs, 2.0);
        // A tolerance of 3 lets zeros, a constant and a copy of x pass.
        let loose = Some(Tolerance { atol: 3.0, rtol: 0.0 });
        let c = &judge_size(0, &l, &[x.clone(), y], loose)[0];
        assert!(c.zero_passes, "{c:?}");
        assert!(c.constant_passes.is_some(), "{c:?}");
        assert_eq!(c.copy_passes, vec!["x".to_string()]);
        // Tiny outputs under atol: zeros pass.
        let tiny = f32s(&[1e-8, -1e-8, 0.0, 2e-8]);
        assert!(judge_size(0, &l, &[x.clone(), tiny], tight)[0].zero_passes);
        // An output that is exactly constant, or exactly its input, is what the task computes
        // there: not counted.
        let ones = f32s(&[1.0; 4]);
        let c = &judge_size(0, &l, &[x.clone(), ones], tight)[0];
        assert!(c.constant_passes.is_none() && !c.zero_passes);
        let c = &judge_size(0, &l, &[x.clone(), x], tight)[0];
        assert!(c.copy_passes.is_empty());
    }

    /// Outputs of several chunks (the threads' path): one element out of tolerance in the last
    /// chunk rules zeros out, and a copy that differs only there is found or not by that element.
    #[test]
    fn the_threads_judge_outputs_of_many_chunks_as_one_pass_would() {
        let n = 2 * CHUNK + 5;
        let l = layout_of(n);
        let tol = Some(Tolerance {
            atol: 1e-3,
            rtol: 0.0,
        });
        let mut y = vec![1e-4f32; n];
        let x: Vec<f32> = y.iter().map(|v| v + 5e-4).collect();
        let c = &judge_size(0, &l, &[f32s(&x), f32s(&y)], tol)[0];
        assert!(c.zero_passes && c.constant_passes.is_none(), "{c:?}");
        assert_eq!(c.copy_passes, vec!["x".to_string()]);
        y[n - 1] = 1.0;
        let c = &judge_size(0, &l, &[f32s(&x), f32s(&y)], tol)[0];
        assert!(
            !c.zero_passes && c.constant_passes.is_none() && c.copy_passes.is_empty(),
            "{c:?}"
        );
        assert_eq!((c.max_abs, c.non_finite), (1.0, 0));
        y[CHUNK + 7] = f32::NAN;
        let c = &judge_size(0, &l, &[f32s(&x), f32s(&y)], tol)[0];
        assert_eq!(c.non_finite, 1);
        // A constant fits values spread within twice the tolerance, in every chunk.
        let spread: Vec<f32> = (0..n)
            .map(|i| 2.0 + if i % 2 == 0 { 5e-4 } else { -5e-4 })
            .collect();
        let c = &judge_size(0, &l, &[f32s(&x), f32s(&spread)], tol)[0];
        assert!(c.constant_passes.is_some(), "{c:?}");
        let close = c.constant_passes.unwrap();
        assert!((close - 2.0).abs() < 1e-6, "{close}");
    }

    /// The block decoder reads every element type as the one-at-a-time load does.
    #[test]
    fn blocks_decode_each_type_as_single_loads_do() {
        for (dtype, size) in [(Dtype::F16, 2), (Dtype::F32, 4), (Dtype::I64, 8), (Dtype::I32, 4)] {
            let n = BLOCK + 3;
            let data: Vec<u8> = (0..n * size).map(|i| (i * 37 % 251) as u8).collect();
            let mut got = vec![0u64; n - 1];
            decode(&data, dtype, 1, &mut got);
            for (k, g) in got.iter().enumerate() {
                assert_eq!(
                    *g,
                    crate::draw::load(&data, dtype, k + 1),
                    "{dtype:?} element {}",
                    k + 1
                );
            }
        }
    }
}
