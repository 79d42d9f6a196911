//! The harness processes: one per leased GPU slot (a timing job's GPU alone is slot 0; shared
//! correctness jobs use slots 0 to `checks-per-gpu - 1`), started on first use and kept to serve
//! job after job (creating a CUDA context costs about 0.4 s). A job is a file in the process's spool
//! folder whose path goes down its standard input; its answer is the record file the job names,
//! read when it appears (the harness writes it atomically). Standard output is discarded and
//! standard error goes to a log in the spool; neither is ever parsed.
//!
//! A process is replaced after any job that lost its context (a fault or a hang: the harness
//! exits by itself), after a job that ran past its deadline (it is killed with its process
//! group), and when it died. Each job loads its own modules and buffers, so one job's result
//! never depends on another's.

use crate::identity::HARNESS_BUILD;
use crate::lease::Lease;
use crate::reason::KernelReason;
use aorlta_record::{DeviceInfo, HarnessJob, HarnessReady, HarnessRecord};
use std::collections::HashMap;
use std::io::Write;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// What the pool needs of its owner ([`crate::env::KernelEnv`] implements it): where to put the
/// spool folders, how to start the harness, and job numbers unique in the process. The pool
/// names no environment type, so the environment builds on the pool and not the other way round.
pub trait HarnessHost {
    /// The work folder (spool folders go under it).
    fn work_dir(&self) -> &Path;
    /// A command for one of the harness's subcommands, with the platform's flags.
    fn harness_command(&self, sub: &str) -> Command;
    /// The harness program, for messages.
    fn harness_program(&self) -> &Path;
    /// A fresh job number.
    fn next_job(&self) -> u64;
}

/// Longest a harness may take to create its context.
const READY_TIMEOUT: Duration = Duration::from_secs(120);

/// Why a job got no record.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PoolError {
    /// The harness could not start or open its device: `(code, detail)`, code `no-gpu`,
    /// `driver-error` or `harness-failed`.
    #[error("{0}: {1}")]
    Start(String, String),
    /// The job ran past its deadline; the process was killed.
    #[error("the job ran past its {0:.1} s deadline")]
    Timeout(f64),
    /// The process died without writing the record.
    #[error("the harness exited without a record: {0}")]
    Crashed(String),
    /// The spool could not be used.
    #[error("spool: {0}")]
    Io(String),
}

struct Proc {
    child: Child,
    stdin: Option<ChildStdin>,
    spool: tempfile::TempDir,
    device: DeviceInfo,
}

impl Proc {
    fn kill(&mut self) {
        // The harness's own process group.
        crate::compiler::sandbox::kill_group(self.child.id());
        let _ = self.child.wait();
    }

