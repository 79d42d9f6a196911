//! What a fake kernel does when launched: compute its task ([`super::compute`]) from the
//! buffers it was given, play its threat ([`FakeBehaviour`]) against the fake device's memory,
//! and take the time the model gives it: 50 us plus 1 us per kB moved, times the image's speed,
//! times a seeded log-normal noise; a warm-cache kernel is fast only when the L2 was not
//! flushed before it.

use super::compute;
use super::{FakeBackend, FakeModule};
use crate::backend::{DevPtr, KernelArg};
use crate::draw::{as_f64, elem_size, from_f64, load, sentinel_bits};
use aorlta_record::FakeBehaviour;
use aorlta_record::{Dtype, Role};
use rand_distr::{Distribution, StandardNormal};

/// One output buffer a kernel was given.
#[derive(Debug, Clone, Copy)]
struct Out {
    ptr: DevPtr,
    dtype: Dtype,
    len: u64,
}

/// How a launch went: its time, or a hang; a fault is recorded on the backend.
pub(super) struct Ran {
    pub time_s: f64,
    pub hang: bool,
}

impl FakeBackend {
    pub(super) fn fault_now(&mut self) -> Ran {
        self.faulted = true;
        Ran {
            time_s: 0.0,
            hang: false,
        }
    }

    /// Runs a kernel of a module instance on the fake device.
    pub(super) fn run_kernel(&mut self, module: &FakeModule, symbol: &str, args: &[KernelArg]) -> Ran {
        let mut img = module.image.clone();
        // A plan's kernel computes and behaves as its own entry says.
        if let Some(k) = img.kernels.get(symbol).cloned() {
            img.compute = k.compute.unwrap_or_else(|| symbol.to_string());
            img.behaviour = k.behaviour;
        }
        let mut inputs = Vec::new();
        let mut outs: Vec<Out> = Vec::new();
        let mut first_input: Option<(DevPtr, Dtype)> = None;
        let mut own: Vec<DevPtr> = Vec::new();
        let mut ints = Vec::new();
        let mut bytes_moved = 0u64;
        for a in args {
            match *a {
                KernelArg::Buffer {
                    ptr,
                    dtype,
                    len,
                    role,
                } => {
                    bytes_moved += len * elem_size(dtype) as u64;
                    if let Some((base, _)) = self.mem.locate(ptr, 1) {
                        own.push(base);
                    }
                    if matches!(role, Role::In | Role::Inout) {
                        let n = len as usize * elem_size(dtype);
                        let Some(data) = self.mem.read(ptr, n) else {
                            return self.fault_now();
                        };
                        let values = (0..len as usize)
                            .map(|i| as_f64(dtype, load(data, dtype, i)))
                            .collect();
                        inputs.push(compute::Buf { values });
                        if first_input.is_none() && role == Role::In {
                            first_input = Some((ptr, dtype));
                        }
                    }
                    if matches!(role, Role::Out | Role::Inout) {
                        outs.push(Out { ptr, dtype, len });
                    }
                }
                other => {
                    if let Some(v) = other.as_i64() {
                        ints.push(v);
                    }
                }
            }
        }
        match img.behaviour {
            FakeBehaviour::Hang => {
                return Ran {
                    time_s: 0.0,
                    hang: true,
                };
            }
            FakeBehaviour::Fault => return self.fault_now(),
            _ => {}
        }
        let out_lens: Vec<usize> = outs.iter().map(|o| o.len as usize).collect();
        let mut values = compute::compute(&img.compute, &inputs, &out_lens, &ints);
        let first_len = module.first_len.get().copied();
        if img.behaviour == FakeBehaviour::HardcodedSize
            && first_len.is_some_and(|l| Some(l) != out_lens.first().map(|l| *l as u64))
        {
            zero(&mut values);
        }
        if img.behaviour == FakeBehaviour::IgnoresInputs {
            for v in &mut values {
                for (i, x) in v.iter_mut().enumerate() {
                    *x = (i % 16) as f64 * 0.125 - 1.0;
                }
            }
        }
        if img.behaviour == FakeBehaviour::TypicalOnly && inputs.first().is_some_and(|b| atypical(&b.values))
        {
            for v in &mut values {
                for x in v.iter_mut() {
                    *x += 1.0;
                }
            }
        }
        if img.behaviour == FakeBehaviour::SearchExpected {
            values = self.search_expected(&outs, &values, &own);
        }
        let attack = img.behaviour == FakeBehaviour::CorruptCounters && !self.seen_compare.is_empty();
        if attack {
            zero(&mut values);
        }
        let skip_all = img.behaviour == FakeBehaviour::StatefulSkip && module.launches.get() > 0;
        module.launches.set(module.launches.get() + 1);
        if first_len.is_none() {
            let _ = module
                .first_len
                .set(out_lens.first().map(|l| *l as u64).unwrap_or(0));
        }
        let (mut written, mut total) = (0usize, 0usize);
        for (o, vals) in outs.iter().zip(&values) {
            let n = elem_size(o.dtype);
            let s = sentinel_bits(o.dtype);
            for (i, &v) in vals.iter().enumerate().take(o.len as usize) {
                total += 1;
                let addr = o.ptr + (i * n) as u64;
                if skip_all {
                    continue;
                }
                if img.behaviour == FakeBehaviour::SentinelSkip
                    && self.mem.read(addr, n).map(|b| load(b, o.dtype, 0)) != Some(s)
                {
                    continue;
                }
                written += 1;
                if !self.mem.write(addr, &from_f64(o.dtype, v).to_le_bytes()[..n]) {
                    return self.fault_now();
                }
            }
        }
        if img.behaviour == FakeBehaviour::OobWrite
            && let Some(o) = outs.first()
        {
            let n = elem_size(o.dtype);
            if !self.mem.write(
                o.ptr + o.len * n as u64,
                &from_f64(o.dtype, 1.0).to_le_bytes()[..n],
            ) {
                return self.fault_now();
            }
        }
        if img.behaviour == FakeBehaviour::InputMutation
            && let Some((ptr, dtype)) = first_input
        {
            let n = elem_size(dtype);
            let old = self
                .mem
                .read(ptr, n)
                .map(|d| as_f64(dtype, load(d, dtype, 0)))
                .unwrap_or(0.0);
            self.mem
                .write(ptr, &from_f64(dtype, old + 1.0).to_le_bytes()[..n]);
        }
        if img.behaviour == FakeBehaviour::Scribble {
            for (base, len) in self.mem.allocations() {
                if !own.contains(&base) {
                    self.mem.write(base, &vec![0x5A; len]);
                }
            }
        }
        if attack {
            let len = outs.first().map(|o| o.len).unwrap_or(0);
            for at in self.seen_counts.clone() {
                self.mem.write(at, &0u64.to_le_bytes());
            }
            for at in self.seen_compare.clone() {
                self.mem.write(at, &len.wrapping_neg().to_le_bytes());
                self.mem.write(at + 8, &0u64.to_le_bytes());
                self.mem.write(at + 16, &0u64.to_le_bytes());
            }
        }
        let cold = self.persist_reset && self.flushed_bytes as u64 >= 2 * self.device.l2_bytes;
        self.persist_reset = false;
        self.flushed_bytes = 0;
        let work = if total == 0 {
            1.0
        } else {
            (written as f64 / total as f64).max(0.05)
        };
        // The fake device runs scaled-down sizes; its model keeps launches in the tens to
        // hundreds of microseconds, like the real tasks at their timed sizes.
        let base = 50e-6 + bytes_moved as f64 / 1.0e9;
        let speed = match img.behaviour {
            FakeBehaviour::WarmCache if cold => 1.0,
            _ => img.speed,
        };
        let z: f64 = StandardNormal.sample(&mut self.rng);
        Ran {
            time_s: img.fixed_s.unwrap_or(base * speed) * work * (img.noise * z).exp(),
            hang: false,
        }
    }

