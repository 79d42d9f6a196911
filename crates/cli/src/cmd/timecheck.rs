//! `aorlta timecheck` (in progress).

use std::process::ExitCode;

/// Arguments of `aorlta timecheck`.
#[derive(Debug, clap::Args)]
pub struct Args {}

/// Runs `aorlta timecheck`.
pub fn run(_args: Args) -> anyhow::Result<ExitCode> {
    anyhow::bail!("`aorlta timecheck` is not available in this build yet")
}
