//! [`KernelEnv`]: everything the kernel legs need, built once per process from the run
//! config's `kernel:` section and shared by every leg and thread: the compiler and its version,
//! the harness program and its processes (one per leased GPU), the GPU leases, the compile
//! cache, the secret that input seeds are drawn from, and (with the fake device) the registered
//! fake behaviours.

use super::config::{GpuSet, KernelConfig, Platform};
use super::fake::FakeSpec;
use super::pool::HarnessPool;
use crate::compiler::cache::CompileCache;
use crate::compiler::nvcc::nvcc_version;
use crate::compiler::nvrtc::NvrtcPool;
use crate::lease::LeaseSet;
use aorlta_check::Env;
use aorlta_check::Generations;
use aorlta_check::{CoreError, Result};
use aorlta_record::DeviceList;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, RwLock};
use std::time::{Duration, Instant};

/// How to start the harness: a program and the arguments before its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessCommand {
    /// The program.
    pub program: PathBuf,
    /// Leading arguments (`["harness"]` when the `aorlta` executable serves as the harness).
    pub args: Vec<String>,
}

impl HarnessCommand {
    /// The harness the config names, else `$AORLTA_HARNESS`, else `aorlta-harness` beside the
    /// running executable (or one folder up, for test binaries under `deps/`), else the running
    /// executable's `harness` subcommand.
    pub fn resolve(configured: Option<&Path>) -> Self {
        let plain = |p: PathBuf| HarnessCommand {
            program: p,
            args: Vec::new(),
        };
        if let Some(p) = configured {
            return plain(p.to_path_buf());
        }
        if let Some(p) = std::env::var_os("AORLTA_HARNESS") {
            return plain(PathBuf::from(p));
        }
        let exe = std::env::current_exe().unwrap_or_else(|_| PathBuf::from("aorlta"));
        if let Some(dir) = exe.parent() {
            for d in [Some(dir), dir.parent()].into_iter().flatten() {
                let cand = d.join("aorlta-harness");
                if cand.is_file() {
                    return plain(cand);
                }
            }
        }
        HarnessCommand {
            program: exe,
            args: vec!["harness".into()],
        }
    }

    /// A command for one of the harness's subcommands.
    pub fn command(&self, sub: &str, fake: bool) -> Command {
        let mut c = Command::new(&self.program);
        c.args(&self.args).arg(sub);
        if fake {
            c.arg("--fake");
        }
        c.env("CUDA_MODULE_LOADING", "EAGER");
        c
    }
}

/// The NVRTC worker: the hidden `nvrtc-worker` subcommand of the `aorlta` executable the
/// config names, else of `$AORLTA_NVRTC_WORKER`, else of the running executable.
fn nvrtc_worker_command(configured: Option<&Path>) -> (PathBuf, Vec<String>) {
    let program = configured
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("AORLTA_NVRTC_WORKER").map(PathBuf::from))
        .unwrap_or_else(|| std::env::current_exe().unwrap_or_else(|_| PathBuf::from("aorlta")));
    (program, vec!["nvrtc-worker".into()])
}

/// Kernel tools: compiler, harness, GPU leases, caches.
pub struct KernelEnv {
    config: KernelConfig,
    work_dir: PathBuf,
    lease_dir: PathBuf,
    nvcc: Option<PathBuf>,
    hipcc: Option<PathBuf>,
    /// The NVRTC compile workers (`kernel.compiler: nvrtc`, NVRTC found).
    nvrtc: Option<NvrtcPool>,
    harness: HarnessCommand,
    compiler_version: OnceLock<std::result::Result<String, String>>,
    triton: OnceLock<std::result::Result<crate::compiler::triton::TritonTool, String>>,
    devices: OnceLock<std::result::Result<DeviceList, String>>,
    leases: OnceLock<std::result::Result<LeaseSet, String>>,
    compiles: CompileCache,
    fakes: RwLock<HashMap<String, FakeSpec>>,
    pool: HarnessPool,
    secret: u64,
    /// Seed-draw counters (epoch, draws) by a 128-bit hash of the purpose: 32 bytes an entry,
    /// both generations allocated at start, so the service's memory does not creep as they fill.
    draws: Mutex<Generations<u128, (u64, u64)>>,
    jobs: AtomicU64,
}

