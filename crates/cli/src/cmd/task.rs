//! `aorlta task check [--gpu | --fake-gpu] [--profile FILE] TASK...`: what a team runs on the
//! kernel tasks it writes. Each TASK is a task file or a folder of them; each file is loaded on
//! its own (a file that does not load is a failed row naming the file and the field), then
//! [`aorlta_app::check_task`] compiles its reference, runs the tolerance sanity, runs the
//! reference against itself through the correctness leg and times it against itself (A/A).
//! One row per task as it is done, then a summary line. Exit status: 0 when every task passes,
//! 1 when any fails, 3 when there is no GPU, 4 when there is no compiler.
//!
//! With `--fake-gpu` (or `kernel: {fake-gpu: true}`) the references are compiled by the real
//! compilers when this machine has them ([`aorlta_app::check_task_on_fake`]), the A/A timing
//! is not run and no time is printed, and every step not run is named under the table.
//!
//! The run is [`aorlta_app::prepare_task_check`]'s; this file parses the flags and prints.

use super::validate::{EXIT_NO_COMPILER, EXIT_NO_GPU};
use anyhow::Context;
use aorlta_app::{TaskCheck, TaskCheckReport, TaskCheckStart};
use std::path::PathBuf;
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
    /// Tasks checked at a time (default: the CPUs, at most 8, on the fake device; one on a GPU,
    /// where another task's compiles and reference processes would share the host with a timing).
    /// On a GPU up to this many sanity and correctness jobs share each GPU (at most 16, or the
    /// config's `checks-per-gpu` when larger); an A/A timing still has its GPU alone.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=64))]
    pub jobs: Option<u32>,
    /// Reuse the passes recorded in `--json`'s file by an earlier run (same task content and
    /// reference, AORLTA sources, device, compilers and parameters) instead of checking those
    /// tasks again; failures are checked again. Each result is appended to a journal beside the
    /// file (`NAME.partial.jsonl`) as it is done, so a run stopped part-way resumes where it
    /// stopped.
    #[arg(long, requires = "json")]
    pub resume: bool,
}

