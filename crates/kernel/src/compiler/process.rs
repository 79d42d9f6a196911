//! One compiler process: a fresh folder under the work folder holding only the source, the
//! [`super::sandbox`] (the compiler reads only the toolkit and writes only that folder, under
//! wall-time, memory and output limits, in its own process group), then what it did read (its
//! dependency list, [`super::diagnostic::check_dependencies`], else `include-forbidden`), its
//! failure read as a reason, and a detail that quotes only the candidate's own source
//! ([`super::diagnostic::sanitize`]). Answers the code object's bytes.

use super::diagnostic;
use super::sandbox::{self, Jail, Limits, SandboxError};
use super::toolchain::{DEPENDENCIES, Invocation, Object};
use super::{CompileEnv, CompileFailure};
use crate::reason::KernelReason;
use rustix::process::Signal;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Largest file the compiler may write, bytes.
pub(crate) const OUTPUT_LIMIT: u64 = 64 << 20;

/// Largest code object kept, bytes: the compile cache holds at most `2 * max_entries` of them,
/// so this bounds its disk in bytes, not only in count. A real kernel's is kilobytes to a few
/// megabytes; a candidate that makes its own larger (a Triton kernel unrolled to no end) is
/// `compile-output-too-large`.
pub(crate) const CODE_OBJECT_LIMIT: usize = 32 << 20;

/// Refuses a code object past [`CODE_OBJECT_LIMIT`].
pub(crate) fn check_size(bytes: &[u8]) -> Result<(), CompileFailure> {
    if bytes.len() > CODE_OBJECT_LIMIT {
        return Err(CompileFailure::broke(
            KernelReason::CompileOutputTooLarge,
            format!(
                "the code object is {} MiB; at most {} MiB is kept",
                bytes.len() >> 20,
                CODE_OBJECT_LIMIT >> 20
            ),
        ));
    }
    Ok(())
}

/// Runs `inv` on `source` in a fresh folder under `env`'s work folder.
pub(crate) fn run(env: &dyn CompileEnv, inv: &Invocation, source: &str) -> Result<Object, CompileFailure> {
    let parent = env.work_dir().join("compile");
    let dir = std::fs::create_dir_all(&parent)
        .and_then(|_| tempfile::Builder::new().prefix("compile-").tempdir_in(&parent))
        .map_err(|e| {
            CompileFailure::unsettled(KernelReason::WorkDirError, format!("{}: {e}", parent.display()))
        })?;
    std::fs::write(dir.path().join(inv.source), source)
        .map_err(|e| CompileFailure::unsettled(KernelReason::WorkDirError, e.to_string()))?;
    let work = std::path::absolute(dir.path())
        .map_err(|e| CompileFailure::unsettled(KernelReason::WorkDirError, e.to_string()))?;
    let jail = Jail {
        read: toolkit_folders(&inv.program, &inv.read),
        work: work.clone(),
        inputs: vec![inv.source.to_string()],
        outputs: vec![inv.output.to_string(), DEPENDENCIES.to_string()],
        libs_only: false,
    };
    let config = env.config();
    let limits = Limits {
        timeout: Duration::from_secs_f64(config.compile_timeout_s),
        memory_bytes: config.compile_memory_mb << 20,
        output_bytes: OUTPUT_LIMIT,
        cpu_seconds: None,
    };
    let start = Instant::now();
    let args: Vec<&str> = inv.args.iter().map(String::as_str).collect();
    let run = sandbox::run(&inv.program, &args, &jail, limits).map_err(|e| match e {
        SandboxError::Unavailable(why) => {
            CompileFailure::unsettled(KernelReason::CompileSandboxUnavailable, why)
        }
        SandboxError::Io(e) => CompileFailure::unsettled(
            KernelReason::NoCompiler,
            format!("{}: {e}", inv.program.display()),
        ),
    })?;
    let compile_s = start.elapsed().as_secs_f64();
    if run.killed_from_outside() {
        let name = inv.program.file_name().unwrap_or(inv.program.as_os_str());
        return Err(killed(&name.to_string_lossy()));
    }
    if run.timed_out {
        return Err(CompileFailure::broke(
            KernelReason::CompileTimeout,
            format!(
                "the compiler ran past {} s and was stopped",
                config.compile_timeout_s
            ),
        ));
    }
    // What the preprocessor read, whether or not the compile went on to succeed.
    let roots = diagnostic::header_roots(&inv.program, &inv.read);
    match std::fs::read_to_string(work.join(DEPENDENCIES)) {
        Ok(list) => diagnostic::check_dependencies(&list, &work, inv.source, &roots)
            .map_err(|why| CompileFailure::broke(KernelReason::IncludeForbidden, why))?,
        Err(e) if run.success => {
            return Err(CompileFailure::unsettled(
                KernelReason::CompileDependenciesMissing,
                format!("the compiler wrote no dependency list ({e}); nothing it read can be checked"),
            ));
        }
        Err(_) => {}
    }
    if !run.success {
        let diag = diagnostic::sanitize(&run.output, &work, inv.source, source);
        return Err(failure(&run.output, run.signal, &diag, config.compile_memory_mb));
    }
    let bytes = std::fs::read(work.join(inv.output)).map_err(|e| {
        CompileFailure::broke(
            KernelReason::CompileError,
            format!("no code object was written: {e}"),
        )
    })?;
    Ok(Object {
        bytes,
        compile_s,
        launch: None,
    })
}