impl std::fmt::Debug for KernelEnv {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("KernelEnv")
            .field("config", &self.config)
            .field("work_dir", &self.work_dir)
            .field("nvcc", &self.nvcc)
            .field("hipcc", &self.hipcc)
            .field("harness", &self.harness)
            .finish_non_exhaustive()
    }
}

/// A fresh secret from the operating system's generator. There is no fallback: seeds a model
/// could predict would let it tune a kernel to them, so without OS randomness nothing runs.
fn random_secret() -> Result<u64> {
    getrandom::u64().map_err(|e| CoreError::Randomness(e.to_string()))
}

/// `gfx` and a lower-case hex-ish model (`gfx90a`, `gfx942`), optionally with target features
/// (`gfx90a:xnack-`).
fn is_amd_arch(a: &str) -> bool {
    let (model, features) = a.split_once(':').unwrap_or((a, ""));
    model.strip_prefix("gfx").is_some_and(|m| {
        !m.is_empty() && m.len() <= 5 && m.chars().all(|c| c.is_ascii_digit() || c.is_ascii_lowercase())
    }) && features.split(':').all(|f| {
        f.is_empty()
            || (f.ends_with(['+', '-']) && f[..f.len() - 1].chars().all(|c| c.is_ascii_alphanumeric()))
    })
}

/// The host's name.
pub(crate) fn hostname() -> String {
    // `gethostname` is `uname`'s node name on Linux.
    let name = rustix::system::uname().nodename().to_string_lossy().into_owned();
    if name.is_empty() {
        "unknown-host".into()
    } else {
        name
    }
}

/// What a command line may set over a `kernel:` section (`--fake-gpu`, `--gpus`, `--compiler`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct KernelOverrides {
    /// Run on the fake device, whatever the section says.
    pub fake_gpu: bool,
    /// The GPUs to lease instead of the section's.
    pub gpus: Option<GpuSet>,
    /// The compiler of CUDA sources instead of the section's.
    pub compiler: Option<crate::config::CompilerChoice>,
}

impl KernelConfig {
    /// The config with a command line's overrides applied.
    pub fn overridden(mut self, o: &KernelOverrides) -> Self {
        self.fake_gpu |= o.fake_gpu;
        if let Some(g) = &o.gpus {
            self.gpus = g.clone();
        }
        if let Some(c) = o.compiler {
            self.compiler = c;
        }
        self
    }
}

/// The environment of the kernel commands (`validate`, `timecheck`, `bench kernels`): kernel
/// tools built from `config`, scratch in their work folder. The one way those commands set up
/// their tools, so they all run the legs alike.
pub fn env_with_kernel(config: &KernelConfig) -> Result<Env> {
    let kernel = KernelEnv::from_config(config)?;
    Ok(Env::new(kernel.work_dir()).with_tools(kernel))
}

/// A leg environment with scratch in `work_dir` and, when the run has kernel legs, these kernel
/// tools.
pub fn env_of(work_dir: PathBuf, kernel: Option<KernelEnv>) -> Env {
    let env = Env::new(work_dir);
    match kernel {
        Some(k) => env.with_tools(k),
        None => env,
    }
}

/// The kernel lane's view of a leg's [`Env`]: its [`KernelEnv`], when the run set one up.
pub trait KernelTools {
    /// The kernel tools; `None` when the run has no kernel legs.
    fn kernel(&self) -> Option<&KernelEnv>;
}

impl KernelTools for Env {
    fn kernel(&self) -> Option<&KernelEnv> {
        self.tools::<KernelEnv>()
    }
}

impl KernelEnv {
    /// The kernel tools of a run or service config's `kernel:` section (`None` without one):
    /// paths in it resolve against `config_file`, its work folder defaults to
    /// `<work_dir>/kernel`, and `gpus`, when given, overrides the section's.
    pub fn from_section(
        section: Option<&serde_norway::Value>,
        config_file: &Path,
        work_dir: &Path,
        gpus: Option<crate::config::GpuSet>,
    ) -> Result<Option<Self>> {
        let overrides = KernelOverrides {
            gpus,
            ..KernelOverrides::default()
        };
        Self::from_section_with(section, config_file, work_dir, &overrides)
    }

