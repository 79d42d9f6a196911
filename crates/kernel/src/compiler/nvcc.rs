//! nvcc: a CUDA source, or a HIP source through AORLTA's portability header
//! ([`crate::hip`]), into a cubin for the configured `arch`. The cubin must define the kernel's
//! symbol (the mangled signature or the plain name) and must not call device `printf` (an
//! undefined `vprintf`): a device `printf` is refused at compile time rather than left to flood
//! the harness's output during timing.

use super::toolchain::{DEPENDENCIES, Invocation, Toolchain, program, version_lines};
use super::{CompileEnv, CompileFailure};
use crate::hip;
use crate::reason::KernelReason;
use crate::task::KernelTaskDef;
use std::path::Path;

/// nvcc for one architecture.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Nvcc {
    arch: String,
    /// A HIP source, compiled with the portability header on the include path.
    hip: bool,
}

impl Nvcc {
    /// nvcc for CUDA sources.
    pub(crate) fn cuda(env: &dyn CompileEnv) -> Self {
        Nvcc {
            arch: env.config().arch.clone(),
            hip: false,
        }
    }

    /// nvcc for HIP sources, through the portability header.
    pub(crate) fn hip(env: &dyn CompileEnv) -> Self {
        Nvcc {
            arch: env.config().arch.clone(),
            hip: true,
        }
    }
}

impl Toolchain for Nvcc {
    fn target_key(&self) -> String {
        if self.hip {
            format!("{}+hip-header-{}", self.arch, &hip::headers_hash()[..16])
        } else {
            self.arch.clone()
        }
    }

    fn invocation(&self, env: &dyn CompileEnv) -> Result<Invocation, CompileFailure> {
        let program = program(env.nvcc(), "nvcc", "kernel.nvcc or AORLTA_NVCC")?;
        // The list of files the preprocessor read. nvcc's own `-MD` runs the preprocessor once
        // more (about 0.2 s a compile); handed to the host preprocessor that nvcc runs anyway
        // for the device code, it costs nothing.
        let mut args = vec!["-Xcompiler".to_string(), format!("-MD,-MF,{DEPENDENCIES}")];
        let mut read = Vec::new();
        let source = if self.hip {
            let include = hip::include_dir(env.work_dir())
                .map_err(|e| CompileFailure::unsettled(KernelReason::WorkDirError, e))?;
            args.extend(hip_args(&self.arch, &include));
            read.push(include);
            "k.hip"
        } else {
            args.extend(
                [
                    "--cubin",
                    &format!("-arch={}", self.arch),
                    "-o",
                    "k.cubin",
                    "k.cu",
                ]
                .map(String::from),
            );
            "k.cu"
        };
        Ok(Invocation {
            program,
            args,
            source,
            output: "k.cubin",
            read,
        })
    }

    fn check(&self, task: &KernelTaskDef, object: &[u8]) -> Result<Vec<String>, CompileFailure> {
        super::toolchain::check_cubin(task, object)
    }
}

/// nvcc's arguments for a HIP source, the portability header's folder first on the path.
fn hip_args(arch: &str, include: &Path) -> Vec<String> {
    vec![
        "--cubin".into(),
        format!("-arch={arch}"),
        "-x".into(),
        "cu".into(),
        "-I".into(),
        include.display().to_string(),
        "-o".into(),
        "k.cubin".into(),
        "k.hip".into(),
    ]
}

/// Runs `nvcc --version` and keeps its release and build lines.
pub(crate) fn nvcc_version(nvcc: &Path) -> Result<String, String> {
    version_lines(
        nvcc,
        |l| l.contains("release") || l.starts_with("Build"),
        "release",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hip_source_is_compiled_as_cuda_with_the_header_folder_on_the_path() {
        let n = hip_args("sm_90", Path::new("/w/inc"));
        assert_eq!(n[..4], ["--cubin", "-arch=sm_90", "-x", "cu"]);
        assert!(n.windows(2).any(|w| w == ["-I", "/w/inc"]));
    }
}
