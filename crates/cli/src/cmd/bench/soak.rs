//! `aorlta bench soak --minutes N [--samples K] [--json FILE]`: a soak of `aorlta serve` over
//! the Q&A and kernel examples (kernels on the fake device: no GPU needed) with a bounded
//! memory cache, sent distinct items for the whole time, its memory (VmRSS), its harness
//! processes' memory and its work folder sampled `K` times, evenly spaced, to show all stay
//! flat. One row per sample as it is taken, then the line that sets the first half's largest
//! figures beside the second's. Exit status 0 when every answer was 200 and the service exited
//! cleanly, 1 otherwise. Loopback only; it stops by itself.
//!
//! The soak is [`aorlta_app::SoakRun`]'s; this file parses the flags and prints.

use anyhow::Context;
use aorlta_app::{SoakBench, SoakRun};
use aorlta_bench::SoakRow;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

/// Arguments of `aorlta bench soak`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// How long the load runs, in minutes (fractions allowed).
    #[arg(long, default_value_t = 60.0)]
    pub minutes: f64,
    /// Samples after the first, evenly spaced over the minutes.
    #[arg(long, default_value_t = 12)]
    pub samples: usize,
    /// The service's memory cache bound, in entries.
    #[arg(long, default_value_t = 20_000)]
    pub cache_entries: u64,
    /// Seconds each connection pauses between an answer and its next request.
    #[arg(long, default_value_t = 0.05)]
    pub pause: f64,
    /// The examples folder (`qa/` and `kernels/`).
    #[arg(long, default_value = "examples")]
    pub examples: PathBuf,
    /// Write the samples and the halves' figures as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Runs `aorlta bench soak`.
pub(super) fn run(args: Args) -> anyhow::Result<ExitCode> {
    anyhow::ensure!(
        args.pause.is_finite() && args.pause >= 0.0,
        "--pause must be 0 or more seconds"
    );
    let soak = SoakRun::start(SoakBench {
        exe: std::env::current_exe().context("finding the aorlta binary")?,
        minutes: args.minutes,
        samples: args.samples,
        cache_entries: args.cache_entries,
        pause: Duration::from_secs_f64(args.pause),
        examples: args.examples.clone(),
    })?;
    println!(
        "aorlta soak: {} min, distinct Q&A and kernel items (fake device), memory cache of {}",
        args.minutes, args.cache_entries
    );
    println!("{}", SoakRow::HEAD);
    let report = soak.run(&mut |row| {
        println!("{row}");
        let _ = std::io::stdout().flush();
    })?;
    if let Some(line) = report.verdict() {
        println!("{line}");
    }
    if let Some(p) = &args.json {
        std::fs::write(p, serde_json::to_vec_pretty(&report)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(if report.ok() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