    /// [`KernelEnv::from_section`] with a command line's overrides.
    pub fn from_section_with(
        section: Option<&serde_norway::Value>,
        config_file: &Path,
        work_dir: &Path,
        overrides: &KernelOverrides,
    ) -> Result<Option<Self>> {
        let Some(section) = section else { return Ok(None) };
        let mut config = KernelConfig::from_section(section, config_file)?;
        if config.work_dir.is_none() {
            config.work_dir = Some(work_dir.join("kernel"));
        }
        Self::from_config(&config.overridden(overrides)).map(Some)
    }

    /// Builds the environment from a config. Nothing is started: the compiler's version, the
    /// device list and the harness processes are found on first use.
    pub fn from_config(config: &KernelConfig) -> Result<Self> {
        let origin = Path::new("<kernel config>");
        if !config.arch.starts_with("sm_") || !config.arch[3..].chars().all(|c| c.is_ascii_alphanumeric()) {
            return Err(CoreError::invalid(
                origin,
                format!("field `arch`: `{}` is not like `sm_90`", config.arch),
            ));
        }
        if let Some(a) = config.hip_arch.iter().find(|a| !is_amd_arch(a)) {
            return Err(CoreError::invalid(
                origin,
                format!("field `hip-arch`: `{a}` is not like `gfx942`"),
            ));
        }
        if !(1..=crate::config::MAX_CHECKS_PER_GPU).contains(&config.checks_per_gpu) {
            return Err(CoreError::invalid(
                origin,
                format!(
                    "field `checks-per-gpu`: {} is not 1 to {}",
                    config.checks_per_gpu,
                    crate::config::MAX_CHECKS_PER_GPU
                ),
            ));
        }
        if !(config.compile_timeout_s > 0.0 && config.lease_wait_s >= 0.0) {
            return Err(CoreError::invalid(
                origin,
                "fields `compile-timeout-s` and `lease-wait-s` must be positive",
            ));
        }
        if !config.fakes.is_empty() && !config.fake_gpu {
            return Err(CoreError::invalid(
                origin,
                "field `fakes`: only with `fake-gpu: true` (it says how sources behave on the fake device)",
            ));
        }
        let tmp = std::env::temp_dir();
        let uid = rustix::process::getuid().as_raw();
        let work_dir = config
            .work_dir
            .clone()
            .unwrap_or_else(|| tmp.join(format!("aorlta-kernel-{uid}")));
        std::fs::create_dir_all(&work_dir).map_err(|e| CoreError::io(&work_dir, e))?;
        let lease_dir = config.lease_dir.clone().unwrap_or_else(|| {
            tmp.join(if config.fake_gpu {
                "aorlta-leases-fake"
            } else {
                "aorlta-leases"
            })
        });
        let nvcc = config
            .nvcc
            .clone()
            .or_else(|| std::env::var_os("AORLTA_NVCC").map(PathBuf::from))
            .or_else(|| crate::compiler::find_on_path("nvcc"))
            .or_else(|| Some(PathBuf::from("/usr/local/cuda/bin/nvcc")).filter(|p| p.is_file()));
        let hipcc = config
            .hipcc
            .clone()
            .or_else(|| std::env::var_os("AORLTA_HIPCC").map(PathBuf::from))
            .or_else(|| crate::compiler::find_on_path("hipcc"))
            .or_else(|| {
                let rocm = std::env::var_os("ROCM_PATH").map(PathBuf::from);
                rocm.into_iter()
                    .chain([PathBuf::from("/opt/rocm")])
                    .map(|r| r.join("bin/hipcc"))
                    .find(|p| p.is_file())
            });
        let secret = match config.secret {
            Some(s) => s,
            None if config.fake_gpu => 0x5EED_F00D,
            None => random_secret()?,
        };
        // `auto` is nvcc, the compiler users deploy with; NVRTC only when asked for by name.
        let found = (config.platform == Platform::Nvidia
            && !config.fake_gpu
            && config.compiler == crate::config::CompilerChoice::Nvrtc)
            .then(|| crate::compiler::nvrtc::NvrtcInstall::find(nvcc.as_deref()))
            .flatten();
        let mut config = config.clone();
        if config.compiler == crate::config::CompilerChoice::Auto {
            config.compiler = crate::config::CompilerChoice::Nvcc;
        }
        let nvrtc = found
            .filter(|_| config.compiler == crate::config::CompilerChoice::Nvrtc)
            .map(|install| {
                let (program, args) = nvrtc_worker_command(config.nvrtc_worker.as_deref());
                NvrtcPool::new(install, program, args)
            });
        let compiles = CompileCache::new(config.compile_cache_entries, config.compile_jobs());
        let mut fakes = HashMap::new();
        for f in &config.fakes {
            let mut source = std::fs::read_to_string(&f.source).map_err(|e| CoreError::io(&f.source, e))?;
            if !source.ends_with('\n') {
                source.push('\n');
            }
            fakes.insert(aorlta_check::hash_str(&source), f.fake.clone());
        }
        Ok(KernelEnv {
            harness: HarnessCommand::resolve(config.harness.as_deref()),
            work_dir,
            lease_dir,
            nvcc,
            hipcc,
            nvrtc,
            compiler_version: OnceLock::new(),
            triton: OnceLock::new(),
            devices: OnceLock::new(),
            leases: OnceLock::new(),
            compiles,
            fakes: RwLock::new(fakes),
            pool: HarnessPool::default(),
            secret,
            draws: Mutex::new(Generations::preallocated(DRAWS_PER_GENERATION)),
            config,
            jobs: AtomicU64::new(0),
        })
    }

