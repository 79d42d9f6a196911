//! `aorlta timeline FILE…`: where a run's wall time went, from the spans the kernel lane wrote
//! with `AORLTA_TIMELINE` set ([`aorlta_app::timeline_summary`]), one summary per file.

use aorlta_app::timeline_summary;
use std::path::PathBuf;
use std::process::ExitCode;

/// Arguments of `aorlta timeline`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Timeline files (JSONL, one span a line).
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

/// Runs `aorlta timeline`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    for f in &args.files {
        print!("{}", timeline_summary(f)?);
    }
    Ok(ExitCode::SUCCESS)
}
