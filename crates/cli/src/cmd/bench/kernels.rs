//! `aorlta bench kernels`: where the time of the kernel legs goes, on the example pool of the
//! validation suite: compiling (each candidate alone, then all of them in parallel), starting a
//! harness process, a correctness job and a timing job per task, the harness's own time per
//! timed launch outside the kernel, and an A/A run (one reference timed against itself many
//! times at ratio 1.0; the goal is that none comes out `faster`).
//!
//! With `--pool FILE`, a whole scoring run instead: the pool scored by a run config's profile
//! and kernel tools with a fresh cache, end-to-end candidates per second, the time split and
//! the GPUs' busy fraction ([`aorlta_bench::PoolReport`]).
//!
//! The measurements are [`aorlta_app`]'s; this file parses the flags and prints.

use crate::cmd::validate::EXIT_NO_GPU;
use anyhow::Context;
use aorlta_app::{KernelBench, Measured, PoolBench, bench_kernels, bench_pool};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `aorlta bench kernels`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The validation suite whose tasks and candidates make the pool.
    #[arg(long, default_value = "examples/kernels/validation.yaml")]
    pub suite: PathBuf,
    /// Run on the CPU-simulated fake device.
    #[arg(long)]
    pub fake_gpu: bool,
    /// The compiler of CUDA sources (`nvcc` or `nvrtc`) instead of the suite's or config's.
    #[arg(long)]
    pub compiler: Option<aorlta_kernel::CompilerChoice>,
    /// Self-timings in the A/A run.
    #[arg(long, default_value_t = 200)]
    pub aa: usize,
    /// The task of the A/A run.
    #[arg(long, default_value = "vector_add")]
    pub aa_task: String,
    /// The A/A run's problem size: this value for every size variable of the task's primary size
    /// that it replaces (`n=1048576`); the primary size when absent.
    #[arg(long)]
    pub aa_size: Option<String>,
    /// Time the A/A run with the timing leg's `symmetric: false` (only the candidate's launch
    /// with the harness's code unloaded, each side keeping its buffer set for the job), to set
    /// against the default, where both sides are timed alike.
    #[arg(long)]
    pub aa_plain: bool,
    /// Write the figures as JSON here.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// Score this pool end to end instead (a fresh cache; nothing is served from an earlier run).
    #[arg(long)]
    pub pool: Option<PathBuf>,
    /// The run config whose tasks, profile, kernel tools and concurrency `--pool` uses.
    #[arg(long, default_value = "configs/kernels-speed-score.yaml")]
    pub config: PathBuf,
    /// Candidates scored at once with `--pool` (overrides the config).
    #[arg(long)]
    pub concurrency: Option<usize>,
    /// GPUs `--pool` may lease (overrides the config): `all` or ordinals such as `0,1`.
    #[arg(long)]
    pub gpus: Option<aorlta_kernel::GpuSet>,
    /// Stop the A/A run after this many seconds of wall time; the report says how many
    /// self-timings it ran.
    #[arg(long)]
    pub aa_max_s: Option<f64>,
    /// Leave out the compile measurement (one at a time, then in parallel), which holds no GPU.
    #[arg(long)]
    pub no_compile: bool,
    /// The folder (or file) of the A/A task instead of the suite's tasks: a task with a PyTorch
    /// reference, for an A/A against torch (with `--aa-candidate`).
    #[arg(long)]
    pub aa_tasks: Option<PathBuf>,
    /// A kernel source timed against the task's reference instead of the reference itself:
    /// a kernel computing the module's op as torch does, where the reference is a module.
    #[arg(long)]
    pub aa_candidate: Option<PathBuf>,
    /// The baseline the A/A times against (`torch-eager` or `torch-compile`, a module's); the
    /// task's own reference when absent.
    #[arg(long)]
    pub aa_baseline: Option<String>,
}

/// `--pool`: one scoring run of the pool, measured.
fn run_pool(args: &Args, pool: &Path) -> anyhow::Result<ExitCode> {
    let bench = bench_pool(&PoolBench {
        pool: pool.to_path_buf(),
        config: args.config.clone(),
        fake_gpu: args.fake_gpu,
        compiler: args.compiler,
        concurrency: args.concurrency,
        gpus: args.gpus.clone(),
    })?;
    let run = match bench {
        Measured::Done(run) => run,
        Measured::NoGpu(e) => {
            println!("no GPU: {e}");
            return Ok(ExitCode::from(EXIT_NO_GPU));
        }
    };
    println!(
        "pool {}: {} completions; profile {}; {} workers",
        pool.display(),
        run.completions(),
        run.profile(),
        run.concurrency()
    );
    let bar = indicatif::ProgressBar::new(run.lines() as u64);
    let (report, done) = run.execute(&|_| bar.inc(1))?;
    bar.finish_and_clear();
    print!("{report}");
    print!("{}", done.summary.to_terminal());
    if let Some(p) = &args.json {
        std::fs::write(p, serde_json::to_vec_pretty(&report)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `aorlta bench kernels`.
pub(super) fn run(args: Args) -> anyhow::Result<ExitCode> {
    if let Some(pool) = &args.pool {
        return run_pool(&args, pool);
    }
    let bench = KernelBench {
        suite: args.suite.clone(),
        fake_gpu: args.fake_gpu,
        compiler: args.compiler,
        aa: args.aa,
        aa_task: args.aa_task.clone(),
        aa_size: args.aa_size.clone(),
        aa_plain: args.aa_plain,
        aa_max_s: args.aa_max_s,
        no_compile: args.no_compile,
        aa_tasks: args.aa_tasks.clone(),
        aa_candidate: args.aa_candidate.clone(),
        aa_baseline: args.aa_baseline.clone(),
    };
    match bench_kernels(&bench, &mut |line| println!("{line}"))? {
        Measured::Done(report) => {
            if let Some(p) = &args.json {
                std::fs::write(p, serde_json::to_vec_pretty::<Value>(&report)?)?;
            }
            Ok(ExitCode::SUCCESS)
        }
        Measured::NoGpu(e) => {
            println!("no GPU: {e}");
            Ok(ExitCode::from(EXIT_NO_GPU))
        }
    }
}
