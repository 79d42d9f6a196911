//! `aorlta task check`: what a team runs on the kernel tasks it writes. Each path is a task file
//! or a folder of them; each file is loaded on its own (a file that does not load is a failed
//! result naming the file and the field), the references are compiled in parallel first (so
//! the checks find them in the compile cache), then each task goes through its steps
//! ([`steps`]: compile, tolerance sanity, the reference against itself, A/A timing) and is
//! handed to the caller as it is done.
//!
//! [`prepare_task_check`] finds the task files, the profile's leg parameters, the device and
//! the compilers the tasks need (on the fake device, the real compilers that compile the
//! references); [`TaskCheckRun::run`] checks every task. The command line prints.

mod steps;

pub use steps::{AaTiming, CheckParams, FAKE, NOT_RUN, STEPS, TaskCheck, check_task, check_task_on_fake};

use anyhow::Context;
use aorlta_check::{Env, TaskSet};
use aorlta_core::LoadedProfile;
use aorlta_kernel::{Compilers, KernelConfig, KernelEnv, KernelTaskDef, KernelTools, Who};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A task file and what loading it gave: its tasks, or why it did not load.
type Loaded = (PathBuf, Result<TaskSet, String>);

/// Where a task check stands before any task is checked.
#[derive(Debug)]
pub enum TaskCheckStart {
    /// Ready to check the tasks.
    Ready(Box<TaskCheckRun>),
    /// No GPU can be used (the error's words).
    NoGpu(String),
    /// A compiler the tasks need is missing (the error's words).
    NoCompiler(String),
}

/// A task check ready to run: the tasks loaded, the kernel tools built, the compilers found.
pub struct TaskCheckRun {
    env: Env,
    params: CheckParams,
    loaded: Vec<Loaded>,
    real: Option<KernelEnv>,
    compiler: String,
    triton: Option<String>,
    jobs: usize,
    /// Passes of an earlier run, by key, reused instead of checked again.
    previous: std::collections::HashMap<String, TaskCheck>,
    /// What every result of this run depends on besides its task, hashed ([`run_identity`]).
    identity: String,
}

impl std::fmt::Debug for TaskCheckRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TaskCheckRun")
            .field("files", &self.loaded.len())
            .field("fake_device", &self.real.is_some())
            .field("compiler", &self.compiler)
            .finish_non_exhaustive()
    }
}

/// What a task check found: the device, the compilers and every task's result, in order.
#[derive(Debug, Clone)]
pub struct TaskCheckReport {
    /// The device's label.
    pub device: String,
    /// True when the checks ran on the fake device.
    pub fake_device: bool,
    /// The CUDA compiler's version, `none (why)`, or that none was needed.
    pub compiler: String,
    /// The Triton line, when a task is written in Triton.
    pub triton: Option<String>,
    /// One result per task, a file that did not load counted as one failed task.
    pub tasks: Vec<TaskCheck>,
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

/// The kernel tasks of the files that loaded.
fn kernel_tasks(loaded: &[Loaded]) -> impl Iterator<Item = &KernelTaskDef> {
    loaded
        .iter()
        .filter_map(|(_, s)| s.as_ref().ok())
        .flat_map(|s| s.iter())
        .filter_map(|t| KernelTaskDef::of(t))
}

/// Compiles every loaded reference in parallel, so that the checks find them in the compile
/// cache; failures are reported by the checks themselves.
fn precompile(kernel: &KernelEnv, loaded: &[Loaded]) {
    let jobs: Vec<_> = kernel_tasks(loaded)
        .map(|k| (k, k.reference_source.as_str(), Who::Reference))
        .collect();
    aorlta_kernel::compile_many(kernel, &jobs);
}

/// Tasks checked at a time by default: on the fake device (nothing timed) the CPUs, at most 8;
/// on a GPU one (the A/A timing leases the GPU alone, but another task's compiles and reference
/// processes would share the host with it).
fn default_jobs(fake: bool) -> usize {
    if fake {
        std::thread::available_parallelism().map_or(1, |n| n.get()).min(8)
    } else {
        1
    }
}

/// Loads the tasks of `paths` (task files or folders of them), the `kernel-run` and
/// `kernel-time` legs' parameters of `profile` (the legs' defaults without one) and the kernel
/// tools of `config`, and finds the compilers the tasks need. A file that does not load is kept
/// as a failed task; a path that names no file, a bad profile or config is an `Err`.
pub fn prepare_task_check(
    paths: &[PathBuf],
    profile: Option<&Path>,
    config: &KernelConfig,
    jobs: Option<usize>,
) -> anyhow::Result<TaskCheckStart> {
    // As many sanity and correctness jobs share a GPU as tasks are checked at a time (jobs that
    // would queue for one shared slot check nothing at once); an A/A timing still has it alone.
    let jobs = jobs.map_or_else(|| default_jobs(config.fake_gpu), |j| j.max(1));
    let mut config = config.clone();
    config.share_checks(jobs);
    let config = &config;
    let params = match profile {
        Some(p) => params_of(p)?,
        None => CheckParams::default(),
    };
    let files = task_files(paths)?;
    let env = aorlta_kernel::env_with_kernel(config)?;
    let kernel = env.kernel().expect("built with kernel tools");
    if let Err(e) = kernel.devices() {
        return Ok(TaskCheckStart::NoGpu(e.to_string()));
    }
    // Load every file on its own: a bad one is a failed task, not the end of the run.
    let loaded: Vec<Loaded> = files
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
        return Ok(TaskCheckStart::NoCompiler(e.to_string()));
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
    let compiler = if real_needs.cuda {
        match tools.compiler_version() {
            Ok(v) => v.to_string(),
            Err(e) if real.is_some() => format!("none ({e})"),
            Err(_) => "none".into(),
        }
    } else {
        "none needed (Triton tasks only)".into()
    };
    let identity = run_identity(kernel, &compiler, triton.as_deref(), &params);
    Ok(TaskCheckStart::Ready(Box::new(TaskCheckRun {
        env,
        params,
        loaded,
        real,
        compiler,
        identity,
        triton,
        jobs,
        previous: Default::default(),
    })))
}

/// What a check's result depends on besides its task: the AORLTA sources, the device, the
/// compilers and the legs' parameters, hashed.
fn run_identity(kernel: &KernelEnv, compiler: &str, triton: Option<&str>, params: &CheckParams) -> String {
    let params = serde_json::json!([params.run, params.time]).to_string();
    aorlta_check::hash_parts([
        b"task-check".as_slice(),
        aorlta_core::AORLTA_VERSION.as_bytes(),
        kernel.device_label().as_bytes(),
        compiler.as_bytes(),
        triton.unwrap_or("").as_bytes(),
        params.as_bytes(),
    ])
}

impl TaskCheckRun {
    fn kernel(&self) -> &KernelEnv {
        self.env.kernel().expect("built with kernel tools")
    }

