//! The harness process: `serve` (one process per leased GPU, serving jobs in turn), `run` (one
//! job) and `devices` (the host's GPUs), on the CUDA device (the default), an AMD device through
//! HIP (`--hip`) or the fake device (`--fake`). Jobs arrive as file paths, one per line, on standard
//! input; each job's record is written to the path the job names, atomically (a temporary file
//! renamed into place). Nothing is printed that anyone reads: standard output and error go to
//! a log the service never parses.
//!
//! A job whose record says `context_lost` (a fault or a hang) ends the process after its record
//! is written, so a fault in one job never reaches the next: the service starts a fresh one.

use crate::backend::Backend;
use crate::cuda::{self, CudaBackend};
use crate::fake::FakeBackend;
use crate::helpers::CompilerKind;
use crate::hip::{self, HipBackend};
use crate::job::run_job;
use aorlta_record::{
    DeviceInfo, DeviceList, Finding, HARNESS_FORMAT, HarnessError, HarnessJob, HarnessReady, HarnessRecord,
    Party,
};
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Exit code: the device could not be opened.
pub const EXIT_NO_DEVICE: i32 = 2;
/// Exit code: a job lost the context (fault or hang); the process must be replaced.
pub const EXIT_CONTEXT_LOST: i32 = 3;
/// Exit code: bad command line.
pub const EXIT_USAGE: i32 = 64;

/// Which device implementation a process uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum BackendKind {
    /// The CUDA driver.
    Cuda,
    /// An AMD GPU through the HIP runtime.
    Hip,
    /// The CPU-simulated fake device.
    Fake,
}

/// The record path that goes with a job file: `X.job.json` → `X.record.json` (used when the job
/// itself cannot be read).
pub(crate) fn record_path_for(job: &Path) -> PathBuf {
    let name = job
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".job.json").unwrap_or(&name);
    job.with_file_name(format!("{stem}.record.json"))
}

/// Writes a file atomically: a temporary file beside it, then a rename. Not synced to disk: the
/// spool is scratch, read back at once from the page cache, and a job whose record a crash of
/// the machine lost is run again; a sync would cost each job a millisecond or more.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let tmp = dir.join(format!(
        ".{}.{}.tmp",
        path.file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default(),
        std::process::id()
    ));
    {
        let mut f = std::fs::File::create(&tmp)?;
        f.write_all(bytes)?;
    }
    std::fs::rename(&tmp, path)
}

fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let text = serde_json::to_vec(value).map_err(std::io::Error::other)?;
    write_atomic(path, &text)
}

fn unreadable_job(path: &Path, why: String) -> HarnessRecord {
    HarnessRecord {
        format: HARNESS_FORMAT,
        job: path.display().to_string(),
        device: None,
        findings: vec![Finding {
            party: Party::Harness,
            code: "bad-job".into(),
            detail: why,
            size: None,
            seed: None,
        }],
        context_lost: false,
        check: None,
        time: None,
        sanity: None,
        launch: None,
        elapsed_s: 0.0,
    }
}

/// Runs the job in `path` and writes its record; returns whether the context survived.
pub(crate) fn handle_job<B: Backend>(b: &mut B, path: &Path) -> bool {
    let job: Result<HarnessJob, String> = std::fs::read(path)
        .map_err(|e| format!("{}: {e}", path.display()))
        .and_then(|t| serde_json::from_slice(&t).map_err(|e| format!("{}: {e}", path.display())));
    let (record, out) = match job {
        Ok(job) => {
            let rec = run_job(b, &job);
            (rec, job.record.clone())
        }
        Err(why) => (unreadable_job(path, why), record_path_for(path)),
    };
    if let Err(e) = write_json(&out, &record) {
        eprintln!("aorlta-harness: cannot write {}: {e}", out.display());
    }
    !record.context_lost
}

fn serve_with<B: Backend>(b: &mut B, input: impl BufRead) -> i32 {
    for line in input.lines() {
        let Ok(line) = line else { return 0 };
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        if !handle_job(b, Path::new(line)) {
            // The record is written. Leave at once, skipping exit handlers: the driver's own
            // would wait for a kernel that may never finish.
            // libc, not rustix: rustix has `_exit` only in its experimental `runtime` module.
            // SAFETY: ends the process; nothing of it is used afterwards.
            unsafe { libc::_exit(EXIT_CONTEXT_LOST) };
        }
    }
    0
}

fn ready(spool: &Path, start: Instant, device: Option<DeviceInfo>, error: Option<HarnessError>) {
    let r = HarnessReady {
        format: HARNESS_FORMAT,
        pid: std::process::id(),
        device,
        error,
        start_s: start.elapsed().as_secs_f64(),
        build: crate::identity::BUILD.to_string(),
    };
    if let Err(e) = write_json(&spool.join("ready.json"), &r) {
        eprintln!("aorlta-harness: cannot write ready.json: {e}");
    }
}

