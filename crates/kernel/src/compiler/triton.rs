//! Triton kernels (`language: triton`): one `@triton.jit` function compiled ahead of time, with
//! no GPU, to a cubin and its launch ([`ImageLaunch`]), which the harness runs like any other
//! code object. The source is Python: importing it runs the candidate's code, so the compile
//! runs only as a process of its own in the compile jail, [`super::sandbox`] (the toolkit
//! read-only, a size-limited folder of its own, no network, its own PID namespace, address-space,
//! CPU, wall and, where the host gives a cgroup, process and memory limits for the whole
//! compile), driven by `triton_compile.py`, never in the service or the harness.
//!
//! Nothing the process prints is read. What it writes is the candidate's to write: the code
//! object gets the checks every cubin gets ([`super::toolchain`]), and every number of its
//! metadata is checked here against the task (the kernel's name, `num_warps`, `num_stages`, the
//! constexprs chosen, one CTA, no scratch memory, no cooperative or programmatic launch, the
//! trailing arguments, the grid expressions) before a job is written.

use super::sandbox::{self, Jail, Limits, SandboxError};
use super::toolchain::{Invocation, Object, Toolchain, check_cubin};
use super::{CompileEnv, CompileFailure};
use crate::reason::KernelReason;
use crate::task::KernelTaskDef;
use aorlta_record::Dtype;
use aorlta_record::ImageLaunch;
use aorlta_record::eval_count;
use aorlta_record::{ParamKind, signature_parameters};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// The compile driver, written into each compile's folder.
const DRIVER: &str = include_str!("triton_compile.py");

/// Most trailing pointers a Triton version may add after the declared parameters.
const MAX_TRAILING: u32 = 4;

/// A Python with Triton, as probed once.
#[derive(Debug, Clone, PartialEq)]
pub struct TritonTool {
    /// The interpreter.
    pub python: PathBuf,
    /// `triton.__version__`.
    pub triton_version: String,
    /// The interpreter's version.
    pub python_version: String,
    /// blake3 of both versions and every distribution installed beside them.
    pub identity: String,
    /// The folders the compile may read: the interpreter's prefixes and import path.
    pub read: Vec<PathBuf>,
    /// The interpreter's import path (real paths): the sandbox runs the interpreter by its real
    /// path, where a virtual environment's own path is not found by itself.
    pub paths: Vec<PathBuf>,
}

impl TritonTool {
    /// The words a compile detail and the compile identity carry.
    pub fn describe(&self) -> String {
        format!(
            "triton {} (Python {}, environment {})",
            self.triton_version,
            self.python_version,
            &self.identity[..16.min(self.identity.len())]
        )
    }
}

const PROBE: &str = r#"
import json, os, sys
import importlib.metadata as md
import triton
dists = sorted({f"{d.metadata['Name']}=={d.version}" for d in md.distributions() if d.metadata['Name']})
paths = [p for p in sys.path if p and os.path.isdir(p)]
with open("probe.json", "w") as f:
    json.dump({"triton": triton.__version__, "python": sys.version.split()[0], "paths": paths,
               "prefixes": [sys.prefix, sys.base_prefix, os.path.dirname(triton.__file__)],
               "dists": dists}, f)
"#;

#[derive(Deserialize)]
struct Probe {
    triton: String,
    python: String,
    paths: Vec<PathBuf>,
    prefixes: Vec<PathBuf>,
    dists: Vec<String>,
}

/// Triton as the compile driver sees it.
pub(crate) struct Triton {
    arch: String,
}

impl Triton {
    /// Triton for `env`'s architecture.
    pub(crate) fn new(env: &dyn CompileEnv) -> Self {
        Triton {
            arch: env.config().arch.clone(),
        }
    }
}

impl Toolchain for Triton {
    fn in_workers(
        &self,
        env: &dyn CompileEnv,
        task: &KernelTaskDef,
        source: &str,
    ) -> Option<Result<Object, CompileFailure>> {
        Some(compile(env, task, source))
    }
    fn target_key(&self) -> String {
        format!("triton;{}", self.arch)
    }
    fn invocation(&self, _env: &dyn CompileEnv) -> Result<Invocation, CompileFailure> {
        Err(CompileFailure::unsettled(
            KernelReason::NoCompiler,
            "a Triton source is compiled by its driver, not by a compiler command",
        ))
    }
    fn check(&self, task: &KernelTaskDef, object: &[u8]) -> Result<Vec<String>, CompileFailure> {
        check_cubin(task, object)
    }
}

