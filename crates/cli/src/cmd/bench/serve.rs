//! `aorlta bench serve`: throughput and latency of `POST /v1/score` for Q&A batches of 1, 32
//! and 256 items. Starts the real service (`aorlta serve --config …` on a free loopback port,
//! as its own process) unless `--addr` names a running one, then drives it with the load
//! generator in `aorlta_bench::serve` over keep-alive connections and prints a table.

use anyhow::Context;
use aorlta_bench::serve::{LoadReport, get_text, metric, pool_samples, run_load, score_bodies, task_samples};
use aorlta_check::TaskSet;
use aorlta_server::ServeConfig;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

/// Arguments of `aorlta bench serve`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The service config to start (its Q&A tasks make the requests).
    #[arg(long, default_value = "configs/serve-qa.yaml")]
    pub config: PathBuf,
    /// Drive a service already listening here (`127.0.0.1:8787`) instead of starting one; it
    /// must offer the config's tasks. The requests carry `AORLTA_TOKEN` when it is set.
    #[arg(long)]
    pub addr: Option<SocketAddr>,
    /// Items per request, one run each.
    #[arg(long, value_delimiter = ',', default_value = "1,32,256")]
    pub batches: Vec<usize>,
    /// Items sent per run; requests = items / batch, between 200 and 20000.
    #[arg(long, default_value_t = 102_400)]
    pub items: usize,
    /// Keep-alive connections, each with one request in flight.
    #[arg(long, default_value_t = 4)]
    pub connections: usize,
    /// Completions to send (JSONL with `task` and `completion`), cycled and each made distinct;
    /// `synthetic` sends short made-up ones over the config's Q&A tasks.
    #[arg(long, default_value = "examples/qa/after.jsonl")]
    pub pool: String,
}

/// Stops the service it started (SIGTERM, then waits for it) when dropped.
struct Service(Child);

impl Drop for Service {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-TERM", &self.0.id().to_string()])
            .status();
        let _ = self.0.wait();
    }
}

fn start(config: &Path) -> anyhow::Result<(Service, SocketAddr)> {
    let dir = tempfile_dir()?;
    let ready = dir.join("addr");
    let child = Command::new(std::env::current_exe().context("finding the aorlta binary")?)
        .args(["serve", "--bind", "127.0.0.1:0", "--config"])
        .arg(config)
        .arg("--ready-file")
        .arg(&ready)
        .env("RUST_LOG", "warn")
        // Its own service, on loopback: the load sends no token.
        .env_remove(aorlta_server::TOKEN_VAR)
        .stdout(Stdio::null())
        .stdin(Stdio::null())
        .spawn()
        .context("starting `aorlta serve`")?;
    let mut service = Service(child);
    let t0 = Instant::now();
    loop {
        if let Ok(text) = std::fs::read_to_string(&ready) {
            let addr = text.trim().parse().context("reading the ready file")?;
            let _ = std::fs::remove_dir_all(&dir);
            return Ok((service, addr));
        }
        if let Some(status) = service.0.try_wait()? {
            anyhow::bail!("`aorlta serve` exited with {status} before listening");
        }
        anyhow::ensure!(
            t0.elapsed() < Duration::from_secs(30),
            "`aorlta serve` did not start in 30 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn tempfile_dir() -> anyhow::Result<PathBuf> {
    let dir = std::env::temp_dir().join(format!("aorlta-bench-serve-{}", std::process::id()));
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    Ok(dir)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// Runs `aorlta bench serve`.
pub(super) fn run(args: Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(args.connections > 0, "--connections must be at least 1");
    anyhow::ensure!(
        args.batches.iter().all(|b| *b > 0),
        "batch sizes must be at least 1"
    );
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
    let mean_len = samples.iter().map(|(_, c)| c.len()).sum::<usize>() / samples.len();
    // A running service may need the token; the bench's own service asks for none.
    let token = args
        .addr
        .and_then(|_| std::env::var(aorlta_server::TOKEN_VAR).ok())
        .filter(|t| !t.trim().is_empty());
    let (service, addr) = match args.addr {
        Some(a) => (None, a),
        None => {
            let (s, a) = start(&args.config)?;
            (Some(s), a)
        }
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("starting the load generator's runtime")?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "aorlta bench serve: POST /v1/score, Q&A items, on http://{addr}\n\
         completions from {} ({} distinct, mean {mean_len} bytes, each sent once with a distinct suffix)\n\
         {} keep-alive connections, 1 request in flight on each; service: {} Q&A workers; \
         this machine: {cores} cores shared by the service and the load generator\n",
        args.pool,
        samples.len(),
        args.connections,
        cfg.lanes.qa.worker_count(),
    );
    println!(
        "{:>6} {:>9} {:>10} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "batch", "requests", "items/s", "req/s", "p50 ms", "p99 ms", "max ms", "non-200"
    );
    let mut reports: Vec<LoadReport> = Vec::new();
    for (run_no, &batch) in args.batches.iter().enumerate() {
        let requests = (args.items / batch).clamp(200, 20_000);
        let warm = score_bodies(&samples, batch, args.connections * 4, &format!("w{run_no}"));
        let bodies = score_bodies(&samples, batch, requests, &format!("r{run_no}"));
        let r = rt.block_on(async {
            let token = token.as_deref().map(str::trim);
            run_load(addr, "/v1/score", warm, batch, args.connections, token).await?;
            run_load(addr, "/v1/score", bodies, batch, args.connections, token).await
        })?;
        println!(
            "{:>6} {:>9} {:>10.0} {:>9.0} {:>8.2} {:>8.2} {:>8.2} {:>8}",
            batch,
            r.requests,
            r.items_per_s(),
            r.requests_per_s(),
            ms(r.percentile(50.0)),
            ms(r.percentile(99.0)),
            ms(r.percentile(100.0)),
            r.requests - r.ok(),
        );
        reports.push(r);
    }
    let text = rt.block_on(get_text(addr, "/metrics"))?;
    let computed = metric(&text, "aorlta_items_computed_total").unwrap_or(0.0);
    let shared = metric(&text, "aorlta_items_shared_total").unwrap_or(0.0);
    let hits = metric(&text, "aorlta_cache_hits_total").unwrap_or(0.0);
    println!(
        "\nservice counters: {computed:.0} items computed, {shared:.0} shared with an identical item \
         in flight, {hits:.0} cache hits (every completion sent was distinct)"
    );
    if let Some(r) = reports.iter().find(|r| r.batch == 256) {
        let (ips, p99) = (r.items_per_s(), ms(r.percentile(99.0)));
        let met = ips >= 20_000.0 && p99 < 50.0;
        println!(
            "goal at batch 256: >= 20000 items/s and p99 < 50 ms; measured {ips:.0} items/s, p99 {p99:.2} ms: {}",
            if met { "met" } else { "NOT met" }
        );
    }
    drop(service);
    Ok(ExitCode::SUCCESS)
}
