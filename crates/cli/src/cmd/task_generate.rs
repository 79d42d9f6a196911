//! `aorlta task generate --count N --seed S --out DIR`: kernel tasks composed of PyTorch
//! operators, imported, measured, deduplicated and checked
//! ([`aorlta_kernel::generate::generate`]); the sanity check is `aorlta task check
//! --fake-gpu`'s for a torch task (the module's real outputs on the CPU), or with `--gpu` `aorlta
//! task check --gpu`'s (the module's outputs on the GPU at every size). Progress on standard
//! error, then the counts; `DIR/GENERATE.md` holds every drop. Exit status 0 when the set holds
//! `--count` tasks, 1 when it holds fewer (the configuration's bounds drop nearly every module).

use anyhow::Context;
use aorlta_check::TaskSet;
use aorlta_kernel::KernelTools;
use aorlta_kernel::generate::{GenerateOptions, GeneratorConfig, generate};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// Arguments of `aorlta task generate`.
#[derive(Debug, clap::Args)]
pub(crate) struct GenerateArgs {
    /// Tasks the set keeps: modules are generated, in index order, until this many pass every
    /// check (at most four modules a task).
    #[arg(long)]
    pub count: u64,
    /// The seed: the same seed and configuration give the same tasks.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Where problems/, tasks/, the Parquet files and GENERATE.md are written.
    #[arg(long)]
    pub out: PathBuf,
    /// The generator's configuration.
    #[arg(long, default_value = "examples/generated/generator.yaml")]
    pub config: PathBuf,
    /// A Python with torch (default `$AORLTA_TORCH_PYTHON`, else `python3`); it runs the
    /// generated modules.
    #[arg(long)]
    pub python: Option<PathBuf>,
    /// Processes and checks run at once (default: the CPUs, at most 8).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Check each module with `aorlta task check --gpu`'s check on this machine's GPU (the
    /// module's outputs computed there at every size, the timed one included) instead of the
    /// fake device's, which computes them on the CPU at sizes it shrinks: a set made with
    /// `--gpu` holds only tasks that pass `task check --gpu`.
    #[arg(long)]
    pub gpu: bool,
    /// Reuse the checks an earlier run into the same folder recorded in its journal
    /// (`checked.jsonl`: same task content and reference, AORLTA sources and device) instead of
    /// checking those modules again: a run stopped part-way goes on where it stopped.
    #[arg(long)]
    pub resume: bool,
}

/// A check the journal records: its key, the task, and why it was dropped (empty when kept).
struct Checked {
    key: String,
    id: String,
    kept: bool,
    why: String,
}

/// The journal's checks by key; a line that does not read is reported and skipped.
fn read_journal(path: &Path) -> std::collections::HashMap<String, Result<(), String>> {
    let Ok(text) = std::fs::read_to_string(path) else {
        return Default::default();
    };
    let mut seen = std::collections::HashMap::new();
    for (n, line) in text.lines().enumerate() {
        let v: serde_json::Value = match serde_json::from_str(line) {
            Ok(v) => v,
            Err(e) => {
                eprintln!("{}:{}: skipped: {e}", path.display(), n + 1);
                continue;
            }
        };
        match (v["key"].as_str(), v["kept"].as_bool()) {
            (Some(key), Some(kept)) => {
                let why = v["why"].as_str().unwrap_or("").to_string();
                seen.insert(key.to_string(), if kept { Ok(()) } else { Err(why) });
            }
            _ => eprintln!("{}:{}: skipped: no `key` or `kept`", path.display(), n + 1),
        }
    }
    seen
}

