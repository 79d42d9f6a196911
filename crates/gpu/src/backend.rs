//! The device behind the harness: a small trait with exactly the operations the launch plans
//! need, so that the plans are one piece of code run on the CUDA driver ([`crate::cuda`]), on
//! the HIP runtime ([`crate::hip`]) and on the CPU-simulated fake device ([`crate::fake`]), whose
//! call log the plan tests read. The few functions just before the trait are shared by the two GPU
//! backends.
//!
//! Besides the driver's module, memory and event calls, a backend runs the harness's own device
//! code ([`HelperOp`]: fill a region, check it, compare two outputs), which the GPU backends
//! launch from a module of their own and the fake device computes on the CPU. Every method that
//! takes a device address is `unsafe`: the caller promises the address and length lie inside
//! one live allocation.

use crate::draw::Fill;
use aorlta_record::{Clocks, DeviceInfo, Geometry};
use aorlta_record::{Dtype, Role, Tolerance};

/// A device address.
pub(crate) type DevPtr = u64;

/// A loaded module instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ModuleId(pub u64);

/// A kernel function inside a module instance.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FuncId(pub u64);

/// One of the two timing events a backend owns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EventSlot {
    /// Recorded just before the launch.
    Start,
    /// Recorded just after it.
    Stop,
}

/// A kernel argument, with what it means (the CUDA backend passes only the value; the fake
/// device needs the meaning to compute the task).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum KernelArg {
    /// A device buffer.
    Buffer {
        /// The first element's address.
        ptr: DevPtr,
        /// Element type.
        dtype: Dtype,
        /// Elements.
        len: u64,
        /// In, out or inout.
        role: Role,
    },
    /// A 32-bit signed scalar.
    I32(i32),
    /// A 32-bit unsigned scalar.
    U32(u32),
    /// A 64-bit signed scalar.
    I64(i64),
    /// A 64-bit unsigned scalar.
    U64(u64),
    /// A float scalar.
    F32(f32),
    /// A double scalar.
    F64(f64),
}

impl KernelArg {
    /// The argument's bytes as the kernel receives them.
    pub fn bytes(&self) -> Vec<u8> {
        match *self {
            KernelArg::Buffer { ptr, .. } => ptr.to_le_bytes().to_vec(),
            KernelArg::I32(v) => v.to_le_bytes().to_vec(),
            KernelArg::U32(v) => v.to_le_bytes().to_vec(),
            KernelArg::I64(v) => v.to_le_bytes().to_vec(),
            KernelArg::U64(v) => v.to_le_bytes().to_vec(),
            KernelArg::F32(v) => v.to_le_bytes().to_vec(),
            KernelArg::F64(v) => v.to_le_bytes().to_vec(),
        }
    }

    /// The argument's bytes at the start of an 8-byte word, the rest zero: what a launch's
    /// parameter array points at for it.
    pub fn word(&self) -> u64 {
        let mut w = [0u8; 8];
        let b = self.bytes();
        w[..b.len()].copy_from_slice(&b);
        u64::from_ne_bytes(w)
    }

    /// The scalar as an integer (buffers and floats give `None`).
    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            KernelArg::I32(v) => Some(v.into()),
            KernelArg::U32(v) => Some(v.into()),
            KernelArg::I64(v) => Some(v),
            KernelArg::U64(v) => i64::try_from(v).ok(),
            _ => None,
        }
    }
}

/// A library operation of a candidate's plan (docs/PLANS.md), with device addresses: run by the
/// vendor library on a GPU, on the CPU by the fake device.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum LibraryOp {
    /// `c = alpha * op(a) * op(b) + beta * c`, row-major and packed
    /// ([`aorlta_record::GemmStep`]).
    Gemm {
        /// The left matrix.
        a: DevPtr,
        /// The right matrix.
        b: DevPtr,
        /// The result.
        c: DevPtr,
        /// Rows of `op(a)` and `c`.
        m: u64,
        /// Columns of `op(b)` and `c`.
        n: u64,
        /// The inner dimension.
        k: u64,
        /// `a` is stored transposed.
        trans_a: bool,
        /// `b` is stored transposed.
        trans_b: bool,
        /// Scale of the product.
        alpha: f64,
        /// Scale of `c`'s previous contents.
        beta: f64,
        /// Element type of the three matrices.
        dtype: Dtype,
    },
}

