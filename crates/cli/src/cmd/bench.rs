//! `aorlta bench …`: benchmarks that print figures. One file per benchmark under `bench/`.

use std::process::ExitCode;

/// Which benchmark.
#[derive(Debug, clap::Subcommand)]
pub enum Bench {
    /// Answer extraction and normalised-match throughput, and worst case on pathological input.
    Qa,
    /// `POST /v1/score` throughput and p50/p99 latency for Q&A batches of 1, 32 and 256 items.
    Serve(super::bench_serve::Args),
}

/// Runs a benchmark.
pub fn run(b: Bench) -> anyhow::Result<ExitCode> {
    match b {
        Bench::Qa => anyhow::bail!("`aorlta bench qa` is not available in this build yet"),
        Bench::Serve(a) => super::bench_serve::run(a),
    }
}
