//! Which compilers a set of kernel tasks needs here, and whether this machine has them: the
//! CUDA compiler (nvcc or NVRTC; hipcc on AMD) unless every task is a Triton one, Triton where
//! any is. On the fake device its compiler stands in for every one: only the CUDA compiler's
//! (fake) version is asked for. `validate` and `task check` ask this before they run anything.

use crate::env::KernelEnv;
use crate::task::KernelTaskDef;
use aorlta_record::KernelLanguage;

/// The compilers a set of tasks needs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Compilers {
    /// The CUDA (or HIP) compiler.
    pub cuda: bool,
    /// Triton (never on the fake device).
    pub triton: bool,
}

impl Compilers {
    /// What `tasks` need on `env`.
    pub fn of<'a>(env: &KernelEnv, tasks: impl IntoIterator<Item = &'a KernelTaskDef>) -> Self {
        let (mut triton, mut other) = (false, false);
        for t in tasks {
            if t.spec.language == KernelLanguage::Triton {
                triton = true;
            } else {
                other = true;
            }
        }
        let fake = env.is_fake();
        Compilers {
            cuda: other || fake || !triton,
            triton: triton && !fake,
        }
    }

    /// Ok when `env` has every one needed; else why the first missing one is.
    pub fn check(self, env: &KernelEnv) -> Result<(), String> {
        if self.cuda {
            env.compiler_version()?;
        }
        if self.triton {
            env.triton()?;
        }
        Ok(())
    }

    /// The Python and Triton that compile the Triton tasks, when Triton is needed (`none (why)`
    /// when it is missing).
    pub fn triton_line(self, env: &KernelEnv) -> Option<String> {
        self.triton.then(|| {
            env.triton().map_or_else(
                |e| format!("none ({e})"),
                crate::compiler::triton::TritonTool::describe,
            )
        })
    }
}