/// A compiler killed by someone else (the host's out-of-memory killer, an operator): not the
/// candidate's doing, so `unsettled` and never cached.
pub(super) fn killed(what: &str) -> CompileFailure {
    CompileFailure::unsettled(
        KernelReason::CompileKilled,
        format!("{what} was killed from outside the compile (not by its time or memory limit)"),
    )
}

/// A failed compiler's outcome as a reason: its output past the size limit, its memory limit
/// met (an allocation failure, or a signal the memory limit brings), or a compile error.
pub(super) fn failure(output: &str, signal: Option<i32>, diag: &str, memory_mb: u64) -> CompileFailure {
    let low = output.to_lowercase();
    if signal == Some(Signal::XFSZ.as_raw()) || low.contains("file size limit") {
        return CompileFailure::broke(
            KernelReason::CompileOutputTooLarge,
            format!("the compiler's output passed {} MiB", OUTPUT_LIMIT >> 20),
        );
    }
    let memory = [
        "out of memory",
        "memory exhausted",
        "cannot allocate memory",
        "bad_alloc",
        "memory allocation failure",
        "failed to map segment",
        "segmentation fault",
    ]
    .iter()
    .any(|m| low.contains(m))
        || matches!(
            signal,
            Some(libc::SIGKILL | libc::SIGSEGV | libc::SIGABRT | libc::SIGBUS)
        )
        || low.contains("died due to signal");
    if memory {
        let signal = signal.map(|s| format!(" (signal {s})")).unwrap_or_default();
        return CompileFailure::broke(
            KernelReason::CompileMemory,
            format!("the compiler ran out of its {memory_mb} MiB memory limit{signal}: {diag}"),
        );
    }
    CompileFailure::broke(KernelReason::CompileError, diag)
}

/// What a compiler may read besides the host's system folders: its installation (for nvcc,
/// `bin/..`; never `/usr` as a whole), the folder it lies in (a wrapper script's), and `extra`.
fn toolkit_folders(compiler: &Path, extra: &[PathBuf]) -> Vec<PathBuf> {
    let mut read = extra.to_vec();
    if let Ok(real) = compiler.canonicalize() {
        read.extend(real.parent().map(Path::to_path_buf));
        read.extend(diagnostic::install_root(&real).map(Path::to_path_buf));
        read.push(real);
    }
    read
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_object_past_the_limit_is_refused() {
        assert!(check_size(&vec![0u8; CODE_OBJECT_LIMIT]).is_ok());
        let f = check_size(&vec![0u8; 120 << 20]).unwrap_err();
        assert_eq!(f.code, "compile-output-too-large");
        assert!(f.detail.contains("120 MiB"), "{}", f.detail);
        assert_eq!(f.state, aorlta_record::LegState::Broke);
    }

    #[test]
    fn a_failed_compilers_output_and_signal_are_read_as_their_reason() {
        let code = |out: &str, sig: Option<i32>| failure(out, sig, "d", 4096).code;
        assert_eq!(code("k.cu(3): error: expected a ;", None), "compile-error");
        assert_eq!(code("", Some(Signal::XFSZ.as_raw())), "compile-output-too-large");
        assert_eq!(code("File size limit exceeded", None), "compile-output-too-large");
        assert_eq!(code("cicc: std::bad_alloc", None), "compile-memory");
        assert_eq!(code("", Some(Signal::KILL.as_raw())), "compile-memory");
        let f = failure("", Some(Signal::SEGV.as_raw()), "d", 4096);
        assert!(
            f.detail.contains("4096 MiB") && f.detail.contains("signal 11"),
            "{}",
            f.detail
        );
        assert_eq!(f.state, aorlta_record::LegState::Broke);
    }
}
