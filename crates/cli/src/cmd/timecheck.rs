//! `aorlta timecheck --task ID --candidate FILE [--ratio R] [--budget S] [--keep-samples]`: one
//! timing of a candidate kernel against its task's reference (compile, then the `kernel-time`
//! leg: the per-launch protocol and the judge), with the verdict and the measurement record on
//! the terminal. Relative paths are resolved against the caller's folder before anything runs.
//! Exit status: 0 for a settled verdict (faster or not), 1 when the candidate does not compile,
//! 3 when the timing is unsettled.

use anyhow::{Context, bail};
use aorlta_core::checks::Env;
use aorlta_core::checks::kernel::direct::run_leg;
use aorlta_core::checks::kernel::{GpuSet, KernelCompile, KernelConfig, KernelOverrides, KernelTime};
use aorlta_core::task::TaskSet;
use aorlta_record::LegState;
use serde_json::{Map, Value, json};
use std::path::PathBuf;
use std::process::ExitCode;

/// Exit code of an unsettled timing (no GPU, noise, budget).
pub const EXIT_UNSETTLED: u8 = 3;

/// Arguments of `aorlta timecheck`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The task's id.
    #[arg(long)]
    pub task: String,
    /// The candidate's kernel source (a `.cu` file).
    #[arg(long)]
    pub candidate: PathBuf,
    /// The task files (a folder or a file).
    #[arg(long, default_value = "examples/kernels/tasks")]
    pub tasks: PathBuf,
    /// The speedup required to be `faster`.
    #[arg(long)]
    pub ratio: Option<f64>,
    /// Kernel seconds both kernels may spend.
    #[arg(long)]
    pub budget: Option<f64>,
    /// Pairs to take.
    #[arg(long)]
    pub pairs: Option<usize>,
    /// Keep every pair and launch in the record.
    #[arg(long)]
    pub keep_samples: bool,
    /// A run config whose `kernel:` section sets the compiler, GPUs and limits.
    #[arg(long)]
    pub config: Option<PathBuf>,
    /// GPUs to lease: `all` or a comma-separated list.
    #[arg(long)]
    pub gpus: Option<GpuSet>,
    /// Run on the CPU-simulated fake device.
    #[arg(long)]
    pub fake_gpu: bool,
}

/// Runs `aorlta timecheck`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let candidate = std::path::absolute(&args.candidate)?;
    let tasks_path = std::path::absolute(&args.tasks)?;
    let config = match &args.config {
        Some(p) => KernelConfig::of_file(&std::path::absolute(p)?)?,
        None => KernelConfig::default(),
    };
    let overrides = KernelOverrides {
        fake_gpu: args.fake_gpu,
        gpus: args.gpus.clone(),
    };
    let source = std::fs::read_to_string(&candidate)
        .with_context(|| format!("cannot read {}", candidate.display()))?;
    let (tasks, _) = TaskSet::load(&tasks_path)?;
    let Some(task) = tasks.get(&args.task) else {
        bail!("no task `{}` in {}", args.task, tasks_path.display());
    };
    let env = Env::with_kernel(&config.overridden(&overrides))?;
    let compiled = run_leg("compile", &KernelCompile, task, &source, &Value::Null, &env);
    if compiled.state != LegState::Clean {
        println!("compile: {}", serde_json::to_string_pretty(&compiled)?);
        return Ok(ExitCode::from(1));
    }
    let mut params = Map::new();
    if let Some(r) = args.ratio {
        params.insert("ratio".into(), json!(r));
    }
    if let Some(b) = args.budget {
        params.insert("budget-s".into(), json!(b));
    }
    if let Some(p) = args.pairs {
        params.insert("pairs".into(), json!(p));
    }
    if args.keep_samples {
        params.insert("keep-samples".into(), json!(true));
    }
    let leg = run_leg(
        "ref.speedup",
        &KernelTime,
        task,
        &source,
        &Value::Object(params),
        &env,
    );
    let d = leg.detail.clone().unwrap_or(Value::Null);
    let num = |k: &str| d.get(k).and_then(Value::as_f64);
    let code = leg.first_code().unwrap_or("");
    println!(
        "{} {}: {} ({}), s = {}, ratio = {}",
        args.task,
        candidate.display(),
        code,
        leg.state,
        num("s").map(|s| format!("{s:.4}")).unwrap_or_else(|| "-".into()),
        num("ratio").map(|s| format!("{s}")).unwrap_or_else(|| "-".into()),
    );
    if let Some(r) = leg.reasons.first() {
        println!("{}", r.detail);
    }
    println!("{}", serde_json::to_string_pretty(&d)?);
    if let Some(k) = env.kernel.as_ref() {
        k.pool().shutdown();
    }
    Ok(match leg.state {
        LegState::Clean | LegState::Broke => ExitCode::SUCCESS,
        _ => ExitCode::from(EXIT_UNSETTLED),
    })
}
