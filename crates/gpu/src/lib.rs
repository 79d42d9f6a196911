//! The AORLTA kernel harness: built from a task alone, it loads the reference's and the
//! candidate's code objects through the driver's module API, finds each kernel by its mangled
//! signature (or `extern "C"` name), runs the correctness plan or the per-launch timing plan,
//! and writes a JSON record file, the only thing the service reads from it.
//!
//! The device sits behind [`backend::Backend`]: the CUDA driver (`cuda`, loaded dynamically,
//! so this builds and its tests run where there is no CUDA), an AMD GPU through the HIP runtime
//! (`hip`, also loaded at run time) or the CPU-simulated fake device (`fake`) that CI uses. Inputs are drawn, buffers filled and launches checked on the device
//! by the harness's own code (`helpers`, `verify`, with its host twin in `draw`), so only
//! counters cross to the host. The plans (`plan`, `check`, `timing`, `sanity`) are one piece of
//! code for both backends; a candidate that is a plan of several kernels and library calls runs
//! whole through `steps` (docs/PLANS.md); `job` dispatches a job to them and `serve` is the process loop:
//! one process per leased GPU serving jobs in turn.

mod backend;
mod batch;
mod check;
mod cublas;
mod cuda;
mod draw;
mod fake;
mod geometry;
mod helpers;
mod hip;
mod identity;
mod job;
mod launch_once;
mod layout;
mod nvml;
mod plan;
mod profile;
mod sanity;
mod serve;
mod steps;
mod timing;
mod torch;
mod verify;

// The surface: what the `aorlta` and `aorlta-harness` binaries and the behaviour tests use.
pub use backend::{Backend, EventSlot, HelperOp, LibraryOp, ModuleId};
pub use cuda::driver_present;
pub use draw::Fill;
pub use fake::{Call, FakeBackend};
pub use hip::list_devices as hip_devices;
pub use identity::BUILD;
pub use job::run_job;
pub use serve::{EXIT_CONTEXT_LOST, EXIT_NO_DEVICE, EXIT_USAGE, cli, set_eager_loading};
pub use verify::COUNTER_WORDS;
