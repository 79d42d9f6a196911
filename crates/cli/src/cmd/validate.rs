//! `aorlta validate` (in progress).

use std::process::ExitCode;

/// Arguments of `aorlta validate`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `aorlta validate`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`aorlta validate` is not available in this build yet")
}