/// Where the GPU backends find their compilers and keep their built device code.
#[derive(Debug, Clone, Default)]
pub(crate) struct Tools {
    /// The CUDA compiler (see [`crate::helpers::find_nvcc`]).
    pub nvcc: Option<PathBuf>,
    /// The HIP compiler (see [`crate::helpers::find_hipcc`]).
    pub hipcc: Option<PathBuf>,
    /// The AMD device's architecture (`gfx942`); read from the KFD topology when absent (see
    /// [`crate::hip::offload_arch`]).
    pub offload_arch: Option<String>,
    /// The folder for built device code; [`default_cache`] when absent.
    pub cache: Option<PathBuf>,
}

/// Where built device code is kept unless `--cache` says otherwise: one folder per user under
/// the system's temporary folder, shared by every run on the host (the code object is keyed by
/// its source, architecture and compiler, so runs never see another's).
pub(crate) fn default_cache() -> PathBuf {
    let uid = rustix::process::getuid().as_raw();
    std::env::temp_dir().join(format!("aorlta-harness-{uid}"))
}

/// Builds the harness's device code for `arch` with the compiler found, opens the device with
/// it (`open`) and checks that the device code draws what the host's twin draws.
fn open_with<B: Backend>(
    kind: CompilerKind,
    compiler: Option<PathBuf>,
    arch: &str,
    tools: &Tools,
    open: impl FnOnce(&[u8]) -> Result<B, HarnessError>,
) -> Result<B, HarnessError> {
    let compiler = compiler.ok_or_else(|| HarnessError {
        code: "no-compiler".into(),
        detail: match kind {
            CompilerKind::Nvcc => "no nvcc for the harness's device code (pass --nvcc or set AORLTA_NVCC)",
            CompilerKind::Hipcc => {
                "no hipcc for the harness's device code (pass --hipcc or set AORLTA_HIPCC)"
            }
        }
        .into(),
    })?;
    let cache = tools.cache.clone().unwrap_or_else(default_cache);
    let image = crate::helpers::build(kind, &compiler, arch, &cache)?;
    let mut b = open(&image)?;
    crate::verify::self_test(&mut b).map_err(|detail| HarnessError {
        code: "harness-failed".into(),
        detail: format!("the harness's device code failed its self-test: {detail}"),
    })?;
    Ok(b)
}

/// Opens the CUDA device: its context, the harness's device code built for it, and the check
/// that the device code draws what the host's twin draws.
pub(crate) fn open_cuda(device: u32, tools: &Tools) -> Result<CudaBackend, HarnessError> {
    let arch = CudaBackend::arch_of(device)?;
    let nvcc = crate::helpers::find_nvcc(tools.nvcc.as_deref());
    open_with(CompilerKind::Nvcc, nvcc, &arch, tools, |image| {
        CudaBackend::new(device, image)
    })
}

/// Opens the AMD device through HIP: the device checked first (`no-gpu` where there is none),
/// its architecture (`--offload-arch`, else the KFD topology), the harness's device code built
/// for it with hipcc, and the same self-test as on CUDA.
pub(crate) fn open_hip(device: u32, tools: &Tools) -> Result<HipBackend, HarnessError> {
    let arch = HipBackend::arch_of(device, tools.offload_arch.as_deref())?;
    let hipcc = crate::helpers::find_hipcc(tools.hipcc.as_deref());
    open_with(CompilerKind::Hipcc, hipcc, &arch, tools, |image| {
        HipBackend::new(device, &arch, image)
    })
}

/// Writes `ready.json` for an opened device and serves it, or writes the error.
fn serve_opened<B: Backend>(opened: Result<B, HarnessError>, spool: &Path, start: Instant) -> i32 {
    match opened {
        Ok(mut b) => {
            ready(spool, start, Some(b.device().clone()), None);
            serve_with(&mut b, std::io::stdin().lock())
        }
        Err(e) => {
            ready(spool, start, None, Some(e));
            EXIT_NO_DEVICE
        }
    }
}

/// Serves jobs from standard input on one device; returns the exit code.
pub(crate) fn serve(kind: BackendKind, device: u32, spool: &Path, start: Instant, tools: &Tools) -> i32 {
    match kind {
        BackendKind::Fake => serve_opened(Ok(FakeBackend::serving(device)), spool, start),
        BackendKind::Cuda => serve_opened(open_cuda(device, tools), spool, start),
        BackendKind::Hip => serve_opened(open_hip(device, tools), spool, start),
    }
}

/// Runs the one job in `job` on an opened device; returns the exit code.
fn run_opened<B: Backend>(opened: Result<B, HarnessError>, job: &Path) -> i32 {
    match opened {
        Ok(mut b) => {
            if handle_job(&mut b, job) {
                0
            } else {
                EXIT_CONTEXT_LOST
            }
        }
        Err(e) => {
            eprintln!("aorlta-harness: {}: {}", e.code, e.detail);
            EXIT_NO_DEVICE
        }
    }
}

