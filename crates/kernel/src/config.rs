//! The `kernel:` section of a run config: where the compiler and the harness are, which GPUs
//! may be leased and where their lock files live, the compile limits, and whether the fake
//! device stands in for a GPU. Keys are kebab-case (the snake_case spelling is accepted too);
//! unknown keys are an error.
//!
//! ```yaml
//! kernel:
//!   platform: nvidia                 # or amd
//!   nvcc: /usr/local/cuda/bin/nvcc   # default: $AORLTA_NVCC, else `nvcc` on the PATH
//!   arch: sm_90
//!   hipcc: /opt/rocm/bin/hipcc       # platform amd; default: $AORLTA_HIPCC, else `hipcc` on the PATH
//!   hip-arch: [gfx90a, gfx942]       # platform amd; default: the leased GPUs' architectures
//!   gpus: all                        # or [0, 1]
//!   lease-dir: /tmp/aorlta-leases
//!   compile-timeout-s: 60
//!   compile-memory-mb: 8192
//!   max-source-bytes: 65536
//!   # the fake device only: how named sources behave there (as a validation suite's `fake:`)
//!   fakes: [{source: candidates/vector_add/faster.cu, fake: {speed: 0.6}}]
//! ```

use crate::fake::FakeSpec;
use aorlta_check::Result;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// Which GPUs a run may lease: `all` or a list of ordinals.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum GpuSet {
    /// Every visible GPU (`all`).
    #[default]
    All,
    /// These ordinals.
    List(Vec<u32>),
}

impl std::str::FromStr for GpuSet {
    type Err = String;

    /// `all`, or ordinals separated by commas (`0,1`); the error says which part is wrong.
    fn from_str(s: &str) -> std::result::Result<Self, String> {
        let s = s.trim();
        if s == "all" {
            return Ok(GpuSet::All);
        }
        let list = s
            .split(',')
            .map(|x| {
                x.trim().parse::<u32>().map_err(|_| {
                    format!("`gpus` is `all` or a list of GPU ordinals; `{x}` is not an ordinal")
                })
            })
            .collect::<std::result::Result<Vec<_>, _>>()?;
        Ok(GpuSet::List(list))
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum GpuSetForm {
    Word(String),
    List(Vec<u32>),
}

impl<'de> Deserialize<'de> for GpuSet {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match GpuSetForm::deserialize(d)? {
            GpuSetForm::Word(w) => w.parse().map_err(serde::de::Error::custom),
            GpuSetForm::List(l) => Ok(GpuSet::List(l)),
        }
    }
}

impl Serialize for GpuSet {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            GpuSet::All => s.serialize_str("all"),
            GpuSet::List(l) => l.serialize(s),
        }
    }
}

impl std::fmt::Display for GpuSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GpuSet::All => f.write_str("all"),
            GpuSet::List(l) => write!(f, "{l:?}"),
        }
    }
}

/// Which vendor's GPUs the kernels run on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Platform {
    /// NVIDIA: CUDA tasks compiled by nvcc, HIP tasks by nvcc through AORLTA's HIP
    /// portability header ("HIP source on NVIDIA"), run by the CUDA backend.
    #[default]
    Nvidia,
    /// AMD: HIP tasks compiled by hipcc for the `hip-arch` list, run by the HIP backend.
    /// A CUDA task cannot run here (unsettled `unsupported-language`).
    Amd,
}

impl Platform {
    /// The name as a config writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Platform::Nvidia => "nvidia",
            Platform::Amd => "amd",
        }
    }
}

/// Which compiler compiles CUDA sources on NVIDIA.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CompilerChoice {
    /// nvcc, the compiler kernels are deployed with (and the one prompts name): the default.
    /// The environment resolves it when it is built, so a compile's detail and identity name
    /// the compiler that ran.
    #[default]
    Auto,
    /// nvcc, one sandboxed process per source.
    Nvcc,
    /// NVRTC, in sandboxed worker processes that load it once: faster compiles for a node
    /// short of CPU, at a cost in the speed of some kernels (NVRTC's code is not nvcc's; see
    /// docs/REWARDS.md, `kernel-compile`).
    Nvrtc,
}

impl std::str::FromStr for CompilerChoice {
    type Err = String;
    fn from_str(s: &str) -> Result<Self, String> {
        match s {
            "auto" => Ok(CompilerChoice::Auto),
            "nvcc" => Ok(CompilerChoice::Nvcc),
            "nvrtc" => Ok(CompilerChoice::Nvrtc),
            other => Err(format!("`{other}` is no compiler (auto, nvcc or nvrtc)")),
        }
    }
}

