//! The runtime compiler, NVRTC, as a toolchain: CUDA sources compiled to a cubin by long-lived
//! worker processes ([`super::nvrtc_worker`]), each loading the library once, each in the compile
//! sandbox (it reads only NVRTC's library, the toolkit's headers, AORLTA's shim headers and its
//! own folder) under the compile memory limit, a compile that outlasts the time limit killing its
//! worker's process group. A worker that is killed or dies is replaced; the candidate gets the
//! verdict an nvcc process would have earned (`compile-timeout`, `compile-memory`).
//!
//! **Same acceptance as nvcc.** Where NVRTC refuses a source (a compile error), nvcc compiles it
//! as it would without NVRTC and its verdict stands: NVRTC is a fast path for the sources it
//! takes, never a stricter or looser judge. nvcc includes `cuda_runtime.h` in every source, and with it the
//! host's `math.h` (`INFINITY`, `NAN`) and the math functions; NVRTC includes nothing and reads
//! no host header. Every source is compiled with a prelude that defines what nvcc's implicit
//! includes give a device-only kernel, and the allowed headers a candidate may name
//! ([`super::policy::ALLOWED_HEADERS`]) that are host headers (`math.h`, `stdio.h`, ...) resolve
//! to shims in the work folder holding their device-side part. The source policy, the code
//! object's checks (kernel found, no device `printf`) and the diagnostic filter are the driver's
//! and nvcc's.

use super::nvrtc_worker::{Answer, Hello, Request, SOURCE_NAME};
use super::process::failure;
use super::sandbox::{self, Jail, Limits, SandboxError, Sandboxed};
use super::toolchain::{Invocation, Object, Toolchain};
use super::{CompileEnv, CompileFailure, diagnostic};
use crate::reason::KernelReason;
use crate::task::KernelTaskDef;
use std::io::{Read, Write};
use std::os::fd::AsFd;
use std::path::{Path, PathBuf};
use std::process::{ChildStdin, ChildStdout, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What nvcc's implicit `cuda_runtime.h` gives a device-only kernel that NVRTC lacks. The
/// infinities and the NaN are bit patterns, constant wherever they appear: NVRTC folds no
/// division by zero, so `1.0f / 0.0f` compiled to a full-precision division at run time in every
/// expression that used it (a kernel's `-INFINITY` in its inner loop ran 1.5x slower than under
/// nvcc, whose `INFINITY` is a builtin constant).
const PRELUDE: &str = "\
#ifndef AORLTA_NVRTC_PRELUDE
#define AORLTA_NVRTC_PRELUDE
#define INFINITY (__builtin_bit_cast(float, 0x7f800000u))
#define NAN (__builtin_bit_cast(float, 0x7fc00000u))
#define HUGE_VALF (__builtin_bit_cast(float, 0x7f800000u))
#define HUGE_VAL (__builtin_bit_cast(double, 0x7ff0000000000000ull))
#define FLT_MAX 3.402823466e+38F
#define FLT_MIN 1.175494351e-38F
#define FLT_EPSILON 1.192092896e-07F
#define DBL_MAX 1.7976931348623158e+308
#define DBL_MIN 2.2250738585072014e-308
#define DBL_EPSILON 2.2204460492503131e-016
#define INT_MAX 2147483647
#define INT_MIN (-2147483647 - 1)
#define UINT_MAX 4294967295U
#define LLONG_MAX 9223372036854775807LL
#define LLONG_MIN (-9223372036854775807LL - 1)
#define ULLONG_MAX 18446744073709551615ULL
#define CHAR_BIT 8
#endif
";

/// The shims: the allowed headers that are host headers under nvcc, and what each holds for a
/// kernel (the prelude already defines their constants; the fixed-width integers come from
/// NVRTC's own `cuda/std` headers).
const SHIMS: &[(&str, &str)] = &[
    ("cuda_runtime.h", ""),
    ("cuda.h", ""),
    ("math.h", ""),
    ("cmath", ""),
    ("float.h", ""),
    ("cfloat", ""),
    ("limits.h", ""),
    ("climits", ""),
    ("stdio.h", ""),
    ("cstdio", ""),
    ("assert.h", "#define assert(e) ((e) ? (void)0 : __trap())\n"),
    ("cassert", "#define assert(e) ((e) ? (void)0 : __trap())\n"),
    (
        "stdint.h",
        "typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long long int64_t;\n\
         typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;\n\
         typedef unsigned long long uint64_t; typedef long long intptr_t; typedef unsigned long long uintptr_t;\n",
    ),
    ("cstdint", "#include <stdint.h>\n"),
    (
        "stddef.h",
        "typedef unsigned long size_t; typedef long ptrdiff_t;\n",
    ),
    ("cstddef", "#include <stddef.h>\n"),
];

/// The hash of the prelude and shims: a part of every NVRTC compile's key (made once).
pub(crate) fn shims_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| {
        let mut h = blake3::Hasher::new();
        h.update(PRELUDE.as_bytes());
        for (name, text) in SHIMS {
            h.update(name.as_bytes());
            h.update(&[0]);
            h.update(text.as_bytes());
            h.update(&[0]);
        }
        h.finalize().to_hex().to_string()
    })
}