/// Asks `python` for its Triton, in the compile jail like every compile: the interpreter's own
/// installation and the virtual environment it is started from are all it reads (a `.pth` file
/// or a module planted there would run here first, so nothing a compile can write is ever on
/// its path).
pub(crate) fn probe(python: &Path) -> Result<TritonTool, String> {
    let given = std::path::absolute(python).map_err(|e| format!("{}: {e}", python.display()))?;
    let real = python
        .canonicalize()
        .map_err(|e| format!("{}: {e}", python.display()))?;
    // The interpreter's prefix (`…/bin/python3` → `…`) and the environment's (`.venv/bin/python`
    // → `.venv`, whose `pyvenv.cfg` names the interpreter).
    let mut read: Vec<PathBuf> = [&real, &given]
        .into_iter()
        .filter_map(|p| p.parent().and_then(Path::parent))
        .filter_map(|p| p.canonicalize().ok())
        .collect();
    read.dedup();
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let work = std::path::absolute(dir.path()).map_err(|e| e.to_string())?;
    std::fs::write(work.join("probe.py"), PROBE).map_err(|e| e.to_string())?;
    let jail = Jail {
        read,
        work: work.clone(),
        inputs: vec!["probe.py".into()],
        outputs: vec!["probe.json".into()],
        libs_only: false,
    };
    let limits = Limits {
        timeout: Duration::from_secs(120),
        memory_bytes: 4 << 30,
        output_bytes: 16 << 20,
        cpu_seconds: None,
    };
    let run = sandbox::run(&given, &["-I", "probe.py"], &jail, limits)
        .map_err(|e| format!("{}: {e}", python.display()))?;
    if !run.success {
        let last = run.output.lines().last().unwrap_or("").trim().to_string();
        return Err(format!("{} cannot import triton: {last}", python.display()));
    }
    let out = std::fs::read(work.join("probe.json"))
        .map_err(|e| format!("{}: the Triton probe wrote nothing: {e}", python.display()))?;
    let p: Probe = serde_json::from_slice(&out)
        .map_err(|e| format!("{}: the Triton probe printed no JSON: {e}", python.display()))?;
    let identity = aorlta_check::hash_parts(
        [p.triton.as_str(), p.python.as_str()]
            .into_iter()
            .chain(p.dists.iter().map(String::as_str))
            .map(str::as_bytes),
    );
    let real = |path: &PathBuf| path.canonicalize().unwrap_or_else(|_| path.clone());
    let paths: Vec<PathBuf> = p.paths.iter().map(real).collect();
    let mut read: Vec<PathBuf> = Vec::new();
    for path in p.prefixes.iter().map(real).chain(paths.iter().cloned()) {
        if !read.contains(&path) {
            read.push(path);
        }
    }
    Ok(TritonTool {
        python: python.to_path_buf(),
        triton_version: p.triton,
        python_version: p.python,
        identity,
        read,
        paths,
    })
}

/// The Python a config names, else `$AORLTA_TRITON_PYTHON`, else `python3` on the PATH. A bare
/// name (no `/`) is looked up on this process's PATH: the probe runs the interpreter by its path
/// in a jail, and a bare name would be taken for a file of the current folder.
pub(crate) fn python_of(configured: Option<&Path>) -> PathBuf {
    let named = configured
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("AORLTA_TRITON_PYTHON").map(PathBuf::from))
        .unwrap_or_else(|| PathBuf::from("python3"));
    match named.to_str() {
        Some(name) if !name.contains('/') => super::find_on_path(name).unwrap_or(named),
        _ => named,
    }
}

/// The Triton type of each declared parameter, in order: pointers by their buffer's dtype,
/// scalars by their C++ type.
fn triton_params(task: &KernelTaskDef) -> Result<Vec<(String, String)>, CompileFailure> {
    let bad =
        |m: String| CompileFailure::unsettled(KernelReason::BadParams, format!("task {}: {m}", task.spec.id));
    let params = signature_parameters(&task.spec.signature).map_err(|e| bad(e.to_string()))?;
    params
        .iter()
        .map(|p| {
            let ty = match p.kind {
                ParamKind::Pointer => {
                    let b = task
                        .spec
                        .buffers
                        .iter()
                        .find(|b| b.name == p.name)
                        .ok_or_else(|| bad(format!("pointer `{}` names no buffer", p.name)))?;
                    match b.dtype {
                        Dtype::F32 => "*fp32",
                        Dtype::F16 => "*fp16",
                        Dtype::Bf16 => "*bf16",
                        Dtype::I32 => "*i32",
                        Dtype::U32 => "*u32",
                        Dtype::I64 => "*i64",
                    }
                }
                ParamKind::Scalar("i") => "i32",
                ParamKind::Scalar("j") => "u32",
                ParamKind::Scalar("l" | "x") => "i64",
                ParamKind::Scalar("m" | "y") => "u64",
                ParamKind::Scalar("f") => "fp32",
                ParamKind::Scalar("d") => "fp64",
                _ => return Err(bad(format!("parameter `{}` has no Triton type", p.name))),
            };
            Ok((p.name.clone(), ty.to_string()))
        })
        .collect()
}