/// Runs `aorlta task ...`.
pub(crate) fn run(cmd: TaskCmd) -> anyhow::Result<ExitCode> {
    match cmd {
        TaskCmd::Check(a) => check(a),
        TaskCmd::Import(c) => super::task_import::run(c),
        TaskCmd::Generate(a) => super::task_generate::run(a),
    }
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
        (true, _) if c.resumed => "pass, resumed (an earlier run's result)".to_string(),
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
    let jobs = args.jobs.map(|j| j as usize);
    let earlier = match (&args.json, args.resume) {
        (Some(p), true) => earlier_results(p)?,
        _ => Vec::new(),
    };
    let run = match aorlta_app::prepare_task_check(&args.tasks, args.profile.as_deref(), &config, jobs)? {
        TaskCheckStart::Ready(run) => Box::new(run.resuming(earlier)),
        TaskCheckStart::NoGpu(e) => {
            println!("no GPU: {e}");
            return Ok(ExitCode::from(EXIT_NO_GPU));
        }
        TaskCheckStart::NoCompiler(e) => {
            println!("no compiler: {e}");
            return Ok(ExitCode::from(EXIT_NO_COMPILER));
        }
    };
    let tasks = run.tasks();
    println!(
        "aorlta task check: {tasks} task{} on {}, {} at a time",
        if tasks == 1 { "" } else { "s" },
        run.device_label(),
        run.jobs()
    );
    println!("compiler: {}", run.compiler());
    if let Some(t) = run.triton() {
        println!("triton: {t}");
    }
    let fake = run.fake_device();
    if fake {
        println!(
            "fake device: it compiles no source and runs none: the references are compiled by the \
             compilers above, the A/A timing is not run, and what is not run is listed below"
        );
    }
    print_row(HEAD);
    // Each result is appended to the journal as soon as it is printed: a run stopped part-way
    // resumes from it.
    let mut journal = args.json.as_deref().map(Journal::start).transpose()?;
    let mut failed_write = None;
    let report = run.run(&mut |c: &TaskCheck| {
        row(c);
        if let Some(j) = &mut journal
            && failed_write.is_none()
        {
            failed_write = j.append(c).err();
        }
    });
    if let Some(e) = failed_write {
        return Err(e);
    }
    if fake {
        print_not_run(&report);
    }
    let failed = report.failed();
    println!(
        "{} of {} tasks pass{}; {:.1} s",
        report.tasks.len() - failed,
        report.tasks.len(),
        if fake {
            " on the fake device, with the steps above not run"
        } else {
            ""
        },
        started.elapsed().as_secs_f64()
    );
    if let Some(p) = &args.json {
        write_json(p, &report.to_json())?;
        if let Some(j) = journal {
            j.finish();
        }
    }
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// `doc` into `path`, whole or not at all (written beside it, then renamed over it).
fn write_json(path: &std::path::Path, doc: &serde_json::Value) -> anyhow::Result<()> {
    let tmp = path.with_extension("json.partial");
    std::fs::write(&tmp, serde_json::to_vec_pretty(doc)?)
        .and_then(|()| std::fs::rename(&tmp, path))
        .with_context(|| format!("cannot write {}", path.display()))
}

/// The results written beside a `--json` file while a run lasts, one JSON line each, appended as
/// each task is done; removed once the file itself is written.
struct Journal {
    path: PathBuf,
    file: std::fs::File,
}

impl Journal {
    /// The journal of the results file `json`.
    fn path_of(json: &std::path::Path) -> PathBuf {
        json.with_extension("partial.jsonl")
    }

    /// Starts the journal of `json` afresh.
    fn start(json: &std::path::Path) -> anyhow::Result<Journal> {
        let path = Self::path_of(json);
        let file =
            std::fs::File::create(&path).with_context(|| format!("cannot write {}", path.display()))?;
        Ok(Journal { path, file })
    }

    fn append(&mut self, c: &TaskCheck) -> anyhow::Result<()> {
        use std::io::Write;
        let mut line = serde_json::to_vec(c)?;
        line.push(b'\n');
        self.file
            .write_all(&line)
            .with_context(|| format!("cannot write {}", self.path.display()))
    }

    /// Removes the journal: the results file holds every result.
    fn finish(self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// The results an earlier run wrote for `--resume`: the `--json` file's, and its journal's (a run
/// stopped before it wrote the file); either may be missing.
fn earlier_results(path: &std::path::Path) -> anyhow::Result<Vec<TaskCheck>> {
    let mut earlier = Vec::new();
    if path.exists() {
        let text = std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
        let doc: serde_json::Value = serde_json::from_slice(&text)
            .with_context(|| format!("{}: not the JSON of a task check", path.display()))?;
        earlier = serde_json::from_value(doc["tasks"].clone()).with_context(|| {
            format!(
                "{}: field `tasks`: not the results of a task check",
                path.display()
            )
        })?;
    }
    let journal = Journal::path_of(path);
    if let Ok(text) = std::fs::read_to_string(&journal) {
        let lines: Vec<&str> = text.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            // A line cut short by the stop is the last one: nothing after it to lose.
            match serde_json::from_str(line) {
                Ok(c) => earlier.push(c),
                Err(_) if i + 1 == lines.len() => {}
                Err(e) => anyhow::bail!("{}:{}: {e}", journal.display(), i + 1),
            }
        }
    }
    Ok(earlier)
}

/// Under the table on the fake device: each step not run, once, with how many of the tasks
/// that reached it it was not run for.
fn print_not_run(report: &TaskCheckReport) {
    let lines = report.not_run();
    if lines.is_empty() {
        return;
    }
    println!("not run on the fake device (aorlta task check --gpu runs them on a GPU):");
    for (line, n) in lines {
        println!("  {line} [{n} of {} tasks]", report.tasks.len());
    }
}
