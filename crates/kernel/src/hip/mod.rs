//! HIP kernel tasks (`language: hip`) on both platforms.
//!
//! - **AMD** (`platform: amd`): the source is compiled by hipcc, `--genco` with one
//!   `--offload-arch` per entry of the architecture list, into a clang offload bundle that the
//!   HIP backend's `hipModuleLoadData` accepts; each architecture's code object must then define
//!   the kernel with the task's parameter layout in its kernel metadata, and must not call
//!   `printf` ([`super::amdgpu`]).
//! - **NVIDIA** (`platform: nvidia`): the same source is compiled by nvcc as CUDA, with AORLTA's
//!   portability header on the include path (`hip/hip_runtime.h`, in this folder), and run by the
//!   CUDA backend like any cubin. Such results are labelled "HIP source on NVIDIA": they prove
//!   the pipeline (compile, harness, checks, timing, reward), never AMD timings.
//!
//! A CUDA task cannot be compiled for AMD: on `platform: amd` its legs are unsettled
//! `unsupported-language`.

use super::config::Platform;
use super::env::KernelEnv;
use super::nvcc::CompileFailure;
use aorlta_check::task::KernelTaskDef;
use aorlta_record::kernel::KernelLanguage;
use std::path::{Path, PathBuf};

/// The portability header, `hip/hip_runtime.h` on the include path of an nvcc compile.
pub const RUNTIME_HEADER: &str = include_str!("hip_runtime.h");
/// `hip/hip_fp16.h`: CUDA's half-precision header.
pub const FP16_HEADER: &str = include_str!("hip_fp16.h");

/// How one task's sources are compiled and run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Target {
    /// A CUDA source on an NVIDIA GPU.
    CudaOnNvidia,
    /// A HIP source compiled by nvcc through the portability header, on an NVIDIA GPU.
    HipOnNvidia,
    /// A HIP source compiled by hipcc, on an AMD GPU.
    HipOnAmd,
}

impl Target {
    /// The target of `task` on the environment's platform; a CUDA task on AMD is unsettled
    /// `unsupported-language`.
    pub fn of(env: &KernelEnv, task: &KernelTaskDef) -> Result<Self, CompileFailure> {
        match (env.platform(), task.spec.language) {
            (Platform::Nvidia, KernelLanguage::Cuda) => Ok(Target::CudaOnNvidia),
            (Platform::Nvidia, KernelLanguage::Hip) => Ok(Target::HipOnNvidia),
            (Platform::Amd, KernelLanguage::Hip) => Ok(Target::HipOnAmd),
            (Platform::Amd, KernelLanguage::Cuda) => Err(CompileFailure::unsettled(
                "unsupported-language",
                format!(
                    "task {} is a CUDA task; platform `amd` compiles HIP tasks only (language: hip)",
                    task.spec.id
                ),
            )),
        }
    }

    /// The words every record of this target carries.
    pub fn label(self) -> &'static str {
        match self {
            Target::CudaOnNvidia => "CUDA on NVIDIA",
            Target::HipOnNvidia => "HIP source on NVIDIA",
            Target::HipOnAmd => "HIP on AMD",
        }
    }

    /// The source file's name in the compile folder.
    pub fn source_name(self) -> &'static str {
        match self {
            Target::CudaOnNvidia => "k.cu",
            Target::HipOnNvidia | Target::HipOnAmd => "k.hip",
        }
    }
}

/// blake3 of the portability headers: part of every HIP-on-NVIDIA compile's identity.
pub fn headers_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| aorlta_check::hash::hash_parts([RUNTIME_HEADER.as_bytes(), FP16_HEADER.as_bytes()]))
}

/// The folder to put on nvcc's include path for a HIP source, as an absolute path:
/// `hip/hip_runtime.h` and `hip/hip_fp16.h` under the work folder, one folder per header
/// version, written once.
pub fn include_dir(work_dir: &Path) -> Result<PathBuf, CompileFailure> {
    // Absolute: the compiler runs in a folder of its own, where a relative path (a run's
    // work folder is often `runs/<name>/kernel`) would name nothing.
    let dir = std::path::absolute(work_dir.join("hip-include").join(&headers_hash()[..16]))
        .map_err(|e| CompileFailure::unsettled("work-dir-error", format!("{}: {e}", work_dir.display())))?;
    let hip = dir.join("hip");
    let ready = hip.join("hip_fp16.h");
    if ready.is_file() {
        return Ok(dir);
    }
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(&hip)?;
        for (name, text) in [("hip_runtime.h", RUNTIME_HEADER), ("hip_fp16.h", FP16_HEADER)] {
            // Unique per process and call: two threads may write the same folder at once.
            static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
            let n = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            let tmp = hip.join(format!(".{name}.{}.{n}.tmp", std::process::id()));
            std::fs::write(&tmp, text)?;
            std::fs::rename(&tmp, hip.join(name))?;
        }
        Ok(())
    };
    write().map_err(|e| CompileFailure::unsettled("work-dir-error", format!("{}: {e}", hip.display())))?;
    Ok(dir)
}