/// The metadata the driver writes beside the code object.
#[derive(Debug, Deserialize)]
struct Meta {
    name: String,
    triton_version: String,
    num_warps: u32,
    num_stages: u32,
    num_ctas: u32,
    shared: u64,
    global_scratch_size: u64,
    profile_scratch_size: u64,
    launch_cooperative_grid: bool,
    launch_pdl: bool,
    tmem_size: u64,
    constexprs: BTreeMap<String, i64>,
    grid: Option<[String; 3]>,
    entry_params: i64,
}

/// A failure the driver reported in `error.json`.
#[derive(Debug, Deserialize)]
struct DriverError {
    kind: String,
    message: String,
}

/// Compiles a Triton source for `task` in the sandbox: its code object, with its launch.
pub(crate) fn compile(
    env: &dyn CompileEnv,
    task: &KernelTaskDef,
    source: &str,
) -> Result<Object, CompileFailure> {
    let tool = env
        .triton()
        .map_err(|e| CompileFailure::unsettled(KernelReason::NoCompiler, e))?;
    let params = triton_params(task)?;
    let spec = task.spec.triton_spec();
    let config = env.config();
    let arch: u32 = config
        .arch
        .trim_start_matches("sm_")
        .trim_end_matches('a')
        .parse()
        .map_err(|_| {
            CompileFailure::unsettled(
                KernelReason::BadParams,
                format!("kernel.arch `{}` is no sm_NN architecture", config.arch),
            )
        })?;
    let parent = env.work_dir().join("compile");
    let dir = std::fs::create_dir_all(&parent)
        .and_then(|_| tempfile::Builder::new().prefix("triton-").tempdir_in(&parent))
        .map_err(|e| {
            CompileFailure::unsettled(KernelReason::WorkDirError, format!("{}: {e}", parent.display()))
        })?;
    let work = std::path::absolute(dir.path())
        .map_err(|e| CompileFailure::unsettled(KernelReason::WorkDirError, e.to_string()))?;
    let job = serde_json::json!({
        "name": task.kernel_name(),
        "params": params.iter().map(|(n, t)| serde_json::json!({"name": n, "type": t})).collect::<Vec<_>>(),
        "constexprs": spec.constexprs,
        "num_warps": spec.num_warps,
        "num_stages": spec.num_stages,
        "arch": arch,
        "paths": tool.paths,
        // The driver stops its child a little before the sandbox's own limit.
        "deadline_s": (config.compile_timeout_s - 0.5).max(0.5),
    });
    let write = || -> std::io::Result<()> {
        std::fs::write(work.join("job.json"), job.to_string())?;
        std::fs::write(work.join("kernel.py"), source)?;
        std::fs::write(work.join("triton_compile.py"), DRIVER)
    };
    write().map_err(|e| CompileFailure::unsettled(KernelReason::WorkDirError, e.to_string()))?;
    let jail = Jail {
        read: tool.read.clone(),
        work: work.clone(),
        inputs: ["job.json", "kernel.py", "triton_compile.py"]
            .map(String::from)
            .to_vec(),
        outputs: ["error.json", "meta.json", "kernel.cubin"]
            .map(String::from)
            .to_vec(),
        libs_only: false,
    };
    let limits = Limits {
        timeout: Duration::from_secs_f64(config.compile_timeout_s),
        memory_bytes: config.compile_memory_mb << 20,
        output_bytes: super::process::OUTPUT_LIMIT,
        cpu_seconds: Some(config.compile_timeout_s.ceil() as u64 * 2 + 1),
    };
    let cache = work.join(".triton");
    let vars: [(&str, &std::ffi::OsStr); 2] = [
        ("TRITON_CACHE_DIR", cache.as_os_str()),
        ("TRITON_HOME", work.as_os_str()),
    ];
    let start = Instant::now();
    let run =
        sandbox::run_with(&tool.python, &["-I", "triton_compile.py"], &jail, limits, &vars).map_err(|e| {
            match e {
                SandboxError::Unavailable(why) => {
                    CompileFailure::unsettled(KernelReason::CompileSandboxUnavailable, why)
                }
                SandboxError::Io(e) => CompileFailure::unsettled(
                    KernelReason::NoCompiler,
                    format!("{}: {e}", tool.python.display()),
                ),
            }
        })?;
    let compile_s = start.elapsed().as_secs_f64();
    let timeout = || {
        CompileFailure::broke(
            KernelReason::CompileTimeout,
            format!(
                "the Triton compile ran past {} s and was stopped",
                config.compile_timeout_s
            ),
        )
    };
    if run.killed_from_outside() {
        return Err(super::process::killed("the Triton compile"));
    }
    if run.timed_out || run.signal == Some(libc::SIGXCPU) {
        return Err(timeout());
    }
    if let Some(e) =
        read_small(&work.join("error.json")).and_then(|b| serde_json::from_slice::<DriverError>(&b).ok())
    {
        return Err(driver_failure(&e, config.compile_memory_mb));
    }
    if !run.success {
        if run.code == Some(124) {
            return Err(timeout());
        }
        return Err(super::process::failure(
            "",
            run.signal,
            "the Triton compile ended without a code object",
            config.compile_memory_mb,
        ));
    }
    let meta: Meta = read_small(&work.join("meta.json"))
        .and_then(|b| serde_json::from_slice(&b).ok())
        .ok_or_else(|| {
            CompileFailure::broke(KernelReason::CompileError, "the Triton compile wrote no metadata")
        })?;
    let bytes = std::fs::read(work.join("kernel.cubin")).map_err(|e| {
        CompileFailure::broke(
            KernelReason::CompileError,
            format!("no code object was written: {e}"),
        )
    })?;
    let launch = launch_of(task, &tool.triton_version, params.len(), &meta)?;
    Ok(Object {
        bytes,
        compile_s,
        launch: Some(launch),
    })
}