    /// The tasks to check (a file that did not load counts as one).
    pub fn tasks(&self) -> usize {
        self.loaded
            .iter()
            .map(|(_, s)| s.as_ref().map_or(1, TaskSet::len))
            .sum()
    }

    /// The device's label.
    pub fn device_label(&self) -> String {
        self.kernel().device_label()
    }

    /// The CUDA compiler's version, `none (why)`, or that none was needed.
    pub fn compiler(&self) -> &str {
        &self.compiler
    }

    /// The Triton line, when a task is written in Triton.
    pub fn triton(&self) -> Option<&str> {
        self.triton.as_deref()
    }

    /// True on the fake device (the references compiled by the real compilers, no A/A timing).
    pub fn fake_device(&self) -> bool {
        self.real.is_some()
    }

    /// The tasks checked at a time.
    pub fn jobs(&self) -> usize {
        self.jobs
    }

    /// Reuses the passes among `earlier` (an earlier run's results, as `--json` wrote them) whose
    /// key is the key a task has now: same content and reference, sources, device, compilers
    /// and parameters. A failure, or a pass of another key, is checked again.
    pub fn resuming(mut self, earlier: Vec<TaskCheck>) -> Self {
        self.previous = earlier
            .into_iter()
            .filter(|c| c.pass && !c.key.is_empty())
            .map(|c| (c.key.clone(), c))
            .collect();
        self
    }

    /// The key of `task`'s result in this run: the task's content and reference, and the run's
    /// identity.
    fn key(&self, task: &aorlta_check::Task) -> String {
        aorlta_check::hash_parts([self.identity.as_bytes(), task.hash.as_bytes()])
    }