/// Runs `aorlta task generate`.
pub(crate) fn run(a: GenerateArgs) -> anyhow::Result<ExitCode> {
    let config = GeneratorConfig::load(&a.config)?;
    let python = aorlta_kernel::torch_python(a.python);
    let jobs = super::kernel_args::jobs_or_cpus(a.jobs);
    // The check runs each module through the reference process, on this Python, `jobs` at once.
    let env = super::kernel_args::torch_check_env(!a.gpu, &python, jobs)?;
    if a.gpu {
        let devices = env.kernel().map(|k| k.devices().map(|d| d.devices.len()));
        match devices {
            Some(Ok(n)) if n > 0 => {}
            Some(Err(e)) => anyhow::bail!("--gpu: no GPU to check on: {e}"),
            _ => anyhow::bail!("--gpu: no GPU to check on"),
        }
    }
    let legs = aorlta_core::Legs::builtin();
    // A check's key: the task's content and reference, the AORLTA sources and the device.
    let device = env.kernel().map(|k| k.device_label()).unwrap_or_default();
    let key_of = |task: &aorlta_check::Task| {
        aorlta_check::hash_parts([
            b"task-generate".as_slice(),
            aorlta_core::AORLTA_VERSION.as_bytes(),
            device.as_bytes(),
            task.hash.as_bytes(),
        ])
    };
    let journal_path = a.out.join(aorlta_kernel::generate::CHECK_JOURNAL);
    let earlier = if a.resume {
        read_journal(&journal_path)
    } else {
        Default::default()
    };
    if a.resume {
        eprintln!("resuming: {} checks in {}", earlier.len(), journal_path.display());
    }
    // Opened at the first check (the folder is the generator's by then): appended to when
    // resuming, started afresh otherwise.
    let journal = std::sync::Mutex::new(None::<std::fs::File>);
    let record = |c: &Checked| {
        let mut j = journal.lock().unwrap_or_else(|p| p.into_inner());
        if j.is_none() {
            *j = std::fs::OpenOptions::new()
                .create(true)
                .append(a.resume)
                .write(true)
                .truncate(!a.resume)
                .open(&journal_path)
                .map_err(|e| eprintln!("{}: {e}: checks not journalled", journal_path.display()))
                .ok();
        }
        if let Some(f) = j.as_mut() {
            use std::io::Write;
            let line = serde_json::json!({"key": c.key, "id": c.id, "kept": c.kept, "why": c.why});
            let _ = writeln!(f, "{line}").and_then(|_| f.flush());
        }
    };
    let sanity = |file: &Path| -> Result<(), String> {
        let (set, _) = TaskSet::load(file, &aorlta_core::lanes()).map_err(|e| format!("load: {e}"))?;
        for task in set.iter() {
            let key = key_of(task);
            let result = match earlier.get(&key) {
                Some(r) => r.clone(),
                None => {
                    let c = if a.gpu {
                        aorlta_app::check_task(&legs, &env, task, &Default::default())
                    } else {
                        aorlta_app::check_task_on_fake(&legs, &env, None, task, &Default::default())
                    };
                    let why = c.why.strip_prefix("sanity: ").unwrap_or(&c.why).to_string();
                    record(&Checked {
                        key,
                        id: task.id.clone(),
                        kept: c.pass,
                        why: if c.pass { String::new() } else { why.clone() },
                    });
                    if c.pass { Ok(()) } else { Err(why) }
                }
            };
            result?;
        }
        Ok(())
    };
    eprintln!(
        "generating until {} tasks pass (seed {}, {}) with {} ({} at a time)",
        a.count,
        a.seed,
        a.config.display(),
        python.display(),
        jobs
    );
    let opts = GenerateOptions {
        count: a.count,
        seed: a.seed,
        out: a.out.clone(),
        python,
        jobs,
    };
    let report = generate(
        &config,
        &a.config.display().to_string(),
        &opts,
        &sanity,
        &mut |line| eprintln!("{line}"),
    )
    .with_context(|| format!("cannot generate into {}", a.out.display()))?;
    aorlta_app::write_generated_set(&report, &a.out)
        .with_context(|| format!("cannot write the training set into {}", a.out.display()))?;
    if let Some(k) = env.kernel() {
        k.pool().shutdown();
    }
    let kept: Vec<_> = report.kept().collect();
    let train = kept.iter().filter(|r| r.split == "train").count();
    println!("{} in {:.0} s", report.summary(), report.seconds);
    println!(
        "train {train}, held-out {} (Parquet: {}, {}; report: {})",
        kept.len() - train,
        a.out.join("train.parquet").display(),
        a.out.join("held-out.parquet").display(),
        a.out.join("GENERATE.md").display()
    );
    if (kept.len() as u64) < a.count {
        eprintln!(
            "error: {} of the {} tasks asked for pass after {} modules (at most {} a task)",
            kept.len(),
            a.count,
            report.rows.len(),
            aorlta_kernel::generate::MODULES_PER_TASK_AT_MOST
        );
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}
