//! Compiling a kernel source alone into a device code object (`nvcc --cubin -arch=sm_XX`), in a
//! fresh temporary folder holding only that source, inside [`super::sandbox`]: the compiler can
//! read only the toolkit and write only that folder, under wall-time, memory and output limits.
//! Before the compiler runs, the source must pass [`super::policy`] (size cap, includes), a
//! quick first filter; what holds is below it. After the compiler, every file its preprocessor
//! read (its `-MD` dependency list) must be the source itself or a toolkit header
//! ([`super::diagnostic::check_dependencies`], else `include-forbidden`), and a failure's detail
//! quotes only the candidate's own source ([`super::diagnostic::sanitize`]). The code object
//! must define the kernel's symbol (the mangled signature or the plain name) and must not call
//! device `printf` (an undefined `vprintf`): a device `printf` is refused at compile time
//! rather than left to flood the harness's output during timing.
//!
//! Outcomes are cached in memory by (compiler version, arch, source hash), and code objects on
//! disk under the work folder, so the reference is compiled once and a candidate compiled by
//! the `kernel-compile` leg is reused by the legs after it. With the fake device, a fake
//! compiler writes a [`FakeImage`] instead (see [`super::fake`]).

use super::diagnostic;
use super::elf;
use super::env::KernelEnv;
use super::fake::{FakeCompile, FakeSpec};
use super::hip::{self, Target};
use super::policy::check_source;
use super::sandbox::{self, Jail, Limits, SandboxError};
use aorlta_check::hash::hash_parts;
use aorlta_check::task::KernelTaskDef;
use aorlta_record::LegState;
use aorlta_record::kernel::fake::FakeImage;
use aorlta_record::kernel::mangle::kernel_symbols;
use rustix::process::Signal;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Whose source is compiled.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Who {
    /// The task's reference: trusted, never policy-checked; its failure is unsettled.
    Reference,
    /// A candidate.
    Candidate,
}

/// A compiled code object.
#[derive(Debug, Clone, PartialEq)]
pub struct Compiled {
    /// The code object on disk.
    pub cubin: PathBuf,
    /// Symbols to look the kernel up by, the one found in the code object first.
    pub symbols: Vec<String>,
    /// Code object bytes.
    pub bytes: usize,
    /// Seconds the compiler ran (0 when cached).
    pub compile_s: f64,
    /// True when served from the cache.
    pub cached: bool,
}

/// Why a source did not compile: a leg state (`broke` or `unsettled`), a code and a detail.
#[derive(Debug, Clone, PartialEq)]
pub struct CompileFailure {
    /// `broke` for the candidate's doing, `unsettled` for the world's.
    pub state: LegState,
    /// Reason code.
    pub code: String,
    /// Detail (the first lines of the diagnostic, paths stripped).
    pub detail: String,
}

impl CompileFailure {
    /// A failure of the candidate's making.
    pub fn broke(code: &str, detail: impl Into<String>) -> Self {
        CompileFailure {
            state: LegState::Broke,
            code: code.into(),
            detail: detail.into(),
        }
    }

    /// A failure of the world's making.
    pub fn unsettled(code: &str, detail: impl Into<String>) -> Self {
        CompileFailure {
            state: LegState::Unsettled,
            code: code.into(),
            detail: detail.into(),
        }
    }
}

/// Largest file the compiler may write, bytes.
const OUTPUT_LIMIT: u64 = 256 << 20;

