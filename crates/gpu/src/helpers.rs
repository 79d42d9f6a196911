//! The harness's own device code (`device/helpers.cu`: fill, check and compare kernels), built
//! once per compiler, architecture and source into a code object cached on disk, so a harness
//! process starts in milliseconds after the first. It is compiled with `-fmad=false` so its
//! doubles round exactly as the host twin's ([`crate::draw`]) do.

use aorlta_record::kernel::harness::HarnessError;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The device code's source.
pub const SOURCE: &str = include_str!("device/helpers.cu");

/// Longest the compiler may take.
const COMPILE_TIMEOUT: Duration = Duration::from_secs(180);

fn failed(detail: String) -> HarnessError {
    HarnessError {
        code: "harness-failed".into(),
        detail: format!("cannot build the harness's device code: {detail}"),
    }
}

/// The compiler: `nvcc` when given, else `$AORLTA_NVCC`, else `nvcc` on the `PATH`, else
/// `/usr/local/cuda/bin/nvcc`.
pub fn find_nvcc(given: Option<&Path>) -> Option<PathBuf> {
    given
        .map(Path::to_path_buf)
        .or_else(|| std::env::var_os("AORLTA_NVCC").map(PathBuf::from))
        .or_else(|| {
            std::env::var_os("PATH").and_then(|p| {
                std::env::split_paths(&p)
                    .map(|d| d.join("nvcc"))
                    .find(|c| c.is_file())
            })
        })
        .or_else(|| Some(PathBuf::from("/usr/local/cuda/bin/nvcc")).filter(|p| p.is_file()))
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
fn compiler_stamp(nvcc: &Path) -> Result<String, HarnessError> {
    let real = std::fs::canonicalize(nvcc).map_err(|e| failed(format!("{}: {e}", nvcc.display())))?;
    let meta = std::fs::metadata(&real).map_err(|e| failed(format!("{}: {e}", real.display())))?;
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Ok(format!("{}|{}|{mtime}", real.display(), meta.len()))
}

/// The code object for `arch`, from `cache_dir` when built before, else compiled by `nvcc`.
pub fn build(nvcc: &Path, arch: &str, cache_dir: &Path) -> Result<Vec<u8>, HarnessError> {
    let stamp = compiler_stamp(nvcc)?;
    let key = blake3::hash(&[SOURCE.as_bytes(), arch.as_bytes(), stamp.as_bytes()].concat());
    let cached = cache_dir.join(format!("aorlta-helpers-{}.cubin", &key.to_hex()[..16]));
    if let Ok(bytes) = std::fs::read(&cached) {
        return Ok(bytes);
    }
    std::fs::create_dir_all(cache_dir).map_err(|e| failed(format!("{}: {e}", cache_dir.display())))?;
    let dir = tempfile::Builder::new()
        .prefix("aorlta-helpers-")
        .tempdir_in(cache_dir)
        .map_err(|e| failed(format!("{}: {e}", cache_dir.display())))?;
    let src = dir.path().join("helpers.cu");
    let out = dir.path().join("helpers.cubin");
    std::fs::write(&src, SOURCE).map_err(|e| failed(format!("{}: {e}", src.display())))?;
    let o = run(Command::new(nvcc)
        .arg("--cubin")
        .arg(format!("-arch={arch}"))
        .args(["-O3", "-fmad=false", "-x", "cu"])
        .arg(&src)
        .arg("-o")
        .arg(&out))
    .map_err(|e| failed(format!("{}: {e}", nvcc.display())))?;
    if !o.status.success() {
        let err = String::from_utf8_lossy(&o.stderr);
        return Err(failed(format!(
            "{} exited with {}: {}",
            nvcc.display(),
            o.status,
            err.lines().take(8).collect::<Vec<_>>().join(" | ")
        )));
    }
    let bytes = std::fs::read(&out).map_err(|e| failed(format!("{}: {e}", out.display())))?;
    let tmp = dir.path().join("ready.cubin");
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
        let bytes = build(&nvcc, "sm_90", dir.path()).unwrap();
        assert_eq!(&bytes[..4], b"\x7fELF");
        let text = String::from_utf8_lossy(&bytes);
        assert!(text.contains("aorlta_run"), "the batch kernel is missing");
        let cached: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .filter_map(|e| e.ok())
            .filter(|e| e.file_name().to_string_lossy().ends_with(".cubin"))
            .collect();
        assert_eq!(cached.len(), 1);
        std::fs::write(cached[0].path(), b"cached").unwrap();
        assert_eq!(build(&nvcc, "sm_90", dir.path()).unwrap(), b"cached");
    }
}