    /// Compiles every reference, then checks the tasks `jobs()` at a time, handing each result
    /// to `each` in the tasks' order as soon as it and those before it are done; the correctness
    /// and A/A legs run through the engine's door, never served from a store. The harness
    /// processes are stopped at the end.
    pub fn run(self, each: &mut dyn FnMut(&TaskCheck)) -> TaskCheckReport {
        let kernel = self.kernel();
        if let Some(r) = &self.real {
            precompile(r, &self.loaded);
        }
        precompile(kernel, &self.loaded);
        let legs = aorlta_core::Legs::builtin();
        // One item per result: a task, or a file that did not load.
        let items: Vec<Result<&aorlta_check::Task, (&PathBuf, &String)>> = self
            .loaded
            .iter()
            .flat_map(|(file, set)| match set {
                Ok(set) => set.iter().map(|t| Ok(&**t)).collect::<Vec<_>>(),
                Err(e) => vec![Err((file, e))],
            })
            .collect();
        let check = |item: &Result<&aorlta_check::Task, (&PathBuf, &String)>| match item {
            Ok(task) => {
                let key = self.key(task);
                if let Some(earlier) = self.previous.get(&key) {
                    return TaskCheck {
                        resumed: true,
                        ..earlier.clone()
                    };
                }
                let c = match &self.real {
                    Some(r) => check_task_on_fake(&legs, &self.env, Some(r), task, &self.params),
                    None => check_task(&legs, &self.env, task, &self.params),
                };
                TaskCheck { key, ..c }
            }
            Err((file, e)) => TaskCheck {
                id: file
                    .file_stem()
                    .map_or_else(String::new, |s| s.to_string_lossy().into_owned()),
                file: file.display().to_string(),
                steps: std::array::from_fn(|_| "-".to_string()),
                aa: None,
                pass: false,
                why: format!("load: {e}"),
                fake_device: self.real.is_some(),
                not_run: Vec::new(),
                key: String::new(),
                resumed: false,
            },
        };
        let next = std::sync::atomic::AtomicUsize::new(0);
        let mut done: Vec<Option<TaskCheck>> = (0..items.len()).map(|_| None).collect();
        let mut handed = 0;
        std::thread::scope(|s| {
            let (tx, rx) = std::sync::mpsc::channel();
            for _ in 0..self.jobs().min(items.len()) {
                let (tx, next, items, check) = (tx.clone(), &next, &items, &check);
                s.spawn(move || {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        let Some(item) = items.get(i) else { break };
                        if tx.send((i, check(item))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(tx);
            for (i, c) in rx {
                done[i] = Some(c);
                while let Some(c) = done.get(handed).and_then(Option::as_ref) {
                    each(c);
                    handed += 1;
                }
            }
        });
        kernel.pool().shutdown();
        if let Some(r) = &self.real {
            r.pool().shutdown();
        }
        TaskCheckReport {
            device: kernel.device_label(),
            fake_device: self.real.is_some(),
            compiler: self.compiler.clone(),
            triton: self.triton.clone(),
            tasks: done.into_iter().flatten().collect(),
        }
    }
}

impl TaskCheckReport {
    /// The tasks that failed.
    pub fn failed(&self) -> usize {
        self.tasks.iter().filter(|c| !c.pass).count()
    }

    /// Each step not run, once, with how many of the tasks that reached it it was not run for,
    /// in the order of the steps.
    pub fn not_run(&self) -> Vec<(&str, usize)> {
        let mut lines: Vec<(&str, usize)> = Vec::new();
        for line in self.tasks.iter().flat_map(|c| &c.not_run) {
            match lines.iter_mut().find(|(l, _)| *l == line) {
                Some((_, n)) => *n += 1,
                None => lines.push((line, 1)),
            }
        }
        lines.sort_by_key(|(l, _)| STEPS.iter().position(|s| l.starts_with(&format!("{s}:"))));
        lines
    }

    /// The report as `--json` writes it: the device, the compilers and every task's result.
    pub fn to_json(&self) -> Value {
        serde_json::json!({
            "device": self.device,
            "fake_device": self.fake_device,
            "compiler": self.compiler,
            "triton": self.triton,
            "tasks": self.tasks,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_gives_its_task_files_sorted_and_an_empty_one_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        for f in ["b.yaml", "a.yml", "notes.txt"] {
            std::fs::write(dir.path().join(f), "").unwrap();
        }
        let one = dir.path().join("one.yaml");
        let files = task_files(&[dir.path().to_path_buf(), one.clone()]).unwrap();
        assert_eq!(
            files,
            vec![dir.path().join("a.yml"), dir.path().join("b.yaml"), one]
        );
        let empty = tempfile::tempdir().unwrap();
        let err = task_files(&[empty.path().to_path_buf()]).unwrap_err().to_string();
        assert!(err.contains("no task files"), "{err}");
    }

    #[test]
    fn steps_not_run_are_counted_once_in_step_order() {
        let task = |not_run: &[&str]| TaskCheck {
            not_run: not_run.iter().map(|s| s.to_string()).collect(),
            ..TaskCheck::default()
        };
        let report = TaskCheckReport {
            device: "d".into(),
            fake_device: true,
            compiler: "c".into(),
            triton: None,
            tasks: vec![
                task(&["a/a: x", "run: y"]),
                task(&["run: y", "compile: z"]),
                TaskCheck {
                    pass: true,
                    ..task(&[])
                },
            ],
        };
        assert_eq!(
            report.not_run(),
            vec![("compile: z", 1), ("run: y", 2), ("a/a: x", 1)]
        );
        assert_eq!(report.failed(), 2);
        let json = report.to_json();
        assert_eq!(json["tasks"].as_array().map(Vec::len), Some(3));
        assert_eq!(json["fake_device"], true);
    }
}
