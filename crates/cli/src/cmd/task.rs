//! `aorlta task check [--gpu | --fake-gpu] [--profile FILE] TASK...`: what a team runs on the
//! kernel tasks it writes. Each TASK is a task file or a folder of them; each file is loaded on
//! its own (a file that does not load is a failed row naming the file and the field), then
//! [`aorlta_kernel::check_task`] compiles its reference, runs the tolerance sanity, runs the
//! reference against itself through the correctness leg and times it against itself (A/A).
//! One row per task as it is done, then a summary line. Exit status: 0 when every task passes,
//! 1 when any fails, 3 when there is no GPU, 4 when there is no compiler.

use super::validate::{EXIT_NO_COMPILER, EXIT_NO_GPU};
use anyhow::Context;
use aorlta_check::TaskSet;
use aorlta_core::profile::LoadedProfile;
use aorlta_kernel::Who;
use aorlta_kernel::{CheckParams, Compilers, KernelTools, TaskCheck};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// `aorlta task ...`.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum TaskCmd {
    /// Check kernel task files: load, compile the reference, tolerance sanity, the reference
    /// against itself (correctness and A/A timing), with a verdict per task.
    Check(CheckArgs),
    /// Import tasks written elsewhere: `aorlta task import kernelbench DIR --out DIR`.
    #[command(subcommand)]
    Import(super::task_import::ImportCmd),
}

/// Arguments of `aorlta task check`.
#[derive(Debug, clap::Args)]
pub(crate) struct CheckArgs {
    /// Task files (`.yaml`) or folders of them.
    #[arg(required = true)]
    pub tasks: Vec<PathBuf>,
    /// Run on the GPU (the default).
    #[arg(long, conflicts_with = "fake_gpu")]
    pub gpu: bool,
    /// A profile whose `kernel-run` and `kernel-time` legs' parameters (ratio, budget, pairs,
    /// seeds) the checks use; the legs' defaults otherwise.
    #[arg(long)]
    pub profile: Option<PathBuf>,
    /// The config, GPUs, fake device and compiler.
    #[command(flatten)]
    pub kernel: super::kernel_args::KernelArgs,
    /// Write the device, the compiler and every task's result as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// Runs `aorlta task ...`.
pub(crate) fn run(cmd: TaskCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        TaskCmd::Check(a) => check(a),
        TaskCmd::Import(c) => super::task_import::run(c),
    }
}

/// The task files a list of paths names: files as given, folders' `.yaml`/`.yml` files sorted.
fn task_files(paths: &[PathBuf]) -> anyhow::Result<Vec<PathBuf>> {
    let mut out = Vec::new();
    for p in paths {
        if p.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(p)
                .with_context(|| format!("cannot read {}", p.display()))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| matches!(f.extension().and_then(|e| e.to_str()), Some("yaml" | "yml")))
                .collect();
            files.sort();
            if files.is_empty() {
                anyhow::bail!("{}: no task files (.yaml) in this folder", p.display());
            }
            out.extend(files);
        } else {
            out.push(p.clone());
        }
    }
    Ok(out)
}

/// The correctness and timing legs' parameters of a profile.
fn params_of(profile: &Path) -> anyhow::Result<CheckParams> {
    let p = LoadedProfile::load(
        profile,
        &aorlta_core::adapters(),
        &aorlta_core::reward::RewardRegistry::builtin(),
    )?;
    let of = |adapter: &str| {
        p.profile
            .legs
            .iter()
            .find(|l| l.adapter == adapter)
            .map_or(Value::Null, |l| l.params.clone())
    };
    Ok(CheckParams {
        run: of("kernel-run"),
        time: of("kernel-time"),
    })
}

fn fmt(x: Option<f64>, scale: f64, digits: usize) -> String {
    x.map(|v| format!("{:.digits$}", v * scale))
        .unwrap_or_else(|| "-".into())
}

const HEAD: [&str; 10] = [
    "TASK", "COMPILE", "SANITY", "RUN", "A/A", "S", "REF US", "NOISE %", "PAIRS", "VERDICT",
];

fn print_row(c: [&str; 10]) {
    println!(
        "{:<28} {:<7} {:<7} {:<5} {:<5} {:>6} {:>9} {:>7} {:>5}  {}",
        c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9]
    );
}