/// Writes the prelude and the shims under `work_dir` (once per content) and answers their folder.
fn shim_dir(work_dir: &Path) -> std::io::Result<PathBuf> {
    // Absolute: it is bound into the sandbox and named on NVRTC's include path.
    let work_dir = std::path::absolute(work_dir)?;
    let work_dir = work_dir.as_path();
    let dir = work_dir.join(format!("nvrtc-include-{}", &shims_hash()[..16]));
    if dir.join("aorlta_nvrtc_prelude.h").is_file() {
        return Ok(dir);
    }
    let tmp = tempfile::Builder::new()
        .prefix(".nvrtc-include-")
        .tempdir_in(work_dir)?;
    std::fs::write(tmp.path().join("aorlta_nvrtc_prelude.h"), PRELUDE)?;
    for (name, text) in SHIMS {
        std::fs::write(tmp.path().join(name), format!("#pragma once\n{text}"))?;
    }
    match std::fs::rename(tmp.path(), &dir) {
        Ok(()) => {
            let _ = tmp.keep();
            Ok(dir)
        }
        // Another thread put the same content there first.
        Err(_) if dir.join("aorlta_nvrtc_prelude.h").is_file() => Ok(dir),
        Err(e) => Err(e),
    }
}

/// Where NVRTC is: the library's folder and the toolkit's headers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NvrtcInstall {
    /// The folder holding `libnvrtc.so.13` and `libnvrtc-builtins.so.13.*`.
    pub lib_dir: PathBuf,
    /// The toolkit's `include` folder (`cuda_fp16.h`, `cooperative_groups.h`, ...).
    pub include: PathBuf,
}

impl NvrtcInstall {
    /// NVRTC beside nvcc (`bin/../lib` or `bin/../lib64`, headers in `bin/../include`), or
    /// under `$AORLTA_NVRTC_LIB` with the headers beside nvcc; `None` when no library is found.
    pub fn find(nvcc: Option<&Path>) -> Option<Self> {
        let top = nvcc
            .and_then(|p| p.canonicalize().ok())
            .and_then(|p| p.parent().and_then(Path::parent).map(Path::to_path_buf))?;
        let include = top.join("include");
        let has_lib = |d: &Path| d.join("libnvrtc.so.13").is_file() || d.join("libnvrtc.so").is_file();
        let lib_dir = std::env::var_os("AORLTA_NVRTC_LIB")
            .map(PathBuf::from)
            .into_iter()
            .chain([top.join("lib"), top.join("lib64")])
            .find(|d| has_lib(d))?;
        // Real paths: inside the sandbox's namespace only real paths are bound (a toolkit's
        // `lib64` and `include` are often links into `targets/`).
        let (lib_dir, include) = (lib_dir.canonicalize().ok()?, include.canonicalize().ok()?);
        include.is_dir().then_some(NvrtcInstall { lib_dir, include })
    }
}

