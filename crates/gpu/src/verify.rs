//! The checks a launch is held to, run on the device by the harness's own code
//! ([`crate::backend::HelperOp`]) with only counters crossing to the host: a buffer set's guard
//! bands intact, its inputs unchanged, its outputs still the sentinel where nothing was meant
//! to write them, and a candidate's outputs within tolerance of the reference's. This is where
//! the damage a kernel did is read from the data it inspects.
//!
//! A [`Counters`] block is zeroed after the launch it judges and before any check runs, so
//! nothing a kernel wrote into it survives into a verdict. [`self_test`] compares the device's
//! fills with the host's twin ([`crate::draw`]) at harness start.

use crate::backend::{Backend, DevPtr, HelperOp};
use crate::draw::{Fill, as_f64, count_unlike, elem_size, load};
use crate::layout::{BufferSet, Draw, GUARD_BYTES, Layout};
use crate::plan::{Phase, Runner, Stop};
use aorlta_record::{Dtype, Init, Tolerance};
use aorlta_record::{Family, Special};
use aorlta_record::{JobReference, Mismatch, Party};

/// A block of `u64` counters in device memory.
#[derive(Debug)]
pub(crate) struct Counters {
    base: DevPtr,
    words: usize,
    used: usize,
}

/// Counter words a job's block holds.
pub const COUNTER_WORDS: usize = 1024;

/// Slots of one set check: per buffer, the guard counter and the data counter.
#[derive(Debug, Clone)]
pub(crate) struct SetCheck {
    guard: Vec<usize>,
    data: Vec<Option<(usize, bool)>>,
}

/// What a set check found, by buffer name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Damage {
    /// Guard bands with a byte changed.
    pub guards: Vec<String>,
    /// Inputs with an element changed.
    pub inputs: Vec<String>,
    /// Outputs written where nothing was meant to write them.
    pub outputs: Vec<String>,
}

impl Damage {
    /// True when nothing was found.
    pub(crate) fn is_empty(&self) -> bool {
        self.guards.is_empty() && self.inputs.is_empty() && self.outputs.is_empty()
    }
}

/// Slots of one comparison: per output buffer, three counters.
#[derive(Debug, Clone)]
pub(crate) struct CompareCheck {
    slots: Vec<Option<usize>>,
}

/// How a candidate's outputs compare with the reference's.
#[derive(Debug, Clone, PartialEq, Default)]
pub(crate) struct Compare {
    /// Elements outside tolerance.
    pub mismatches: u64,
    /// Largest absolute difference over finite pairs.
    pub max_abs_err: f64,
    /// The first mismatch: buffer index and element index.
    pub first: Option<(usize, u64)>,
}

/// Which regions of a set a check looks at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expect {
    /// Guards and inputs (after a launch that wrote the outputs).
    Written,
    /// Guards, inputs and outputs still the sentinel (a set no launch was meant to touch).
    Untouched,
}

