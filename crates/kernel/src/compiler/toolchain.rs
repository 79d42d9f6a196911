//! The seam between the compile driver and a compiler: one [`Toolchain`] per compiler (nvcc and
//! hipcc today), each saying how it is invoked in a fresh folder, what a compile is for (a part
//! of the cache key), and how its code object is checked. The driver (`super`) owns the policy,
//! the cache and the stored objects; `super::process` runs the invocation in the sandbox and
//! reads its outcome. Nothing here runs a process.

use super::{CompileEnv, CompileFailure};
use crate::reason::KernelReason;
use crate::task::KernelTaskDef;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The dependency list's name in the compile folder: every toolchain asks its preprocessor to
/// write the files it read there, and the driver checks it.
pub(crate) const DEPENDENCIES: &str = "k.d";

/// A code object and the seconds its compiler ran.
#[derive(Debug)]
pub(crate) struct Object {
    /// The code object's bytes.
    pub bytes: Vec<u8>,
    /// Seconds the compiler ran.
    pub compile_s: f64,
    /// The launch the compiler decided (Triton's), when it decides one.
    pub launch: Option<aorlta_record::ImageLaunch>,
}

/// One compiler run, relative to a fresh folder holding only the source.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Invocation {
    /// The compiler program.
    pub program: PathBuf,
    /// Its arguments, the request for the dependency list ([`DEPENDENCIES`]) included.
    pub args: Vec<String>,
    /// The source file's name in the folder.
    pub source: &'static str,
    /// The code object's name in the folder.
    pub output: &'static str,
    /// Folders the compiler may read besides its installation (the portability headers).
    pub read: Vec<PathBuf>,
}

/// A compiler as the driver sees it.
pub(crate) trait Toolchain {
    /// Compiles one source in the compiler's own workers, for a compiler kept in worker
    /// processes; `None` (the default) for one run as a process per source, whose
    /// [`Toolchain::invocation`] the driver runs.
    fn in_workers(
        &self,
        _env: &dyn CompileEnv,
        _task: &KernelTaskDef,
        _source: &str,
    ) -> Option<Result<Object, CompileFailure>> {
        None
    }
    /// What a compile is for, as a cache key part (the architecture, and what else besides the
    /// compiler's version and the source changes the code object).
    fn target_key(&self) -> String;
    /// How to run the compiler for one source.
    fn invocation(&self, env: &dyn CompileEnv) -> Result<Invocation, CompileFailure>;
    /// Checks the code object it wrote for `task`: it defines the kernel and calls no device
    /// `printf`. Answers the symbols to look the kernel up by, the one found first.
    fn check(&self, task: &KernelTaskDef, object: &[u8]) -> Result<Vec<String>, CompileFailure>;
}

/// A code object's symbols, refused when it calls device `printf`.
fn symbols_without_printf(object: &[u8]) -> Result<Vec<crate::elf::Symbol>, CompileFailure> {
    let syms = crate::elf::symbols(object)
        .map_err(|e| CompileFailure::broke(KernelReason::CompileError, e.to_string()))?;
    if syms.iter().any(|s| s.name == "vprintf" && !s.defined) {
        return Err(CompileFailure::broke(
            KernelReason::DevicePrintf,
            "the kernel calls device printf; output from a kernel is not allowed",
        ));
    }
    Ok(syms)
}

/// Checks an NVIDIA code object for `task`: it defines the kernel by one of the signature's
/// symbols and calls no device `printf`. Answers the symbols to look the kernel up by, the one
/// found first.
pub(super) fn check_cubin(task: &KernelTaskDef, object: &[u8]) -> Result<Vec<String>, CompileFailure> {
    let wanted = task.signature.symbols();
    let syms = symbols_without_printf(object)?;
    let found = wanted
        .iter()
        .find(|w| syms.iter().any(|s| s.defined && s.function && &s.name == *w))
        .cloned();
    let Some(found) = found else {
        return Err(CompileFailure::broke(
            KernelReason::KernelNotFound,
            format!(
                "the code object defines no kernel `{}` with the task's signature `{}` (looked for {})",
                task.signature.name(),
                task.signature.text(),
                wanted.join(", ")
            ),
        ));
    };
    let mut order = vec![found.clone()];
    order.extend(wanted.into_iter().filter(|w| *w != found));
    Ok(order)
}

/// Checks a plan's code object: it defines every kernel the plan launches, by one of its
/// symbols, and calls no device `printf`. Answers the first kernel's symbols (the job's
/// candidate looks every kernel up by the plan's own lists).
pub(super) fn check_plan(
    plan: &aorlta_record::ImagePlan,
    object: &[u8],
) -> Result<Vec<String>, CompileFailure> {
    let syms = symbols_without_printf(object)?;
    for (name, k) in &plan.kernels {
        if !k
            .symbols
            .iter()
            .any(|w| syms.iter().any(|s| s.defined && s.function && &s.name == w))
        {
            return Err(CompileFailure::broke(
                KernelReason::KernelNotFound,
                format!(
                    "the code object defines no kernel `{name}` of the plan (looked for {})",
                    k.symbols.join(", ")
                ),
            ));
        }
    }
    Ok(plan
        .kernels
        .values()
        .next()
        .map(|k| k.symbols.clone())
        .unwrap_or_default())
}

/// The compiler `path`, or unsettled `no-compiler` naming the setting that gives it.
pub(super) fn program(path: Option<&Path>, name: &str, setting: &str) -> Result<PathBuf, CompileFailure> {
    path.map(Path::to_path_buf).ok_or_else(|| {
        CompileFailure::unsettled(
            KernelReason::NoCompiler,
            format!("no {name} found (set {setting})"),
        )
    })
}

/// Runs `compiler --version` and keeps the lines `keep` picks, trimmed and joined by `; `; an
/// error names the compiler (and `what` it printed none of).
pub(super) fn version_lines(
    compiler: &Path,
    keep: impl Fn(&str) -> bool,
    what: &str,
) -> Result<String, String> {
    let out = Command::new(compiler)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .map_err(|e| format!("{}: {e}", compiler.display()))?;
    if !out.status.success() {
        return Err(format!("{} --version failed", compiler.display()));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = text.lines().map(str::trim).filter(|l| keep(l)).collect();
    if lines.is_empty() {
        return Err(format!("{} --version printed no {what} line", compiler.display()));
    }
    Ok(lines.join("; "))
}