/// Largest code object a worker may send back, bytes (the compile output limit).
const OBJECT_LIMIT: u64 = super::process::OUTPUT_LIMIT;

/// One worker process, idle between compiles.
struct Worker {
    jailed: Sandboxed,
    stdin: ChildStdin,
    stdout: ChildStdout,
    /// Bytes read past the last answer's line.
    pending: Vec<u8>,
    /// Its folder on the host (inside the jail, a `tmpfs` at the same path).
    dir: tempfile::TempDir,
}

impl Worker {
    fn kill(mut self) {
        self.jailed.kill();
    }

    /// Exactly `n` bytes of the worker's output, within `deadline`.
    fn read_bytes(&mut self, n: usize, deadline: Instant) -> Result<Vec<u8>, WorkerError> {
        while self.pending.len() < n {
            if !self.fill(deadline)? {
                return Err(WorkerError::Io(std::io::ErrorKind::UnexpectedEof.into()));
            }
        }
        Ok(self.pending.drain(..n).collect())
    }

    /// Reads what the worker has written into `pending`, waiting until `deadline`; `false`
    /// when its output closed.
    fn fill(&mut self, deadline: Instant) -> Result<bool, WorkerError> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return Err(WorkerError::Timeout);
            }
            let timeout = rustix::event::Timespec {
                tv_sec: left.as_secs() as i64,
                tv_nsec: i64::from(left.subsec_nanos()),
            };
            let fd = self.stdout.as_fd();
            let mut fds = [rustix::event::PollFd::new(&fd, rustix::event::PollFlags::IN)];
            match rustix::event::poll(&mut fds, Some(&timeout)) {
                Ok(0) => return Err(WorkerError::Timeout),
                Ok(_) => {}
                Err(rustix::io::Errno::INTR) => continue,
                Err(e) => return Err(WorkerError::Io(e.into())),
            }
            let mut buf = [0u8; 64 * 1024];
            match self.stdout.read(&mut buf) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.pending.extend_from_slice(&buf[..n]);
                    return Ok(true);
                }
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(WorkerError::Io(e)),
            }
        }
    }

    /// One line of the worker's output, within `deadline`; `Ok(None)` when it closed.
    fn read_line(&mut self, deadline: Instant) -> Result<Option<String>, WorkerError> {
        loop {
            if let Some(at) = self.pending.iter().position(|b| *b == b'\n') {
                let line: Vec<u8> = self.pending.drain(..=at).collect();
                return Ok(Some(String::from_utf8_lossy(&line).trim_end().to_string()));
            }
            if !self.fill(deadline)? {
                return Ok(None);
            }
        }
    }
}

enum WorkerError {
    Timeout,
    Io(std::io::Error),
}

/// The compile workers of one kernel environment.
pub struct NvrtcPool {
    install: NvrtcInstall,
    /// The worker program and its arguments (`aorlta nvrtc-worker`).
    program: (PathBuf, Vec<String>),
    idle: Mutex<Vec<Worker>>,
    version: std::sync::OnceLock<Result<String, String>>,
}

impl std::fmt::Debug for NvrtcPool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("NvrtcPool")
            .field("install", &self.install)
            .field("program", &self.program)
            .finish_non_exhaustive()
    }
}

impl NvrtcPool {
    /// A pool (no worker is started until a compile asks for one).
    pub fn new(install: NvrtcInstall, program: PathBuf, args: Vec<String>) -> Self {
        NvrtcPool {
            install,
            program: (program, args),
            idle: Mutex::new(Vec::new()),
            version: std::sync::OnceLock::new(),
        }
    }

    /// Where NVRTC is.
    pub fn install(&self) -> &NvrtcInstall {
        &self.install
    }

