//! The one way tests (this crate's and those of the crates above it) build a [`KernelEnv`]: a
//! work folder and, one method each, the settings a test changes, instead of a `KernelConfig`
//! written out by hand in every test. It builds through [`KernelEnv::from_config`], as a run
//! does, so a test's environment is a run's.

use crate::config::{CompilerChoice, KernelConfig, Platform};
use crate::env::KernelEnv;
use std::path::PathBuf;

/// A [`KernelEnv`] being set up for a test.
#[derive(Debug, Clone)]
pub struct TestEnv {
    config: KernelConfig,
}

impl TestEnv {
    /// An environment working under `work_dir`, every other setting the default.
    pub fn new(work_dir: impl Into<PathBuf>) -> Self {
        TestEnv::of(KernelConfig::default()).work_dir(work_dir)
    }

    /// An environment of a `kernel:` section a test already holds.
    pub fn of(config: KernelConfig) -> Self {
        TestEnv { config }
    }

    /// Works under `dir` (compile folders, the code-object cache, harness spools).
    pub fn work_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.config.work_dir = Some(dir.into());
        self
    }

    /// Compiles CUDA sources with this nvcc.
    pub fn nvcc(mut self, nvcc: impl Into<PathBuf>) -> Self {
        self.config.nvcc = Some(nvcc.into());
        self
    }

    /// The compiler of CUDA sources.
    pub fn compiler(mut self, compiler: CompilerChoice) -> Self {
        self.config.compiler = compiler;
        self
    }

    /// The NVRTC worker program (the `aorlta` binary).
    pub fn nvrtc_worker(mut self, program: impl Into<PathBuf>) -> Self {
        self.config.nvrtc_worker = Some(program.into());
        self
    }

    /// The Python that compiles Triton tasks.
    pub fn triton_python(mut self, python: impl Into<PathBuf>) -> Self {
        self.config.triton_python = Some(python.into());
        self
    }

    /// The AMD platform: HIP sources compiled by `hipcc` for `archs`.
    pub fn amd(mut self, hipcc: impl Into<PathBuf>, archs: &[&str]) -> Self {
        self.config.platform = Platform::Amd;
        self.config.hipcc = Some(hipcc.into());
        self.config.hip_arch = archs.iter().map(|a| a.to_string()).collect();
        self
    }

    /// Runs on the CPU fake device.
    pub fn fake_gpu(mut self) -> Self {
        self.config.fake_gpu = true;
        self
    }

    /// The harness program.
    pub fn harness(mut self, program: impl Into<PathBuf>) -> Self {
        self.config.harness = Some(program.into());
        self
    }

    /// The compile time limit, seconds.
    pub fn compile_timeout_s(mut self, seconds: f64) -> Self {
        self.config.compile_timeout_s = seconds;
        self
    }

    /// The compile memory limit, MiB.
    pub fn compile_memory_mb(mut self, mib: u64) -> Self {
        self.config.compile_memory_mb = mib;
        self
    }

    /// Any other setting.
    pub fn with(mut self, edit: impl FnOnce(&mut KernelConfig)) -> Self {
        edit(&mut self.config);
        self
    }

    /// The section as set so far.
    pub fn config(&self) -> &KernelConfig {
        &self.config
    }

    /// The environment; panics (the test fails) naming why it cannot be built.
    pub fn build(self) -> KernelEnv {
        KernelEnv::from_config(&self.config)
            .unwrap_or_else(|e| panic!("the test's kernel environment cannot be built: {e}"))
    }
}
