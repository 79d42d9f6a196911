//! `aorlta bench qa`: normalised-match throughput over the Q&A example's (reference, answer)
//! pairs on one thread, and the worst extraction + comparison time on pathological inputs up to
//! 1 MiB. Exits non-zero when a goal is missed.

use aorlta_core::bench::{builtin_pairs, load_pairs, run_qa};
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `aorlta bench qa`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The Q&A example folder (tasks.jsonl and pools).
    #[arg(long, default_value = "examples/qa")]
    pub examples: PathBuf,
}

/// Runs the benchmark and prints its table.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let pairs = match load_pairs(&args.examples)? {
        Some(p) if !p.is_empty() => {
            println!(
                "workload: {} (reference, answer) pairs from {}",
                p.len(),
                args.examples.display()
            );
            p
        }
        _ => {
            let p = builtin_pairs();
            println!(
                "workload: {} built-in pairs ({} holds no tasks)",
                p.len(),
                args.examples.display()
            );
            p
        }
    };
    if cfg!(debug_assertions) {
        println!("note: a debug build; run `cargo run --release -- bench qa` for figures worth quoting");
    }
    let report = run_qa(&pairs);
    println!("\n{report}");
    Ok(if report.meets_goals() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
