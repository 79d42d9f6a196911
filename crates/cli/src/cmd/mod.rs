//! The subcommands, one file each.

pub(crate) mod bench;
pub(crate) mod eval;
pub(crate) mod inspect;
pub(crate) mod kernel_args;
pub(crate) mod score;
pub(crate) mod serve;
pub(crate) mod task;
pub(crate) mod task_generate;
pub(crate) mod task_import;
pub(crate) mod timecheck;
pub(crate) mod timeline;
pub(crate) mod validate;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// AORLTA: check-and-reward service for RL post-training of language models.
#[derive(Debug, Parser)]
#[command(name = "aorlta", version, about)]
pub(crate) struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Score every candidate of a pool with a profile (resumable).
    Score(score::Args),
    /// Time one kernel candidate against its task's reference and print the verdict.
    Timecheck(timecheck::Args),
    /// Compare two pools of the same tasks (before/after), with intervals and plots.
    Eval(eval::Args),
    /// Run the harness validation suite.
    Validate(validate::Args),
    /// Kernel task files: `task check` loads, compiles and checks them.
    #[command(subcommand)]
    Task(task::TaskCmd),
    /// Serve rewards over HTTP.
    Serve(serve::Args),
    /// Serve a web page over scored runs on 127.0.0.1 and print its address.
    Inspect(inspect::Args),
    /// Summarise kernel-lane timelines (the files `AORLTA_TIMELINE` names).
    Timeline(timeline::Args),
    /// Benchmarks that print figures.
    #[command(subcommand)]
    Bench(bench::Bench),
    /// The NVRTC compile worker (started by the kernel lane; not for people).
    #[command(hide = true)]
    NvrtcWorker,
    /// The kernel harness (what `aorlta-harness` runs), for installs without that binary.
    #[command(hide = true)]
    Harness {
        /// The harness's own arguments.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<String>,
    },
}

/// Runs a parsed command line.
pub(crate) fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Score(a) => score::run(a),
        Command::Timecheck(a) => timecheck::run(a),
        Command::Eval(a) => eval::run(a),
        Command::Validate(a) => validate::run(a),
        Command::Task(t) => task::run(t),
        Command::Serve(a) => serve::run(a),
        Command::Inspect(a) => inspect::run(a),
        Command::Timeline(a) => timeline::run(a),
        Command::Bench(b) => bench::run(b),
        Command::NvrtcWorker => Ok(ExitCode::from(aorlta_kernel::nvrtc_worker().clamp(0, 255) as u8)),
        Command::Harness { args } => Ok(ExitCode::from(aorlta_gpu::cli(&args).clamp(0, 255) as u8)),
    }
}