impl<B: Backend> Runner<'_, B> {
    fn helper_op(&mut self, op: HelperOp) -> Result<(), Stop> {
        self.pending.push(op);
        Ok(())
    }

    /// Allocates one buffer set for a layout.
    pub(crate) fn alloc_set(&mut self, layout: &Layout) -> Result<BufferSet, Stop> {
        let mut ptrs = Vec::with_capacity(layout.bufs.len());
        for b in &layout.bufs {
            match self.b.alloc(b.total_bytes()) {
                Ok(p) => ptrs.push(p),
                Err(e) => {
                    self.free_all(&ptrs);
                    return Err(self.backend_err(Party::Harness, e));
                }
            }
        }
        Ok(BufferSet { ptrs })
    }

    /// Fills a set for `draw`: guards, inputs and output sentinels (`outputs_only`: the
    /// outputs alone, which scrubs a reference's result off the device: an `out` buffer back to
    /// the sentinel, an `inout` one back to its drawn input).
    pub(crate) fn fill_set(
        &mut self,
        layout: &Layout,
        set: &BufferSet,
        draw: Draw,
        outputs_only: bool,
    ) -> Result<(), Stop> {
        for (k, b) in layout.bufs.iter().enumerate() {
            if outputs_only && !b.is_output() {
                continue;
            }
            if !outputs_only {
                for (dst, offset) in [
                    (set.ptrs[k], 0),
                    (set.data(k) + b.data_bytes as u64, GUARD_BYTES as u64),
                ] {
                    self.helper_op(HelperOp::FillGuard {
                        dst,
                        bytes: GUARD_BYTES as u64,
                        offset,
                    })?;
                }
            }
            // An `inout` buffer goes back to its drawn input, not to the sentinel: that scrubs the
            // result as well, and a reference run again in the set starts from its input.
            let fill = if outputs_only && b.role == aorlta_record::Role::Out {
                Fill::Sentinel
            } else {
                b.fill(k, draw)
            };
            self.helper_op(HelperOp::FillData {
                dst: set.data(k),
                len: b.len,
                dtype: b.dtype,
                fill,
            })?;
        }
        Ok(())
    }

    /// Queues the checks of a set filled for `draw`.
    pub(crate) fn check_set(
        &mut self,
        c: &mut Counters,
        layout: &Layout,
        set: &BufferSet,
        draw: Draw,
        expect: Expect,
    ) -> Result<SetCheck, Stop> {
        let mut check = SetCheck {
            guard: Vec::new(),
            data: Vec::new(),
        };
        for (k, b) in layout.bufs.iter().enumerate() {
            let slot = c.take(1);
            check.guard.push(slot);
            for (src, offset) in [
                (set.ptrs[k], 0),
                (set.data(k) + b.data_bytes as u64, GUARD_BYTES as u64),
            ] {
                self.helper_op(HelperOp::CheckGuard {
                    src,
                    bytes: GUARD_BYTES as u64,
                    offset,
                    count: c.addr(slot),
                })?;
            }
            let looked = b.role == aorlta_record::Role::In || expect == Expect::Untouched;
            if looked {
                let slot = c.take(1);
                self.helper_op(HelperOp::CheckData {
                    src: set.data(k),
                    len: b.len,
                    dtype: b.dtype,
                    fill: b.fill(k, draw),
                    count: c.addr(slot),
                })?;
                check.data.push(Some((slot, b.is_output())));
            } else {
                check.data.push(None);
            }
        }
        Ok(check)
    }

    /// Queues the comparison of `got`'s outputs with `expected`'s.
    pub(crate) fn compare_sets(
        &mut self,
        c: &mut Counters,
        layout: &Layout,
        expected: &BufferSet,
        got: &BufferSet,
        tolerance: Option<Tolerance>,
    ) -> Result<CompareCheck, Stop> {
        let mut slots = Vec::with_capacity(layout.bufs.len());
        for (k, b) in layout.bufs.iter().enumerate() {
            if !b.is_output() {
                slots.push(None);
                continue;
            }
            let slot = c.take(3);
            self.helper_op(HelperOp::Compare {
                expected: expected.data(k),
                got: got.data(k),
                len: b.len,
                dtype: b.dtype,
                tol: tolerance.unwrap_or_else(|| Tolerance::default_for(b.dtype)),
                out: c.addr(slot),
            })?;
            slots.push(Some(slot));
        }
        Ok(CompareCheck { slots })
    }

    /// The first mismatch's two values, read from the device.
    pub(crate) fn mismatch(
        &mut self,
        layout: &Layout,
        expected: &BufferSet,
        got: &BufferSet,
        (k, index): (usize, u64),
    ) -> Result<Mismatch, Stop> {
        let b = &layout.bufs[k];
        let n = elem_size(b.dtype);
        let at = |set: &BufferSet| set.data(k) + index * n as u64;
        let mut e = vec![0u8; n];
        let mut g = vec![0u8; n];
        self.issue()?;
        for (dst, src) in [(&mut e, at(expected)), (&mut g, at(got))] {
            // SAFETY: `index` < the buffer's length, so the element lies inside its allocation.
            unsafe { self.b.copy_d2h(dst, src) }.map_err(|err| self.backend_err(Party::Harness, err))?;
        }
        Ok(Mismatch {
            buffer: b.name.clone(),
            index,
            expected: as_f64(b.dtype, load(&e, b.dtype, 0)).to_string(),
            got: as_f64(b.dtype, load(&g, b.dtype, 0)).to_string(),
        })
    }

    /// Frees a set.
    pub(crate) fn free_set(&mut self, set: &BufferSet) {
        self.free_all(&set.ptrs);
    }

    /// Frees a reference's set after scrubbing its outputs back to the sentinel: it last held
    /// an expected output, and nothing of that may be left in memory a later size or job could
    /// read. Nothing is touched after a lost context.
    pub(crate) fn scrub_and_free(&mut self, layout: &Layout, set: &BufferSet) {
        if self.context_lost {
            return;
        }
        if matches!(self.job.reference, JobReference::Torch(_)) {
            // The reference process lets go of the set before it is freed.
            crate::torch::release();
        }
        if self.helpers_loaded || self.helpers_on().is_ok() {
            let _ = self.fill_set(layout, set, Draw::Typical(0), true);
        }
        self.free_set(set);
    }
}

impl Counters {
    /// Allocates a block.
    pub(crate) fn new<B: Backend>(r: &mut Runner<'_, B>) -> Result<Self, Stop> {
        let base =
            r.b.alloc(COUNTER_WORDS * 8)
                .map_err(|e| r.backend_err(Party::Harness, e))?;
        Ok(Counters {
            base,
            words: COUNTER_WORDS,
            used: 0,
        })
    }

