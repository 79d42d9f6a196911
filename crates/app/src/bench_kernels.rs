//! Where the time of the kernel legs goes (`aorlta bench kernels`), on the example pool of the
//! validation suite: compiling (each candidate alone, then all of them in parallel), starting a
//! harness process, a correctness job and a timing job per task, the harness's own time per
//! timed launch outside the kernel, and an A/A run (one reference timed against itself many
//! times at ratio 1.0; the goal is that none comes out `faster`). Every leg runs through the
//! engine's one door ([`aorlta_core::Legs`]).
//!
//! [`bench_pool`] measures a whole scoring run instead: a pool scored by a run config's profile
//! and kernel tools with a fresh cache, end-to-end candidates per second, the time split and the
//! GPUs' busy fraction ([`aorlta_bench::PoolReport`]).
//!
//! A benchmark prints its figures as they are measured: these functions hand each line to the
//! caller (`say`), which prints it; they write no file.

use crate::config::{RunConfig, concurrency_problem};
use crate::score::{PreparedRun, RunReport, execute, prepare};
use crate::validation::Suite;
use anyhow::{Context, bail};
use aorlta_bench::{PoolReport, percentile};
use aorlta_check::{Env, LegRunner};
use aorlta_check::{Task, TaskSet};
use aorlta_core::Legs;
use aorlta_kernel::KernelTaskDef;
use aorlta_kernel::KernelTools;
use aorlta_kernel::{CompilerChoice, GpuSet, Who, compile};
use aorlta_kernel::{KernelConfig, KernelEnv, KernelOverrides};
use aorlta_record::Candidate;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Where a benchmark's lines go as they are measured.
pub type Say<'a> = &'a mut dyn FnMut(&str);

/// What a measurement came to: its figures, or why no GPU can be used (the error's words).
#[derive(Debug)]
pub enum Measured<T> {
    /// The figures.
    Done(T),
    /// No GPU can be used.
    NoGpu(String),
}

/// The settings of [`bench_kernels`].
#[derive(Debug, Clone)]
pub struct KernelBench {
    /// The validation suite whose tasks and candidates make the pool.
    pub suite: PathBuf,
    /// Run on the CPU-simulated fake device.
    pub fake_gpu: bool,
    /// The compiler of CUDA sources instead of the suite's.
    pub compiler: Option<CompilerChoice>,
    /// Self-timings in the A/A run.
    pub aa: usize,
    /// The task of the A/A run.
    pub aa_task: String,
    /// The A/A run's problem size (`n=1048576`): this value for every size variable of the
    /// task's primary size that it replaces; the primary size when absent.
    pub aa_size: Option<String>,
    /// Time the A/A run with the timing leg's `symmetric: false` (the candidate's side alone with
    /// the harness's code unloaded, each side keeping its buffer set), to set against the default.
    pub aa_plain: bool,
    /// Stop the A/A run after this many seconds of wall time.
    pub aa_max_s: Option<f64>,
    /// Leave out the compile measurement.
    pub no_compile: bool,
    /// The A/A task's folder (or file) instead of the suite's tasks.
    pub aa_tasks: Option<PathBuf>,
    /// A source timed against the task's reference instead of the reference itself.
    pub aa_candidate: Option<PathBuf>,
    /// The timing leg's `baseline` (`torch-eager`, `torch-compile`) for the A/A.
    pub aa_baseline: Option<String>,
}

/// The settings of [`bench_pool`].
#[derive(Debug, Clone)]
pub struct PoolBench {
    /// The pool to score.
    pub pool: PathBuf,
    /// The run config whose tasks, profile, kernel tools and concurrency the run uses.
    pub config: PathBuf,
    /// Run on the CPU-simulated fake device.
    pub fake_gpu: bool,
    /// The compiler of CUDA sources instead of the config's.
    pub compiler: Option<CompilerChoice>,
    /// Candidates scored at once (overrides the config).
    pub concurrency: Option<usize>,
    /// GPUs the run may lease (overrides the config).
    pub gpus: Option<GpuSet>,
}

/// A pool benchmark ready to run: the scoring run prepared on a fresh cache.
pub struct PoolRun {
    run: PreparedRun,
    candidates: Vec<Candidate>,
    gpus: usize,
    concurrency: usize,
    _scratch: tempfile::TempDir,
}

impl std::fmt::Debug for PoolRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PoolRun")
            .field("candidates", &self.candidates.len())
            .field("gpus", &self.gpus)
            .finish_non_exhaustive()
    }
}