    /// NVRTC's version as a worker reports it (a worker is started the first time).
    pub fn version(&self, env: &dyn CompileEnv) -> Result<&str, String> {
        self.version
            .get_or_init(|| {
                let w = self.start(env)?;
                self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(w.0);
                Ok(w.1)
            })
            .as_deref()
            .map_err(Clone::clone)
    }

    fn start(&self, env: &dyn CompileEnv) -> Result<(Worker, String), String> {
        let parent = std::path::absolute(env.work_dir().join("nvrtc")).map_err(|e| e.to_string())?;
        std::fs::create_dir_all(&parent).map_err(|e| format!("{}: {e}", parent.display()))?;
        let dir = tempfile::Builder::new()
            .prefix("worker-")
            .tempdir_in(&parent)
            .map_err(|e| format!("{}: {e}", parent.display()))?;
        let work = std::path::absolute(dir.path()).map_err(|e| e.to_string())?;
        let shims = shim_dir(env.work_dir()).map_err(|e| format!("writing the NVRTC shims: {e}"))?;
        let program = self
            .program
            .0
            .canonicalize()
            .unwrap_or_else(|_| self.program.0.clone());
        let jail = worker_jail(&self.install, shims, &program, work);
        let limits = Limits {
            timeout: Duration::from_secs_f64(env.config().compile_timeout_s),
            memory_bytes: env.config().compile_memory_mb << 20,
            output_bytes: super::process::OUTPUT_LIMIT,
            cpu_seconds: None,
        };
        let args: Vec<&str> = self.program.1.iter().map(String::as_str).collect();
        let lib = self.install.lib_dir.as_os_str();
        let mut jailed = sandbox::spawn(
            &program,
            &args,
            &jail,
            limits,
            [Stdio::piped(), Stdio::piped(), Stdio::null()],
            &[("LD_LIBRARY_PATH", lib)],
        )
        .map_err(|e| match e {
            SandboxError::Unavailable(why) => format!("sandbox: {why}"),
            SandboxError::Io(e) => format!("{}: {e}", program.display()),
        })?;
        let child = &mut jailed.child;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err("the worker's pipes were not made".into());
        };
        let mut w = Worker {
            jailed,
            stdin,
            stdout,
            pending: Vec::new(),
            dir,
        };
        let hello = match w.read_line(Instant::now() + Duration::from_secs(30)) {
            Ok(Some(line)) => {
                serde_json::from_str::<Hello>(&line).map_err(|e| format!("the worker's first line: {e}"))
            }
            Ok(None) => Err("the NVRTC worker exited before it was ready".into()),
            Err(WorkerError::Timeout) => Err("the NVRTC worker was not ready within 30 s".into()),
            Err(WorkerError::Io(e)) => Err(e.to_string()),
        };
        match hello {
            Ok(h) if h.ready => Ok((w, h.version)),
            Ok(h) => {
                w.kill();
                Err(format!("the NVRTC worker could not load NVRTC: {}", h.error))
            }
            Err(e) => {
                w.kill();
                Err(e)
            }
        }
    }

    /// Compiles `source` with `options` in a worker.
    pub(crate) fn compile(
        &self,
        env: &dyn CompileEnv,
        source: &str,
        options: Vec<String>,
    ) -> Result<Object, CompileFailure> {
        let taken = self.idle.lock().unwrap_or_else(|p| p.into_inner()).pop();
        let mut w = match taken {
            Some(w) => w,
            None => {
                self.start(env)
                    .map_err(|e| CompileFailure::unsettled(KernelReason::NoCompiler, e))?
                    .0
            }
        };
        let req = Request {
            source: source.to_string(),
            options,
        };
        let config = env.config();
        let start = Instant::now();
        let mut text = serde_json::to_vec(&req).expect("a request serialises");
        text.push(b'\n');
        let deadline = start + Duration::from_secs_f64(config.compile_timeout_s);
        let sent = w.stdin.write_all(&text).and_then(|()| w.stdin.flush());
        let line = match sent {
            Ok(()) => w.read_line(deadline),
            Err(e) => Err(WorkerError::Io(e)),
        };
        let answer = match line {
            Ok(Some(line)) => serde_json::from_str::<Answer>(&line).map_err(|e| e.to_string()),
            Ok(None) => Err("closed".into()),
            Err(WorkerError::Timeout) => return Err(timed_out(w, config.compile_timeout_s)),
            Err(WorkerError::Io(e)) => Err(e.to_string()),
        };
        let answer = match answer {
            Ok(a) if a.object_bytes <= OBJECT_LIMIT => a,
            Ok(_) => {
                w.kill();
                return Err(CompileFailure::broke(
                    KernelReason::CompileOutputTooLarge,
                    format!("the code object passed {} MiB", OBJECT_LIMIT >> 20),
                ));
            }
            Err(_) => return Err(died(w, config.compile_memory_mb)),
        };
        let object = if answer.ok {
            match w.read_bytes(answer.object_bytes as usize, deadline) {
                Ok(bytes) => Some(bytes),
                Err(WorkerError::Timeout) => return Err(timed_out(w, config.compile_timeout_s)),
                Err(WorkerError::Io(_)) => return Err(died(w, config.compile_memory_mb)),
            }
        } else {
            None
        };
        let compile_s = start.elapsed().as_secs_f64();
        let result = match object {
            Some(bytes) if !bytes.is_empty() => Ok(Object {
                bytes,
                compile_s,
                launch: None,
            }),
            Some(_) => Err(CompileFailure::broke(
                KernelReason::CompileError,
                "no code object was written".to_string(),
            )),
            None => {
                let diag = diagnostic::sanitize(&answer.log, w.dir.path(), SOURCE_NAME, source);
                Err(failure(&answer.log, None, &diag, config.compile_memory_mb))
            }
        };
        self.idle.lock().unwrap_or_else(|p| p.into_inner()).push(w);
        result
    }

    /// Stops every idle worker.
    pub fn shutdown(&self) {
        for w in self.idle.lock().unwrap_or_else(|p| p.into_inner()).drain(..) {
            w.kill();
        }
    }
}