impl CompilerChoice {
    /// The name a config writes.
    pub fn as_str(self) -> &'static str {
        match self {
            CompilerChoice::Auto => "auto",
            CompilerChoice::Nvcc => "nvcc",
            CompilerChoice::Nvrtc => "nvrtc",
        }
    }
}

/// The `kernel:` section of a run config.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct KernelConfig {
    /// The GPUs' vendor: `nvidia` (default) or `amd`.
    pub platform: Platform,
    /// The compiler; default `$AORLTA_NVCC`, else `nvcc` on the PATH, else
    /// `/usr/local/cuda/bin/nvcc`.
    pub nvcc: Option<PathBuf>,
    /// The target architecture (`sm_90`).
    pub arch: String,
    /// The compiler of CUDA sources on NVIDIA: `auto` (the default: `nvcc`), `nvcc`, or
    /// `nvrtc`, the runtime compiler in long-lived sandboxed workers (found beside nvcc, or
    /// under `$AORLTA_NVRTC_LIB`), for a node short of CPU. HIP sources are compiled by nvcc
    /// or hipcc either way.
    pub compiler: CompilerChoice,
    /// The `aorlta` executable whose hidden `nvrtc-worker` subcommand runs the NVRTC workers;
    /// default `$AORLTA_NVRTC_WORKER`, else the running executable.
    #[serde(alias = "nvrtc_worker")]
    pub nvrtc_worker: Option<PathBuf>,
    /// The Python that compiles Triton tasks (`language: triton`): it must import `triton`;
    /// default `$AORLTA_TRITON_PYTHON`, else `python3` on the PATH. Its Triton version and
    /// installed distributions are part of every Triton compile's identity.
    #[serde(alias = "triton_python")]
    pub triton_python: Option<PathBuf>,
    /// The Python with torch that runs a task's PyTorch reference (and its probe); default
    /// `$AORLTA_TORCH_PYTHON`, else `python3` on the PATH.
    #[serde(alias = "torch_python")]
    pub torch_python: Option<PathBuf>,
    /// Nsight Compute, for the `kernel-profile` leg; default `$AORLTA_NCU`, else `ncu` on the
    /// PATH, else `/usr/local/cuda/bin/ncu`.
    pub ncu: Option<PathBuf>,
    /// The HIP compiler (platform `amd`); default `$AORLTA_HIPCC`, else `hipcc` on the PATH,
    /// else `$ROCM_PATH/bin/hipcc`, else `/opt/rocm/bin/hipcc`. It is called as hipcc is:
    /// `--genco --offload-arch=ARCH … -O3 -o k.co k.hip`.
    pub hipcc: Option<PathBuf>,
    /// The AMD architectures every HIP source is compiled for (`[gfx942]`); the code object
    /// is one bundle holding each. Default: the architectures of the GPUs in `gpus`.
    #[serde(alias = "hip_arch")]
    pub hip_arch: Vec<String>,
    /// The harness program; default `$AORLTA_HARNESS`, else `aorlta-harness` beside the running
    /// executable, else the running `aorlta` executable's `harness` subcommand.
    pub harness: Option<PathBuf>,
    /// The GPUs to lease.
    pub gpus: GpuSet,
    /// Where the lease lock files live (shared by every process of the host).
    #[serde(alias = "lease_dir")]
    pub lease_dir: Option<PathBuf>,
    /// Longest a job waits for a free GPU, seconds.
    #[serde(alias = "lease_wait_s")]
    pub lease_wait_s: f64,
    /// Correctness jobs run at once on one GPU (1 to 16), each in a harness process of its
    /// own, and never beside a timing job, which has its GPU alone (docs/ARCHITECTURE.md, "GPU
    /// leases"). 1: every job has its GPU alone.
    #[serde(alias = "checks_per_gpu")]
    pub checks_per_gpu: usize,
    /// Compiler wall-time limit, seconds.
    #[serde(alias = "compile_timeout_s")]
    pub compile_timeout_s: f64,
    /// Compiler address-space limit, MiB.
    #[serde(alias = "compile_memory_mb")]
    pub compile_memory_mb: u64,
    /// Largest kernel source accepted, bytes.
    #[serde(alias = "max_source_bytes")]
    pub max_source_bytes: usize,
    /// Compilers run at once; default: the machine's cores.
    #[serde(alias = "compile_jobs")]
    pub compile_jobs: Option<usize>,
    /// Compile outcomes (and code objects on disk) kept per generation; two generations are
    /// kept, so at most twice this many.
    #[serde(alias = "compile_cache_entries")]
    pub compile_cache_entries: usize,
    /// Scratch folder (compile folders, code-object cache, harness spools); default under the
    /// system's temporary folder.
    #[serde(alias = "work_dir")]
    pub work_dir: Option<PathBuf>,
    /// A harness job's deadline, seconds, overriding the one derived from its limits.
    #[serde(alias = "job_timeout_s")]
    pub job_timeout_s: Option<f64>,
    /// The secret the input seeds are drawn from; default a fresh random one per process
    /// (a fixed one with `fake-gpu`, so CI runs repeat).
    pub secret: Option<u64>,
    /// Run on the CPU-simulated fake device instead of a GPU (CI, `validate --fake-gpu`).
    #[serde(alias = "fake_gpu")]
    pub fake_gpu: bool,
    /// With `fake-gpu` only: how these sources behave on the fake device (a compile failure, a
    /// threat, a speed), so that a service on the fake device can play a wrong, a correct and
    /// a faster kernel (an episode's turns, a trainer's test). Every other source compiles to a
    /// correct kernel at the reference's speed.
    pub fakes: Vec<FakeSource>,
}