    /// With the fake device, tools that compile with the real compilers of the same config
    /// (nvcc or NVRTC, hipcc, Triton, found as a GPU run finds them), in their own work folder,
    /// for `task check` to compile what the fake device only pretends to. Nothing is started:
    /// a missing compiler is found when a compile asks for it.
    pub fn real_compilers(&self) -> Result<KernelEnv> {
        let mut config = self.config.clone();
        config.fake_gpu = false;
        config.fakes.clear();
        config.work_dir = Some(self.work_dir.join("real-compilers"));
        KernelEnv::from_config(&config)
    }

    /// The config it was built from.
    pub fn config(&self) -> &KernelConfig {
        &self.config
    }

    /// True with the fake device.
    pub fn is_fake(&self) -> bool {
        self.config.fake_gpu
    }

    /// The scratch folder.
    pub fn work_dir(&self) -> &Path {
        &self.work_dir
    }

    /// The compiler, if one was found.
    pub fn nvcc(&self) -> Option<&Path> {
        self.nvcc.as_deref()
    }

    /// The HIP compiler, if one was found.
    pub fn hipcc(&self) -> Option<&Path> {
        self.hipcc.as_deref()
    }

    /// The platform the kernels run on.
    pub fn platform(&self) -> Platform {
        self.config.platform
    }

    /// The AMD architectures HIP sources are compiled for: `hip-arch`, else those of the
    /// leasable GPUs (as the harness reports them).
    pub fn hip_archs(&self) -> std::result::Result<Vec<String>, String> {
        if !self.config.hip_arch.is_empty() {
            return Ok(self.config.hip_arch.clone());
        }
        let set = self.gpu_set()?;
        let mut archs: Vec<String> = self
            .devices()?
            .devices
            .iter()
            .filter(|d| set.contains(&d.index))
            .filter_map(|d| d.arch.clone())
            .collect();
        archs.sort();
        archs.dedup();
        if archs.is_empty() {
            return Err("no AMD architecture to compile for: set kernel.hip-arch (e.g. [gfx942])".into());
        }
        Ok(archs)
    }