/// Prepares one scoring run of the pool, on a fresh cache (nothing is served from an earlier
/// run), with the config's kernel tools and the settings' overrides.
pub fn bench_pool(args: &PoolBench) -> anyhow::Result<Measured<PoolRun>> {
    let mut config = RunConfig::load(&args.config)?;
    config.pools = vec![std::path::absolute(&args.pool)?];
    let scratch = tempfile::Builder::new().prefix("aorlta-bench-pool-").tempdir()?;
    config.out = scratch.path().to_path_buf();
    config.cache = aorlta_store::CacheSpec::Sqlite(scratch.path().join("cache.sqlite"));
    if let Some(c) = args.concurrency {
        if let Some(why) = concurrency_problem(c) {
            anyhow::bail!("--concurrency: {why}");
        }
        config.concurrency = c;
    }
    let env = config.env_with(&KernelOverrides {
        fake_gpu: args.fake_gpu,
        gpus: args.gpus.clone(),
        compiler: args.compiler,
    })?;
    let gpus = match env.kernel().map(|k| k.gpu_set()) {
        Some(Ok(g)) => g.len(),
        Some(Err(e)) => return Ok(Measured::NoGpu(e.to_string())),
        None => bail!("{}: the config has no `kernel:` section", args.config.display()),
    };
    let concurrency = config.concurrency;
    let run = prepare(config, aorlta_core::adapters(), env).context("preparing the run")?;
    let (candidates, _) = aorlta_core::read_pool(&args.pool)?;
    Ok(Measured::Done(PoolRun {
        run,
        candidates,
        gpus,
        concurrency,
        _scratch: scratch,
    }))
}

impl PoolRun {
    /// The pool's completions.
    pub fn completions(&self) -> usize {
        self.candidates.len()
    }

    /// The name of the profile that scores them.
    pub fn profile(&self) -> &str {
        &self.run.engine.profile().profile.name
    }

    /// Candidates scored at once.
    pub fn concurrency(&self) -> usize {
        self.concurrency
    }

    /// Lines the run reads (what a progress bar counts to).
    pub fn lines(&self) -> usize {
        self.run.lines
    }

    /// Scores the pool, calling `on_done` once per candidate scored, and measures the run from
    /// its reward entries: the figures and the run's report.
    pub fn execute(&self, on_done: &(dyn Fn(usize) + Sync)) -> anyhow::Result<(PoolReport, RunReport)> {
        let start = Instant::now();
        let done = execute(&self.run, on_done)?;
        let wall = start.elapsed().as_secs_f64();
        let text = std::fs::read_to_string(&done.rewards)?;
        let entries: Vec<aorlta_record::RewardEntry> = text
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()
            .context("reading the run's rewards")?;
        let completions: Vec<&str> = self.candidates.iter().map(|c| c.completion.as_str()).collect();
        let busy = self
            .run
            .engine
            .env()
            .kernel()
            .map_or(0.0, |k| k.pool().stats().busy_share(wall, self.gpus));
        let report = PoolReport::of(&entries, &completions, wall, self.gpus, busy);
        Ok((report, done))
    }
}

/// The smallest, median, 90th percentile and largest of `xs` (NaN when empty).
fn spread(xs: &mut [f64]) -> [f64; 4] {
    xs.sort_by(f64::total_cmp);
    [0.0, 50.0, 90.0, 100.0].map(|p| percentile(xs, p).unwrap_or(f64::NAN))
}

/// Kernel tools on the suite's settings with a fresh work folder (and so a fresh compile cache).
fn fresh_env(config: &KernelConfig, dir: &Path) -> anyhow::Result<Env> {
    let config = KernelConfig {
        work_dir: Some(dir.to_path_buf()),
        ..config.clone()
    };
    Ok(aorlta_kernel::env_with_kernel(&config)?)
}

/// The kernel tools of an environment built by [`fresh_env`].
fn tools(env: &Env) -> &KernelEnv {
    env.kernel().expect("built with kernel tools")
}

/// A candidate of the bench's pool: its task, its file's stem, its source.
type PoolItem = (std::sync::Arc<Task>, String, String);

/// The kernel task of a task, if it is one.
fn kdef(t: &Task) -> Option<KernelTaskDef> {
    KernelTaskDef::of(t).cloned()
}

