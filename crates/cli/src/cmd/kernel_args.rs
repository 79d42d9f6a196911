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