impl Drop for NvrtcPool {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// A worker's jail: it reads its own program file, NVRTC's library, the toolkit's headers, the
/// shims and the host's shared libraries, never the folder its program lies in (a deployment's
/// tokens and configs beside the binary) nor the host's headers and programs, and writes nothing
/// that comes back. NVRTC writes no dependency list (13.0 refuses `-MD`, `-MF` and
/// `--dependency-output`), so nvcc's check of what the preprocessor read is made by the jail
/// instead: every file an NVRTC compile can open is a toolkit header, a shim or a system library.
fn worker_jail(install: &NvrtcInstall, shims: PathBuf, program: &Path, work: PathBuf) -> Jail {
    Jail {
        read: vec![
            install.lib_dir.clone(),
            install.include.clone(),
            shims,
            program.to_path_buf(),
        ],
        work,
        inputs: Vec::new(),
        outputs: Vec::new(),
        libs_only: true,
    }
}

/// A worker that ran past the compile's time limit: killed with its jail.
fn timed_out(w: Worker, timeout_s: f64) -> CompileFailure {
    w.kill();
    CompileFailure::broke(
        KernelReason::CompileTimeout,
        format!("the compiler ran past {timeout_s} s and was stopped"),
    )
}

/// A worker that died in a compile: its memory limit met (the candidate's), a crash, or a kill
/// from outside (not the candidate's).
fn died(mut w: Worker, memory_mb: u64) -> CompileFailure {
    let status = w.jailed.kill();
    let signal = status.and_then(sandbox::signal_of);
    if sandbox::killed_from_outside(signal, false, w.jailed.out_of_memory()) {
        return super::process::killed("the NVRTC worker");
    }
    let how = status.map_or("the NVRTC worker died".to_string(), |s| {
        format!("the NVRTC worker died ({s})")
    });
    failure("", signal, &how, memory_mb)
}

/// The NVRTC toolchain for CUDA sources on NVIDIA.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Nvrtc {
    arch: String,
}

