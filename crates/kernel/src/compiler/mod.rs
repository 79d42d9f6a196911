//! The kernel compile: a candidate's (or the reference's) source, alone, into a device code
//! object. Four parts, one file each:
//! - this driver: the source policy ([`policy`], a quick first filter), the task's [`Target`]
//!   and its [`Toolchain`], the cache key (compiler version, toolchain target, task signature,
//!   source hash), the outcomes cached in memory ([`cache`]) and the code objects stored on disk
//!   under the work folder, so the reference is compiled once and a candidate compiled by the
//!   `kernel-compile` leg is reused by the legs after it;
//! - the toolchains ([`toolchain`]: [`nvcc`], [`hipcc`], and [`nvrtc`], whose compiles run in
//!   long-lived worker processes, [`nvrtc_worker`]), each saying how its compiler is invoked
//!   and how its code object is checked;
//! - one compiler process ([`process`]) in the [`sandbox`], with its dependency list checked and
//!   its diagnostics filtered ([`diagnostic`]);
//! - with the fake device, the fake compiler ([`fake`]).

pub(crate) mod cache;
pub(crate) mod diagnostic;
pub(crate) mod fake;
pub(crate) mod hipcc;
pub(crate) mod nvcc;
pub(crate) mod nvrtc;
pub(crate) mod nvrtc_worker;
pub(crate) mod policy;
pub(crate) mod process;
pub(crate) mod sandbox;
pub(crate) mod target;
pub(crate) mod toolchain;
pub(crate) mod triton;

pub(crate) use target::Target;
pub(crate) use toolchain::Toolchain;

/// The first file `name` in a folder of the PATH.
pub(crate) fn find_on_path(name: &str) -> Option<std::path::PathBuf> {
    std::env::var_os("PATH").and_then(|p| {
        std::env::split_paths(&p)
            .map(|d| d.join(name))
            .find(|c| c.is_file())
    })
}

use crate::config::{KernelConfig, Platform};
use crate::fake::FakeSpec;
use crate::reason::KernelReason;
use crate::task::KernelTaskDef;
use aorlta_check::hash_parts;
use aorlta_record::LegState;
use cache::CompileCache;
use std::path::{Path, PathBuf};

/// What the compile needs of the kernel environment ([`crate::env::KernelEnv`] implements it): its
/// settings, its compilers, the outcomes cached so far. The compiler names no environment
/// type, so the environment builds on the compiler and not the other way round.
pub trait CompileEnv {
    /// The `kernel:` settings (limits, architecture, policy).
    fn config(&self) -> &KernelConfig;
    /// The work folder (compile folders, stored code objects, portability headers).
    fn work_dir(&self) -> &Path;
    /// The GPU platform.
    fn platform(&self) -> Platform;
    /// True with the fake device (the fake compiler).
    fn is_fake(&self) -> bool;
    /// The fake behaviour registered for a source, by its hash.
    fn fake_spec(&self, source_hash: &str) -> Option<FakeSpec>;
    /// nvcc, when found.
    fn nvcc(&self) -> Option<&Path>;
    /// hipcc, when found.
    fn hipcc(&self) -> Option<&Path>;
    /// The NVRTC workers, when `kernel.compiler` is `nvrtc` and NVRTC was found.
    fn nvrtc(&self) -> Option<&nvrtc::NvrtcPool>;
    /// The AMD architectures to compile for.
    fn hip_archs(&self) -> Result<Vec<String>, String>;
    /// The platform's compiler version, part of every compile's key.
    fn compiler_version(&self) -> Result<&str, String>;
    /// The compile outcomes kept in memory.
    fn compiles(&self) -> &CompileCache;
    /// The Python with Triton that compiles Triton sources (probed once).
    fn triton(&self) -> Result<&triton::TritonTool, String>;
}

/// The toolchain that compiles `target`'s sources in `env`.
pub(crate) fn toolchain_for(
    env: &dyn CompileEnv,
    target: Target,
) -> Result<Box<dyn Toolchain>, CompileFailure> {
    Ok(match target {
        Target::CudaOnNvidia if env.config().compiler == crate::config::CompilerChoice::Nvrtc => {
            Box::new(nvrtc::Nvrtc::new(env))
        }
        Target::CudaOnNvidia => Box::new(nvcc::Nvcc::cuda(env)),
        Target::HipOnNvidia => Box::new(nvcc::Nvcc::hip(env)),
        Target::HipOnAmd => Box::new(hipcc::Hipcc::new(env)?),
        Target::TritonOnNvidia => Box::new(triton::Triton::new(env)),
    })
}

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
    /// The launch its compiler decided (a Triton kernel's).
    pub launch: Option<aorlta_record::ImageLaunch>,
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
    pub fn broke(code: KernelReason, detail: impl Into<String>) -> Self {
        CompileFailure {
            state: LegState::Broke,
            code: code.as_str().into(),
            detail: detail.into(),
        }
    }

    /// A failure of the world's making.
    pub fn unsettled(code: KernelReason, detail: impl Into<String>) -> Self {
        CompileFailure {
            state: LegState::Unsettled,
            code: code.as_str().into(),
            detail: detail.into(),
        }
    }
}

