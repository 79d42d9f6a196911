//! The harness's own device code (`device/helpers.cu`: fill, check and compare kernels), built
//! once per compiler, architecture and source into a code object cached on disk, so a harness
//! process starts in milliseconds after the first. It is built with nvcc for CUDA (a cubin) or
//! with hipcc for HIP (a clang offload bundle, the same source after `#include
//! <hip/hip_runtime.h>`), in both cases with no multiply-add contracted (`-fmad=false`,
//! `-ffp-contract=off`) so its doubles round exactly as the host twin's ([`crate::draw`]) do.

use aorlta_record::HarnessError;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The device code's source.
pub(crate) const SOURCE: &str = include_str!("device/helpers.cu");

/// Longest the compiler may take.
const COMPILE_TIMEOUT: Duration = Duration::from_secs(180);

/// Which compiler builds the device code, and so for which backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CompilerKind {
    /// NVIDIA's nvcc, for the CUDA backend: a cubin for an `sm_…` architecture.
    Nvcc,
    /// ROCm's hipcc, for the HIP backend: an offload bundle for a `gfx…` architecture.
    Hipcc,
}

impl CompilerKind {
    fn name(self) -> &'static str {
        match self {
            CompilerKind::Nvcc => "nvcc",
            CompilerKind::Hipcc => "hipcc",
        }
    }

    /// The extension of the built code object.
    pub(crate) fn extension(self) -> &'static str {
        match self {
            CompilerKind::Nvcc => "cubin",
            CompilerKind::Hipcc => "hipfb",
        }
    }

    /// The source as this compiler is given it: HIP's device builtins come from its header.
    fn source(self) -> String {
        match self {
            CompilerKind::Nvcc => SOURCE.to_string(),
            CompilerKind::Hipcc => format!("#include <hip/hip_runtime.h>\n{SOURCE}"),
        }
    }

    /// The command line's arguments, output last.
    fn args(self, arch: &str, src: &Path, out: &Path) -> Vec<OsString> {
        let mut a: Vec<OsString> = match self {
            CompilerKind::Nvcc => vec![
                "--cubin".into(),
                format!("-arch={arch}").into(),
                "-O3".into(),
                "-fmad=false".into(),
                "-x".into(),
                "cu".into(),
            ],
            CompilerKind::Hipcc => vec![
                "--genco".into(),
                format!("--offload-arch={arch}").into(),
                "-O3".into(),
                "-ffp-contract=off".into(),
                "-x".into(),
                "hip".into(),
            ],
        };
        a.extend([src.into(), "-o".into(), out.into()]);
        a
    }
}

fn failed(detail: String) -> HarnessError {
    HarnessError {
        code: "harness-failed".into(),
        detail: format!("cannot build the harness's device code: {detail}"),
    }
}

/// `given` when there is one, else the path in environment variable `var`, else `name` on the
/// `PATH`, else the first of `fallbacks` that is a file.
fn find_compiler(given: Option<&Path>, var: &str, name: &str, fallbacks: &[PathBuf]) -> Option<PathBuf> {
    given
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os(var).map(PathBuf::from))
        .or_else(|| {
            std::env::var_os("PATH").and_then(|p| {
                std::env::split_paths(&p)
                    .map(|d| d.join(name))
                    .find(|c| c.is_file())
            })
        })
        .or_else(|| fallbacks.iter().find(|p| p.is_file()).cloned())
}

/// The compiler: `nvcc` when given, else `$AORLTA_NVCC`, else `nvcc` on the `PATH`, else
/// `/usr/local/cuda/bin/nvcc`.
pub(crate) fn find_nvcc(given: Option<&Path>) -> Option<PathBuf> {
    find_compiler(
        given,
        "AORLTA_NVCC",
        "nvcc",
        &[PathBuf::from("/usr/local/cuda/bin/nvcc")],
    )
}

/// The HIP compiler: `hipcc` when given, else `$AORLTA_HIPCC`, else `hipcc` on the `PATH`, else
/// `$ROCM_PATH/bin/hipcc`, else `/opt/rocm/bin/hipcc`.
pub(crate) fn find_hipcc(given: Option<&Path>) -> Option<PathBuf> {
    let mut fallbacks = Vec::new();
    if let Some(root) = std::env::var_os("ROCM_PATH").filter(|r| !r.is_empty()) {
        fallbacks.push(Path::new(&root).join("bin/hipcc"));
    }
    fallbacks.push(PathBuf::from("/opt/rocm/bin/hipcc"));
    find_compiler(given, "AORLTA_HIPCC", "hipcc", &fallbacks)
}