    /// A command for one of the harness's subcommands, with this platform's flags: `--fake`
    /// for the fake device, `--hip` (and its compiler and architecture) on AMD, the CUDA
    /// compiler on NVIDIA.
    pub fn harness_command(&self, sub: &str) -> Command {
        let mut cmd = self.harness.command(sub, self.is_fake());
        if self.is_fake() {
            return cmd;
        }
        let serving = sub != "devices";
        match self.config.platform {
            Platform::Nvidia => {
                if let (true, Some(nvcc)) = (serving, &self.nvcc) {
                    cmd.arg("--nvcc").arg(nvcc);
                }
            }
            Platform::Amd => {
                cmd.arg("--hip");
                if let (true, Some(hipcc)) = (serving, &self.hipcc) {
                    cmd.arg("--hipcc").arg(hipcc);
                }
                if let (true, [arch]) = (serving, self.config.hip_arch.as_slice()) {
                    cmd.arg("--offload-arch").arg(arch);
                }
            }
        }
        cmd
    }

    /// The harness command.
    pub fn harness(&self) -> &HarnessCommand {
        &self.harness
    }

    /// The harness processes.
    pub fn pool(&self) -> &HarnessPool {
        &self.pool
    }

    /// The compiler's version string (`release 13.0, V13.0.88; Build cuda_13.0…`).
    pub fn compiler_version(&self) -> std::result::Result<&str, String> {
        self.compiler_version
            .get_or_init(|| {
                if self.is_fake() {
                    return Ok("fake-nvcc 1".into());
                }
                match (self.config.platform, &self.nvcc, &self.hipcc) {
                    (Platform::Nvidia, Some(p), _) if self.config.compiler == crate::config::CompilerChoice::Nvrtc => {
                        let Some(pool) = &self.nvrtc else {
                            return Err("kernel.compiler is nvrtc and no NVRTC was found beside nvcc (or under AORLTA_NVRTC_LIB)".into());
                        };
                        let nvrtc = pool.version(self)?.to_string();
                        Ok(format!("nvrtc {nvrtc} (CUDA sources); {}", nvcc_version(p)?))
                    }
                    (Platform::Nvidia, Some(p), _) => nvcc_version(p),
                    (Platform::Nvidia, None, _) => {
                        Err("no nvcc found (set kernel.nvcc or AORLTA_NVCC)".into())
                    }
                    (Platform::Amd, _, Some(p)) => crate::compiler::hipcc::hipcc_version(p),
                    (Platform::Amd, _, None) => {
                        Err("no hipcc found (set kernel.hipcc or AORLTA_HIPCC)".into())
                    }
                }
            })
            .as_deref()
            .map_err(Clone::clone)
    }