impl LibraryOp {
    /// The call's name in messages (`cublasGemmEx`).
    pub fn call(&self) -> &'static str {
        match self {
            LibraryOp::Gemm { .. } => "cublasGemmEx",
        }
    }
}

/// What kind of failure a backend call met.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    /// The context is lost: an illegal address, a trap, a misaligned access … Everything after
    /// fails; the process must be replaced.
    Fault,
    /// Device memory ran out.
    OutOfMemory,
    /// The code object could not be loaded (not a cubin for this device, corrupt).
    BadImage,
    /// A launch was refused (too many resources, bad geometry) without harming the context.
    LaunchRefused,
    /// Anything else the driver reported.
    Driver,
}

/// A failed backend call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{call}: {detail}")]
pub struct BackendError {
    /// The kind.
    pub kind: ErrorKind,
    /// The call that failed (`cuModuleLoadData`).
    pub call: &'static str,
    /// The driver's words.
    pub detail: String,
}

/// Whether a launch finished in time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wait {
    /// The stop event completed.
    Done,
    /// The timeout passed first.
    TimedOut,
}

/// One operation of the harness's own device code. Counters are `u64` words in device memory
/// the operation adds to (atomically); the plans zero them before and read them after.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum HelperOp {
    /// Writes the canary into `bytes` bytes at `dst`, the first being canary byte `offset`.
    FillGuard {
        /// Where.
        dst: DevPtr,
        /// How many bytes.
        bytes: u64,
        /// The canary offset of the first byte.
        offset: u64,
    },
    /// Adds to `count` the bytes at `src` that differ from the canary.
    CheckGuard {
        /// Where.
        src: DevPtr,
        /// How many bytes.
        bytes: u64,
        /// The canary offset of the first byte.
        offset: u64,
        /// The counter.
        count: DevPtr,
    },
    /// Writes `len` elements of `fill` at `dst`.
    FillData {
        /// Where.
        dst: DevPtr,
        /// Elements.
        len: u64,
        /// Element type.
        dtype: Dtype,
        /// What to write.
        fill: Fill,
    },
    /// Adds to `count` the elements at `src` that differ from `fill`.
    CheckData {
        /// Where.
        src: DevPtr,
        /// Elements.
        len: u64,
        /// Element type.
        dtype: Dtype,
        /// What should be there.
        fill: Fill,
        /// The counter.
        count: DevPtr,
    },
    /// Compares `got` with `expected` within `tol`: adds the elements outside it to `out[0]`,
    /// raises `out[1]` to `!i` for the first such index `i` (0 when none), and raises `out[2]`
    /// to the bits of the largest absolute difference over finite pairs.
    Compare {
        /// The reference's output.
        expected: DevPtr,
        /// The candidate's output.
        got: DevPtr,
        /// Elements.
        len: u64,
        /// Element type.
        dtype: Dtype,
        /// Tolerance.
        tol: Tolerance,
        /// Three counters.
        out: DevPtr,
    },
}

impl HelperOp {
    /// The byte range the operation writes (counters aside: they are added to atomically).
    pub fn writes(&self) -> Option<(DevPtr, u64)> {
        match *self {
            HelperOp::FillGuard { dst, bytes, .. } => Some((dst, bytes)),
            HelperOp::FillData { dst, len, dtype, .. } => {
                Some((dst, len * crate::draw::elem_size(dtype) as u64))
            }
            _ => None,
        }
    }

