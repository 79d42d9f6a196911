//! AORLTA's HIP portability header, for HIP kernel tasks (`language: hip`) on NVIDIA: the
//! source is compiled by nvcc as CUDA with `hip/hip_runtime.h` (in this folder) on the include
//! path ([`crate::compiler::nvcc`]), and run by the CUDA backend like any cubin. Such results
//! are labelled "HIP source on NVIDIA": they prove the pipeline (compile, harness, checks,
//! timing, reward), never AMD timings. On AMD, hipcc compiles the source
//! ([`crate::compiler::hipcc`]).

use std::path::{Path, PathBuf};

/// The portability header, `hip/hip_runtime.h` on the include path of an nvcc compile.
pub(crate) const RUNTIME_HEADER: &str = include_str!("hip_runtime.h");
/// `hip/hip_fp16.h`: CUDA's half-precision header.
pub(crate) const FP16_HEADER: &str = include_str!("hip_fp16.h");

/// blake3 of the portability headers: part of every HIP-on-NVIDIA compile's identity.
pub(crate) fn headers_hash() -> &'static str {
    static HASH: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    HASH.get_or_init(|| aorlta_check::hash_parts([RUNTIME_HEADER.as_bytes(), FP16_HEADER.as_bytes()]))
}

/// The folder to put on nvcc's include path for a HIP source, as an absolute path:
/// `hip/hip_runtime.h` and `hip/hip_fp16.h` under the work folder, one folder per header
/// version, written once.
pub(crate) fn include_dir(work_dir: &Path) -> Result<PathBuf, String> {
    // Absolute: the compiler runs in a folder of its own, where a relative path (a run's
    // work folder is often `runs/<name>/kernel`) would name nothing.
    let dir = std::path::absolute(work_dir.join("hip-include").join(&headers_hash()[..16]))
        .map_err(|e| format!("{}: {e}", work_dir.display()))?;
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
    write().map_err(|e| format!("{}: {e}", hip.display()))?;
    Ok(dir)
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
}