    /// The outputs a searching kernel produces: each output copied from wherever another
    /// allocation holds its expected values, else zeros.
    fn search_expected(&self, outs: &[Out], expected: &[Vec<f64>], own: &[DevPtr]) -> Vec<Vec<f64>> {
        outs.iter()
            .zip(expected)
            .map(|(o, want)| {
                let n = elem_size(o.dtype);
                let bytes: Vec<u8> = want
                    .iter()
                    .flat_map(|v| from_f64(o.dtype, *v).to_le_bytes()[..n].to_vec())
                    .collect();
                let found = self.mem.allocations().into_iter().any(|(base, len)| {
                    !own.contains(&base)
                        && self.mem.read(base, len).is_some_and(|all| {
                            !bytes.is_empty() && all.windows(bytes.len()).any(|w| w == bytes)
                        })
                });
                if found {
                    want.clone()
                } else {
                    vec![0.0; want.len()]
                }
            })
            .collect()
    }
}

fn zero(values: &mut [Vec<f64>]) {
    for v in values {
        v.iter_mut().for_each(|x| *x = 0.0);
    }
}

/// What [`FakeBehaviour::TypicalOnly`] takes for inputs that do not look typical.
fn atypical(x: &[f64]) -> bool {
    if x.iter().any(|v| *v == 0.0 || !v.is_finite()) {
        return true;
    }
    let largest = x.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    x.chunks(64).filter(|c| c.len() >= 8).any(|c| {
        let (lo, hi) = c
            .iter()
            .fold((f64::MAX, f64::MIN), |(a, b), v| (a.min(*v), b.max(*v)));
        hi - lo < largest / 16.0
    })
}