    fn take(&mut self, n: usize) -> usize {
        assert!(
            self.used + n <= self.words,
            "the counter block holds {} words; a job's checks need fewer",
            self.words
        );
        let s = self.used;
        self.used += n;
        s
    }

    fn addr(&self, slot: usize) -> DevPtr {
        self.base + 8 * slot as u64
    }

    /// Zeroes the block and forgets every slot: call after the launch being judged, before its
    /// checks are queued.
    pub(crate) fn reset<B: Backend>(&mut self, r: &mut Runner<'_, B>) -> Result<(), Stop> {
        let (base, words) = (self.base, self.words);
        r.in_phase(Phase::Issue, |r| {
            // SAFETY: the block is a live allocation of `words` u64 words.
            unsafe { r.b.memset_d32(base, 0, words * 2) }.map_err(|e| r.backend_err(Party::Harness, e))
        })??;
        self.used = 0;
        Ok(())
    }

    /// Reads every slot taken since the last reset (waits for the queued checks).
    pub(crate) fn read<B: Backend>(&self, r: &mut Runner<'_, B>, party: Party) -> Result<Vec<u64>, Stop> {
        let mut bytes = vec![0u8; self.used * 8];
        r.in_phase(Phase::Wait, |r| {
            // SAFETY: the first `used` words of the block.
            unsafe { r.b.copy_d2h(&mut bytes, self.base) }.map_err(|e| r.backend_err(party, e))
        })??;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect())
    }

    /// Frees the block.
    pub(crate) fn free<B: Backend>(self, r: &mut Runner<'_, B>) {
        r.free_all(&[self.base]);
    }
}

impl SetCheck {
    /// What the counters say.
    pub(crate) fn damage(&self, layout: &Layout, words: &[u64]) -> Damage {
        let mut d = Damage::default();
        for (k, b) in layout.bufs.iter().enumerate() {
            if words[self.guard[k]] != 0 {
                d.guards.push(b.name.clone());
            }
            if let Some((slot, is_output)) = self.data[k]
                && words[slot] != 0
            {
                if is_output {
                    d.outputs.push(b.name.clone());
                } else {
                    d.inputs.push(b.name.clone());
                }
            }
        }
        d
    }
}

impl CompareCheck {
    /// What the counters say.
    pub(crate) fn result(&self, words: &[u64]) -> Compare {
        let mut out = Compare::default();
        for (k, slot) in self.slots.iter().enumerate() {
            let Some(s) = *slot else { continue };
            let (count, first, worst) = (words[s], words[s + 1], words[s + 2]);
            out.mismatches += count;
            out.max_abs_err = out.max_abs_err.max(f64::from_bits(worst));
            if count > 0 && out.first.is_none() {
                out.first = Some((k, !first));
            }
        }
        out
    }
}

/// The self-test's second part, in batches as the plans issue them: a canary band checked intact,
/// a region compared with itself (no mismatch) and with the sentinel (every element, the first
/// at index 0). `buf` holds 4099 eight-byte words; `count` is a counter word after them.
fn guards_and_comparison<B: Backend>(b: &mut B, buf: DevPtr, count: DevPtr) -> Result<(), String> {
    let e = |e: crate::backend::BackendError| e.to_string();
    let n: u64 = 2000;
    let (first_region, second_region, out) = (buf, buf + n * 4, buf + 2 * n * 4);
    let tol = Tolerance::default_for(Dtype::F32);
    let region = Fill::typical(Init::Uniform { lo: -1.0, hi: 1.0 }, 99);
    let compare = |got| HelperOp::Compare {
        expected: first_region,
        got,
        len: n,
        dtype: Dtype::F32,
        tol,
        out,
    };
    let read = |b: &mut B, at: DevPtr, words: usize| -> Result<Vec<u64>, String> {
        let mut bytes = vec![0u8; words * 8];
        // SAFETY: `at` is the counter word or the three comparison words inside the buffer.
        unsafe { b.copy_d2h(&mut bytes, at) }.map_err(e)?;
        Ok(bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect())
    };
    // SAFETY: every region below lies inside `buf` (4099 * 8 bytes) or is `count`.
    unsafe {
        b.memset_d32(count, 0, 2).map_err(e)?;
        // Two issues: operations issued together run in no order on a device.
        b.helpers(&[HelperOp::FillGuard {
            dst: buf,
            bytes: 4 * n,
            offset: 7,
        }])
        .map_err(e)?;
        b.helpers(&[HelperOp::CheckGuard {
            src: buf,
            bytes: 4 * n,
            offset: 7,
            count,
        }])
        .map_err(e)?;
    }
    if read(b, count, 1)?[0] != 0 {
        return Err("the device's check of its own canary counts a difference".into());
    }
    // SAFETY: as above.
    unsafe {
        b.memset_d32(out, 0, 6).map_err(e)?;
        b.helpers(&[
            HelperOp::FillData {
                dst: first_region,
                len: n,
                dtype: Dtype::F32,
                fill: region,
            },
            HelperOp::FillData {
                dst: second_region,
                len: n,
                dtype: Dtype::F32,
                fill: Fill::Sentinel,
            },
        ])
        .map_err(e)?;
        b.helpers(&[compare(first_region)]).map_err(e)?;
    }
    if read(b, out, 3)?[0] != 0 {
        return Err("the device's comparison of a region with itself counts a mismatch".into());
    }
    // SAFETY: as above.
    unsafe {
        b.memset_d32(out, 0, 6).map_err(e)?;
        b.helpers(&[compare(second_region)]).map_err(e)?;
    }
    let w = read(b, out, 3)?;
    if w[0] != n || !w[1] != 0 {
        return Err(format!(
            "the device's comparison with the sentinel counts {} of {n} mismatches, the first at {}",
            w[0], !w[1]
        ));
    }
    Ok(())
}