/// Compiles every candidate of the pool one at a time, then all of them at once, each in a
/// fresh cache under `scratch`, and prints and records the times.
fn compile_bench(
    say: Say<'_>,
    config: &KernelConfig,
    scratch: &Path,
    pool: &[PoolItem],
    report: &mut serde_json::Map<String, Value>,
) -> anyhow::Result<()> {
    let seq = fresh_env(config, &scratch.join("seq"))?;
    let seq_env = tools(&seq);
    seq_env
        .compiler_version()
        .map_err(|e| anyhow::anyhow!("no compiler: {e}"))?;
    let mut per: Vec<f64> = Vec::new();
    let mut outcomes: BTreeMap<String, usize> = BTreeMap::new();
    let t0 = Instant::now();
    for (t, _, src) in pool {
        if let Some(k) = kdef(t) {
            let s = Instant::now();
            let out = compile(seq_env, &k, src, Who::Candidate);
            per.push(s.elapsed().as_secs_f64());
            let key = match out {
                Ok(_) => "compiled".to_string(),
                Err(f) => format!("{} {}", f.state, f.code),
            };
            *outcomes.entry(key).or_default() += 1;
        }
    }
    let seq_total = t0.elapsed().as_secs_f64();
    let par = fresh_env(config, &scratch.join("par"))?;
    let threads = compile_threads();
    let par_total = compile_all(tools(&par), pool, threads);
    let n = per.len();
    let [_, med, p90, max] = spread(&mut per);
    say(&format!(
        "compile: {n} candidates {outcomes:?}; per candidate median {med:.3} s, p90 {p90:.3} s, max {max:.3} s"
    ));
    say(&format!(
        "compile: one at a time {seq_total:.2} s in all; {threads} at a time {par_total:.2} s ({:.1}x)",
        seq_total / par_total
    ));
    report.insert(
        "compile".into(),
        json!({"candidates": n, "outcomes": outcomes, "median_s": med, "p90_s": p90, "max_s": max, "sequential_s": seq_total, "parallel_s": par_total, "threads": threads}),
    );

    Ok(())
}

/// Compilers run at once: the machine's cores, at most 16.
fn compile_threads() -> usize {
    std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 16)
}

/// Compiles every candidate of `pool` in `env`, `threads` at a time; the seconds it took.
fn compile_all(env: &KernelEnv, pool: &[PoolItem], threads: usize) -> f64 {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let t0 = Instant::now();
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((t, _, src)) = pool.get(i) else { break };
                    if let Some(k) = kdef(t) {
                        let _ = compile(env, &k, src, Who::Candidate);
                    }
                }
            });
        }
    });
    t0.elapsed().as_secs_f64()
}

/// The two real compilers side by side (NVRTC in its workers, nvcc a process per source), each
/// compiling the pool in a fresh cache with as many at a time as cores, whatever the device
/// (with `--fake-gpu` too): the line `compile: nvrtc N/s, nvcc M/s (W at a time)`.
fn compilers_bench(
    say: Say<'_>,
    config: &KernelConfig,
    scratch: &Path,
    pool: &[PoolItem],
    report: &mut serde_json::Map<String, Value>,
) -> anyhow::Result<()> {
    let threads = compile_threads();
    let mut rates = BTreeMap::new();
    for choice in [CompilerChoice::Nvrtc, CompilerChoice::Nvcc] {
        let config = KernelConfig {
            compiler: choice,
            fake_gpu: false,
            ..config.clone()
        };
        let env = fresh_env(&config, &scratch.join(format!("compilers-{}", choice.as_str())))?;
        if let Err(e) = tools(&env).compiler_version() {
            say(&format!("compile: {} not measured: {e}", choice.as_str()));
            continue;
        }
        let seconds = compile_all(tools(&env), pool, threads);
        rates.insert(choice.as_str(), pool.len() as f64 / seconds);
    }
    let rate = |c: &str| rates.get(c).map_or("-".to_string(), |r| format!("{r:.1}/s"));
    say(&format!(
        "compile: nvrtc {}, nvcc {} ({threads} at a time, {} distinct sources)",
        rate("nvrtc"),
        rate("nvcc"),
        pool.len()
    ));
    report.insert(
        "compilers".into(),
        json!({"threads": threads, "sources": pool.len(), "per_s": rates}),
    );
    Ok(())
}

