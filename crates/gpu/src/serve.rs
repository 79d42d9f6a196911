//! The harness process: `serve` (one process per leased GPU, serving jobs in turn), `run` (one
//! job) and `devices` (the host's GPUs). Jobs arrive as file paths, one per line, on standard
//! input; each job's record is written to the path the job names, atomically (a temporary file
//! renamed into place). Nothing is printed that anyone reads: standard output and error go to
//! a log the service never parses.
//!
//! A job whose record says `context_lost` (a fault or a hang) ends the process after its record
//! is written, so a fault in one job never reaches the next: the service starts a fresh one.

use crate::backend::Backend;
use crate::cuda::{self, CudaBackend};
use crate::fake::FakeBackend;
use crate::job::run_job;
use aorlta_record::kernel::harness::{
    DeviceList, Finding, HARNESS_FORMAT, HarnessError, HarnessJob, HarnessReady, HarnessRecord, Party,
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
pub enum BackendKind {
    /// The CUDA driver.
    Cuda,
    /// The CPU-simulated fake device.
    Fake,
}

/// The record path that goes with a job file: `X.job.json` → `X.record.json` (used when the job
/// itself cannot be read).
pub fn record_path_for(job: &Path) -> PathBuf {
    let name = job
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = name.strip_suffix(".job.json").unwrap_or(&name);
    job.with_file_name(format!("{stem}.record.json"))
}

/// Writes a file atomically: a temporary file beside it, then a rename.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
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
        f.sync_data()?;
    }
    std::fs::rename(&tmp, path)
}

fn write_json<T: serde::Serialize>(path: &Path, value: &T) -> std::io::Result<()> {
    let text = serde_json::to_vec_pretty(value).map_err(std::io::Error::other)?;
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
        elapsed_s: 0.0,
    }
}

/// Runs the job in `path` and writes its record; returns whether the context survived.
pub fn handle_job<B: Backend>(b: &mut B, path: &Path) -> bool {
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
            // SAFETY: ends the process; nothing of it is used afterwards.
            unsafe { libc::_exit(EXIT_CONTEXT_LOST) };
        }
    }
    0
}

fn ready(
    spool: &Path,
    start: Instant,
    device: Option<aorlta_record::kernel::harness::DeviceInfo>,
    error: Option<HarnessError>,
) {
    let r = HarnessReady {
        format: HARNESS_FORMAT,
        pid: std::process::id(),
        device,
        error,
        start_s: start.elapsed().as_secs_f64(),
        build: aorlta_record::BUILD.to_string(),
    };
    if let Err(e) = write_json(&spool.join("ready.json"), &r) {
        eprintln!("aorlta-harness: cannot write ready.json: {e}");
    }
}

/// Where the CUDA backend finds its compiler and keeps its built device code.
#[derive(Debug, Clone, Default)]
pub struct Tools {
    /// The compiler (see [`crate::helpers::find_nvcc`]).
    pub nvcc: Option<PathBuf>,
    /// The folder for built device code; the system's temporary folder when absent.
    pub cache: Option<PathBuf>,
}

/// Opens the CUDA device: its context, the harness's device code built for it, and the check
/// that the device code draws what the host's twin draws.
pub fn open_cuda(device: u32, tools: &Tools) -> Result<CudaBackend, HarnessError> {
    let arch = CudaBackend::arch_of(device)?;
    let nvcc = crate::helpers::find_nvcc(tools.nvcc.as_deref()).ok_or_else(|| HarnessError {
        code: "no-compiler".into(),
        detail: "no nvcc for the harness's device code (pass --nvcc or set AORLTA_NVCC)".into(),
    })?;
    let cache = tools
        .cache
        .clone()
        .unwrap_or_else(|| std::env::temp_dir().join("aorlta-harness"));
    let image = crate::helpers::build(&nvcc, &arch, &cache)?;
    let mut b = CudaBackend::new(device, &image)?;
    crate::verify::self_test(&mut b).map_err(|detail| HarnessError {
        code: "harness-failed".into(),
        detail: format!("the harness's device code failed its self-test: {detail}"),
    })?;
    Ok(b)
}

/// Serves jobs from standard input on one device; returns the exit code.
pub fn serve(kind: BackendKind, device: u32, spool: &Path, start: Instant, tools: &Tools) -> i32 {
    let stdin = std::io::stdin();
    match kind {
        BackendKind::Fake => {
            let mut b = FakeBackend::new(device);
            ready(spool, start, Some(b.device().clone()), None);
            serve_with(&mut b, stdin.lock())
        }
        BackendKind::Cuda => match open_cuda(device, tools) {
            Ok(mut b) => {
                ready(spool, start, Some(b.device().clone()), None);
                serve_with(&mut b, stdin.lock())
            }
            Err(e) => {
                ready(spool, start, None, Some(e));
                EXIT_NO_DEVICE
            }
        },
    }
}

/// Lists the devices into `out`.
pub fn devices(kind: BackendKind, out: &Path) -> i32 {
    let list = match kind {
        BackendKind::Fake => DeviceList {
            format: HARNESS_FORMAT,
            devices: vec![FakeBackend::new(0).device().clone()],
            error: None,
        },
        BackendKind::Cuda => match cuda::list_devices() {
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

const USAGE: &str = "usage: aorlta-harness serve --device N --spool DIR [--fake] [--nvcc PATH] [--cache DIR]
       aorlta-harness run --job FILE [--device N] [--fake] [--nvcc PATH] [--cache DIR]
       aorlta-harness devices --out FILE [--fake]";

/// The harness's command line (also reachable as `aorlta harness …`); returns the exit code.
pub fn cli(args: &[String]) -> i32 {
    let start = Instant::now();
    let mut device = 0u32;
    let mut spool: Option<PathBuf> = None;
    let mut job: Option<PathBuf> = None;
    let mut out: Option<PathBuf> = None;
    let mut kind = BackendKind::Cuda;
    let mut tools = Tools::default();
    let Some(cmd) = args.first() else {
        eprintln!("{USAGE}");
        return EXIT_USAGE;
    };
    let mut it = args[1..].iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--fake" => kind = BackendKind::Fake,
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
            "--cache" => tools.cache = it.next().map(PathBuf::from),
            other => {
                eprintln!("unknown argument `{other}`\n{USAGE}");
                return EXIT_USAGE;
            }
        }
    }
    match (cmd.as_str(), spool, job, out) {
        ("serve", Some(spool), _, _) => serve(kind, device, &spool, start, &tools),
        ("devices", _, _, Some(out)) => devices(kind, &out),
        ("run", _, Some(job), _) => {
            let ok = match kind {
                BackendKind::Fake => handle_job(&mut FakeBackend::new(device), &job),
                BackendKind::Cuda => match open_cuda(device, &tools) {
                    Ok(mut b) => handle_job(&mut b, &job),
                    Err(e) => {
                        eprintln!("aorlta-harness: {}: {}", e.code, e.detail);
                        return EXIT_NO_DEVICE;
                    }
                },
            };
            if ok { 0 } else { EXIT_CONTEXT_LOST }
        }
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