/// A source file and how it behaves on the fake device: a completion whose code block holds
/// exactly this file's text (with a final newline) plays `fake`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FakeSource {
    /// The source file (relative to the config's folder).
    pub source: PathBuf,
    /// How it behaves (`examples/kernels/validation.yaml` describes the keys).
    pub fake: FakeSpec,
}

impl Default for KernelConfig {
    fn default() -> Self {
        KernelConfig {
            platform: Platform::Nvidia,
            nvcc: None,
            arch: "sm_90".into(),
            compiler: CompilerChoice::Auto,
            nvrtc_worker: None,
            triton_python: None,
            torch_python: None,
            ncu: None,
            hipcc: None,
            hip_arch: Vec::new(),
            harness: None,
            gpus: GpuSet::All,
            lease_dir: None,
            lease_wait_s: 600.0,
            checks_per_gpu: 1,
            compile_timeout_s: 60.0,
            compile_memory_mb: 8192,
            max_source_bytes: 64 * 1024,
            compile_jobs: None,
            compile_cache_entries: 4096,
            work_dir: None,
            job_timeout_s: None,
            secret: None,
            fake_gpu: false,
            fakes: Vec::new(),
        }
    }
}

/// The most correctness and sanity jobs that share one GPU (`checks-per-gpu`'s bound).
pub(crate) const MAX_CHECKS_PER_GPU: usize = 16;

impl KernelConfig {
    /// Lets at least `jobs` correctness and sanity jobs share each GPU (within
    /// 16, `checks-per-gpu`'s bound), for a command that runs `jobs` of them at a time: jobs that would
    /// queue for fewer shared slots gain nothing from running at once. Timings stay alone.
    pub fn share_checks(&mut self, jobs: usize) {
        self.checks_per_gpu = self.checks_per_gpu.max(jobs.clamp(1, MAX_CHECKS_PER_GPU));
    }

    /// The `kernel:` section of a run config file (the defaults when it has none); no other
    /// section is read. Paths resolve as in [`KernelConfig::from_section`].
    pub fn of_file(config_file: &Path) -> Result<Self> {
        let doc: serde_norway::Value = aorlta_check::load_yaml(config_file)?;
        match doc.get("kernel") {
            Some(section) => Self::from_section(section, config_file),
            None => Ok(KernelConfig::default()),
        }
    }

