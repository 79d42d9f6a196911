//! `aorlta score` (in progress).

use std::process::ExitCode;

/// Arguments of `aorlta score`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `aorlta score`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`aorlta score` is not available in this build yet")
}
