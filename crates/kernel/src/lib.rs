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
mod feedback;
mod hip;
mod identity;
mod lane;
mod lease;
mod ncu;
mod plan;
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

pub use crate::compile::{KernelCompile, target_label};
pub use crate::compiler::nvrtc::{NvrtcInstall, NvrtcPool};
pub use crate::compiler::nvrtc_worker::serve as nvrtc_worker;
pub use crate::compiler::sandbox::describe as compile_jail;
pub use crate::compiler::triton::TritonTool;
pub use crate::compiler::{CompileFailure, Compiled, Who, compile, compile_many};
pub use crate::compilers::Compilers;
pub use crate::config::{CompilerChoice, FakeSource, GpuSet, KernelConfig, Platform};
pub use crate::env::{KernelEnv, KernelOverrides, KernelTools, env_of, env_with_kernel, warm_harnesses};
pub use crate::extract::{extract_kernel, extract_triton_kernel, kernel_source};
pub use crate::fake::FakeSpec;
pub use crate::feedback::leg_feedback;
pub use crate::identity::{HARNESS_BUILD, SOURCES};
pub use crate::lane::KernelLane;
pub use crate::ncu::KernelProfile;
pub use crate::reason::KernelReason;
pub use crate::run::KernelRun;
pub use crate::sanity::{Sanity, check_tolerances, module_precision, task_sanity};
pub use crate::task::{KernelTaskDef, LANE, kernel_task};
pub use crate::test_env::TestEnv;
pub use crate::time::KernelTime;
pub use crate::torch::{
    ImportAs, ImportReport, ImportRow, PlanSummary, generate, has_torch, import_kernelbench, problems_in,
    torch_python, widen_atol,
};

#[cfg(test)]
mod tests;