    fn log_tail(&self) -> String {
        let text = std::fs::read_to_string(self.spool.path().join("harness.log")).unwrap_or_default();
        let lines: Vec<&str> = text.lines().rev().take(5).collect();
        lines.into_iter().rev().collect::<Vec<_>>().join(" | ")
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        // Closing standard input ends a healthy harness; one that does not end is killed.
        self.stdin.take();
        let start = Instant::now();
        while start.elapsed() < Duration::from_millis(500) {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

/// Counts of what the pool did, for benchmarks.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct PoolStats {
    /// Harness processes started.
    pub started: u64,
    /// Seconds spent starting them (spawn to ready), summed.
    pub start_s: f64,
    /// Processes replaced after a fault, a hang or a crash.
    pub replaced: u64,
    /// Jobs answered.
    pub jobs: u64,
    /// Seconds with at least one job on a GPU, summed over the GPUs.
    pub busy_s: f64,
}

impl PoolStats {
    /// The share of `wall_s` × `gpus` in which a GPU had at least one job.
    pub fn busy_share(&self, wall_s: f64, gpus: usize) -> f64 {
        self.busy_s / (wall_s * gpus.max(1) as f64).max(1e-9)
    }
}

/// Jobs running on each GPU, and since when the GPU has had one.
#[derive(Default)]
struct Busy {
    running: HashMap<u32, (usize, Instant)>,
}

/// Harness processes by GPU ordinal and slot.
#[derive(Default)]
pub struct HarnessPool {
    procs: Arc<Mutex<HashMap<(u32, usize), Proc>>>,
    stats: Arc<Mutex<PoolStats>>,
    busy: Mutex<Busy>,
}

/// Counts a job on its GPU while alive.
struct OnGpu<'a> {
    pool: &'a HarnessPool,
    gpu: u32,
}

impl<'a> OnGpu<'a> {
    fn new(pool: &'a HarnessPool, gpu: u32) -> Self {
        if let Ok(mut b) = pool.busy.lock() {
            let now = Instant::now();
            let e = b.running.entry(gpu).or_insert((0, now));
            if e.0 == 0 {
                e.1 = now;
            }
            e.0 += 1;
        }
        OnGpu { pool, gpu }
    }
}

impl Drop for OnGpu<'_> {
    fn drop(&mut self) {
        let mut ended = None;
        if let Ok(mut b) = self.pool.busy.lock()
            && let Some(e) = b.running.get_mut(&self.gpu)
        {
            e.0 -= 1;
            if e.0 == 0 {
                ended = Some(e.1.elapsed().as_secs_f64());
            }
        }
        if let (Some(s), Ok(mut st)) = (ended, self.pool.stats.lock()) {
            st.busy_s += s;
        }
    }
}

/// Waits for `path` to appear (the harness writes it atomically), looking every 20 to 100 µs:
/// a job of a few milliseconds must not wait a millisecond more to be seen done.
fn wait_file(path: &Path, child: &mut Child, deadline: Instant) -> Result<Option<Vec<u8>>, std::io::Error> {
    let mut pause = Duration::from_micros(20);
    loop {
        if let Ok(b) = std::fs::read(path) {
            return Ok(Some(b));
        }
        if child.try_wait()?.is_some() {
            // One last look: it may have written the file just before exiting.
            return Ok(std::fs::read(path).ok());
        }
        if Instant::now() >= deadline {
            return Ok(None);
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_micros(100));
    }
}

/// Starts a harness process for `(gpu, slot)`; [`ready`] waits for its context.
fn launch(env: &dyn HarnessHost, (gpu, slot): (u32, usize)) -> Result<Proc, PoolError> {
    let parent = env.work_dir().join("spool");
    let spool = std::fs::create_dir_all(&parent)
        .and_then(|_| {
            tempfile::Builder::new()
                .prefix(&format!("gpu{gpu}-{slot}-"))
                .tempdir_in(&parent)
        })
        .map_err(|e| PoolError::Io(format!("{}: {e}", parent.display())))?;
    let log =
        std::fs::File::create(spool.path().join("harness.log")).map_err(|e| PoolError::Io(e.to_string()))?;
    let mut cmd = env.harness_command("serve");
    cmd.arg("--device")
        .arg(gpu.to_string())
        .arg("--spool")
        .arg(spool.path())
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(log)
        .process_group(0);
    let mut child = cmd.spawn().map_err(|e| {
        PoolError::Start(
            KernelReason::HarnessFailed.as_str().into(),
            format!(
                "cannot start the harness {}: {e}",
                env.harness_program().display()
            ),
        )
    })?;
    let stdin = child.stdin.take();
    Ok(Proc {
        child,
        stdin,
        spool,
        device: DeviceInfo::default(),
    })
}

