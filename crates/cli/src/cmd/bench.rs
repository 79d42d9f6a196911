//! `aorlta bench …`: benchmarks that print figures. One file per benchmark under `bench/`.

use std::process::ExitCode;

/// Which benchmark.
#[derive(Debug, clap::Subcommand)]
pub enum Bench {
    /// Answer extraction and normalised-match throughput, and worst case on pathological input.
    Qa,
    /// Kernel legs: compile, harness start, correctness, timing, overhead per launch, A/A.
    Kernels(super::bench_kernels::Args),
}

/// Runs a benchmark.
pub fn run(b: Bench) -> anyhow::Result<ExitCode> {
    match b {
        Bench::Qa => anyhow::bail!("`aorlta bench qa` is not available in this build yet"),
        Bench::Kernels(a) => super::bench_kernels::run(a),
    }
}