    /// The byte ranges the operation reads.
    pub fn reads(&self) -> Vec<(DevPtr, u64)> {
        match *self {
            HelperOp::CheckGuard { src, bytes, .. } => vec![(src, bytes)],
            HelperOp::CheckData { src, len, dtype, .. } => {
                vec![(src, len * crate::draw::elem_size(dtype) as u64)]
            }
            HelperOp::Compare {
                expected,
                got,
                len,
                dtype,
                ..
            } => {
                let n = len * crate::draw::elem_size(dtype) as u64;
                vec![(expected, n), (got, n)]
            }
            _ => vec![],
        }
    }
}

/// Checks that operations issued together do not depend on one another: on a device they run
/// in one launch, in no order, so none may write what another reads or writes. `Err` names the
/// first pair that does.
pub(crate) fn independent(ops: &[HelperOp]) -> Result<(), String> {
    let overlap =
        |a: (DevPtr, u64), b: (DevPtr, u64)| a.1 > 0 && b.1 > 0 && a.0 < b.0 + b.1 && b.0 < a.0 + a.1;
    let ranges: Vec<_> = ops.iter().map(|op| (op.writes(), op.reads())).collect();
    for (i, (w, _)) in ranges.iter().enumerate() {
        let Some(w) = *w else { continue };
        for (j, (w2, reads)) in ranges.iter().enumerate() {
            let clash = w2.is_some_and(|v| overlap(w, v)) || reads.iter().any(|&r| overlap(w, r));
            if i != j && clash {
                return Err(format!(
                    "operations {i} and {j} of one issue depend on each other: {:?} writes what {:?} touches",
                    ops[i], ops[j]
                ));
            }
        }
    }
    Ok(())
}

/// Polls `done` until it says the awaited work finished or `timeout_s` passes: the GPU backends'
/// wait for their stop event. It yields for the first 2 ms (most launches are short), then
/// sleeps 100 µs between polls.
pub(crate) fn poll_until(
    timeout_s: f64,
    mut done: impl FnMut() -> Result<bool, BackendError>,
) -> Result<Wait, BackendError> {
    let start = std::time::Instant::now();
    loop {
        if done()? {
            return Ok(Wait::Done);
        }
        let waited = start.elapsed();
        if waited.as_secs_f64() > timeout_s {
            return Ok(Wait::TimedOut);
        }
        if waited < std::time::Duration::from_millis(2) {
            std::thread::yield_now();
        } else {
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
    }
}

/// An 8-byte-aligned copy of a code object with a trailing zero word, as a driver's
/// load-from-memory call reads it.
pub(crate) fn aligned_image(image: &[u8]) -> Vec<u64> {
    let mut words = vec![0u64; image.len().div_ceil(8) + 1];
    for (w, chunk) in words.iter_mut().zip(image.chunks(8)) {
        let mut b = [0u8; 8];
        b[..chunk.len()].copy_from_slice(chunk);
        *w = u64::from_le_bytes(b);
    }
    words
}

/// A symbol as a C string for `call`; a NUL inside it is a driver-kind error.
pub(crate) fn c_symbol(call: &'static str, s: &str) -> Result<std::ffi::CString, BackendError> {
    std::ffi::CString::new(s).map_err(|_| BackendError {
        kind: ErrorKind::Driver,
        call,
        detail: "symbol contains a NUL byte".into(),
    })
}

/// A 16-byte device UUID as `GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx`.
pub(crate) fn gpu_uuid(b: &[u8; 16]) -> String {
    let hex = |r: std::ops::Range<usize>| b[r].iter().map(|x| format!("{x:02x}")).collect::<String>();
    format!(
        "GPU-{}-{}-{}-{}-{}",
        hex(0..4),
        hex(4..6),
        hex(6..8),
        hex(8..10),
        hex(10..16)
    )
}

/// An allocation lent to the trusted reference process: how that process reaches it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lent {
    /// A CUDA IPC memory handle of the allocation (64 bytes, in hex).
    Ipc(String),
    /// A file holding the allocation's bytes (the fake device): read back by
    /// [`Backend::take_back`] after the process wrote it.
    File(std::path::PathBuf),
}

