//! The kernel-lane options `timecheck` and `task check` share: a run config whose `kernel:`
//! section sets the compiler, GPUs and limits, and the command line's overrides of it.

use aorlta_kernel::{CompilerChoice, GpuSet, KernelConfig, KernelOverrides};
use std::path::PathBuf;

/// `--config`, `--gpus`, `--fake-gpu`, `--compiler`.
#[derive(Debug, clap::Args)]
pub(crate) struct KernelArgs {
    /// A run config whose `kernel:` section sets the compiler, GPUs and limits.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// GPUs to lease: `all` or a comma-separated list of ordinals.
    #[arg(long)]
    pub gpus: Option<GpuSet>,
    /// Run on the CPU-simulated fake device.
    #[arg(long)]
    pub fake_gpu: bool,
    /// The compiler of CUDA sources (`nvcc` or `nvrtc`) instead of the config's.
    #[arg(long)]
    pub compiler: Option<CompilerChoice>,
}

impl KernelArgs {
    /// The config's `kernel:` section (the defaults without a config), overridden by the flags.
    pub(crate) fn kernel_config(&self) -> anyhow::Result<KernelConfig> {
        let config = match &self.config {
            Some(p) => KernelConfig::of_file(&std::path::absolute(p)?)?,
            None => KernelConfig::default(),
        };
        Ok(config.overridden(&KernelOverrides {
            fake_gpu: self.fake_gpu,
            gpus: self.gpus.clone(),
            compiler: self.compiler,
        }))
    }
}

/// Processes and checks run at once: `jobs`, else the CPUs, at most 8.
pub(crate) fn jobs_or_cpus(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(8))
        .max(1)
}

/// The environment of the commands that check PyTorch modules `jobs` at a time (`task generate`,
/// `task import --fit-tolerance`): the default kernel section on a GPU, or on the fake device,
/// with `python` as the reference process's Python and `jobs` sanity and correctness jobs
/// sharing each GPU.
pub(crate) fn torch_check_env(
    fake_gpu: bool,
    python: &std::path::Path,
    jobs: usize,
) -> anyhow::Result<aorlta_check::Env> {
    let mut kernel = KernelConfig::default().overridden(&KernelOverrides {
        fake_gpu,
        gpus: None,
        compiler: None,
    });
    kernel.torch_python = Some(python.to_path_buf());
    kernel.share_checks(jobs);
    Ok(aorlta_kernel::env_with_kernel(&kernel)?)
}
