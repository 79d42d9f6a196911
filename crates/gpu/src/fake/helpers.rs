//! The harness's device code on the fake device: each [`HelperOp`] computed on the CPU through
//! the host twin of the device kernels ([`crate::draw`]), adding to counters in fake device
//! memory exactly as the kernels' atomics do (wrapping), so a kernel that tampers with a counter
//! has the effect it would have on a GPU.

use super::memory::Memory;
use crate::backend::{DevPtr, HelperOp};
use crate::draw::{canary, compare_region, count_unlike, elem_size, fill_region};

fn word(mem: &Memory, at: DevPtr) -> Option<u64> {
    mem.read(at, 8)
        .map(|b| u64::from_le_bytes(b.try_into().unwrap_or([0; 8])))
}

fn set(mem: &mut Memory, at: DevPtr, v: u64) -> Option<()> {
    mem.write(at, &v.to_le_bytes()).then_some(())
}

fn add(mem: &mut Memory, at: DevPtr, v: u64) -> Option<()> {
    let w = word(mem, at)?;
    set(mem, at, w.wrapping_add(v))
}

fn raise(mem: &mut Memory, at: DevPtr, v: u64) -> Option<()> {
    let w = word(mem, at)?;
    set(mem, at, w.max(v))
}

/// Runs one operation; `None` when it touched memory outside every allocation (a fault).
pub(crate) fn run(mem: &mut Memory, op: &HelperOp) -> Option<()> {
    match *op {
        HelperOp::FillGuard { dst, bytes, offset } => {
            let s = mem.slice_mut(dst, bytes as usize)?;
            for (i, b) in s.iter_mut().enumerate() {
                *b = canary(offset + i as u64);
            }
            Some(())
        }
        HelperOp::CheckGuard {
            src,
            bytes,
            offset,
            count,
        } => {
            let bad = mem
                .read(src, bytes as usize)?
                .iter()
                .enumerate()
                .filter(|(i, b)| **b != canary(offset + *i as u64))
                .count() as u64;
            add(mem, count, bad)
        }
        HelperOp::FillData {
            dst,
            len,
            dtype,
            fill,
        } => {
            let s = mem.slice_mut(dst, len as usize * elem_size(dtype))?;
            fill_region(s, dtype, &fill);
            Some(())
        }
        HelperOp::CheckData {
            src,
            len,
            dtype,
            fill,
            count,
        } => {
            let bad = count_unlike(mem.read(src, len as usize * elem_size(dtype))?, dtype, &fill);
            add(mem, count, bad)
        }
        HelperOp::Compare {
            expected,
            got,
            len,
            dtype,
            tol,
            out,
        } => {
            let n = len as usize * elem_size(dtype);
            let c = compare_region(mem.read(expected, n)?, mem.read(got, n)?, dtype, tol);
            add(mem, out, c.mismatches)?;
            if let Some(first) = c.first {
                raise(mem, out + 8, !first)?;
            }
            raise(mem, out + 16, c.worst.to_bits())
        }
    }
}