/// The operations the launch plans use, on one device and one stream.
pub trait Backend {
    /// The device.
    fn device(&self) -> &DeviceInfo;
    /// Current clocks, where the management library reports them.
    fn clocks(&mut self) -> Option<Clocks>;
    /// Called at the start of every job (the fake device seeds its timing noise from it).
    fn begin_job(&mut self, _seed: u64) {}
    /// Loads a fresh module instance from a code object.
    fn load_module(&mut self, image: &[u8]) -> Result<ModuleId, BackendError>;
    /// Unloads a module instance.
    fn unload_module(&mut self, module: ModuleId) -> Result<(), BackendError>;
    /// A kernel by symbol; `None` when the module has no such function.
    fn function(&mut self, module: ModuleId, symbol: &str) -> Result<Option<FuncId>, BackendError>;
    /// A data symbol's address and size; `None` when the module has none.
    fn global(&mut self, module: ModuleId, symbol: &str) -> Result<Option<(DevPtr, usize)>, BackendError>;
    /// Lets a kernel use this much dynamic shared memory.
    fn set_max_dynamic_shared(&mut self, func: FuncId, bytes: u32) -> Result<(), BackendError>;
    /// Allocates device memory.
    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, BackendError>;
    /// Frees device memory.
    ///
    /// # Safety
    /// `ptr` came from [`Backend::alloc`] and is freed once; nothing uses it afterwards.
    unsafe fn free(&mut self, ptr: DevPtr) -> Result<(), BackendError>;
    /// Copies device memory to pageable host memory (synchronous).
    ///
    /// # Safety
    /// `[src, src + dst.len())` lies inside one live allocation or module symbol.
    unsafe fn copy_d2h(&mut self, dst: &mut [u8], src: DevPtr) -> Result<(), BackendError>;
    /// Fills `count` 32-bit words with `value`.
    ///
    /// # Safety
    /// `[dst, dst + 4 count)` lies inside one live allocation.
    unsafe fn memset_d32(&mut self, dst: DevPtr, value: u32, count: usize) -> Result<(), BackendError>;
    /// Resets every persisting L2 line to normal.
    fn reset_persisting_l2(&mut self) -> Result<(), BackendError>;
    /// Records a timing event on the stream.
    fn record_event(&mut self, slot: EventSlot) -> Result<(), BackendError>;
    /// Launches a kernel on the stream.
    ///
    /// # Safety
    /// `args` match the kernel's parameters, and every buffer argument is a live allocation of
    /// at least its length.
    unsafe fn launch(
        &mut self,
        func: FuncId,
        geometry: &Geometry,
        args: &[KernelArg],
    ) -> Result<(), BackendError>;
    /// Queues a library operation of a candidate's plan on the stream. A backend without the
    /// vendor library's binding refuses it: the harness reports that it cannot run the plan
    /// (a harness finding, never the candidate's fault).
    ///
    /// # Safety
    /// Every matrix the operation names lies inside one live allocation.
    unsafe fn library(&mut self, op: &LibraryOp) -> Result<(), BackendError> {
        Err(BackendError {
            kind: ErrorKind::Driver,
            call: op.call(),
            detail: format!(
                "library steps of a plan are not supported on the {} backend yet",
                self.device().backend
            ),
        })
    }
    /// Waits for the stop event, at most `timeout_s`.
    fn wait_stop(&mut self, timeout_s: f64) -> Result<Wait, BackendError>;
    /// Seconds between the start and stop events.
    fn elapsed_s(&mut self) -> Result<f64, BackendError>;
    /// Waits for all work and reports a sticky fault.
    fn synchronize(&mut self) -> Result<(), BackendError>;
    /// Loads a fresh instance of the harness's own device code. The plans unload it before
    /// every candidate launch and load it afresh after, so the code that checks a launch was
    /// never in memory while the candidate ran.
    fn load_helpers(&mut self) -> Result<(), BackendError>;
    /// Unloads the harness's device code (nothing when none is loaded).
    fn unload_helpers(&mut self) -> Result<(), BackendError>;
    /// Queues operations of the harness's device code on the stream, in order (its device code
    /// must be loaded). The GPU backends run up to `crate::batch::BATCH_OPS` at a time in one launch.
    ///
    /// # Safety
    /// Every region the operations name lies inside one live allocation.
    unsafe fn helpers(&mut self, ops: &[HelperOp]) -> Result<(), BackendError>;
    /// Lends the allocation at `alloc` (`bytes` long, made by [`Backend::alloc`]) to the trusted
    /// reference process; the caller has finished everything queued before (one
    /// [`Backend::synchronize`] for the whole set).
    fn lend(&mut self, _alloc: DevPtr, _bytes: usize) -> Result<Lent, BackendError> {
        Err(BackendError {
            kind: ErrorKind::Driver,
            call: "lend",
            detail: "a PyTorch reference runs on a CUDA device (or the fake one) only".into(),
        })
    }
    /// Takes a lent allocation back after the reference process wrote it.
    fn take_back(&mut self, _alloc: DevPtr, _lent: &Lent) -> Result<(), BackendError> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_argument_word_holds_its_bytes_first() {
        let w = KernelArg::I32(-2).word().to_ne_bytes();
        assert_eq!(w, [0xfe, 0xff, 0xff, 0xff, 0, 0, 0, 0]);
        assert_eq!(KernelArg::F64(1.5).word().to_ne_bytes(), 1.5f64.to_le_bytes());
    }

