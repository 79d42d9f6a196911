//! `aorlta bench qa`: normalised-match throughput over the Q&A example's (reference, answer)
//! pairs on one thread, and the worst extraction + comparison time on pathological inputs up to
//! 1 MiB. Exits non-zero when a goal is missed.
//!
//! With `--corpus FILE`, it scores a corpus of (reference, completion) pairs end to end through
//! a profile instead, prints candidates per second, and writes each pair's verdict as JSONL
//! (`--verdicts`) for the differential test against Math-Verify (`scripts/math-verify-diff.sh`).

use anyhow::Context;
use aorlta_bench::{MIN_MEASURE, builtin_pairs, load_pairs, read_corpus, run_qa, score_corpus};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `aorlta bench qa`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The Q&A example folder (tasks.jsonl and pools).
    #[arg(long, default_value = "examples/qa")]
    pub examples: PathBuf,
    /// Score this corpus (JSONL lines with `id`, `reference`, `completion`) end to end instead.
    #[arg(long)]
    pub corpus: Option<PathBuf>,
    /// The profile a corpus is scored with.
    #[arg(long, default_value = "examples/qa/profile.yaml", requires = "corpus")]
    pub profile: PathBuf,
    /// Where to write each corpus pair's verdict (JSONL).
    #[arg(long, requires = "corpus")]
    pub verdicts: Option<PathBuf>,
}

/// Runs the benchmark and prints its table.
pub(super) fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(corpus) = &args.corpus {
        return run_corpus(corpus, &args.profile, args.verdicts.as_deref());
    }
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
    note_debug_build();
    let report = run_qa(&pairs);
    println!("\n{report}");
    Ok(if report.meets_goals() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}

fn note_debug_build() {
    if cfg!(debug_assertions) {
        println!("note: a debug build; run `cargo run --release -- bench qa` for figures worth quoting");
    }
}

fn run_corpus(corpus: &Path, profile: &Path, out: Option<&Path>) -> anyhow::Result<ExitCode> {
    let lines = read_corpus(corpus)?;
    note_debug_build();
    let run = score_corpus(profile, &lines, MIN_MEASURE)
        .with_context(|| format!("scoring {} with {}", corpus.display(), profile.display()))?;
    println!(
        "corpus: {} pairs from {}, profile {}",
        lines.len(),
        corpus.display(),
        profile.display()
    );
    println!(
        "  verdicts: accept {}, reject {}, unsettled {}",
        run.count("accept"),
        run.count("reject"),
        run.count("unsettled")
    );
    println!(
        "  end to end (parse + comparison legs, one thread): {:.0} candidates/s ({} in {:.2} s)",
        run.per_second(),
        run.scored,
        run.elapsed.as_secs_f64()
    );
    if let Some(path) = out {
        let mut f = std::io::BufWriter::new(
            std::fs::File::create(path).with_context(|| format!("creating {}", path.display()))?,
        );
        for v in &run.verdicts {
            serde_json::to_writer(&mut f, v)?;
            f.write_all(b"\n")?;
        }
        f.flush()?;
        println!("  verdicts written to {}", path.display());
    }
    Ok(ExitCode::SUCCESS)
}