fn row(c: &TaskCheck) {
    let aa = c.aa.clone().unwrap_or_default();
    let verdict = if c.pass {
        "pass".to_string()
    } else {
        format!("FAIL: {}", c.why)
    };
    print_row([
        &c.id,
        &c.steps[0],
        &c.steps[1],
        &c.steps[2],
        &c.steps[3],
        &fmt(aa.s, 1.0, 3),
        &fmt(aa.median_s, 1e6, 1),
        &fmt(aa.floor, 100.0, 2),
        &fmt(aa.pairs, 1.0, 0),
        &verdict,
    ]);
}

fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let config = args.kernel.kernel_config()?;
    let params = match &args.profile {
        Some(p) => params_of(p)?,
        None => CheckParams::default(),
    };
    let files = task_files(&args.tasks)?;
    let env = aorlta_kernel::env_with_kernel(&config)?;
    let kernel = env.kernel().expect("built with kernel tools");
    if let Err(e) = kernel.devices() {
        println!("no GPU: {e}");
        return Ok(ExitCode::from(EXIT_NO_GPU));
    }
    // Load every file on its own: a bad one is a failed row, not the end of the run.
    let loaded: Vec<(PathBuf, Result<TaskSet, String>)> = files
        .into_iter()
        .map(|f| {
            let set = TaskSet::load(&f, &aorlta_core::lanes())
                .map(|(s, _)| s)
                .map_err(|e| format!("{e}"));
            (f, set)
        })
        .collect();
    let needs = Compilers::of(kernel, kernel_tasks(&loaded));
    if let Err(e) = needs.check(kernel) {
        println!("no compiler: {e}");
        return Ok(ExitCode::from(EXIT_NO_COMPILER));
    }
    let triton = needs.triton_line(kernel);
    let tasks = loaded
        .iter()
        .map(|(_, s)| s.as_ref().map_or(1, TaskSet::len))
        .sum::<usize>();
    println!(
        "aorlta task check: {tasks} task{} on {}",
        if tasks == 1 { "" } else { "s" },
        kernel.device_label()
    );
    let compiler = if needs.cuda {
        kernel.compiler_version().unwrap_or("none")
    } else {
        "none needed (Triton tasks only)"
    };
    println!("compiler: {compiler}");
    if let Some(t) = &triton {
        println!("triton: {t}");
    }
    precompile(kernel, &loaded);
    // The correctness and A/A legs run through the engine's door, never served from a store.
    let legs = aorlta_core::run::Legs::builtin();
    print_row(HEAD);
    let mut results = Vec::new();
    for (file, set) in &loaded {
        match set {
            Err(e) => {
                let c = TaskCheck {
                    id: file
                        .file_stem()
                        .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
                    file: file.display().to_string(),
                    steps: std::array::from_fn(|_| "-".to_string()),
                    aa: None,
                    pass: false,
                    why: format!("load: {e}"),
                };
                row(&c);
                results.push(c);
            }
            Ok(set) => {
                for task in set.iter() {
                    let c = aorlta_kernel::check_task(&legs, &env, task, &params);
                    row(&c);
                    results.push(c);
                }
            }
        }
    }
    let failed = results.iter().filter(|c| !c.pass).count();
    println!(
        "{} of {} tasks pass; {:.1} s",
        results.len() - failed,
        results.len(),
        started.elapsed().as_secs_f64()
    );
    if let Some(p) = &args.json {
        let doc = serde_json::json!({
            "device": kernel.device_label(),
            "compiler": compiler,
            "triton": triton,
            "tasks": results,
        });
        std::fs::write(p, serde_json::to_vec_pretty(&doc)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    kernel.pool().shutdown();
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// The kernel tasks of the files that loaded.
fn kernel_tasks(
    loaded: &[(PathBuf, Result<TaskSet, String>)],
) -> impl Iterator<Item = &aorlta_kernel::KernelTaskDef> {
    loaded
        .iter()
        .filter_map(|(_, s)| s.as_ref().ok())
        .flat_map(|s| s.iter())
        .filter_map(|t| aorlta_kernel::KernelTaskDef::of(t))
}

/// Compiles every loaded reference in parallel, so that the checks find them in the compile
/// cache; failures are reported by the checks themselves.
fn precompile(kernel: &aorlta_kernel::KernelEnv, loaded: &[(PathBuf, Result<TaskSet, String>)]) {
    let jobs: Vec<_> = kernel_tasks(loaded)
        .map(|k| (k, k.reference_source.as_str(), Who::Reference))
        .collect();
    aorlta_kernel::compile_many(kernel, &jobs);
}