    #[test]
    fn shared_backend_helpers() {
        let mut b = [0u8; 16];
        b[0] = 0xab;
        b[15] = 0x01;
        assert_eq!(gpu_uuid(&b), "GPU-ab000000-0000-0000-0000-000000000001");
        let img = aligned_image(&[1, 2, 3, 4, 5, 6, 7, 8, 9]);
        assert_eq!(img, [0x0807060504030201, 9, 0]);
        assert_eq!(img.as_ptr() as usize % 8, 0);
        assert_eq!(c_symbol("x", "a\0b").unwrap_err().kind, ErrorKind::Driver);
        let mut polls = 0;
        let w = poll_until(5.0, || {
            polls += 1;
            Ok(polls == 3)
        });
        assert_eq!((w, polls), (Ok(Wait::Done), 3));
        assert_eq!(poll_until(0.001, || Ok(false)), Ok(Wait::TimedOut));
        let err = BackendError {
            kind: ErrorKind::Fault,
            call: "q",
            detail: String::new(),
        };
        assert_eq!(poll_until(5.0, || Err(err.clone())), Err(err.clone()));
    }

    fn guard(kind: u8, at: DevPtr) -> HelperOp {
        match kind {
            0 => HelperOp::FillGuard {
                dst: at,
                bytes: 256,
                offset: 0,
            },
            _ => HelperOp::CheckGuard {
                src: at,
                bytes: 256,
                offset: 0,
                count: 1 << 40,
            },
        }
    }

    #[test]
    fn a_fill_and_a_check_of_one_region_are_not_issued_together() {
        let err = independent(&[guard(0, 4096), guard(1, 4096 + 255)]).unwrap_err();
        assert!(err.contains("operations 0 and 1"), "{err}");
        assert!(independent(&[guard(1, 4096), guard(0, 4096)]).is_err());
        assert!(independent(&[guard(0, 4096), guard(0, 4096 + 100)]).is_err());
    }

    #[test]
    fn disjoint_fills_and_checks_of_anything_unwritten_go_together() {
        assert_eq!(
            independent(&[guard(0, 4096), guard(0, 4096 + 256), guard(1, 8192)]),
            Ok(())
        );
        let cmp = HelperOp::Compare {
            expected: 1 << 20,
            got: 2 << 20,
            len: 64,
            dtype: Dtype::F32,
            tol: Tolerance::default_for(Dtype::F32),
            out: 3 << 20,
        };
        assert_eq!(independent(&[cmp, guard(1, 1 << 20), guard(0, 4096)]), Ok(()));
        assert!(independent(&[cmp, guard(0, (2 << 20) + 128)]).is_err());
    }
}
