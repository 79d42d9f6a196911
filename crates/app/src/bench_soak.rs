//! The soak of `aorlta serve` (`aorlta bench soak`): a service of its own over the Q&A and
//! kernel examples (kernels on the fake device, so no GPU is needed) with a bounded memory
//! cache, sent distinct items for the whole time (Q&A batches of 64 and kernel batches of 4 on
//! two keep-alive connections, each completion new), while its memory, its harness processes'
//! memory and its work folder are sampled at even intervals (`aorlta_bench`'s samplers). It
//! stops by itself, the service with SIGTERM.
//!
//! [`SoakRun::start`] writes the config and starts the service; [`SoakRun::run`] loads and
//! samples it, handing each sample to the caller as it is taken. The command line prints.

use crate::service::Service;
use anyhow::Context;
use aorlta_bench::{SoakReport, SoakRow, soak_load};
use serde_json::json;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Q&A items per request.
const QA_BATCH: u64 = 64;
/// Kernel items per request.
const KERNEL_BATCH: u64 = 4;
/// How long the load may take to end after the last sample (a kernel batch in flight).
const LOAD_END_LIMIT: Duration = Duration::from_secs(330);

/// The settings of a soak.
#[derive(Debug, Clone)]
pub struct SoakBench {
    /// The `aorlta` binary that serves.
    pub exe: PathBuf,
    /// How long the load runs, in minutes.
    pub minutes: f64,
    /// Samples after the first (taken at the start), evenly spaced.
    pub samples: usize,
    /// The memory cache's bound, in entries.
    pub cache_entries: u64,
    /// The pause of each connection between an answer and its next request.
    pub pause: Duration,
    /// The examples folder: `qa/` (tasks and profile) and `kernels/` (tasks, profile, the
    /// `vector_add` reference).
    pub examples: PathBuf,
}

/// A soak ready to run: the service listening.
pub struct SoakRun {
    args: SoakBench,
    service: Service,
    addr: std::net::SocketAddr,
    work: PathBuf,
    qa_tasks: Vec<String>,
    reference: String,
    _dir: tempfile::TempDir,
}

impl std::fmt::Debug for SoakRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SoakRun")
            .field("addr", &self.addr)
            .field("work", &self.work)
            .finish_non_exhaustive()
    }
}

/// A path as a YAML scalar (JSON's string quoting is valid YAML).
fn yaml_path(p: &Path) -> String {
    serde_json::Value::from(p.display().to_string()).to_string()
}