/// A file of at most 64 KiB (larger is no answer of the driver's).
fn read_small(path: &Path) -> Option<Vec<u8>> {
    let b = std::fs::read(path).ok()?;
    (b.len() <= 64 * 1024).then_some(b)
}

/// The driver's report of a failure, as a reason; its message is the candidate's own (its
/// Python ran in the process that wrote it), cut short and stripped of control characters.
fn driver_failure(e: &DriverError, memory_mb: u64) -> CompileFailure {
    let message: String = e
        .message
        .chars()
        .filter(|c| !c.is_control() || *c == '\n')
        .take(1500)
        .collect();
    if message.contains("MemoryError") || message.contains("out of memory") {
        return CompileFailure::broke(
            KernelReason::CompileMemory,
            format!("the Triton compile ran out of its {memory_mb} MiB memory limit: {message}"),
        );
    }
    let code = match e.kind.as_str() {
        "kernel-not-found" => KernelReason::KernelNotFound,
        "signature" => KernelReason::SignatureMismatch,
        _ => KernelReason::CompileError,
    };
    CompileFailure::broke(code, message)
}

/// Checks the metadata against the task and the Triton that compiled it; the launch it gives.
fn launch_of(
    task: &KernelTaskDef,
    triton_version: &str,
    declared: usize,
    meta: &Meta,
) -> Result<ImageLaunch, CompileFailure> {
    let spec = task.spec.triton_spec();
    let refuse = |m: String| CompileFailure::broke(KernelReason::CompileError, m);
    if meta.name != task.kernel_name() {
        return Err(CompileFailure::broke(
            KernelReason::KernelNotFound,
            format!(
                "the code object's kernel is `{}`, not `{}`",
                meta.name,
                task.kernel_name()
            ),
        ));
    }
    if meta.triton_version != triton_version {
        return Err(refuse(format!(
            "the code object was made by Triton {}, not the toolkit's {triton_version}",
            meta.triton_version
        )));
    }
    if !spec.num_warps.contains(&meta.num_warps) || !spec.num_stages.contains(&meta.num_stages) {
        return Err(refuse(format!(
            "num_warps {} and num_stages {}: the task allows {:?} and {:?}",
            meta.num_warps, meta.num_stages, spec.num_warps, spec.num_stages
        )));
    }
    for (name, value) in &meta.constexprs {
        if !spec
            .constexprs
            .get(name)
            .is_some_and(|allowed| allowed.contains(value))
        {
            return Err(refuse(format!(
                "constexpr `{name}` = {value} is not one the task allows"
            )));
        }
    }
    let unsupported = [
        (meta.num_ctas != 1, "more than one CTA per program (num_ctas)"),
        (meta.global_scratch_size != 0, "global scratch memory"),
        (meta.profile_scratch_size != 0, "profile scratch memory"),
        (meta.launch_cooperative_grid, "a cooperative launch"),
        (meta.launch_pdl, "a programmatic dependent launch"),
        (meta.tmem_size != 0, "tensor memory"),
    ];
    if let Some((_, what)) = unsupported.iter().find(|(bad, _)| *bad) {
        return Err(refuse(format!(
            "the compiled kernel needs {what}, which the harness does not provide"
        )));
    }
    let trailing = meta.entry_params - declared as i64;
    if !(0..=i64::from(MAX_TRAILING)).contains(&trailing) {
        return Err(CompileFailure::broke(
            KernelReason::SignatureMismatch,
            format!(
                "the compiled kernel takes {} parameters; the task declares {declared}",
                meta.entry_params
            ),
        ));
    }
    let shared_bytes =
        u32::try_from(meta.shared).map_err(|_| refuse(format!("{} bytes of shared memory", meta.shared)))?;
    let mut vars: BTreeMap<String, i64> = spec.constexprs.iter().map(|(k, v)| (k.clone(), v[0])).collect();
    vars.extend(meta.constexprs.iter().map(|(k, v)| (k.clone(), *v)));
    vars.insert("num_warps".into(), i64::from(meta.num_warps));
    let grid = meta.grid.clone().unwrap_or_else(|| task.spec.grid.clone());
    for (i, size) in task.spec.sizes.iter().enumerate() {
        let mut all = size.clone();
        all.extend(vars.iter().map(|(k, v)| (k.clone(), *v)));
        for e in &grid {
            eval_count(e, &all).map_err(|err| refuse(format!("grid `{e}` at size {i}: {err}")))?;
        }
    }
    Ok(ImageLaunch {
        grid,
        block: [meta.num_warps * 32, 1, 1],
        shared_bytes,
        vars,
        trailing_pointers: trailing as u32,
    })
}

