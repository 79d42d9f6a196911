//! PyTorch references: what a module computes, read in a trusted Python process (`probe.py`), and
//! the import of problems written in KernelBench's format (a `Model` module with `get_inputs` and
//! `get_init_inputs`) as kernel tasks whose reference is the module (`import`).
//!
//! The Python that runs here has torch and is the task author's: it reads the problem files the
//! user points at (their own checkout), never a candidate's completion. Its path comes from
//! `--python`, else `$AORLTA_TORCH_PYTHON`, else `python3` on the PATH.

pub mod generate;
mod import;
mod prompt;

pub use import::{
    ImportAs, ImportReport, ImportRow, PlanSummary, import_kernelbench, problems_in, widen_atol,
};

use std::path::PathBuf;

/// The probe the trusted Python runs over each problem file.
const PROBE: &str = include_str!("probe.py");

/// The Python a caller names, else `$AORLTA_TORCH_PYTHON`, else `python3` on the PATH.
pub fn torch_python(named: Option<PathBuf>) -> PathBuf {
    named
        .or_else(|| std::env::var_os("AORLTA_TORCH_PYTHON").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("python3"))
}

/// Whether `python` imports torch (asked once per interpreter and process): its version, or
/// why not, in words for an `unsettled no-torch` reason. The lock is held while the question
/// runs, so that tasks loaded side by side start one `import torch`, not one each (ninety at
/// once filled 23 GB loading KernelBench's level 1).
pub fn has_torch(python: &std::path::Path) -> Result<String, String> {
    use std::collections::HashMap;
    use std::sync::{Mutex, OnceLock};
    static SEEN: OnceLock<Mutex<HashMap<PathBuf, Result<String, String>>>> = OnceLock::new();
    let mut seen = SEEN
        .get_or_init(Default::default)
        .lock()
        .unwrap_or_else(|p| p.into_inner());
    if let Some(r) = seen.get(python) {
        return r.clone();
    }
    let out = std::process::Command::new(python)
        .args(["-I", "-c", "import torch; print(torch.__version__)"])
        .stdin(std::process::Stdio::null())
        .output();
    let r = match out {
        Ok(o) if o.status.success() => Ok(String::from_utf8_lossy(&o.stdout).trim().to_string()),
        Ok(o) => {
            let err = String::from_utf8_lossy(&o.stderr);
            let last = err.lines().last().unwrap_or("").trim().to_string();
            Err(format!(
                "the task's reference is a PyTorch module and {} does not import torch ({last}); \
                 set AORLTA_TORCH_PYTHON to a Python that has it",
                python.display()
            ))
        }
        Err(e) => Err(format!(
            "the task's reference is a PyTorch module and {} cannot run ({e}); set \
             AORLTA_TORCH_PYTHON to a Python with torch",
            python.display()
        )),
    };
    seen.insert(python.to_path_buf(), r.clone());
    r
}
