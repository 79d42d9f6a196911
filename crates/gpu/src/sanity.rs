//! A task's tolerance sanity (`Work::Sanity`): does its tolerance tell its reference's outputs
//! from the outputs of a kernel that computes nothing? On every listed size the reference runs
//! once on inputs of the typical law in a buffer set of its own; each output is read back to the
//! host and compared, with the task's tolerance and the harness's own comparison
//! ([`crate::draw::compare_region`]), with an all-zero output, the best constant output, and a
//! copy of each input of the same type and length. No candidate runs in this job, so reading
//! the reference's outputs back is safe; the set is scrubbed before it is freed.

use crate::backend::Backend;
use crate::draw::{as_f64, from_f64, load, region_matches, store};
use crate::layout::{BufferSet, Draw, Layout};
use crate::plan::{Runner, Stop};
use aorlta_record::Tolerance;
use aorlta_record::{Party, SanityCase, SanityReport, SanityWork};

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
        report
            .cases
            .extend(judge_size(size, &layout, &data, job.task.tolerance));
    }
    Ok(())
}

/// Every buffer's data, copied to the host.
fn read_back<B: Backend>(
    r: &mut Runner<'_, B>,
    layout: &Layout,
    set: &BufferSet,
) -> Result<Vec<Vec<u8>>, Stop> {
    r.issue()?;
    let mut out = Vec::with_capacity(layout.bufs.len());
    for (k, b) in layout.bufs.iter().enumerate() {
        let mut bytes = vec![0u8; b.data_bytes];
        // SAFETY: the buffer's data region holds `data_bytes` bytes of a live allocation.
        unsafe { r.b.copy_d2h(&mut bytes, set.data(k)) }.map_err(|e| r.backend_err(Party::Harness, e))?;
        out.push(bytes);
    }
    Ok(out)
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
        let value = |i: usize| as_f64(b.dtype, load(want, b.dtype, i));
        let (mut max_abs, mut non_finite) = (0.0f64, 0u64);
        for v in (0..n).map(value) {
            if v.is_finite() {
                max_abs = max_abs.max(v.abs());
            } else {
                non_finite += 1;
            }
        }
        let zeros = vec![0u8; want.len()];
        let zero_passes = n > 0 && region_matches(want, &zeros, b.dtype, tol);
        let constant_passes = best_constant((0..n).map(value), tol).filter(|c| {
            let mut region = vec![0u8; want.len()];
            for i in 0..n {
                store(&mut region, b.dtype, i, from_f64(b.dtype, *c));
            }
            region != *want && region_matches(want, &region, b.dtype, tol)
        });
        let copy_passes = layout
            .bufs
            .iter()
            .enumerate()
            .filter(|(j, i)| *j != k && i.is_input() && i.dtype == b.dtype && i.len == b.len)
            .filter(|(j, _)| data[*j] != *want && region_matches(want, &data[*j], b.dtype, tol))
            .map(|(_, i)| i.name.clone())
            .collect();
        cases.push(SanityCase {
            size,
            output: b.name.clone(),
            len: b.len,
            max_abs,
            non_finite,
            zero_passes,
            constant_passes,
            copy_passes,
        });
    }
    cases
}

/// The middle of the values' tolerance intervals, when there are values, every one is finite
/// and the intervals share a point (`|c - v| <= atol + rtol |v|` for every `v`); it stops at the
/// first value that rules a constant out.
fn best_constant(values: impl Iterator<Item = f64>, tol: Tolerance) -> Option<f64> {
    let (mut lo, mut hi) = (f64::NEG_INFINITY, f64::INFINITY);
    let mut any = false;
    for v in values {
        if !v.is_finite() {
            return None;
        }
        any = true;
        let t = tol.atol + tol.rtol * v.abs();
        lo = lo.max(v - t);
        hi = hi.min(v + t);
        if lo > hi {
            return None;
        }
    }
    (any && lo <= hi).then_some(lo + (hi - lo) / 2.0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::KernelTask;

    fn layout() -> Layout {
        let task: KernelTask = serde_json::from_value(serde_json::json!({
            "id": "t", "prompt": "p", "reference": "r.cu",
            "signature": "void t(const float* x, float* y, int n)",
            "buffers": [
                {"name": "x", "dtype": "f32", "len": "n", "role": "in"},
                {"name": "y", "dtype": "f32", "len": "n", "role": "out"}
            ],
            "scalars": {"n": "n"}, "sizes": [{"n": 4}],
            "grid": ["1", "1", "1"], "block": ["4", "1", "1"]
        }))
        .unwrap();
        Layout::new(&task, 0).unwrap()
    }

    fn f32s(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    #[test]
    fn zeros_constants_and_copies_that_fit_the_tolerance_are_found() {
        let l = layout();
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
}