impl Nvrtc {
    pub(crate) fn new(env: &dyn CompileEnv) -> Self {
        Nvrtc {
            arch: env.config().arch.clone(),
        }
    }

    /// Compiles one source in the workers; where NVRTC reports a compile error, nvcc's verdict.
    fn compile(&self, env: &dyn CompileEnv, source: &str) -> Result<Object, CompileFailure> {
        let pool = env.nvrtc().ok_or_else(|| {
            CompileFailure::unsettled(
                KernelReason::NoCompiler,
                "no NVRTC found (kernel.compiler: nvrtc needs libnvrtc beside nvcc, or AORLTA_NVRTC_LIB)",
            )
        })?;
        let options = self.options(env, pool)?;
        match pool.compile(env, source, options) {
            // NVRTC compiles device code only and reads no host header: a source nvcc accepts
            // may hold host code (never run: only the device code object is kept). Where NVRTC
            // says no, nvcc decides, so the verdict is nvcc's; limits met stay NVRTC's.
            Err(f) if f.code == KernelReason::CompileError.as_str() => super::nvcc::Nvcc::cuda(env)
                .invocation(env)
                .and_then(|inv| super::process::run(env, &inv, source)),
            other => other,
        }
    }

    fn options(&self, env: &dyn CompileEnv, pool: &NvrtcPool) -> Result<Vec<String>, CompileFailure> {
        let shims = shim_dir(env.work_dir())
            .map_err(|e| CompileFailure::unsettled(KernelReason::WorkDirError, e.to_string()))?;
        Ok(vec![
            format!("--gpu-architecture={}", self.arch),
            "--std=c++17".into(),
            format!("--include-path={}", shims.display()),
            format!("--include-path={}", pool.install().include.display()),
            "--pre-include=aorlta_nvrtc_prelude.h".into(),
        ])
    }
}

impl Toolchain for Nvrtc {
    fn target_key(&self) -> String {
        format!("{}+nvrtc-shims-{}", self.arch, &shims_hash()[..16])
    }

    fn invocation(&self, _env: &dyn CompileEnv) -> Result<Invocation, CompileFailure> {
        Err(CompileFailure::unsettled(
            KernelReason::NoCompiler,
            "NVRTC compiles in its workers, not as a process per source",
        ))
    }

    fn in_workers(
        &self,
        env: &dyn CompileEnv,
        _task: &KernelTaskDef,
        source: &str,
    ) -> Option<Result<Object, CompileFailure>> {
        Some(self.compile(env, source))
    }

    fn check(&self, task: &KernelTaskDef, object: &[u8]) -> Result<Vec<String>, CompileFailure> {
        super::toolchain::check_cubin(task, object)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_worker_reads_its_program_file_and_not_the_folder_beside_it() {
        let install = NvrtcInstall {
            lib_dir: PathBuf::from("/opt/cuda/lib64"),
            include: PathBuf::from("/opt/cuda/include"),
        };
        let app = Path::new("/app");
        let jail = worker_jail(
            &install,
            PathBuf::from("/w/shims"),
            &app.join("aorlta"),
            PathBuf::from("/w/x"),
        );
        assert!(jail.read.contains(&app.join("aorlta")));
        assert!(
            !jail.read.iter().any(|r| app.join("token").starts_with(r)),
            "{:?}",
            jail.read
        );
        assert!(jail.outputs.is_empty());
        // No host header or program folder: NVRTC writes no dependency list (13.0 refuses `-MD`
        // and `--dependency-output`), so what it can open is what the jail holds.
        assert!(jail.libs_only);
    }
}
