//! AORLTA's kernel lane ([`KernelLane`]): its task ([`KernelTaskDef`], loaded from YAML and
//! checked against its rules, `rules`), its `parse` (the kernel source of a completion,
//! `extract`), the adapters `kernel-compile` (leg `compile`, `compile`),
//! `kernel-run` (leg `ref.native`, correctness, `run`) and `kernel-time` (leg `ref.speedup`,
//! timing, `time`), over two seams: the compile (`compiler`: a driver with its policy, cache
//! key and cache; one toolchain per compiler; one sandboxed process) and the harness
//! (`exec` builds its job, `pool` keeps its processes, `lease` its GPUs). The code-object
//! readers (`elf`, `amdgpu`), the HIP portability header (`hip`) and the fake device's
//! behaviours (`fake`) serve them. A run config's `kernel:` section ([`KernelConfig`]) builds
//! the [`KernelEnv`] that every leg shares.

mod amdgpu;
mod compile;
mod compiler;
mod compilers;
mod config;
mod elf;
mod env;
mod exec;
mod extract;
mod fake;
pub mod feedback;
mod hip;
mod identity;
mod lane;
mod lease;
mod pool;
mod reason;
mod rules;
mod run;
mod sanity;
mod task;
mod test_env;
mod time;
mod timeline;
mod torch;

pub use compile::{KernelCompile, target_label};
pub use compiler::nvrtc::{NvrtcInstall, NvrtcPool};
pub use compiler::sandbox::describe as compile_jail;
pub use compiler::triton::TritonTool;
pub use compiler::{CompileFailure, Compiled, Who, compile, compile_many};
pub use compilers::Compilers;
pub use config::{CompilerChoice, FakeSource, GpuSet, KernelConfig, Platform};

/// The NVRTC compile worker's loop, for the `aorlta nvrtc-worker` process (answers requests
/// on standard input; returns the exit code).
pub fn nvrtc_worker() -> i32 {
    compiler::nvrtc_worker::serve()
}
pub use env::{KernelEnv, KernelOverrides, KernelTools, env_of, env_with_kernel, warm_harnesses};
pub use extract::{extract_kernel, extract_triton_kernel, kernel_source};
pub use fake::FakeSpec;
pub use identity::{HARNESS_BUILD, SOURCES};
pub use lane::KernelLane;
pub use reason::KernelReason;
pub use run::KernelRun;
pub use sanity::{Sanity, check_tolerances, task_sanity};
pub use task::{KernelTaskDef, LANE, kernel_task};
pub use test_env::TestEnv;
pub use time::KernelTime;
pub use torch::{
    ImportReport, ImportRow, generate, has_torch, import_kernelbench, problems_in, torch_python,
};

#[cfg(test)]
mod tests;