/// Fills a probe buffer on the device with every dtype, distribution and input family and
/// compares it with the host's twin; `Err` names the first disagreement. A harness whose device code and host
/// code draw differently would check launches against inputs nobody wrote.
pub(crate) fn self_test<B: Backend>(b: &mut B) -> Result<(), String> {
    const LEN: u64 = 4099;
    let cases = [
        (Dtype::F32, Init::Uniform { lo: -1.0, hi: 1.0 }),
        (Dtype::F32, Init::Normal { mean: 0.5, std: 3.0 }),
        (Dtype::F16, Init::Normal { mean: 0.0, std: 1.0 }),
        (Dtype::Bf16, Init::Uniform { lo: -4.0, hi: 4.0 }),
        (
            Dtype::I32,
            Init::Uniform {
                lo: -100.0,
                hi: 100.0,
            },
        ),
        (Dtype::U32, Init::Normal { mean: 5.0, std: 10.0 }),
        (Dtype::I64, Init::Uniform { lo: -7.5, hi: 1e12 }),
    ];
    let e = |e: crate::backend::BackendError| e.to_string();
    b.load_helpers().map_err(e)?;
    let buf = b.alloc(LEN as usize * 8 + 8).map_err(e)?;
    let count = buf + LEN * 8;
    let result = (|| {
        let every = cases
            .iter()
            .enumerate()
            .flat_map(|(i, c)| Family::ALL.into_iter().map(move |f| (i, c, f)));
        for (i, (dtype, init), family) in every {
            let fill = Fill::Input {
                init: *init,
                key: crate::draw::buffer_key(0xA0A0 + i as u64, i),
                family,
                special: Special::mask(&[Special::Zero, Special::Subnormal, Special::Inf, Special::Nan]),
                row: 37,
            };
            let n = LEN as usize * elem_size(*dtype);
            let mut host = vec![0u8; n];
            // SAFETY: `buf` holds LEN elements of 8 bytes and one counter word after them.
            unsafe {
                b.helpers(&[HelperOp::FillData {
                    dst: buf,
                    len: LEN,
                    dtype: *dtype,
                    fill,
                }])
                .map_err(e)?;
                b.copy_d2h(&mut host, buf).map_err(e)?;
            }
            let unlike = count_unlike(&host, *dtype, &fill);
            if unlike != 0 {
                return Err(format!(
                    "{unlike} of {LEN} {dtype:?} elements of family {family} drawn by the device differ from the host's"
                ));
            }
            let mut word = [0u8; 8];
            // SAFETY: as above.
            unsafe {
                b.memset_d32(count, 0, 2).map_err(e)?;
                b.helpers(&[HelperOp::CheckData {
                    src: buf,
                    len: LEN,
                    dtype: *dtype,
                    fill,
                    count,
                }])
                .map_err(e)?;
                b.copy_d2h(&mut word, count).map_err(e)?;
            }
            if u64::from_le_bytes(word) != 0 {
                return Err(format!(
                    "the device's check of its own {dtype:?} fill of family {family} counts a difference"
                ));
            }
        }
        guards_and_comparison(b, buf, count)
    })();
    // SAFETY: `buf` came from `alloc` above and is freed once.
    let _ = unsafe { b.free(buf) };
    result
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fake::FakeBackend;

    #[test]
    fn the_self_test_passes_where_device_and_host_draw_alike() {
        let mut b = FakeBackend::new(0);
        assert_eq!(self_test(&mut b), Ok(()));
    }
}
