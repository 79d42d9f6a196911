//! The device behind the harness: a small trait with exactly the operations the launch plans
//! need, so that the plans are one piece of code run on the CUDA driver ([`crate::cuda`]) and on
//! the CPU-simulated fake device ([`crate::fake`]), whose call log the plan tests read.

use aorlta_record::kernel::harness::{Clocks, DeviceInfo, Geometry};
use aorlta_record::kernel::{Dtype, Role};

/// A device address.
pub type DevPtr = u64;

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
    fn free(&mut self, ptr: DevPtr) -> Result<(), BackendError>;
    /// Copies pageable host memory to the device (synchronous).
    fn copy_h2d(&mut self, dst: DevPtr, src: &[u8]) -> Result<(), BackendError>;
    /// Copies device memory to pageable host memory (synchronous).
    fn copy_d2h(&mut self, dst: &mut [u8], src: DevPtr) -> Result<(), BackendError>;
    /// Fills `count` 32-bit words with `value`.
    fn memset_d32(&mut self, dst: DevPtr, value: u32, count: usize) -> Result<(), BackendError>;
    /// Resets every persisting L2 line to normal.
    fn reset_persisting_l2(&mut self) -> Result<(), BackendError>;
    /// Records a timing event on the stream.
    fn record_event(&mut self, slot: EventSlot) -> Result<(), BackendError>;
    /// Launches a kernel on the stream.
    fn launch(&mut self, func: FuncId, geometry: &Geometry, args: &[KernelArg]) -> Result<(), BackendError>;
    /// Waits for the stop event, at most `timeout_s`.
    fn wait_stop(&mut self, timeout_s: f64) -> Result<Wait, BackendError>;
    /// Seconds between the start and stop events.
    fn elapsed_s(&mut self) -> Result<f64, BackendError>;
    /// Waits for all work and reports a sticky fault.
    fn synchronize(&mut self) -> Result<(), BackendError>;
}
