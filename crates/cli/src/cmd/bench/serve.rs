//! `aorlta bench serve`: throughput and latency of `POST /v1/score` for Q&A batches of 1, 32
//! and 256 items. Starts the real service (`aorlta serve --config …` on a free loopback port,
//! as its own process) unless `--addr` names a running one, then drives it with the load
//! generator of `aorlta_bench` over keep-alive connections and prints a table.
//!
//! The measurements are [`aorlta_app::prepare_serve_bench`]'s; this file parses the flags and
//! prints.

use anyhow::Context;
use aorlta_app::{ServeBench, prepare_serve_bench};
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

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
    let bench = prepare_serve_bench(ServeBench {
        exe: std::env::current_exe().context("finding the aorlta binary")?,
        config: args.config.clone(),
        addr: args.addr,
        batches: args.batches.clone(),
        items: args.items,
        connections: args.connections,
        pool: args.pool.clone(),
        token: std::env::var(aorlta_server::TOKEN_VAR).ok(),
    })?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!(
        "aorlta bench serve: POST /v1/score, Q&A items, on http://{}\n\
         completions from {} ({} distinct, mean {} bytes, each sent once with a distinct suffix)\n\
         {} keep-alive connections, 1 request in flight on each; service: {} Q&A workers; \
         this machine: {cores} cores shared by the service and the load generator\n",
        bench.addr(),
        args.pool,
        bench.samples(),
        bench.mean_len(),
        args.connections,
        bench.qa_workers(),
    );
    println!(
        "{:>6} {:>9} {:>10} {:>9} {:>8} {:>8} {:>8} {:>8}",
        "batch", "requests", "items/s", "req/s", "p50 ms", "p99 ms", "max ms", "non-200"
    );
    let report = bench.run(&mut |r| {
        println!(
            "{:>6} {:>9} {:>10.0} {:>9.0} {:>8.2} {:>8.2} {:>8.2} {:>8}",
            r.batch,
            r.requests,
            r.items_per_s(),
            r.requests_per_s(),
            ms(r.percentile(50.0)),
            ms(r.percentile(99.0)),
            ms(r.percentile(100.0)),
            r.requests - r.ok(),
        );
    })?;
    println!(
        "\nservice counters: {:.0} items computed, {:.0} shared with an identical item \
         in flight, {:.0} cache hits (every completion sent was distinct)",
        report.computed, report.shared, report.hits
    );
    if let Some((ips, p99, met)) = report.goal() {
        println!(
            "goal at batch 256: >= 20000 items/s and p99 < 50 ms; measured {ips:.0} items/s, p99 {p99:.2} ms: {}",
            if met { "met" } else { "NOT met" }
        );
    }
    Ok(ExitCode::SUCCESS)
}