/// Measures the kernel legs on the suite's example pool as [`KernelBench`] says, handing each
/// figure's line to `say` as it is measured; the figures as JSON, or why no GPU can be used.
pub fn bench_kernels(args: &KernelBench, say: Say<'_>) -> anyhow::Result<Measured<Value>> {
    let suite_path = std::path::absolute(&args.suite)?;
    let suite: Suite = aorlta_check::load_yaml(&suite_path)?;
    let base = suite_path.parent().unwrap_or(Path::new("."));
    let config = suite.kernel.clone().overridden(&KernelOverrides {
        fake_gpu: args.fake_gpu,
        gpus: None,
        compiler: args.compiler,
    });
    let (tasks, _) = TaskSet::load(&base.join(&suite.tasks), &aorlta_core::lanes())?;
    let mut report = serde_json::Map::new();

    // The pool: every candidate file of every task, compile bombs left out.
    let mut pool: Vec<PoolItem> = Vec::new();
    for t in tasks.iter() {
        let dir = base.join(&suite.candidates).join(&t.id);
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        let mut files: Vec<PathBuf> = rd
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cu"))
            .collect();
        files.sort();
        for f in files {
            let name = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            if name.contains("compile-bomb") {
                continue;
            }
            let src = std::fs::read_to_string(&f).with_context(|| format!("{}", f.display()))?;
            pool.push((t.clone(), name, src));
        }
    }
    if pool.is_empty() {
        bail!(
            "no candidate files under {}",
            base.join(&suite.candidates).display()
        );
    }

    // 1. Compile: one at a time, then all at once, each in a fresh cache.
    let scratch = tempfile::tempdir()?;
    if !args.no_compile {
        compile_bench(say, &config, scratch.path(), &pool, &mut report)?;
        compilers_bench(say, &config, scratch.path(), &pool, &mut report)?;
    }

    // 2-4. Harness start, correctness and timing, per task, with the `self` candidate.
    let env = fresh_env(&config, &scratch.path().join("legs"))?;
    let legs = Legs::builtin();
    let kernel = tools(&env);
    if let Err(e) = kernel.devices() {
        return Ok(Measured::NoGpu(e.to_string()));
    }
    say(&format!(
        "{:<12} {:>10} {:>10} {:>8} {:>12} {:>12} {:>14} {:>14}",
        "task", "run s", "time s", "pairs", "ref kernel", "cand kernel", "step - kernel", "launch wall-k"
    ));
    let mut per_task = BTreeMap::new();
    for (t, name, src) in &pool {
        if name != "self" {
            continue;
        }
        let r = legs.run_on_source("ref.native", "kernel-run", t, src, &Value::Null, &env);
        let tm = legs.run_on_source("ref.speedup", "kernel-time", t, src, &Value::Null, &env);
        let d = tm.detail.clone().unwrap_or(Value::Null);
        let o = d.get("overhead").cloned().unwrap_or(Value::Null);
        let f = |v: &Value, k: &str| v.get(k).and_then(Value::as_f64).unwrap_or(f64::NAN);
        let us = |x: f64| format!("{:.1} us", x * 1e6);
        let ms = |x: f64| format!("{:.2} ms", x * 1e3);
        say(&format!(
            "{:<12} {:>10.2} {:>10.2} {:>8} {:>12} {:>12} {:>14} {:>14}",
            t.id,
            r.elapsed_s,
            tm.elapsed_s,
            d.get("pairs").and_then(Value::as_u64).unwrap_or(0),
            us(f(&d, "median_reference")),
            us(f(&d, "median_candidate")),
            ms(f(&o, "step_median_s") - f(&o, "kernel_median_s")),
            us(f(&o, "outside_median_s")),
        ));
        if let Some(phases) = o.get("phases").and_then(Value::as_object) {
            let parts: Vec<String> = phases
                .iter()
                .map(|(k, v)| format!("{k} {:.1} us", v.as_f64().unwrap_or(f64::NAN) * 1e6))
                .collect();
            say(&format!("{:<12} per pair: {}", "", parts.join(", ")));
        }
        per_task.insert(
            t.id.clone(),
            json!({"run_s": r.elapsed_s, "run_state": r.state, "time_s": tm.elapsed_s, "time_state": tm.state, "verdict": tm.first_code(), "detail": d}),
        );
    }
    let stats = kernel.pool().stats();
    let start = if stats.started > 0 {
        stats.start_s / stats.started as f64
    } else {
        f64::NAN
    };
    say(&format!(
        "harness start (spawn to context ready): {start:.3} s mean over {} processes",
        stats.started
    ));
    report.insert("tasks".into(), json!(per_task));
    report.insert("harness_start_s".into(), json!(start));

    // 5. A/A: one reference against itself (or a given kernel against it), at ratio 1.0.
    let aa_tasks = match &args.aa_tasks {
        Some(dir) => {
            TaskSet::load(dir, &aorlta_core::lanes())
                .with_context(|| format!("--aa-tasks {}", dir.display()))?
                .0
        }
        None => tasks,
    };
    let Some(t) = aa_tasks.get(&args.aa_task) else {
        bail!("no task `{}`", args.aa_task);
    };
    let Some(mut k) = kdef(t) else {
        bail!("task `{}` is not a kernel task", args.aa_task)
    };
    if let Some(spec) = &args.aa_size {
        let mut size = k.spec.sizes.first().cloned().unwrap_or_default();
        for part in spec.split(',') {
            let (name, v) = part
                .split_once('=')
                .with_context(|| format!("--aa-size: `{part}` is not name=value"))?;
            size.insert(
                name.trim().to_string(),
                v.trim().parse().with_context(|| format!("--aa-size: `{v}`"))?,
            );
        }
        k.spec.sizes = vec![size];
    }
    let aa_task = Task::new(
        aorlta_kernel::LANE,
        k.spec.id.clone(),
        format!("{}-aa", t.hash),
        k.clone(),
    );
    let candidate = match &args.aa_candidate {
        Some(f) => std::fs::read_to_string(f).with_context(|| format!("--aa-candidate {}", f.display()))?,
        None if k.torch.is_some() => bail!(
            "task `{}`'s reference is a PyTorch module, no kernel to time against itself: give --aa-candidate",
            args.aa_task
        ),
        None => k.reference_source.clone(),
    };
    let mut params = json!({"ratio": 1.0});
    if args.aa_plain {
        params["symmetric"] = json!(false);
    }
    if let Some(b) = &args.aa_baseline {
        params["baseline"] = json!(b);
    }
    let what = match &args.aa_candidate {
        Some(f) => format!("timings of {} against {}", f.display(), args.aa_task),
        None => format!("self-timings of {}", args.aa_task),
    };
    let mut verdicts: BTreeMap<String, usize> = BTreeMap::new();
    let mut s_values = Vec::new();
    let t0 = Instant::now();
    let mut ran = 0usize;
    for _ in 0..args.aa {
        if args.aa_max_s.is_some_and(|m| t0.elapsed().as_secs_f64() > m) {
            break;
        }
        ran += 1;
        let r = legs.run_on_source("ref.speedup", "kernel-time", &aa_task, &candidate, &params, &env);
        *verdicts
            .entry(r.first_code().unwrap_or("none").to_string())
            .or_default() += 1;
        if let Some(s) = r.detail.as_ref().and_then(|d| d.get("s")).and_then(Value::as_f64) {
            s_values.push(s);
        }
    }
    let aa_s = t0.elapsed().as_secs_f64();
    let faster = verdicts.get("faster").copied().unwrap_or(0);
    let penalised = verdicts.get("candidate-noisy").copied().unwrap_or(0);
    let [lo, mid, _, hi] = spread(&mut s_values);
    say(&format!(
        "A/A: {ran} {what} at {:?} (ratio 1.0{}{}), {aa_s:.1} s: {faster} faster, {penalised} penalised (candidate-noisy); verdicts {verdicts:?}; s min {lo:.4}, median {mid:.4}, max {hi:.4}",
        k.spec.sizes[0],
        if args.aa_plain { ", plain" } else { ", symmetric" },
        args.aa_baseline
            .as_deref()
            .map(|b| format!(", against {b}"))
            .unwrap_or_default()
    ));
    if ran < args.aa {
        say(&format!(
            "A/A: stopped at --aa-max-s after {ran} of {} self-timings",
            args.aa
        ));
    }
    report.insert(
        "aa".into(),
        json!({"timings": ran, "asked": args.aa, "task": args.aa_task, "candidate": args.aa_candidate, "baseline": args.aa_baseline, "symmetric": !args.aa_plain, "size": k.spec.sizes[0], "faster": faster, "penalised": penalised, "verdicts": verdicts, "s_min": lo, "s_median": mid, "s_max": hi, "seconds": aa_s}),
    );
    kernel.pool().shutdown();
    Ok(Measured::Done(Value::Object(report)))
}
