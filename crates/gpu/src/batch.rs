//! What the GPU backends share about launching the harness's own device code: the batch that
//! `aorlta_run` (`device/helpers.cu`) takes by value, packed from [`HelperOp`]s, and the launch
//! shape of one batch. The CUDA ([`crate::cuda`]) and HIP ([`crate::hip`]) backends pass a
//! [`BatchRepr`] as the kernel's one parameter.

use crate::backend::{BackendError, ErrorKind, HelperOp};
use crate::draw::dtype_code;

/// Most operations in one launch of `aorlta_run` (its parameter block stays under 4 KiB).
pub(crate) const BATCH_OPS: usize = 36;

const _: () = assert!(std::mem::size_of::<BatchRepr>() <= 4096);

/// Threads per block of a launch of `aorlta_run`.
pub(crate) const THREADS_PER_BLOCK: u32 = 256;

/// One operation as `aorlta_run` reads it (`struct Op` in `device/helpers.cu`).
#[repr(C)]
#[derive(Clone, Copy, Default)]
pub(crate) struct OpRepr {
    kind: u64,
    p: u64,
    q: u64,
    n: u64,
    key: u64,
    out: u64,
    a: f64,
    b: f64,
    ilo: i64,
    ihi: i64,
    dtype: i32,
    fill: i32,
    start: u64,
    row: u64,
    family: i32,
    special: i32,
}

/// A batch as `aorlta_run` takes it by value (`struct Batch`).
#[repr(C)]
pub(crate) struct BatchRepr {
    /// Work items over all operations.
    pub total: u64,
    /// Operations in use.
    pub count: u64,
    ops: [OpRepr; BATCH_OPS],
}

impl OpRepr {
    /// The packed form of an operation and its count of work items.
    pub(crate) fn of(op: &HelperOp) -> Self {
        match *op {
            HelperOp::FillGuard { dst, bytes, offset } => OpRepr {
                kind: 0,
                p: dst,
                n: bytes,
                key: offset,
                ..Default::default()
            },
            HelperOp::CheckGuard {
                src,
                bytes,
                offset,
                count,
            } => OpRepr {
                kind: 1,
                p: src,
                n: bytes,
                key: offset,
                out: count,
                ..Default::default()
            },
            HelperOp::FillData {
                dst,
                len,
                dtype,
                fill,
            } => OpRepr::data(2, dst, len, dtype, fill, 0),
            HelperOp::CheckData {
                src,
                len,
                dtype,
                fill,
                count,
            } => OpRepr::data(3, src, len, dtype, fill, count),
            HelperOp::Compare {
                expected,
                got,
                len,
                dtype,
                tol,
                out,
            } => OpRepr {
                kind: 4,
                p: expected,
                q: got,
                n: len,
                out,
                a: tol.atol,
                b: tol.rtol,
                dtype: dtype_code(dtype),
                ..Default::default()
            },
        }
    }

    /// A fill (`kind` 2) or a check (`kind` 3, counting into `out`) of `len` elements at `p`.
    fn data(
        kind: u64,
        p: u64,
        len: u64,
        dtype: aorlta_record::Dtype,
        fill: crate::draw::Fill,
        out: u64,
    ) -> Self {
        let a = fill.args();
        OpRepr {
            kind,
            p,
            n: len,
            key: a.key,
            out,
            a: a.a,
            b: a.b,
            ilo: a.ilo,
            ihi: a.ihi,
            dtype: dtype_code(dtype),
            fill: a.kind,
            row: a.row,
            family: a.family,
            special: a.special,
            ..Default::default()
        }
    }
}

impl BatchRepr {
    /// Packs up to [`BATCH_OPS`] operations, each starting where the one before it ends in the
    /// batch's run of work items.
    ///
    /// # Panics
    /// When given more than [`BATCH_OPS`] operations.
    pub(crate) fn of(ops: &[HelperOp]) -> Self {
        assert!(ops.len() <= BATCH_OPS, "{} operations in one batch", ops.len());
        let mut batch = BatchRepr {
            total: 0,
            count: ops.len() as u64,
            ops: [OpRepr::default(); BATCH_OPS],
        };
        for (slot, op) in batch.ops.iter_mut().zip(ops) {
            *slot = OpRepr::of(op);
            slot.start = batch.total;
            batch.total += slot.n;
        }
        batch
    }

    /// The batches that run `ops` in order, [`BATCH_OPS`] at a time, leaving out those with no
    /// work.
    pub(crate) fn split(ops: &[HelperOp]) -> impl Iterator<Item = BatchRepr> + '_ {
        ops.chunks(BATCH_OPS).map(BatchRepr::of).filter(|b| b.total > 0)
    }

    /// Blocks of [`THREADS_PER_BLOCK`] threads for this batch on a device of `sm_count`
    /// multiprocessors: one thread per work item, at most eight blocks per multiprocessor (the
    /// kernel strides over the rest).
    pub(crate) fn blocks(&self, sm_count: u32) -> u32 {
        self.total
            .div_ceil(u64::from(THREADS_PER_BLOCK))
            .clamp(1, u64::from(sm_count.max(1)) * 8) as u32
    }
}

/// The error of running operations while the harness's device code is not loaded.
pub(crate) fn not_loaded() -> BackendError {
    BackendError {
        kind: ErrorKind::Driver,
        call: "helpers",
        detail: "the harness's device code is not loaded".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `struct Op` and `struct Batch` of `device/helpers.cu`: six u64, two doubles, two i64, two
    /// ints, two u64 and two ints (112 bytes, no padding); two u64 and 36 ops (4048 bytes,
    /// under 4 KiB).
    #[test]
    fn the_batch_is_laid_out_as_the_device_code_reads_it() {
        assert_eq!(std::mem::size_of::<OpRepr>(), 112);
        assert_eq!(std::mem::align_of::<OpRepr>(), 8);
        assert_eq!(std::mem::size_of::<BatchRepr>(), 16 + 36 * 112);
        assert!(std::mem::size_of::<BatchRepr>() <= 4096);
        assert!(crate::helpers::SOURCE.contains("#define MAX_OPS 36"));
    }

    fn guard(bytes: u64) -> HelperOp {
        HelperOp::FillGuard {
            dst: 4096,
            bytes,
            offset: 0,
        }
    }

    #[test]
    fn operations_are_split_into_full_batches_and_empty_batches_are_left_out() {
        let mut ops = vec![guard(10); BATCH_OPS];
        ops.extend(vec![guard(0); BATCH_OPS]);
        ops.extend([guard(0), guard(3)]);
        let batches: Vec<_> = BatchRepr::split(&ops).collect();
        // 36 | 36 empty | 1 empty + 1: the all-empty chunk is not launched.
        assert_eq!(batches.len(), 2);
        assert_eq!((batches[0].count, batches[0].total), (36, 360));
        assert_eq!((batches[1].count, batches[1].total), (2, 3));
        assert_eq!(batches[0].ops[3].start, 30);
        assert_eq!((batches[1].ops[1].start, batches[1].ops[1].n), (0, 3));
    }

    #[test]
    fn a_batch_gets_a_thread_per_item_up_to_eight_blocks_per_multiprocessor() {
        let b = |n| BatchRepr::of(&[guard(n)]);
        assert_eq!(b(1).blocks(132), 1);
        assert_eq!(b(257).blocks(132), 2);
        assert_eq!(b(1 << 30).blocks(132), 132 * 8);
        assert_eq!(b(1 << 30).blocks(0), 8);
    }
}
