//! How one task's sources are compiled and run: the task's language on the environment's
//! platform. A CUDA task cannot be compiled for AMD: on `platform: amd` its legs are unsettled
//! `unsupported-language`.

use super::{CompileEnv, CompileFailure};
use crate::config::Platform;
use crate::reason::KernelReason;
use crate::task::KernelTaskDef;
use aorlta_record::KernelLanguage;

/// How one task's sources are compiled and run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Target {
    /// A CUDA source on an NVIDIA GPU.
    CudaOnNvidia,
    /// A HIP source compiled by nvcc through the portability header, on an NVIDIA GPU.
    HipOnNvidia,
    /// A HIP source compiled by hipcc, on an AMD GPU.
    HipOnAmd,
    /// A Triton kernel compiled by Triton, in the sandbox, to a cubin, on an NVIDIA GPU.
    TritonOnNvidia,
}

impl Target {
    /// The target of `task` on the environment's platform; a CUDA task on AMD is unsettled
    /// `unsupported-language`.
    pub(crate) fn of(env: &dyn CompileEnv, task: &KernelTaskDef) -> Result<Self, CompileFailure> {
        match (env.platform(), task.spec.language) {
            (Platform::Nvidia, KernelLanguage::Cuda) => Ok(Target::CudaOnNvidia),
            (Platform::Nvidia, KernelLanguage::Hip) => Ok(Target::HipOnNvidia),
            (Platform::Amd, KernelLanguage::Hip) => Ok(Target::HipOnAmd),
            (Platform::Nvidia, KernelLanguage::Triton) => Ok(Target::TritonOnNvidia),
            (Platform::Amd, KernelLanguage::Triton) => Err(CompileFailure::unsettled(
                KernelReason::UnsupportedLanguage,
                format!(
                    "task {} is a Triton task; platform `amd` compiles HIP tasks only (Triton's AMD backend is not used)",
                    task.spec.id
                ),
            )),
            (Platform::Amd, KernelLanguage::Cuda) => Err(CompileFailure::unsettled(
                KernelReason::UnsupportedLanguage,
                format!(
                    "task {} is a CUDA task; platform `amd` compiles HIP tasks only (language: hip)",
                    task.spec.id
                ),
            )),
        }
    }

    /// The words every record of this target carries.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Target::CudaOnNvidia => "CUDA on NVIDIA",
            Target::HipOnNvidia => "HIP source on NVIDIA",
            Target::HipOnAmd => "HIP on AMD",
            Target::TritonOnNvidia => "Triton on NVIDIA",
        }
    }
}
