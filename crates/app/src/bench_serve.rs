//! Throughput and latency of `POST /v1/score` for Q&A batches (`aorlta bench serve`): the real
//! service started as its own process ([`crate::service`]) unless a running one is named, then
//! driven by the load generator of `aorlta_bench` over keep-alive connections, one run per
//! batch size, and the service's own counters read from `/metrics` at the end.
//!
//! [`prepare_serve_bench`] reads the completions to send and starts the service;
//! [`ServeBenchRun::run`] measures, handing each run's figures to the caller as they are
//! measured. The command line prints.

use crate::service::Service;
use anyhow::Context;
use aorlta_bench::{
    LoadReport, Sample, get_text, metric, pool_samples, run_load, score_bodies, task_samples,
};
use aorlta_check::TaskSet;
use aorlta_server::ServeConfig;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};

/// The settings of a serve benchmark.
#[derive(Debug, Clone)]
pub struct ServeBench {
    /// The `aorlta` binary that serves.
    pub exe: PathBuf,
    /// The service config to start (its Q&A tasks make the requests).
    pub config: PathBuf,
    /// Drive a service already listening here instead of starting one.
    pub addr: Option<SocketAddr>,
    /// Items per request, one run each.
    pub batches: Vec<usize>,
    /// Items sent per run; requests = items / batch, between 200 and 20000.
    pub items: usize,
    /// Keep-alive connections, each with one request in flight.
    pub connections: usize,
    /// The completions to send (a pool file), or `synthetic`: made-up ones over the config's
    /// Q&A tasks.
    pub pool: String,
    /// The token a running service asks for (never sent to the benchmark's own service).
    pub token: Option<String>,
}

/// A serve benchmark ready to run: the completions read, the service listening.
pub struct ServeBenchRun {
    args: ServeBench,
    samples: Vec<Sample>,
    qa_workers: usize,
    service: Option<Service>,
    addr: SocketAddr,
    rt: tokio::runtime::Runtime,
}

impl std::fmt::Debug for ServeBenchRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ServeBenchRun")
            .field("addr", &self.addr)
            .field("samples", &self.samples.len())
            .finish_non_exhaustive()
    }
}

/// What a serve benchmark measured: one report per batch size, and the service's counters.
#[derive(Debug, Clone)]
pub struct ServeBenchReport {
    /// One load run per batch size, in order.
    pub runs: Vec<LoadReport>,
    /// Items the service computed.
    pub computed: f64,
    /// Items shared with an identical item in flight.
    pub shared: f64,
    /// Cache hits.
    pub hits: f64,
}

/// The goal at batch 256: at least this many items per second.
pub const SERVE_GOAL_ITEMS_PER_S: f64 = 20_000.0;
/// The goal at batch 256: a p99 latency under this many milliseconds.
pub const SERVE_GOAL_P99_MS: f64 = 50.0;

impl ServeBenchReport {
    /// The run at batch 256 measured against the goal: its items per second, its p99 in
    /// milliseconds and whether both goals are met; `None` without such a run.
    pub fn goal(&self) -> Option<(f64, f64, bool)> {
        let r = self.runs.iter().find(|r| r.batch == 256)?;
        let (ips, p99) = (r.items_per_s(), r.percentile(99.0).as_secs_f64() * 1e3);
        Some((ips, p99, ips >= SERVE_GOAL_ITEMS_PER_S && p99 < SERVE_GOAL_P99_MS))
    }
}

fn ready_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("aorlta-bench-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

/// Reads the completions to send (the pool, or made-up ones over the config's Q&A tasks) and
/// starts the service, unless `args.addr` names a running one.
pub fn prepare_serve_bench(args: ServeBench) -> anyhow::Result<ServeBenchRun> {
    let cfg = ServeConfig::load(&args.config)?;
    let samples = if args.pool == "synthetic" {
        let (tasks, _) = TaskSet::load_all(&cfg.tasks, &aorlta_core::lanes())?;
        task_samples(&tasks)
    } else {
        pool_samples(Path::new(&args.pool)).with_context(|| format!("reading the pool {}", args.pool))?
    };
    anyhow::ensure!(
        !samples.is_empty(),
        "no completions to send (the pool or the Q&A tasks are empty)"
    );
    let (service, addr) = match args.addr {
        Some(a) => (None, a),
        None => {
            let dir = ready_dir()?;
            let (s, a) = Service::start(&args.exe, &args.config, &dir.join("addr"))?;
            let _ = std::fs::remove_dir_all(&dir);
            (Some(s), a)
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the load generator's runtime")?;
    Ok(ServeBenchRun {
        qa_workers: cfg.lanes.qa.worker_count(),
        args,
        samples,
        service,
        addr,
        rt,
    })
}

impl ServeBenchRun {
    /// Where the service listens.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The distinct completions sent (each made distinct again per item).
    pub fn samples(&self) -> usize {
        self.samples.len()
    }

    /// Their mean length in bytes.
    pub fn mean_len(&self) -> usize {
        self.samples.iter().map(|(_, c)| c.len()).sum::<usize>() / self.samples.len()
    }

    /// The config's Q&A workers.
    pub fn qa_workers(&self) -> usize {
        self.qa_workers
    }

    /// One run per batch size (a warm-up first, then the measured requests), each handed to
    /// `each` as it is measured; then the service's counters; then the service is stopped.
    pub fn run(self, each: &mut dyn FnMut(&LoadReport)) -> anyhow::Result<ServeBenchReport> {
        let args = &self.args;
        // A running service may need the token; the bench's own service asks for none.
        let token = args
            .addr
            .and(args.token.as_deref())
            .map(str::trim)
            .filter(|t| !t.is_empty());
        let mut runs = Vec::new();
        for (run_no, &batch) in args.batches.iter().enumerate() {
            let requests = (args.items / batch).clamp(200, 20_000);
            let warm = score_bodies(&self.samples, batch, args.connections * 4, &format!("w{run_no}"));
            let bodies = score_bodies(&self.samples, batch, requests, &format!("r{run_no}"));
            let r = self.rt.block_on(async {
                run_load(self.addr, "/v1/score", warm, batch, args.connections, token).await?;
                run_load(self.addr, "/v1/score", bodies, batch, args.connections, token).await
            })?;
            each(&r);
            runs.push(r);
        }
        let text = self.rt.block_on(get_text(self.addr, "/metrics"))?;
        drop(self.service);
        Ok(ServeBenchReport {
            runs,
            computed: metric(&text, "aorlta_items_computed_total").unwrap_or(0.0),
            shared: metric(&text, "aorlta_items_shared_total").unwrap_or(0.0),
            hits: metric(&text, "aorlta_cache_hits_total").unwrap_or(0.0),
        })
    }
}