/// hipcc's arguments for `archs`: a code-object bundle, one `--offload-arch` each.
pub fn hipcc_args(archs: &[String]) -> Vec<String> {
    let mut args = vec!["--genco".to_string()];
    args.extend(archs.iter().map(|a| format!("--offload-arch={a}")));
    args.extend(["-O3", "-o", "k.co", "k.hip"].map(String::from));
    args
}

/// nvcc's arguments for a HIP source, the portability header's folder first on the path.
pub fn nvcc_args(arch: &str, include: &Path) -> Vec<String> {
    vec![
        "--cubin".into(),
        format!("-arch={arch}"),
        "-x".into(),
        "cu".into(),
        "-I".into(),
        include.display().to_string(),
        "-o".into(),
        "k.cubin".into(),
        "k.hip".into(),
    ]
}

/// Checks a hipcc code object: every architecture of `archs` holds the task's kernel, with the
/// task's parameter layout, and no `printf`. Returns the symbols to look the kernel up by, the
/// one found first.
pub fn check_code_object(
    task: &KernelTaskDef,
    bytes: &[u8],
    archs: &[String],
) -> Result<Vec<String>, CompileFailure> {
    let objects = super::amdgpu::code_objects(bytes)
        .map_err(|e| CompileFailure::broke("compile-error", e.to_string()))?;
    let checked = super::amdgpu::check_kernel(&objects, &task.signature, archs)
        .map_err(|(code, detail)| CompileFailure::broke(code, detail))?;
    let mut order = vec![checked.symbol.clone()];
    order.extend(
        task.signature
            .symbols()
            .into_iter()
            .filter(|s| *s != checked.symbol),
    );
    Ok(order)
}

/// Runs `hipcc --version` and keeps its version lines (`HIP version: 5.2.21153-0; Debian clang
/// version 15.0.6`).
pub fn hipcc_version(hipcc: &Path) -> Result<String, String> {
    super::nvcc::version_lines(
        hipcc,
        |l| l.contains("version") || l.starts_with("AMD clang"),
        "version",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_header_maps_what_both_platforms_have_and_nothing_host_side() {
        for want in [
            "#include <cuda_runtime.h>",
            "#define hipThreadIdx_x (threadIdx.x)",
            "#define __shfl_down(...) __shfl_down_sync(0xffffffffu, __VA_ARGS__)",
            "#define HIP_DYNAMIC_SHARED(type, var) extern __shared__ type var[];",
        ] {
            assert!(RUNTIME_HEADER.contains(want), "missing {want}");
        }
        assert!(!RUNTIME_HEADER.contains("hipMalloc"), "no host API");
    }

    #[test]
    fn the_include_folder_is_written_once_and_keyed_by_the_headers() {
        let dir = tempfile::tempdir().unwrap();
        let a = include_dir(dir.path()).unwrap();
        assert!(a.ends_with(&headers_hash()[..16]));
        assert_eq!(
            std::fs::read_to_string(a.join("hip/hip_runtime.h")).unwrap(),
            RUNTIME_HEADER
        );
        assert_eq!(
            std::fs::read_to_string(a.join("hip/hip_fp16.h")).unwrap(),
            FP16_HEADER
        );
        assert_eq!(include_dir(dir.path()).unwrap(), a);
        // A relative work folder still gives a path the compiler can use from its own folder.
        let here = tempfile::tempdir_in(".").unwrap();
        let name = here.path().file_name().unwrap();
        let rel = include_dir(Path::new(name)).unwrap();
        assert!(
            rel.is_absolute() && rel.join("hip/hip_runtime.h").is_file(),
            "{}",
            rel.display()
        );
    }

    #[test]
    fn hipcc_is_asked_for_one_bundle_with_every_architecture() {
        let args = hipcc_args(&["gfx90a".into(), "gfx942".into()]);
        assert_eq!(
            args,
            [
                "--genco",
                "--offload-arch=gfx90a",
                "--offload-arch=gfx942",
                "-O3",
                "-o",
                "k.co",
                "k.hip"
            ]
        );
        let n = nvcc_args("sm_90", Path::new("/w/inc"));
        assert_eq!(n[..4], ["--cubin", "-arch=sm_90", "-x", "cu"]);
        assert!(n.windows(2).any(|w| w == ["-I", "/w/inc"]));
    }
}

#[cfg(test)]
mod compile_tests;
