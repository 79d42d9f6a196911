//! `aorlta bench …`: benchmarks that print figures. One file per benchmark under `bench/`.

mod kernels;
mod qa;
mod score;
mod serve;
mod soak;

use std::process::ExitCode;

/// Which benchmark.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum Bench {
    /// Answer extraction and normalised-match throughput, and worst case on pathological input.
    Qa(qa::Args),
    /// `POST /v1/score` throughput and p50/p99 latency for Q&A batches of 1, 32 and 256 items.
    Serve(serve::Args),
    /// Kernel legs: compile, harness start, correctness, timing, overhead per launch, A/A.
    Kernels(kernels::Args),
    /// `aorlta score` over many distinct Q&A completions: a fresh run and the cached rerun,
    /// candidates per second, the rerun's share of the time and peak memory.
    Score(score::Args),
    /// `aorlta serve` under distinct Q&A and kernel items (fake device) for a long time: its
    /// memory, its harness processes' memory and its work folder sampled, to show them flat.
    Soak(soak::Args),
}

/// Runs a benchmark.
pub(crate) fn run(b: Bench) -> anyhow::Result<ExitCode> {
    match b {
        Bench::Qa(a) => qa::run(a),
        Bench::Serve(a) => serve::run(a),
        Bench::Kernels(a) => kernels::run(a),
        Bench::Score(a) => score::run(a),
        Bench::Soak(a) => soak::run(a),
    }
}
