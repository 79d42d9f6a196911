//! `aorlta validate [--gpu | --fake-gpu]`: the harness validation suite (docs/VALIDATION.md),
//! run by [`aorlta_app::Validation`] through the engine on the suite's profile. This
//! command prints one row per case (case, expected, got, reward, pass/FAIL) and exits 0 when
//! every case passes, 1 on any miss, 3 when there is no GPU, 4 when there is no compiler.

use anyhow::Context;
use aorlta_app::{Options, Unavailable, Validation};
use aorlta_kernel::{GpuSet, KernelOverrides};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

/// Exit code when no GPU can be used.
pub(crate) const EXIT_NO_GPU: u8 = 3;
/// Exit code when no compiler can be used.
pub(crate) const EXIT_NO_COMPILER: u8 = 4;

/// Arguments of `aorlta validate`.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Run on the GPU (the default).
    #[arg(long, conflicts_with = "fake_gpu")]
    pub gpu: bool,
    /// Run on the CPU-simulated fake device instead (CI).
    #[arg(long)]
    pub fake_gpu: bool,
    /// The suite file.
    #[arg(long, default_value = "examples/kernels/validation.yaml")]
    pub suite: PathBuf,
    /// Run only the cases whose id contains this text.
    #[arg(long)]
    pub only: Option<String>,
    /// GPUs to lease: `all` or a comma-separated list of ordinals.
    #[arg(long)]
    pub gpus: Option<GpuSet>,
    /// Write every case's legs and reward as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
    /// The compiler of CUDA sources (`nvcc` or `nvrtc`) instead of the suite's.
    #[arg(long)]
    pub compiler: Option<aorlta_kernel::CompilerChoice>,
}

/// Runs `aorlta validate`.
pub(crate) fn run(args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let options = Options {
        kernel: KernelOverrides {
            fake_gpu: args.fake_gpu,
            gpus: args.gpus,
            compiler: args.compiler,
        },
        only: args.only,
    };
    let suite = Validation::load(&args.suite, &options)?;
    match suite.check_tools() {
        Ok(()) => {}
        Err(e @ Unavailable::NoGpu(_)) => {
            println!("{e}");
            return Ok(ExitCode::from(EXIT_NO_GPU));
        }
        Err(e @ Unavailable::NoCompiler(_)) => {
            println!("{e}");
            return Ok(ExitCode::from(EXIT_NO_COMPILER));
        }
    }
    suite.precompile();
    let kernel = suite.kernel();
    println!("aorlta validate: {} cases on {}", suite.len(), suite.device());
    println!("compiler: {}", kernel.compiler_version().unwrap_or("none"));
    if let Some(triton) = suite.triton() {
        println!("triton: {triton}");
    }
    println!("target: {}", suite.targets().join(", "));
    for id in suite.not_run() {
        println!(
            "not run: {id} (fake-only: its candidate earns its expected outcome on the fake device alone)"
        );
    }
    println!(
        "{:<34} {:<46} {:<46} {:>7}  RESULT",
        "CASE", "EXPECTED", "GOT", "REWARD"
    );
    let results = suite.run(|r| {
        let reward = r
            .reward
            .map(|x| format!("{x:.3}"))
            .unwrap_or_else(|| "unscored".into());
        println!(
            "{:<34} {:<46} {:<46} {:>7}  {}",
            r.id,
            r.expected,
            r.got,
            reward,
            if r.pass { "pass" } else { "FAIL" }
        );
    })?;
    let failed = results.iter().filter(|r| !r.pass).count();
    let stats = kernel.pool().stats();
    println!(
        "{} of {} cases pass; {} harness processes started, {} replaced after a fault, hang or crash; {:.1} s",
        results.len() - failed,
        results.len(),
        stats.started,
        stats.replaced,
        started.elapsed().as_secs_f64()
    );
    if let Some(p) = &args.json {
        std::fs::write(p, serde_json::to_vec_pretty(&results)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    suite.shutdown();
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}