/// Compiles `source` for `task` (cached). The reference's failures are unsettled
/// (`reference-compile-failed`), the candidate's broke.
pub fn compile(
    env: &KernelEnv,
    task: &KernelTaskDef,
    source: &str,
    who: Who,
) -> Result<Compiled, CompileFailure> {
    if who == Who::Candidate {
        check_source(source, env.config().max_source_bytes).map_err(|(c, d)| CompileFailure::broke(c, d))?;
    }
    let target = Target::of(env, task)?;
    // The AMD architectures, asked once: the cache key, the compiler and the check use them.
    let archs = match target {
        Target::HipOnAmd => env
            .hip_archs()
            .map_err(|e| CompileFailure::unsettled("no-hip-arch", e))?,
        Target::CudaOnNvidia | Target::HipOnNvidia => Vec::new(),
    };
    let version = env
        .compiler_version()
        .map_err(|e| CompileFailure::unsettled("no-compiler", e))?
        .to_string();
    let source_hash = aorlta_check::hash::hash_str(source);
    let key = hash_parts([
        version.as_bytes(),
        target_arch(env, target, &archs).as_bytes(),
        target.label().as_bytes(),
        task.spec.signature.as_bytes(),
        source_hash.as_bytes(),
    ]);
    let keep = |o: &Result<Compiled, CompileFailure>| {
        o.as_ref().map_or_else(
            |f| f.state != LegState::Unsettled || f.code == "reference-compile-failed",
            |_| true,
        )
    };
    let (out, cached) = env.compiles().get_or_compile(&key, keep, || {
        let out = if env.is_fake() {
            fake_compile(env, task, source, &source_hash, &key)
        } else {
            real_compile(env, task, target, &archs, source, &key)
        };
        match (who, out) {
            (Who::Reference, Err(f)) if f.state == LegState::Broke => Err(CompileFailure::unsettled(
                "reference-compile-failed",
                format!(
                    "task {}: the reference did not compile: {}: {}",
                    task.spec.id, f.code, f.detail
                ),
            )),
            (_, o) => o,
        }
    });
    match out {
        Ok(c) if cached => Ok(Compiled {
            compile_s: 0.0,
            cached: true,
            ..c
        }),
        o => o,
    }
}

fn symbols_of(task: &KernelTaskDef) -> Result<Vec<String>, CompileFailure> {
    kernel_symbols(&task.spec.signature)
        .map_err(|e| CompileFailure::unsettled("bad-task", format!("task {}: {e}", task.spec.id)))
}

fn store(env: &KernelEnv, key: &str, bytes: &[u8]) -> Result<PathBuf, CompileFailure> {
    let dir = env.work_dir().join("cubins");
    let path = dir.join(format!("{key}.cubin"));
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&dir)?;
        // Unique per process and per call: two threads may store the same key at once.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let tmp = dir.join(format!(".{key}.{}.{n}.tmp", std::process::id()));
        std::fs::write(&tmp, bytes)?;
        std::fs::rename(&tmp, &path)
    };
    write().map_err(|e| CompileFailure::unsettled("work-dir-error", format!("{}: {e}", path.display())))?;
    Ok(path)
}

fn check_cubin(task: &KernelTaskDef, bytes: &[u8]) -> Result<Vec<String>, CompileFailure> {
    let wanted = symbols_of(task)?;
    let syms = elf::symbols(bytes).map_err(|e| CompileFailure::broke("compile-error", e.to_string()))?;
    if syms.iter().any(|s| s.name == "vprintf" && !s.defined) {
        return Err(CompileFailure::broke(
            "device-printf",
            "the kernel calls device printf; output from a kernel is not allowed",
        ));
    }
    let found = wanted
        .iter()
        .find(|w| syms.iter().any(|s| s.defined && s.function && &s.name == *w))
        .cloned();
    let Some(found) = found else {
        return Err(CompileFailure::broke(
            "kernel-not-found",
            format!(
                "the code object defines no kernel `{}` with the task's signature `{}` (looked for {})",
                aorlta_check::task::kernel_name_of(&task.spec.signature),
                task.spec.signature,
                wanted.join(", ")
            ),
        ));
    };
    let mut order = vec![found.clone()];
    order.extend(wanted.into_iter().filter(|w| *w != found));
    Ok(order)
}

/// What a compile is for, as a cache key part: nvcc's `arch`, with the portability headers'
/// hash for a HIP source; hipcc's architecture list.
fn target_arch(env: &KernelEnv, target: Target, archs: &[String]) -> String {
    match target {
        Target::CudaOnNvidia => env.config().arch.clone(),
        Target::HipOnNvidia => format!("{}+hip-header-{}", env.config().arch, &hip::headers_hash()[..16]),
        Target::HipOnAmd => archs.join(","),
    }
}

