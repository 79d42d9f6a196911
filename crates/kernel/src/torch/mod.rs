//! PyTorch references: what a module computes, read in a trusted Python process (`probe.py`), and
//! the import of problems written in KernelBench's format (a `Model` module with `get_inputs` and
//! `get_init_inputs`) as kernel tasks whose reference is the module (`import`).
//!
//! The Python that runs here has torch and is the task author's: it reads the problem files the
//! user points at (their own checkout), never a candidate's completion. Its path comes from
//! `--python`, else `$AORLTA_TORCH_PYTHON`, else `python3` on the PATH.

mod import;
mod prompt;
#[cfg(test)]
mod tests;

pub use import::{ImportReport, ImportRow, import_kernelbench, problems_in};

use std::path::PathBuf;

/// The probe the trusted Python runs over each problem file.
const PROBE: &str = include_str!("probe.py");

/// The Python a caller names, else `$AORLTA_TORCH_PYTHON`, else `python3` on the PATH.
pub fn torch_python(named: Option<PathBuf>) -> PathBuf {
    named
        .or_else(|| std::env::var_os("AORLTA_TORCH_PYTHON").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("python3"))
}
