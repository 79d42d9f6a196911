//! A plan's library operations on the fake device, computed on the CPU: a dense matrix product
//! over the fake device's memory, in the step's element type, timed by the same model as a
//! kernel (50 us plus 1 us per kB moved). A matrix outside every allocation is a fault.

use super::FakeBackend;
use super::behaviour::Ran;
use crate::backend::{DevPtr, LibraryOp};
use crate::draw::{as_f64, elem_size, from_f64, load};
use aorlta_record::Dtype;

impl FakeBackend {
    fn matrix(&self, at: DevPtr, len: u64, dtype: Dtype) -> Option<Vec<f64>> {
        let n = elem_size(dtype);
        let data = self.mem.read(at, len as usize * n)?;
        Some(
            (0..len as usize)
                .map(|i| as_f64(dtype, load(data, dtype, i)))
                .collect(),
        )
    }

    /// Runs a library operation.
    pub(super) fn run_library(&mut self, op: &LibraryOp) -> Ran {
        let LibraryOp::Gemm {
            a,
            b,
            c,
            m,
            n,
            k,
            trans_a,
            trans_b,
            alpha,
            beta,
            dtype,
        } = *op;
        let (Some(av), Some(bv), Some(cv)) = (
            self.matrix(a, m * k, dtype),
            self.matrix(b, k * n, dtype),
            self.matrix(c, m * n, dtype),
        ) else {
            return self.fault_now();
        };
        let (m, n, k) = (m as usize, n as usize, k as usize);
        let at_a = |i: usize, p: usize| if trans_a { av[p * m + i] } else { av[i * k + p] };
        let at_b = |p: usize, j: usize| if trans_b { bv[j * k + p] } else { bv[p * n + j] };
        let size = elem_size(dtype);
        let mut out = Vec::with_capacity(m * n * size);
        for i in 0..m {
            for j in 0..n {
                let dot: f64 = (0..k).map(|p| at_a(i, p) * at_b(p, j)).sum();
                let prev = if beta == 0.0 { 0.0 } else { beta * cv[i * n + j] };
                let bits = from_f64(dtype, alpha * dot + prev);
                out.extend_from_slice(&bits.to_le_bytes()[..size]);
            }
        }
        if !self.mem.write(c, &out) {
            return self.fault_now();
        }
        let moved = ((m * k + k * n + 2 * m * n) * size) as f64;
        Ran {
            time_s: 50e-6 + moved / 1.0e9,
            hang: false,
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::backend::{Backend, LibraryOp};
    use crate::draw::{as_f64, from_f64, load};
    use crate::fake::FakeBackend;
    use aorlta_record::Dtype;

    fn put(b: &mut FakeBackend, v: &[f64]) -> u64 {
        let p = b.alloc(v.len() * 4).unwrap();
        let bytes: Vec<u8> = v
            .iter()
            .flat_map(|x| (from_f64(Dtype::F32, *x) as u32).to_le_bytes())
            .collect();
        assert!(b.mem.write(p, &bytes));
        p
    }

    fn get(b: &FakeBackend, p: u64, n: usize) -> Vec<f64> {
        let d = b.mem.read(p, n * 4).unwrap();
        (0..n)
            .map(|i| as_f64(Dtype::F32, load(d, Dtype::F32, i)))
            .collect()
    }

    #[test]
    fn a_gemm_computes_every_transpose_and_scales_and_faults_outside_memory() {
        let mut b = FakeBackend::new(0);
        // a = [[1, 2, 3], [4, 5, 6]] (2x3), b = [[1, 0], [0, 1], [1, 1]] (3x2).
        let a = put(&mut b, &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let at = put(&mut b, &[1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
        let bm = put(&mut b, &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]);
        let bt = put(&mut b, &[1.0, 0.0, 1.0, 0.0, 1.0, 1.0]);
        let c = put(&mut b, &[1.0, 1.0, 1.0, 1.0]);
        let gemm = |a, bb, trans_a, trans_b, alpha, beta| LibraryOp::Gemm {
            a,
            b: bb,
            c,
            m: 2,
            n: 2,
            k: 3,
            trans_a,
            trans_b,
            alpha,
            beta,
            dtype: Dtype::F32,
        };
        for (aa, bb, ta, tb) in [
            (a, bm, false, false),
            (at, bm, true, false),
            (a, bt, false, true),
            (at, bt, true, true),
        ] {
            // SAFETY: every matrix is a live allocation of the fake device.
            unsafe { b.library(&gemm(aa, bb, ta, tb, 1.0, 0.0)) }.unwrap();
            assert_eq!(get(&b, c, 4), [4.0, 5.0, 10.0, 11.0], "trans {ta} {tb}");
        }
        // SAFETY: as above.
        unsafe { b.library(&gemm(a, bm, false, false, 2.0, 1.0)) }.unwrap();
        assert_eq!(get(&b, c, 4), [12.0, 15.0, 30.0, 33.0]);
        assert!(b.log.iter().any(|c| matches!(c, super::super::Call::Library(_))));
        // SAFETY: the fake device checks the address and faults.
        unsafe { b.library(&gemm(a, bm + (1 << 30), false, false, 1.0, 0.0)) }.unwrap();
        assert_eq!(
            b.synchronize().unwrap_err().kind,
            crate::backend::ErrorKind::Fault
        );
    }
}
