//! `aorlta task check [--gpu | --fake-gpu] [--profile FILE] TASK...`: what a team runs on the
//! kernel tasks it writes. Each TASK is a task file or a folder of them; each file is loaded on
//! its own (a file that does not load is a failed row naming the file and the field), then
//! [`aorlta_kernel::check_task`] compiles its reference, runs the tolerance sanity, runs the
//! reference against itself through the correctness leg and times it against itself (A/A).
//! One row per task as it is done, then a summary line. Exit status: 0 when every task passes,
//! 1 when any fails, 3 when there is no GPU, 4 when there is no compiler.
//!
//! With `--fake-gpu` (or `kernel: {fake-gpu: true}`) the references are compiled by the real
//! compilers when this machine has them ([`aorlta_kernel::check_task_on_fake`]), the A/A timing
//! is not run and no time is printed, and every step not run is named under the table.

use super::validate::{EXIT_NO_COMPILER, EXIT_NO_GPU};
use anyhow::Context;
use aorlta_check::TaskSet;
use aorlta_core::LoadedProfile;
use aorlta_kernel::Who;
use aorlta_kernel::{CheckParams, Compilers, KernelTools, STEPS, TaskCheck};
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
    /// Generate kernel tasks with PyTorch references, each checked, and a training set.
    Generate(super::task_generate::GenerateArgs),
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
        TaskCmd::Generate(a) => super::task_generate::run(a),
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
        &aorlta_core::RewardRegistry::builtin(),
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
    let verdict = match (c.pass, c.fake_device) {
        (true, false) => "pass".to_string(),
        (true, true) => format!(
            "pass on the fake device ({} step{} not run)",
            c.not_run.len(),
            if c.not_run.len() == 1 { "" } else { "s" }
        ),
        (false, _) => format!("FAIL: {}", c.why),
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
    // On the fake device the references are compiled by the real compilers, where there are.
    let real = if kernel.is_fake() {
        Some(kernel.real_compilers()?)
    } else {
        None
    };
    let tools = real.as_ref().unwrap_or(kernel);
    let real_needs = Compilers::of(tools, kernel_tasks(&loaded));
    let triton = real_needs.triton_line(tools);
    let tasks = loaded
        .iter()
        .map(|(_, s)| s.as_ref().map_or(1, TaskSet::len))
        .sum::<usize>();
    println!(
        "aorlta task check: {tasks} task{} on {}",
        if tasks == 1 { "" } else { "s" },
        kernel.device_label()
    );
    let compiler = if real_needs.cuda {
        match tools.compiler_version() {
            Ok(v) => v.to_string(),
            Err(e) if real.is_some() => format!("none ({e})"),
            Err(_) => "none".into(),
        }
    } else {
        "none needed (Triton tasks only)".into()
    };
    println!("compiler: {compiler}");
    if let Some(t) = &triton {
        println!("triton: {t}");
    }
    if real.is_some() {
        println!(
            "fake device: it compiles no source and runs none: the references are compiled by the \
             compilers above, the A/A timing is not run, and what is not run is listed below"
        );
    }
    if let Some(r) = &real {
        precompile(r, &loaded);
    }
    precompile(kernel, &loaded);
    // The correctness and A/A legs run through the engine's door, never served from a store.
    let legs = aorlta_core::Legs::builtin();
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
                    fake_device: real.is_some(),
                    not_run: Vec::new(),
                };
                row(&c);
                results.push(c);
            }
            Ok(set) => {
                for task in set.iter() {
                    let c = match &real {
                        Some(r) => aorlta_kernel::check_task_on_fake(&legs, &env, Some(r), task, &params),
                        None => aorlta_kernel::check_task(&legs, &env, task, &params),
                    };
                    row(&c);
                    results.push(c);
                }
            }
        }
    }
    if real.is_some() {
        print_not_run(&results);
    }
    let failed = results.iter().filter(|c| !c.pass).count();
    println!(
        "{} of {} tasks pass{}; {:.1} s",
        results.len() - failed,
        results.len(),
        if real.is_some() {
            " on the fake device, with the steps above not run"
        } else {
            ""
        },
        started.elapsed().as_secs_f64()
    );
    if let Some(p) = &args.json {
        let doc = serde_json::json!({
            "device": kernel.device_label(),
            "fake_device": real.is_some(),
            "compiler": compiler,
            "triton": triton,
            "tasks": results,
        });
        std::fs::write(p, serde_json::to_vec_pretty(&doc)?)
            .with_context(|| format!("cannot write {}", p.display()))?;
    }
    kernel.pool().shutdown();
    if let Some(r) = &real {
        r.pool().shutdown();
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Under the table on the fake device: each step not run, once, with how many of the tasks
/// that reached it it was not run for.
fn print_not_run(results: &[TaskCheck]) {
    let mut lines: Vec<(&str, usize)> = Vec::new();
    for line in results.iter().flat_map(|c| &c.not_run) {
        match lines.iter_mut().find(|(l, _)| *l == line) {
            Some((_, n)) => *n += 1,
            None => lines.push((line, 1)),
        }
    }
    if lines.is_empty() {
        return;
    }
    lines.sort_by_key(|(l, _)| STEPS.iter().position(|s| l.starts_with(&format!("{s}:"))));
    println!("not run on the fake device (aorlta task check --gpu runs them on a GPU):");
    for (line, n) in lines {
        println!("  {line} [{n} of {} tasks]", results.len());
    }
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