/// Waits for a launched process's context (its `ready.json`), checks its build, and counts the
/// start from `t0`.
fn ready(mut proc: Proc, gpu: u32, t0: Instant, stats: &Mutex<PoolStats>) -> Result<Proc, PoolError> {
    let _span = crate::timeline::span("harness-start", || format!("gpu{gpu}"));
    let ready_path = proc.spool.path().join("ready.json");
    let bytes = wait_file(&ready_path, &mut proc.child, Instant::now() + READY_TIMEOUT)
        .map_err(|e| PoolError::Io(e.to_string()))?;
    let Some(bytes) = bytes else {
        let tail = proc.log_tail();
        proc.kill();
        return Err(PoolError::Start(
            KernelReason::HarnessFailed.as_str().into(),
            format!("the harness for GPU {gpu} never became ready: {tail}"),
        ));
    };
    let ready: HarnessReady = serde_json::from_slice(&bytes)
        .map_err(|e| PoolError::Start(KernelReason::HarnessFailed.as_str().into(), e.to_string()))?;
    if let Some(e) = ready.error {
        proc.kill();
        return Err(PoolError::Start(e.code, e.detail));
    }
    if ready.build != HARNESS_BUILD {
        proc.kill();
        return Err(PoolError::Start(
            KernelReason::HarnessMismatch.as_str().into(),
            format!(
                "the harness reports build `{}` but this is `{}`: rebuild both (`cargo build --release`)",
                ready.build, HARNESS_BUILD
            ),
        ));
    }
    proc.device = ready.device.unwrap_or_default();
    if let Ok(mut s) = stats.lock() {
        s.started += 1;
        s.start_s += t0.elapsed().as_secs_f64();
    }
    Ok(proc)
}

impl HarnessPool {
    /// What the pool did so far.
    pub fn stats(&self) -> PoolStats {
        self.stats.lock().map(|s| *s).unwrap_or_default()
    }

    fn start(&self, env: &dyn HarnessHost, key: (u32, usize)) -> Result<Proc, PoolError> {
        let t0 = Instant::now();
        let launched = launch(env, key)?;
        ready(launched, key.0, t0, &self.stats)
    }

    /// Runs one job on the leased GPU and returns its record. The job's `record` path is set
    /// here, inside the process's spool. A process that must go (a lost context, a missed
    /// deadline) is ended by a thread of its own that keeps the lease until the process is gone
    /// (a hung kernel can keep the device busy for a while after its process was killed), so
    /// the leg's result does not wait for it, and no other job gets the GPU before it is free.
    pub fn run(
        &self,
        env: &dyn HarnessHost,
        lease: Lease,
        job: &mut HarnessJob,
        deadline: Duration,
    ) -> Result<HarnessRecord, PoolError> {
        let gpu = lease.gpu();
        let key = (gpu, lease.slot());
        let mut span = crate::timeline::span("job", || format!("{}/{}", job.work.kind(), job.id));
        let existing = self.procs.lock().ok().and_then(|mut m| m.remove(&key));
        let alive = existing.and_then(|mut p| matches!(p.child.try_wait(), Ok(None)).then_some(p));
        let mut proc = match alive {
            Some(p) => p,
            None => self.start(env, key)?,
        };
        let on_gpu = OnGpu::new(self, gpu);
        let n = env.next_job();
        let job_path: PathBuf = proc.spool.path().join(format!("j{n:06}.job.json"));
        job.record = proc.spool.path().join(format!("j{n:06}.record.json"));
        let text = serde_json::to_vec(job).map_err(|e| PoolError::Io(e.to_string()))?;
        std::fs::write(&job_path, text).map_err(|e| PoolError::Io(format!("{}: {e}", job_path.display())))?;
        let sent = proc
            .stdin
            .as_mut()
            .map(|s| writeln!(s, "{}", job_path.display()).and_then(|_| s.flush()));
        if !matches!(sent, Some(Ok(()))) {
            let tail = proc.log_tail();
            proc.kill();
            self.note_replaced();
            return Err(PoolError::Crashed(format!(
                "the harness's input is closed: {tail}"
            )));
        }
        let got = wait_file(&job.record, &mut proc.child, Instant::now() + deadline);
        drop(on_gpu);
        let _ = std::fs::remove_file(&job_path);
        let bytes = match got {
            Ok(Some(b)) => b,
            Ok(None) if matches!(proc.child.try_wait(), Ok(None)) => {
                self.retire(env, proc, lease);
                return Err(PoolError::Timeout(deadline.as_secs_f64()));
            }
            Ok(None) => {
                let status = proc.child.try_wait().ok().flatten();
                let tail = proc.log_tail();
                self.retire(env, proc, lease);
                return Err(PoolError::Crashed(format!("exit {status:?}: {tail}")));
            }
            Err(e) => {
                self.retire(env, proc, lease);
                return Err(PoolError::Io(e.to_string()));
            }
        };
        let _ = std::fs::remove_file(&job.record);
        let record: HarnessRecord = match serde_json::from_slice(&bytes) {
            Ok(r) => r,
            Err(e) => {
                self.retire(env, proc, lease);
                return Err(PoolError::Crashed(format!("unreadable record: {e}")));
            }
        };
        if let Ok(mut s) = self.stats.lock() {
            s.jobs += 1;
        }
        crate::timeline::Span::note(&mut span, || format!("harness_ms={:.3}", record.elapsed_s * 1e3));
        if record.context_lost {
            self.retire(env, proc, lease);
        } else if let Ok(mut m) = self.procs.lock() {
            m.insert(key, proc);
        }
        Ok(record)
    }

