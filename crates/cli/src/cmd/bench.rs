//! `aorlta bench …`: benchmarks that print figures. One file per benchmark under `bench/`.

mod qa;

use std::process::ExitCode;

/// Which benchmark.
#[derive(Debug, clap::Subcommand)]
pub enum Bench {
    /// Answer extraction and normalised-match throughput, and worst case on pathological input.
    Qa(qa::Args),
}

/// Runs a benchmark.
pub fn run(b: Bench) -> anyhow::Result<ExitCode> {
    match b {
        Bench::Qa(a) => qa::run(a),
    }
}