    /// Compilers run at once: `compile-jobs`, else the machine's cores.
    pub fn compile_jobs(&self) -> usize {
        self.compile_jobs
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()))
            .max(1)
    }

    /// Reads a run config's `kernel:` section (as `aorlta_app::RunConfig` keeps it) and resolves
    /// its relative paths (`nvcc`, `hipcc`, `harness`, `lease-dir`, `work-dir`) against the folder of
    /// `config_file`. Errors name the file and the key.
    pub fn from_section(value: &serde_norway::Value, config_file: &Path) -> Result<Self> {
        let mut c: KernelConfig = aorlta_check::yaml_section(value, config_file, "kernel")?;
        let base = config_file.parent().unwrap_or(Path::new("."));
        let at = |p: &mut Option<PathBuf>| {
            if let Some(x) = p.as_mut()
                && x.is_relative()
            {
                *x = base.join(&*x);
            }
        };
        at(&mut c.nvcc);
        at(&mut c.hipcc);
        at(&mut c.harness);
        at(&mut c.lease_dir);
        at(&mut c.work_dir);
        for f in &mut c.fakes {
            if f.source.is_relative() {
                f.source = base.join(&f.source);
            }
        }
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_with_defaults_both_spellings_and_gpu_sets() {
        let c: KernelConfig =
            serde_norway::from_str("gpus: [0, 1]\ncompile_timeout_s: 5\nfake-gpu: true\n").unwrap();
        assert_eq!(c.gpus, GpuSet::List(vec![0, 1]));
        assert_eq!(c.compile_timeout_s, 5.0);
        assert!(c.fake_gpu);
        assert_eq!(c.arch, "sm_90");
        assert_eq!(c.platform, Platform::Nvidia);
        let c: KernelConfig = serde_norway::from_str("platform: amd\nhip-arch: [gfx90a, gfx942]\n").unwrap();
        assert_eq!(c.platform, Platform::Amd);
        assert_eq!(c.hip_arch, ["gfx90a", "gfx942"]);
        assert!(serde_norway::from_str::<KernelConfig>("platform: intel\n").is_err());
        let c: KernelConfig = serde_norway::from_str("gpus: all\n").unwrap();
        assert_eq!(c.gpus, GpuSet::All);
        assert!(serde_norway::from_str::<KernelConfig>("gpus: some\n").is_err());
        let e = serde_norway::from_str::<KernelConfig>("nvc: x\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("nvc"), "{e}");
        assert_eq!(GpuSet::List(vec![2]).to_string(), "[2]");
        assert_eq!("all".parse::<GpuSet>(), Ok(GpuSet::All));
        assert_eq!(" 0, 3".parse::<GpuSet>(), Ok(GpuSet::List(vec![0, 3])));
        let e = "0,x".parse::<GpuSet>().unwrap_err();
        assert!(e.contains("`x`"), "{e}");
    }

    #[test]
    fn a_run_config_section_resolves_paths_against_the_config() {
        let v: serde_norway::Value = serde_norway::from_str(
            "nvcc: bin/nvcc
lease-dir: /abs/leases
gpus: [1]
",
        )
        .unwrap();
        let c = KernelConfig::from_section(&v, Path::new("/cfg/run.yaml")).unwrap();
        assert_eq!(c.nvcc, Some(PathBuf::from("/cfg/bin/nvcc")));
        assert_eq!(c.lease_dir, Some(PathBuf::from("/abs/leases")));
        let bad: serde_norway::Value = serde_norway::from_str(
            "gpu: [1]
",
        )
        .unwrap();
        let e = KernelConfig::from_section(&bad, Path::new("/cfg/run.yaml"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("run.yaml") && e.contains("gpu"), "{e}");
    }

    #[test]
    fn fake_sources_resolve_against_the_config_and_need_the_fake_device() {
        let dir = tempfile::tempdir().unwrap();
        let src = "__global__ void vector_add(const float* a, const float* b, float* c, int n) {}";
        std::fs::write(dir.path().join("k.cu"), src).unwrap();
        let v: serde_norway::Value = serde_norway::from_str(&format!(
            "fake-gpu: true\nwork-dir: {w}\nlease-dir: {w}/leases\nfakes: [{{source: k.cu, fake: {{speed: 0.5}}}}]\n",
            w = dir.path().join("work").display()
        ))
        .unwrap();
        let c = KernelConfig::from_section(&v, &dir.path().join("serve.yaml")).unwrap();
        assert_eq!(c.fakes[0].source, dir.path().join("k.cu"));
        let env = crate::env::KernelEnv::from_config(&c).unwrap();
        // Registered under the text a code block holds: the file with a final newline.
        let spec = env
            .fake_spec(&aorlta_check::hash_str(&format!("{src}\n")))
            .unwrap();
        assert_eq!(spec.speed, 0.5);
        assert!(env.fake_spec(&aorlta_check::hash_str(src)).is_none());
        // The real compilers of a fake config do not carry the fakes.
        assert!(env.real_compilers().unwrap().config().fakes.is_empty());
        let e = crate::env::KernelEnv::from_config(&KernelConfig {
            fake_gpu: false,
            ..c.clone()
        })
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("`fakes`") && e.contains("fake-gpu"), "{e}");
        let e = crate::env::KernelEnv::from_config(&KernelConfig {
            fakes: vec![FakeSource {
                source: dir.path().join("missing.cu"),
                fake: FakeSpec::default(),
            }],
            ..c
        })
        .err()
        .unwrap()
        .to_string();
        assert!(e.contains("missing.cu"), "{e}");
        let e = serde_norway::from_str::<KernelConfig>("fakes: [{source: k.cu, fake: {sped: 1}}]\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("sped"), "{e}");
    }
}