/// The launch the fake compiler gives a Triton task's source: the task's defaults, with the
/// two scratch pointers Triton 3.6 adds; a fake spec's seven launch values, when it has them,
/// stand for the grid, block and shared memory the source asked for.
pub(crate) fn fake_launch(task: &KernelTaskDef, asked: Option<&[u32]>) -> ImageLaunch {
    let spec = task.spec.triton_spec();
    let mut vars: BTreeMap<String, i64> = spec.constexprs.iter().map(|(k, v)| (k.clone(), v[0])).collect();
    vars.insert("num_warps".into(), i64::from(spec.num_warps[0]));
    let mut launch = ImageLaunch {
        grid: task.spec.grid.clone(),
        block: [spec.num_warps[0] * 32, 1, 1],
        shared_bytes: 0,
        vars,
        trailing_pointers: 2,
    };
    if let Some(&[gx, gy, gz, bx, by, bz, shared]) = asked {
        launch.grid = [gx.to_string(), gy.to_string(), gz.to_string()];
        launch.block = [bx, by, bz];
        launch.shared_bytes = shared;
    }
    launch
}

#[cfg(test)]
mod tests {
    use super::python_of;
    use std::path::{Path, PathBuf};

    /// `python3` with a venv first on the PATH (the device machine's `/opt/torch/.venv`) is that
    /// venv's interpreter, by its path: the probe once took the bare name for `./python3`.
    #[test]
    fn a_bare_python_name_is_found_on_the_path_and_a_path_is_kept() {
        let sh = python_of(Some(Path::new("sh")));
        assert!(sh.is_absolute() && sh.is_file(), "{}", sh.display());
        assert_eq!(python_of(Some(Path::new("./py"))), PathBuf::from("./py"));
        assert_eq!(
            python_of(Some(Path::new("/opt/x/bin/python"))),
            PathBuf::from("/opt/x/bin/python")
        );
        let missing = "no-such-python-anywhere";
        assert_eq!(python_of(Some(Path::new(missing))), PathBuf::from(missing));
    }
}
