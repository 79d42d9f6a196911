//! hipcc: a HIP source into a clang offload bundle (`--genco`, one `--offload-arch` per entry
//! of the architecture list) that the HIP backend's `hipModuleLoadData` accepts. Each
//! architecture's code object must define the kernel with the task's parameter layout in its
//! kernel metadata and must not call `printf` ([`crate::amdgpu`]).

use super::toolchain::{DEPENDENCIES, Invocation, Toolchain, program, version_lines};
use super::{CompileEnv, CompileFailure};
use crate::amdgpu;
use crate::reason::KernelReason;
use crate::task::KernelTaskDef;
use std::path::Path;

/// hipcc for a list of AMD architectures, asked of the environment once per compile: the cache
/// key, the compiler and the check use the same list.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hipcc {
    archs: Vec<String>,
}

impl Hipcc {
    /// hipcc for the environment's architectures; unsettled `no-hip-arch` when there are none.
    pub(crate) fn new(env: &dyn CompileEnv) -> Result<Self, CompileFailure> {
        let archs = env
            .hip_archs()
            .map_err(|e| CompileFailure::unsettled(KernelReason::NoHipArch, e))?;
        Ok(Hipcc { archs })
    }
}

impl Toolchain for Hipcc {
    fn target_key(&self) -> String {
        self.archs.join(",")
    }

    fn invocation(&self, env: &dyn CompileEnv) -> Result<Invocation, CompileFailure> {
        let program = program(env.hipcc(), "hipcc", "kernel.hipcc or AORLTA_HIPCC")?;
        let mut args = ["-MD", "-MF", DEPENDENCIES].map(String::from).to_vec();
        args.extend(bundle_args(&self.archs));
        Ok(Invocation {
            program,
            args,
            source: "k.hip",
            output: "k.co",
            read: Vec::new(),
        })
    }

    fn check(&self, task: &KernelTaskDef, object: &[u8]) -> Result<Vec<String>, CompileFailure> {
        let objects = amdgpu::code_objects(object)
            .map_err(|e| CompileFailure::broke(KernelReason::CompileError, e.to_string()))?;
        let checked = amdgpu::check_kernel(&objects, &task.signature, &self.archs)
            .map_err(|(code, detail)| CompileFailure::broke(code, detail))?;
        let mut order = vec![checked.symbol.clone()];
        order.extend(
            task.signature
                .symbols()
                .into_iter()
                .filter(|s| *s != checked.symbol),
        );
        Ok(order)
    }
}

/// hipcc's arguments for `archs`: a code-object bundle, one `--offload-arch` each.
fn bundle_args(archs: &[String]) -> Vec<String> {
    let mut args = vec!["--genco".to_string()];
    args.extend(archs.iter().map(|a| format!("--offload-arch={a}")));
    args.extend(["-O3", "-o", "k.co", "k.hip"].map(String::from));
    args
}

/// Runs `hipcc --version` and keeps its version lines (`HIP version: 5.2.21153-0; Debian clang
/// version 15.0.6`).
pub(crate) fn hipcc_version(hipcc: &Path) -> Result<String, String> {
    version_lines(
        hipcc,
        |l| l.contains("version") || l.starts_with("AMD clang"),
        "version",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hipcc_is_asked_for_one_bundle_with_every_architecture() {
        let args = bundle_args(&["gfx90a".into(), "gfx942".into()]);
        assert_eq!(
            args,
            [
                "--genco",
                "--offload-arch=gfx90a",
                "--offload-arch=gfx942",
                "-O3",
                "-o",
                "k.co",
                "k.hip"
            ]
        );
    }
}