    /// Ends a process in a thread of its own, which drops the lease once the process is gone.
    /// Its replacement is launched first, under the same lease, so the new context is made
    /// while the old one is torn down (a cut kernel can keep the GPU for a few hundred
    /// milliseconds) and the next job finds it ready; no job runs on the GPU until both are
    /// done.
    fn retire(&self, env: &dyn HarnessHost, mut proc: Proc, lease: Lease) {
        self.note_replaced();
        let key = (lease.gpu(), lease.slot());
        let t0 = Instant::now();
        let next = launch(env, key).ok();
        let procs = Arc::clone(&self.procs);
        let stats = Arc::clone(&self.stats);
        let retiring = std::thread::Builder::new()
            .name(format!("retire-gpu{}", lease.gpu()))
            .spawn(move || {
                proc.kill();
                drop(proc);
                // A replacement that fails to start is dropped: the next job starts one and
                // reports why.
                if let Some(Ok(p)) = next.map(|n| ready(n, key.0, t0, &stats))
                    && let Ok(mut m) = procs.lock()
                {
                    m.insert(key, p);
                }
                drop(lease);
            });
        if let Err(e) = retiring {
            eprintln!("aorlta: cannot start a thread to end a harness process: {e}");
        }
    }

    fn note_replaced(&self) {
        if let Ok(mut s) = self.stats.lock() {
            s.replaced += 1;
        }
    }

    /// The device of a process serving `gpu`, if one is running.
    pub fn device(&self, gpu: u32) -> Option<DeviceInfo> {
        let m = self.procs.lock().ok()?;
        m.iter()
            .find(|((g, _), _)| *g == gpu)
            .map(|(_, p)| p.device.clone())
    }

    /// Starts the harness process of `gpu`'s slot 0 when it has none; the caller holds the
    /// GPU's lease, so starting one never disturbs another process's job on that GPU. A start
    /// that fails is left to the first job, which reports it.
    pub fn warm(&self, env: &dyn HarnessHost, gpu: u32) {
        let key = (gpu, 0);
        if self.procs.lock().map(|m| m.contains_key(&key)).unwrap_or(true) {
            return;
        }
        if let Ok(proc) = self.start(env, key)
            && let Ok(mut m) = self.procs.lock()
        {
            m.insert(key, proc);
        }
    }

    /// Ends every process (closing their input).
    pub fn shutdown(&self) {
        if let Ok(mut m) = self.procs.lock() {
            m.clear();
        }
    }
}