impl SoakRun {
    /// Writes the service's config (in a temporary folder, with its work folder and leases)
    /// and starts it.
    pub fn start(args: SoakBench) -> anyhow::Result<SoakRun> {
        anyhow::ensure!(args.minutes > 0.0, "the soak must last more than 0 minutes");
        anyhow::ensure!(args.samples > 0, "the soak takes at least 1 sample");
        let examples = std::path::absolute(&args.examples)
            .with_context(|| format!("finding {}", args.examples.display()))?;
        let (q, k) = (examples.join("qa"), examples.join("kernels"));
        let reference_file = k.join("reference").join("vector_add.cu");
        let reference = std::fs::read_to_string(&reference_file)
            .with_context(|| format!("cannot read {}", reference_file.display()))?;
        let qa_file = q.join("tasks.jsonl");
        let qa_tasks = std::fs::read_to_string(&qa_file)
            .with_context(|| format!("cannot read {}", qa_file.display()))?
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.trim().is_empty())
            .map(|(i, l)| {
                let v: serde_json::Value = serde_json::from_str(l)
                    .with_context(|| format!("{}:{}: not JSON", qa_file.display(), i + 1))?;
                v["id"]
                    .as_str()
                    .map(str::to_string)
                    .with_context(|| format!("{}:{}: no `id`", qa_file.display(), i + 1))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        anyhow::ensure!(!qa_tasks.is_empty(), "{}: no tasks", qa_file.display());
        let dir = tempfile::Builder::new().prefix("aorlta-soak-").tempdir()?;
        let work = dir.path().join("work");
        let config = dir.path().join("serve.yaml");
        let yaml = format!(
            "tasks: [{}, {}]\nprofiles: [{}, {}]\ncache: {{kind: memory, max-entries: {}}}\n\
             gpus: [0]\nwork-dir: {}\nkernel: {{fake-gpu: true, lease-dir: {}}}\n\
             lanes:\n  qa: {{workers: 1, queue-items: 8192, item-timeout: 10s}}\n  \
             kernel: {{workers: 1, queue-items: 64, item-timeout: 150s}}\n",
            yaml_path(&qa_file),
            yaml_path(&k.join("tasks")),
            yaml_path(&q.join("profile.yaml")),
            yaml_path(&k.join("profile.yaml")),
            args.cache_entries,
            yaml_path(&work),
            yaml_path(&dir.path().join("leases")),
        );
        std::fs::write(&config, yaml).with_context(|| format!("cannot write {}", config.display()))?;
        let (service, addr) = Service::start(&args.exe, &config, &dir.path().join("addr"))?;
        Ok(SoakRun {
            args,
            service,
            addr,
            work,
            qa_tasks,
            reference,
            _dir: dir,
        })
    }

    /// Sends the load for the settings' minutes and samples the service at the start and
    /// `samples` times after, evenly spaced, handing each sample to `each`; then waits for
    /// the requests in flight and stops the service.
    pub fn run(mut self, each: &mut dyn FnMut(&SoakRow)) -> anyhow::Result<SoakReport> {
        let length = Duration::from_secs_f64(self.args.minutes * 60.0);
        let stop = Instant::now() + length;
        let (qa, kernel, non_200) = (
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicU64::new(0)),
            Arc::new(AtomicU64::new(0)),
        );
        let (done_tx, done_rx) = std::sync::mpsc::channel();
        let load = {
            let (qa, kernel, non_200) = (qa.clone(), kernel.clone(), non_200.clone());
            let (addr, pause) = (self.addr, self.args.pause);
            let tasks = std::mem::take(&mut self.qa_tasks);
            let reference = std::mem::take(&mut self.reference);
            std::thread::spawn(move || {
                let rt = tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                    .expect("a runtime for the load");
                let qa_body = |n: u64| {
                    let items: Vec<_> = (n..n + QA_BATCH)
                        .map(|i| {
                            json!({
                                "task": tasks[(i % tasks.len() as u64) as usize],
                                "completion": format!("step {i}: \\boxed{{{i}}}"),
                            })
                        })
                        .collect();
                    json!({"profile": "qa", "items": items}).to_string()
                };
                let kernel_body = |n: u64| {
                    let items: Vec<_> = (n..n + KERNEL_BATCH)
                        .map(|i| {
                            json!({
                                "task": "vector_add",
                                "completion": format!("```cuda\n{reference}\n// soak {i}\n```\n"),
                            })
                        })
                        .collect();
                    json!({"profile": "kernels", "items": items}).to_string()
                };
                rt.block_on(async {
                    let _ = tokio::join!(
                        soak_load(addr, QA_BATCH, qa_body, stop, pause, &qa, &non_200),
                        soak_load(addr, KERNEL_BATCH, kernel_body, stop, pause, &kernel, &non_200),
                    );
                });
                let _ = done_tx.send(());
            })
        };
        let t0 = Instant::now();
        let every = length.div_f64(self.args.samples as f64);
        let pid = self.service.pid();
        let mut rows = Vec::new();
        for s in 0..=self.args.samples {
            let target = t0 + every.mul_f64(s as f64);
            while let Some(left) = target.checked_duration_since(Instant::now()) {
                std::thread::sleep(left.min(Duration::from_millis(500)));
            }
            let row = SoakRow::sample(
                t0.elapsed(),
                qa.load(Ordering::Relaxed),
                kernel.load(Ordering::Relaxed),
                pid,
                &self.work,
            );
            each(&row);
            rows.push(row);
        }
        if done_rx.recv_timeout(LOAD_END_LIMIT).is_ok() {
            let _ = load.join();
        }
        let exit = self.service.stop()?;
        Ok(SoakReport::new(
            self.args.minutes,
            self.args.cache_entries,
            rows,
            non_200.load(Ordering::Relaxed),
            exit,
        ))
    }
}