/// Compiles every `(task, source, who)` on up to 16 threads, into the compile cache, so that the
/// legs that follow find them there instead of compiling one at a time; the outcomes are the
/// legs' to report.
pub fn compile_many(env: &(dyn CompileEnv + Sync), jobs: &[(&KernelTaskDef, &str, Who)]) {
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 16);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                while let Some((task, source, who)) =
                    jobs.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    // A PyTorch module is not compiled: the reference process runs it.
                    if *who == Who::Reference && task.torch.is_some() {
                        continue;
                    }
                    let _ = compile(env, task, source, *who);
                }
            });
        }
    });
}

/// Compiles `source` for `task` (cached). The reference's failures are unsettled
/// (`reference-compile-failed`), the candidate's broke.
pub fn compile(
    env: &dyn CompileEnv,
    task: &KernelTaskDef,
    source: &str,
    who: Who,
) -> Result<Compiled, CompileFailure> {
    let target = Target::of(env, task)?;
    if who == Who::Candidate {
        let max = env.config().max_source_bytes;
        match target {
            // Python has no preprocessor: what a Triton source may read is the sandbox's to say.
            Target::TritonOnNvidia => policy::check_size(source, max),
            _ => policy::check_source(source, max),
        }
        .map_err(|(c, d)| CompileFailure::broke(c, d))?;
    }
    let toolchain = toolchain_for(env, target)?;
    let version = match target {
        Target::TritonOnNvidia if !env.is_fake() => env.triton().map(triton::TritonTool::describe),
        _ => env.compiler_version().map(str::to_string),
    }
    .map_err(|e| CompileFailure::unsettled(KernelReason::NoCompiler, e))?;
    let source_hash = aorlta_check::hash_str(source);
    let key = hash_parts([
        version.as_bytes(),
        toolchain.target_key().as_bytes(),
        target.label().as_bytes(),
        task.signature.text().as_bytes(),
        source_hash.as_bytes(),
    ]);
    let keep = |o: &Result<Compiled, CompileFailure>| {
        o.as_ref().map_or_else(
            |f| f.state != LegState::Unsettled || f.code == KernelReason::ReferenceCompileFailed.as_str(),
            |_| true,
        )
    };
    let _span = crate::timeline::span("compile", || {
        format!("{}/{who:?}/{}", task.spec.id, &source_hash[..12])
    });
    let (out, cached) = env.compiles().get_or_compile(&key, keep, || {
        let _span = crate::timeline::span("compile-run", || {
            format!("{}/{who:?}/{}", task.spec.id, &source_hash[..12])
        });
        let out = if env.is_fake() {
            let launch = (target == Target::TritonOnNvidia).then(|| {
                let asked = env.fake_spec(&source_hash).and_then(|s| s.launch);
                triton::fake_launch(task, asked.as_deref())
            });
            fake::compile(env, task, source, &source_hash).and_then(|(bytes, symbols)| {
                let object = toolchain::Object {
                    bytes,
                    compile_s: 0.0,
                    launch,
                };
                stored(env, &key, object, symbols)
            })
        } else {
            let object = toolchain.in_workers(env, task, source).unwrap_or_else(|| {
                toolchain
                    .invocation(env)
                    .and_then(|inv| process::run(env, &inv, source))
            });
            object.and_then(|object| {
                process::check_size(&object.bytes)?;
                let symbols = match crate::extract::plan_of(source, &task.spec) {
                    Ok(Some(plan)) if who == Who::Candidate => toolchain::check_plan(&plan, &object.bytes)?,
                    _ => toolchain.check(task, &object.bytes)?,
                };
                stored(env, &key, object, symbols)
            })
        };
        match (who, out) {
            (Who::Reference, Err(f)) if f.state == LegState::Broke => Err(CompileFailure::unsettled(
                KernelReason::ReferenceCompileFailed,
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

/// A code object stored under the work folder by its key.
fn stored(
    env: &dyn CompileEnv,
    key: &str,
    object: toolchain::Object,
    symbols: Vec<String>,
) -> Result<Compiled, CompileFailure> {
    let bytes = object.bytes.as_slice();
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
    write().map_err(|e| {
        CompileFailure::unsettled(KernelReason::WorkDirError, format!("{}: {e}", path.display()))
    })?;
    Ok(Compiled {
        cubin: path,
        symbols,
        bytes: bytes.len(),
        compile_s: object.compile_s,
        cached: false,
        launch: object.launch,
    })
}

#[cfg(test)]
mod hip_tests;
#[cfg(test)]
mod triton_tests;
