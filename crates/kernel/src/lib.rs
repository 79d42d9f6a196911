//! AORLTA's kernel lane: the adapters `kernel-compile` (leg `compile`, `compile`),
//! `kernel-run` (leg `ref.native`, correctness, `run`) and `kernel-time` (leg `ref.speedup`,
//! timing, `time`), over two seams: the compile (`compiler`: a driver with its policy, cache
//! key and cache; one toolchain per compiler; one sandboxed process) and the harness
//! (`exec` builds its job, `pool` keeps its processes, `lease` its GPUs). The code-object
//! readers (`elf`, `amdgpu`), the HIP portability header (`hip`) and the fake device's
//! behaviours (`fake`) serve them. A run config's `kernel:` section ([`KernelConfig`]) builds
//! the [`KernelEnv`] that every leg shares.

/// The build identity of the harness this build runs: the package version and a hash of the
/// harness's sources (crates/record, crates/judge and crates/gpu; `build.rs`), made as the
/// harness makes its own `aorlta_gpu::BUILD`. A harness that reports another is refused
/// (`pool.rs`), and the kernel legs that run the harness carry it in their cache keys.
pub const HARNESS_BUILD: &str = concat!(
    "aorlta ",
    env!("CARGO_PKG_VERSION"),
    "+src.",
    env!("AORLTA_HARNESS_HASH")
);

mod amdgpu;
mod compile;
mod compiler;
mod compilers;
mod config;
mod direct;
mod elf;
mod env;
mod exec;
mod fake;
pub mod feedback;
mod hip;
mod lease;
mod pool;
mod reason;
mod run;
mod sanity;
mod task_check;
mod time;
mod timeline;

pub use compile::{KernelCompile, target_label};
pub use compiler::nvrtc::{NvrtcInstall, NvrtcPool};
pub use compiler::sandbox::describe as compile_jail;
pub use compiler::triton::TritonTool;
pub use compiler::{CompileFailure, Compiled, Who, compile, compile_many};
pub use compilers::Compilers;
pub use config::{CompilerChoice, GpuSet, KernelConfig, Platform};

/// The NVRTC compile worker's loop, for the `aorlta nvrtc-worker` process (answers requests
/// on standard input; returns the exit code).
pub fn nvrtc_worker() -> i32 {
    compiler::nvrtc_worker::serve()
}
pub use direct::run_leg;
pub use env::{KernelEnv, KernelOverrides, KernelTools, env_of, env_with_kernel, warm_harnesses};
pub use fake::FakeSpec;
pub use reason::KernelReason;
pub use run::KernelRun;
pub use sanity::{Sanity, check_tolerances, task_sanity};
pub use task_check::{AaTiming, CheckParams, STEPS, TaskCheck, check_task};
pub use time::KernelTime;

use aorlta_check::Registry;
use std::sync::Arc;

/// Registers the kernel adapters.
pub fn register(registry: &mut Registry) {
    registry.add(Arc::new(KernelCompile));
    registry.add(Arc::new(KernelRun));
    registry.add(Arc::new(KernelTime));
}

#[cfg(test)]
mod tests;