/// Lists the devices into `out`.
pub(crate) fn devices(kind: BackendKind, out: &Path) -> i32 {
    let listed = match kind {
        BackendKind::Fake => Ok(vec![FakeBackend::new(0).device().clone()]),
        BackendKind::Cuda => cuda::list_devices(),
        BackendKind::Hip => hip::list_devices(),
    };
    let list = match listed {
        Ok(devices) => DeviceList {
            format: HARNESS_FORMAT,
            devices,
            error: None,
        },
        Err(e) => DeviceList {
            format: HARNESS_FORMAT,
            devices: Vec::new(),
            error: Some(e),
        },
    };
    match write_json(out, &list) {
        Ok(()) if list.error.is_none() => 0,
        Ok(()) => EXIT_NO_DEVICE,
        Err(e) => {
            eprintln!("aorlta-harness: cannot write {}: {e}", out.display());
            1
        }
    }
}

const USAGE: &str = "usage: aorlta-harness serve --device N --spool DIR [--fake | --hip] [GPU OPTIONS]
       aorlta-harness run --job FILE [--device N] [--fake | --hip] [GPU OPTIONS]
       aorlta-harness devices --out FILE [--fake | --hip]
the device: CUDA unless --fake (the CPU-simulated fake device) or --hip (an AMD GPU through HIP)
GPU OPTIONS: [--nvcc PATH] (CUDA) [--hipcc PATH] [--offload-arch ARCH, e.g. gfx942] (HIP) [--cache DIR]";

/// The harness's command line (also reachable as `aorlta harness …`); returns the exit code.
pub fn cli(args: &[String]) -> i32 {
    let start = Instant::now();
    let mut device = 0u32;
    let mut spool: Option<PathBuf> = None;
    let mut job: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let (mut fake, mut hip) = (false, false);
    let mut tools = Tools::default();
    let Some(cmd) = args.first() else {
        eprintln!("{USAGE}");
        return EXIT_USAGE;
    };
    let mut it = args[1..].iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--fake" => fake = true,
            "--hip" => hip = true,
            "--device" => match it.next().and_then(|v| v.parse().ok()) {
                Some(d) => device = d,
                None => {
                    eprintln!("--device needs a number\n{USAGE}");
                    return EXIT_USAGE;
                }
            },
            "--spool" => spool = it.next().map(PathBuf::from),
            "--job" => job = it.next().map(PathBuf::from),
            "--out" => out = it.next().map(PathBuf::from),
            "--nvcc" => tools.nvcc = it.next().map(PathBuf::from),
            "--hipcc" => tools.hipcc = it.next().map(PathBuf::from),
            "--offload-arch" => tools.offload_arch = it.next().cloned(),
            "--cache" => tools.cache = it.next().map(PathBuf::from),
            other => {
                eprintln!("unknown argument `{other}`\n{USAGE}");
                return EXIT_USAGE;
            }
        }
    }
    let kind = match (fake, hip) {
        (true, true) => {
            eprintln!("--fake and --hip name two devices; give one\n{USAGE}");
            return EXIT_USAGE;
        }
        (true, false) => BackendKind::Fake,
        (false, true) => BackendKind::Hip,
        (false, false) => BackendKind::Cuda,
    };
    match (cmd.as_str(), spool, job, out) {
        ("serve", Some(spool), _, _) => serve(kind, device, &spool, start, &tools),
        ("devices", _, _, Some(out)) => devices(kind, &out),
        ("run", _, Some(job), _) => match kind {
            BackendKind::Fake => run_opened(Ok(FakeBackend::serving(device)), &job),
            BackendKind::Cuda => run_opened(open_cuda(device, &tools), &job),
            BackendKind::Hip => run_opened(open_hip(device, &tools), &job),
        },
        _ => {
            eprintln!("{USAGE}");
            EXIT_USAGE
        }
    }
}

/// Sets `CUDA_MODULE_LOADING=EAGER` for this process; call first thing in `main`, before any
/// thread exists.
pub fn set_eager_loading() {
    if std::env::var_os("CUDA_MODULE_LOADING").is_none() {
        // SAFETY: called at the start of `main`, while the process has a single thread.
        unsafe { std::env::set_var("CUDA_MODULE_LOADING", "EAGER") };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_path_follows_the_job_file() {
        assert_eq!(
            record_path_for(Path::new("/s/j7.job.json")),
            PathBuf::from("/s/j7.record.json")
        );
        assert_eq!(
            record_path_for(Path::new("/s/odd")),
            PathBuf::from("/s/odd.record.json")
        );
    }

    #[test]
    fn atomic_write_leaves_no_temp_file() {
        let d = tempfile::tempdir().unwrap();
        let p = d.path().join("r.json");
        write_atomic(&p, b"{}").unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), b"{}");
        assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
    }
}