fn run(cmd: &mut Command) -> Result<std::process::Output, String> {
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| e.to_string())?;
    let start = Instant::now();
    loop {
        if child.try_wait().map_err(|e| e.to_string())?.is_some() {
            return child.wait_with_output().map_err(|e| e.to_string());
        }
        if start.elapsed() > COMPILE_TIMEOUT {
            let _ = child.kill();
            let _ = child.wait();
            return Err(format!("the compiler ran over {} s", COMPILE_TIMEOUT.as_secs()));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// What identifies a compiler without running it: its resolved path, size and modification time
/// (an installed toolkit changes all three when it changes).
fn compiler_stamp(compiler: &Path) -> Result<String, HarnessError> {
    let real = std::fs::canonicalize(compiler).map_err(|e| failed(format!("{}: {e}", compiler.display())))?;
    let meta = std::fs::metadata(&real).map_err(|e| failed(format!("{}: {e}", real.display())))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok(format!("{}|{}|{mtime}", real.display(), meta.len()))
}

/// The code object for `arch`, from `cache_dir` when built before, else compiled by `compiler`
/// (of `kind`). The cache key is the source, the compiler's kind, the architecture and the
/// compiler's stamp.
pub(crate) fn build(
    kind: CompilerKind,
    compiler: &Path,
    arch: &str,
    cache_dir: &Path,
) -> Result<Vec<u8>, HarnessError> {
    let stamp = compiler_stamp(compiler)?;
    let source = kind.source();
    let key = blake3::hash(
        &[
            source.as_bytes(),
            kind.name().as_bytes(),
            b"|",
            arch.as_bytes(),
            b"|",
            stamp.as_bytes(),
        ]
        .concat(),
    );
    let ext = kind.extension();
    let cached = cache_dir.join(format!("aorlta-helpers-{}.{ext}", &key.to_hex()[..16]));
    if let Ok(bytes) = std::fs::read(&cached) {
        return Ok(bytes);
    }
    std::fs::create_dir_all(cache_dir).map_err(|e| failed(format!("{}: {e}", cache_dir.display())))?;
    let dir = tempfile::Builder::new()
        .prefix("aorlta-helpers-")
        .tempdir_in(cache_dir)
        .map_err(|e| failed(format!("{}: {e}", cache_dir.display())))?;
    let src = dir.path().join(match kind {
        CompilerKind::Nvcc => "helpers.cu",
        CompilerKind::Hipcc => "helpers.hip",
    });
    let out = dir.path().join(format!("helpers.{ext}"));
    std::fs::write(&src, &source).map_err(|e| failed(format!("{}: {e}", src.display())))?;
    let mut cmd = Command::new(compiler);
    cmd.args(kind.args(arch, &src, &out));
    if kind == CompilerKind::Hipcc && std::env::var_os("HIP_PLATFORM").is_none() {
        // hipcc picks NVIDIA's platform where it finds nvcc and no ROCm; this is for AMD.
        cmd.env("HIP_PLATFORM", "amd");
    }
    let o = run(&mut cmd).map_err(|e| failed(format!("{}: {e}", compiler.display())))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        return Err(failed(format!(
            "{} exited with {}: {}",
            compiler.display(),
            o.status,
            err.lines().take(8).collect::<Vec<_>>().join(" | ")
        )));
    }
    let bytes = std::fs::read(&out).map_err(|e| failed(format!("{}: {e}", out.display())))?;
    let tmp = dir.path().join(format!("ready.{ext}"));
    std::fs::write(&tmp, &bytes)
        .and_then(|_| std::fs::rename(&tmp, &cached))
        .map_err(|e| failed(format!("{}: {e}", cached.display())))?;
    Ok(bytes)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// With a real compiler (`AORLTA_NVCC`, as the test command sets it), the device code
    /// builds, defines every kernel the backend looks up, and is served from the cache after.
    /// The code objects in a cache folder whose names end in `ext`.
    fn cache_entries(dir: &Path, ext: &str) -> Vec<std::fs::DirEntry> {
        std::fs::read_dir(dir)
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(ext))
            .collect()
    }

    #[test]
    fn the_device_code_builds_with_nvcc_and_is_cached() {
        let Some(nvcc) = std::env::var_os("AORLTA_NVCC").map(PathBuf::from) else {
            // The test command always sets it; a bare `cargo test` on a machine without a
            // compiler says so rather than failing.
            assert!(std::env::var_os("CI").is_none(), "AORLTA_NVCC must be set in CI");
            eprintln!("AORLTA_NVCC is not set: the device code's build is checked where it is");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let bytes = build(CompilerKind::Nvcc, &nvcc, "sm_90", dir.path()).unwrap();
        assert_eq!(&bytes[..4], b"\x7fELF");
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains("aorlta_run"), "the batch kernel is missing");
        let cached = cache_entries(dir.path(), ".cubin");
        assert_eq!(cached.len(), 1);
        std::fs::write(cached[0].path(), b"cached").unwrap();
        assert_eq!(
            build(CompilerKind::Nvcc, &nvcc, "sm_90", dir.path()).unwrap(),
            b"cached"
        );
    }

    /// With ROCm's compiler (`AORLTA_HIPCC`), the device code builds for gfx90a into an offload
    /// bundle that defines the batch kernel, and is served from the cache after. Only the
    /// variable gates it: a machine without hipcc says so and passes.
    #[test]
    fn the_device_code_builds_with_hipcc_and_is_cached() {
        let Some(hipcc) = std::env::var_os("AORLTA_HIPCC").map(PathBuf::from) else {
            eprintln!("AORLTA_HIPCC is not set: the device code's build with hipcc is checked where it is");
            return;
        };
        let dir = tempfile::tempdir().unwrap();
        let bytes = build(CompilerKind::Hipcc, &hipcc, "gfx90a", dir.path()).unwrap();
        assert!(
            bytes.starts_with(b"__CLANG_OFFLOAD_BUNDLE__"),
            "not an offload bundle"
        );
        let text = String::from_utf8_lossy(&bytes);
        assert!(
            text.contains("amdgcn-amd-amdhsa--gfx90a"),
            "no code object for gfx90a"
        );
        assert!(text.contains("aorlta_run"), "the batch kernel is missing");
        assert!(bytes.windows(4).any(|w| w == b"\x7fELF"), "no AMDGPU ELF inside");
        let cached = cache_entries(dir.path(), ".hipfb");
        assert_eq!(cached.len(), 1);
        std::fs::write(cached[0].path(), b"cached").unwrap();
        assert_eq!(
            build(CompilerKind::Hipcc, &hipcc, "gfx90a", dir.path()).unwrap(),
            b"cached"
        );
        // Another architecture is another entry, built afresh (gfx908: every hipcc since ROCm
        // 3 knows it; Debian's ROCm 5.2 clang does not know gfx942).
        let other = build(CompilerKind::Hipcc, &hipcc, "gfx908", dir.path()).unwrap();
        assert!(String::from_utf8_lossy(&other).contains("amdgcn-amd-amdhsa--gfx908"));
        let entries = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(entries, 2, "one cache entry per architecture, no leftovers");
    }

    #[test]
    fn each_compiler_is_given_its_own_flags_and_source() {
        let (src, out) = (Path::new("/t/h.src"), Path::new("/t/h.out"));
        let nv: Vec<String> = CompilerKind::Nvcc
            .args("sm_90", src, out)
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            nv,
            [
                "--cubin",
                "-arch=sm_90",
                "-O3",
                "-fmad=false",
                "-x",
                "cu",
                "/t/h.src",
                "-o",
                "/t/h.out"
            ]
        );
        let hip: Vec<String> = CompilerKind::Hipcc
            .args("gfx942", src, out)
            .iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            hip,
            [
                "--genco",
                "--offload-arch=gfx942",
                "-O3",
                "-ffp-contract=off",
                "-x",
                "hip",
                "/t/h.src",
                "-o",
                "/t/h.out"
            ]
        );
        assert_eq!(CompilerKind::Nvcc.source(), SOURCE);
        assert!(
            CompilerKind::Hipcc
                .source()
                .starts_with("#include <hip/hip_runtime.h>\n")
        );
        assert!(CompilerKind::Hipcc.source().ends_with(SOURCE));
        let given = Path::new("/somewhere/hipcc");
        assert_eq!(find_hipcc(Some(given)).as_deref(), Some(given));
    }
}