fn real_compile(
    env: &KernelEnv,
    task: &KernelTaskDef,
    target: Target,
    archs: &[String],
    source: &str,
    key: &str,
) -> Result<Compiled, CompileFailure> {
    let mut extra_headers = Vec::new();
    let (compiler, mut args, output) = match target {
        Target::CudaOnNvidia | Target::HipOnNvidia => {
            let Some(nvcc) = env.nvcc() else {
                return Err(CompileFailure::unsettled(
                    "no-compiler",
                    "no nvcc found (set kernel.nvcc or AORLTA_NVCC)",
                ));
            };
            let arch = env.config().arch.as_str();
            let args = if target == Target::HipOnNvidia {
                let include = hip::include_dir(env.work_dir())?;
                extra_headers.push(include.clone());
                hip::nvcc_args(arch, &include)
            } else {
                ["--cubin", &format!("-arch={arch}"), "-o", "k.cubin", "k.cu"]
                    .map(String::from)
                    .to_vec()
            };
            (nvcc, args, "k.cubin")
        }
        Target::HipOnAmd => {
            let Some(hipcc) = env.hipcc() else {
                return Err(CompileFailure::unsettled(
                    "no-compiler",
                    "no hipcc found (set kernel.hipcc or AORLTA_HIPCC)",
                ));
            };
            (hipcc, hip::hipcc_args(archs), "k.co")
        }
    };
    // The list of files the preprocessor read, checked below. nvcc's own `-MD` runs the
    // preprocessor once more (about 0.2 s a compile); handed to the host preprocessor that
    // nvcc runs anyway for the device code, it costs nothing.
    let deps = match target {
        Target::CudaOnNvidia | Target::HipOnNvidia => {
            vec!["-Xcompiler".into(), format!("-MD,-MF,{DEPENDENCIES}")]
        }
        Target::HipOnAmd => ["-MD", "-MF", DEPENDENCIES].map(String::from).to_vec(),
    };
    args.splice(0..0, deps);
    let parent = env.work_dir().join("compile");
    let dir = std::fs::create_dir_all(&parent)
        .and_then(|_| tempfile::Builder::new().prefix("compile-").tempdir_in(&parent))
        .map_err(|e| CompileFailure::unsettled("work-dir-error", format!("{}: {e}", parent.display())))?;
    let name = target.source_name();
    std::fs::write(dir.path().join(name), source)
        .map_err(|e| CompileFailure::unsettled("work-dir-error", e.to_string()))?;
    let work = std::path::absolute(dir.path())
        .map_err(|e| CompileFailure::unsettled("work-dir-error", e.to_string()))?;
    let jail = Jail {
        read: toolkit_folders(compiler, &extra_headers),
        work: work.clone(),
    };
    let limits = Limits {
        timeout: Duration::from_secs_f64(env.config().compile_timeout_s),
        memory_bytes: env.config().compile_memory_mb << 20,
        output_bytes: OUTPUT_LIMIT,
    };
    let start = Instant::now();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = sandbox::run(compiler, &args, &jail, limits).map_err(|e| match e {
        SandboxError::Unavailable(why) => CompileFailure::unsettled("compile-sandbox-unavailable", why),
        SandboxError::Io(e) => {
            CompileFailure::unsettled("no-compiler", format!("{}: {e}", compiler.display()))
        }
    })?;
    let compile_s = start.elapsed().as_secs_f64();
    if run.timed_out {
        return Err(CompileFailure::broke(
            "compile-timeout",
            format!(
                "the compiler ran past {} s and was stopped",
                env.config().compile_timeout_s
            ),
        ));
    }
    // What the preprocessor read, whether or not the compile went on to succeed.
    let roots = diagnostic::header_roots(compiler, &extra_headers);
    match std::fs::read_to_string(work.join(DEPENDENCIES)) {
        Ok(list) => diagnostic::check_dependencies(&list, &work, name, &roots)
            .map_err(|why| CompileFailure::broke("include-forbidden", why))?,
        Err(e) if run.success => {
            return Err(CompileFailure::unsettled(
                "compile-dependencies-missing",
                format!("the compiler wrote no dependency list ({e}); nothing it read can be checked"),
            ));
        }
        Err(_) => {}
    }
    let diag = diagnostic::sanitize(&run.output, &work, name, source);
    if !run.success {
        let low = run.output.to_lowercase();
        let signal = run.signal.map(|s| format!(" (signal {s})")).unwrap_or_default();
        if run.signal == Some(Signal::XFSZ.as_raw()) || low.contains("file size limit") {
            return Err(CompileFailure::broke(
                "compile-output-too-large",
                format!("the compiler's output passed {} MiB", OUTPUT_LIMIT >> 20),
            ));
        }
        if [
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
            || run.signal.is_some_and(|s| {
                [Signal::KILL, Signal::SEGV, Signal::ABORT, Signal::BUS]
                    .iter()
                    .any(|k| k.as_raw() == s)
            })
            || low.contains("died due to signal")
        {
            return Err(CompileFailure::broke(
                "compile-memory",
                format!(
                    "the compiler ran out of its {} MiB memory limit{signal}: {diag}",
                    env.config().compile_memory_mb
                ),
            ));
        }
        return Err(CompileFailure::broke("compile-error", diag));
    }
    let bytes = std::fs::read(work.join(output))
        .map_err(|e| CompileFailure::broke("compile-error", format!("no code object was written: {e}")))?;
    let symbols = match target {
        Target::HipOnAmd => hip::check_code_object(task, &bytes, archs)?,
        Target::CudaOnNvidia | Target::HipOnNvidia => check_cubin(task, &bytes)?,
    };
    let cubin = store(env, key, &bytes)?;
    Ok(Compiled {
        cubin,
        symbols,
        bytes: bytes.len(),
        compile_s,
        cached: false,
    })
}

/// The dependency list's name in the compile folder.
const DEPENDENCIES: &str = "k.d";

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

fn fake_compile(
    env: &KernelEnv,
    task: &KernelTaskDef,
    _source: &str,
    source_hash: &str,
    key: &str,
) -> Result<Compiled, CompileFailure> {
    let spec = env.fake_spec(source_hash).unwrap_or_default();
    match spec.compile {
        Some(FakeCompile::Error) => {
            return Err(CompileFailure::broke(
                "compile-error",
                "k.cu(1): error: (fake compiler) a compile error",
            ));
        }
        Some(FakeCompile::Timeout) => {
            return Err(CompileFailure::broke(
                "compile-timeout",
                format!(
                    "the compiler ran past {} s and was stopped",
                    env.config().compile_timeout_s
                ),
            ));
        }
        Some(FakeCompile::Memory) => {
            return Err(CompileFailure::broke(
                "compile-memory",
                "the compiler ran out of its memory limit",
            ));
        }
        Some(FakeCompile::Printf) => {
            return Err(CompileFailure::broke(
                "device-printf",
                "the kernel calls device printf; output from a kernel is not allowed",
            ));
        }
        None => {}
    }
    let wanted = symbols_of(task)?;
    let img = image_of(&spec, task, wanted.clone());
    if !img.symbols.iter().any(|s| wanted.contains(s)) {
        return Err(CompileFailure::broke(
            "kernel-not-found",
            format!(
                "the code object defines no kernel with the task's signature `{}`",
                task.spec.signature
            ),
        ));
    }
    let bytes =
        serde_json::to_vec(&img).map_err(|e| CompileFailure::unsettled("work-dir-error", e.to_string()))?;
    let cubin = store(env, key, &bytes)?;
    Ok(Compiled {
        cubin,
        symbols: wanted,
        bytes: bytes.len(),
        compile_s: 0.0,
        cached: false,
    })
}

fn image_of(spec: &FakeSpec, task: &KernelTaskDef, symbols: Vec<String>) -> FakeImage {
    let mut img = FakeImage::correct(task.kernel_name(), spec.symbols.clone().unwrap_or(symbols));
    img.behaviour = spec.behaviour;
    img.speed = spec.speed;
    img.fixed_s = spec.fixed_s;
    if let Some(n) = spec.noise {
        img.noise = n;
    }
    img.launch = spec.launch.clone();
    img
}

/// Runs `nvcc --version` and keeps its release and build lines.
pub fn nvcc_version(nvcc: &Path) -> Result<String, String> {
    version_lines(
        nvcc,
        |l| l.contains("release") || l.starts_with("Build"),
        "release",
    )
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