    /// The Python with Triton that compiles Triton tasks, probed the first time it is asked.
    pub fn triton(&self) -> std::result::Result<&crate::compiler::triton::TritonTool, String> {
        self.triton
            .get_or_init(|| {
                let python = crate::compiler::triton::python_of(self.config.triton_python.as_deref());
                crate::compiler::triton::probe(&python)
                    .map_err(|e| format!("{e} (set kernel.triton-python or AORLTA_TRITON_PYTHON)"))
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The host's devices, asked of the harness once.
    pub fn devices(&self) -> std::result::Result<&DeviceList, String> {
        self.devices
            .get_or_init(|| self.query_devices())
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The first device, as `name (uuid, driver d)`; empty when there is none.
    pub fn device_label(&self) -> String {
        self.devices()
            .ok()
            .and_then(|l| l.devices.first())
            .map(|d| format!("{} ({}, driver {})", d.name, d.uuid, d.driver))
            .unwrap_or_default()
    }

    fn query_devices(&self) -> std::result::Result<DeviceList, String> {
        let out = self.work_dir.join(format!("devices-{}.json", std::process::id()));
        let mut cmd = self.harness_command("devices");
        cmd.arg("--out")
            .arg(&out)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        let mut child = cmd
            .spawn()
            .map_err(|e| format!("cannot start the harness {}: {e}", self.harness.program.display()))?;
        let start = Instant::now();
        loop {
            if child.try_wait().map_err(|e| e.to_string())?.is_some() {
                break;
            }
            if start.elapsed() > Duration::from_secs(120) {
                let _ = child.kill();
                let _ = child.wait();
                return Err("the harness took over 120 s to list the devices".into());
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let text = std::fs::read(&out).map_err(|e| format!("the harness wrote no device list: {e}"))?;
        let _ = std::fs::remove_file(&out);
        let list: DeviceList = serde_json::from_slice(&text).map_err(|e| format!("device list: {e}"))?;
        if let Some(e) = &list.error {
            return Err(format!("{}: {}", e.code, e.detail));
        }
        Ok(list)
    }

    /// The GPUs leases are taken from.
    pub fn gpu_set(&self) -> std::result::Result<Vec<u32>, String> {
        match &self.config.gpus {
            GpuSet::List(l) => Ok(l.clone()),
            GpuSet::All => Ok(self.devices()?.devices.iter().map(|d| d.index).collect()),
        }
    }

    /// The lease set if a job already created it (never starts anything: for metrics).
    pub fn leases_if_started(&self) -> Option<&LeaseSet> {
        self.leases.get().and_then(|r| r.as_ref().ok())
    }

    /// The lease set.
    pub fn leases(&self) -> std::result::Result<&LeaseSet, String> {
        self.leases
            .get_or_init(|| {
                let gpus = self.gpu_set()?;
                if gpus.is_empty() {
                    return Err("no GPU to lease".into());
                }
                LeaseSet::new(&self.lease_dir, gpus)
                    .map(|s| s.with_shared(self.config.checks_per_gpu))
                    .map_err(|e| e.to_string())
            })
            .as_ref()
            .map_err(Clone::clone)
    }

    /// The host fingerprint for timing identities: host name, the leasable GPUs' models, UUIDs
    /// and driver, and the `gpus` setting.
    pub fn host_fingerprint(&self) -> String {
        let gpus = match self.devices() {
            Ok(list) => {
                let set = self.gpu_set().unwrap_or_default();
                list.devices
                    .iter()
                    .filter(|d| set.contains(&d.index))
                    .map(|d| format!("{}|{}|{}|{}", d.index, d.name, d.uuid, d.driver))
                    .collect::<Vec<_>>()
                    .join(";")
            }
            Err(e) => format!("no devices: {e}"),
        };
        format!(
            "host={};gpus-setting={};devices={gpus}",
            hostname(),
            self.config.gpus
        )
    }

    /// A fresh seed drawn from the secret for a purpose (`<task>/<source hash>/<use>`): the
    /// k-th draw for one purpose is the first 64 bits of blake3 over the purpose, k and the
    /// secret, so a run with a fixed secret repeats case by case, and without the secret no
    /// seed can be known.
    pub fn next_seed(&self, purpose: &str) -> u64 {
        // The counters are bounded by generations; a purpose whose counter was dropped starts
        // again at a later epoch (the number of generations dropped so far), so it never
        // draws a seed it drew before.
        let key = purpose_key(purpose);
        let (epoch, k) = match self.draws.lock() {
            Ok(mut m) => {
                let epoch = m.turns();
                let (c, _dropped) = m.get_or_insert_with(&key, || (epoch, 0));
                c.1 += 1;
                *c
            }
            Err(_) => (0, 0),
        };
        let mut h = blake3::Hasher::new();
        h.update(purpose.as_bytes())
            .update(&k.to_le_bytes())
            .update(&self.secret.to_le_bytes());
        // Epoch 0 (no counter dropped yet) draws the seeds it always did.
        if epoch > 0 {
            h.update(&epoch.to_le_bytes());
        }
        let mut first = [0u8; 8];
        h.finalize_xof().fill(&mut first);
        u64::from_le_bytes(first)
    }

    /// A fresh job number.
    pub fn next_job(&self) -> u64 {
        self.jobs.fetch_add(1, Ordering::Relaxed)
    }

    /// Registers how a source behaves on the fake device.
    pub fn add_fake(&self, source: &str, spec: FakeSpec) {
        if let Ok(mut m) = self.fakes.write() {
            m.insert(aorlta_check::hash_str(source), spec);
        }
    }

    /// The fake behaviour registered for a source hash.
    pub fn fake_spec(&self, source_hash: &str) -> Option<FakeSpec> {
        self.fakes.read().ok().and_then(|m| m.get(source_hash).cloned())
    }

    /// The process's compile outcomes and compiler slots.
    pub fn compiles(&self) -> &CompileCache {
        &self.compiles
    }

    /// Seed-draw counters kept now (at most twice `DRAWS_PER_GENERATION`).
    pub fn draws_len(&self) -> usize {
        self.draws.lock().map(|m| m.len()).unwrap_or(0)
    }
}

impl crate::compiler::CompileEnv for KernelEnv {
    fn config(&self) -> &KernelConfig {
        KernelEnv::config(self)
    }
    fn work_dir(&self) -> &Path {
        KernelEnv::work_dir(self)
    }
    fn platform(&self) -> Platform {
        KernelEnv::platform(self)
    }
    fn is_fake(&self) -> bool {
        KernelEnv::is_fake(self)
    }
    fn fake_spec(&self, source_hash: &str) -> Option<FakeSpec> {
        KernelEnv::fake_spec(self, source_hash)
    }
    fn nvcc(&self) -> Option<&Path> {
        KernelEnv::nvcc(self)
    }
    fn hipcc(&self) -> Option<&Path> {
        KernelEnv::hipcc(self)
    }
    fn nvrtc(&self) -> Option<&NvrtcPool> {
        self.nvrtc.as_ref()
    }
    fn hip_archs(&self) -> std::result::Result<Vec<String>, String> {
        KernelEnv::hip_archs(self)
    }
    fn compiler_version(&self) -> std::result::Result<&str, String> {
        KernelEnv::compiler_version(self)
    }
    fn compiles(&self) -> &CompileCache {
        KernelEnv::compiles(self)
    }
    fn triton(&self) -> std::result::Result<&crate::compiler::triton::TritonTool, String> {
        KernelEnv::triton(self)
    }
}

impl crate::pool::HarnessHost for KernelEnv {
    fn work_dir(&self) -> &Path {
        KernelEnv::work_dir(self)
    }
    fn harness_command(&self, sub: &str) -> Command {
        KernelEnv::harness_command(self, sub)
    }
    fn harness_program(&self) -> &Path {
        &self.harness().program
    }
    fn next_job(&self) -> u64 {
        KernelEnv::next_job(self)
    }
}

/// Starts a harness process for every GPU of the run's lease set that has none, each under its
/// GPU's lease, in background threads: the processes' contexts are made while the run's first
/// candidates compile. GPUs whose lease is taken elsewhere are skipped.
pub fn warm_harnesses(env: &std::sync::Arc<Env>) {
    let Some(kernel) = env.kernel() else { return };
    let Ok(leases) = kernel.leases() else { return };
    for _ in leases.gpus() {
        let env = std::sync::Arc::clone(env);
        let spawned = std::thread::Builder::new()
            .name("harness-warm".into())
            .spawn(move || {
                let Some(kernel) = env.kernel() else { return };
                let Ok(Some(lease)) = kernel
                    .leases()
                    .and_then(|l| l.try_acquire().map_err(|e| e.to_string()))
                else {
                    return;
                };
                kernel.pool().warm(kernel, lease.gpu());
                drop(lease);
            });
        if spawned.is_err() {
            return;
        }
    }
}

/// Seed-draw counters kept per generation: 7/8 of 65,536, so that each generation's table is
/// exactly 65,536 slots (2 MiB) and never resized.
pub(crate) const DRAWS_PER_GENERATION: usize = 57_344;

/// The key of a purpose's draw counter: the first 128 bits of its blake3 hash (two purposes
/// share a counter with chance about 2^-94 among the 2^17 kept, and then only draw later
/// seeds of a sequence).
fn purpose_key(purpose: &str) -> u128 {
    let mut first = [0u8; 16];
    first.copy_from_slice(&blake3::hash(purpose.as_bytes()).as_bytes()[..16]);
    u128::from_le_bytes(first)
}
