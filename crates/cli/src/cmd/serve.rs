//! `aorlta serve` (in progress).

use std::process::ExitCode;

/// Arguments of `aorlta serve`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `aorlta serve`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`aorlta serve` is not available in this build yet")
}
