//! `aorlta validate [--gpu | --fake-gpu]`: the harness validation suite (SPEC §4, §7). Every case
//! of the suite file (`examples/kernels/validation.yaml`) is one candidate kernel of one task,
//! run through the kernel legs (`compile`, `ref.native`, `ref.speedup`) with the profile's
//! parameters and the case's own, graded by the profile's reward function, and compared with
//! what the case expects. It prints one row per case (case, expected, got, reward, pass/FAIL)
//! and exits 0 when every case passes, 1 on any miss, 3 when there is no GPU, 4 when there is no
//! compiler.
//!
//! With `--fake-gpu` the same pipeline runs on the CPU-simulated fake device: the compiler's
//! and the kernels' behaviour come from each case's `fake:` entry, and the plans, the
//! verification and the judge decide, so CI covers everything but the device itself.

use anyhow::{Context, bail};
use aorlta_core::checks::kernel::direct::{merge_params, run_leg};
use aorlta_core::checks::kernel::fake::FakeSpec;
use aorlta_core::checks::kernel::nvcc::{Who, compile};
use aorlta_core::checks::kernel::{KernelCompile, KernelConfig, KernelEnv, KernelRun, KernelTime};
use aorlta_core::checks::{Env, Registry};
use aorlta_core::profile::{LoadedProfile, Profile};
use aorlta_core::reward::{RewardInput, RewardOutcome, RewardRegistry, apply};
use aorlta_core::task::{Task, TaskKind, TaskSet};
use aorlta_record::{LegResult, LegState, Reason};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

/// Exit code when no GPU can be used.
pub const EXIT_NO_GPU: u8 = 3;
/// Exit code when no compiler can be used.
pub const EXIT_NO_COMPILER: u8 = 4;

/// Arguments of `aorlta validate`.
#[derive(Debug, clap::Args)]
pub struct Args {
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
    pub gpus: Option<String>,
    /// Write every case's legs and reward as JSON to this file.
    #[arg(long)]
    pub json: Option<PathBuf>,
}

/// The suite file.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Suite {
    /// The task files' folder, relative to the suite file.
    pub tasks: PathBuf,
    /// The candidates' folder (`<candidates>/<task>/<case>.cu`), relative to the suite file.
    pub candidates: PathBuf,
    /// The profile whose legs, parameters and reward function the cases run under.
    pub profile: PathBuf,
    /// The `kernel:` settings for a validation run (limits, GPUs).
    #[serde(default)]
    pub kernel: KernelConfig,
    /// The cases, in order.
    pub cases: Vec<Case>,
}

/// One case.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Case {
    /// The task id.
    pub task: String,
    /// The candidate file's stem under `<candidates>/<task>/`.
    pub case: String,
    /// Tells apart two cases of one candidate (`budget`).
    #[serde(default)]
    pub label: Option<String>,
    /// What the case shows, for the record.
    #[serde(default)]
    pub note: String,
    /// Parameters of the `kernel-run` leg, over the profile's.
    #[serde(default)]
    pub run: Value,
    /// Parameters of the `kernel-time` leg, over the profile's.
    #[serde(default)]
    pub time: Value,
    /// Run the timing leg even when the correctness leg broke (to show the timing plan's own
    /// protection); the reward still follows the profile's gating.
    #[serde(default)]
    pub force_time: bool,
    /// What the legs and the reward must come out as.
    pub expect: Expect,
    /// How the candidate behaves on the fake device.
    #[serde(default)]
    pub fake: FakeSpec,
}

/// One expected outcome or several acceptable ones: `clean`, `broke <code>`,
/// `unsettled <code>`, `skipped`.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum OneOf {
    /// One outcome.
    One(String),
    /// Any of these.
    Any(Vec<String>),
}

impl OneOf {
    fn options(&self) -> Vec<&str> {
        match self {
            OneOf::One(s) => vec![s.as_str()],
            OneOf::Any(v) => v.iter().map(String::as_str).collect(),
        }
    }

    fn matches(&self, r: &LegResult) -> bool {
        self.options().iter().any(|o| {
            let mut w = o.split_whitespace();
            let state = w.next().unwrap_or("");
            let code = w.next();
            state == r.state.as_str() && code.is_none_or(|c| r.first_code() == Some(c))
        })
    }

    fn text(&self) -> String {
        self.options().join(" | ")
    }
}

/// The reward a case expects.
#[derive(Debug, Clone, Deserialize)]
#[serde(untagged)]
pub enum RewardExpect {
    /// A scored reward in `[lo, hi]`.
    Range([f64; 2]),
    /// `unscored`.
    Word(String),
}

/// What a case expects.
#[derive(Debug, Clone, Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Expect {
    /// The compile leg.
    pub compile: Option<OneOf>,
    /// The correctness leg.
    pub run: Option<OneOf>,
    /// The timing leg.
    pub time: Option<OneOf>,
    /// The speedup `s`, in `[lo, hi]`.
    pub s: Option<[f64; 2]>,
    /// The reward.
    pub reward: Option<RewardExpect>,
}

/// One case's outcome.
#[derive(Debug, Serialize)]
pub struct CaseResult {
    /// `task/case[@label]`.
    pub id: String,
    /// What was expected, as text.
    pub expected: String,
    /// What came out, as text.
    pub got: String,
    /// The reward (`null` when unscored).
    pub reward: Option<f64>,
    /// Why unscored.
    pub unscored: Vec<Reason>,
    /// Every leg that ran.
    pub legs: Vec<LegResult>,
    /// True when everything matched.
    pub pass: bool,
    /// The case's note.
    pub note: String,
}

/// Loads a suite file.
pub fn load_suite(path: &Path) -> anyhow::Result<Suite> {
    let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
    serde_norway::from_str(&text).map_err(|e| {
        let line = e.location().map(|l| l.line()).unwrap_or(0);
        anyhow::anyhow!("{}:{line}: {e}", path.display())
    })
}

fn case_id(c: &Case) -> String {
    match &c.label {
        Some(l) => format!("{}/{}@{l}", c.task, c.case),
        None => format!("{}/{}", c.task, c.case),
    }
}

/// Runs `aorlta validate`.
pub fn run(args: Args) -> anyhow::Result<ExitCode> {
    let started = Instant::now();
    let suite_path = std::path::absolute(&args.suite)?;
    let suite = load_suite(&suite_path)?;
    let base = suite_path.parent().unwrap_or(Path::new("."));
    let mut config = suite.kernel.clone();
    config.fake_gpu = args.fake_gpu;
    if let Some(g) = &args.gpus {
        config.gpus = g.parse().map_err(|e: String| anyhow::anyhow!("--gpus: {e}"))?;
    }
    let kernel = KernelEnv::from_config(&config)?;
    if let Err(e) = kernel.devices() {
        println!("no GPU: {e}");
        return Ok(ExitCode::from(EXIT_NO_GPU));
    }
    if let Err(e) = kernel.compiler_version() {
        println!("no compiler: {e}");
        return Ok(ExitCode::from(EXIT_NO_COMPILER));
    }
    let env = Env {
        work_dir: kernel.work_dir().to_path_buf(),
        kernel: Some(kernel),
    };
    let Some(kernel) = env.kernel.as_ref() else {
        unreachable!("set above")
    };
    let (tasks, _) = TaskSet::load(&base.join(&suite.tasks))?;
    let profile = LoadedProfile::load(
        &base.join(&suite.profile),
        &Registry::builtin(),
        &RewardRegistry::builtin(),
    )?;
    let cases: Vec<&Case> = suite
        .cases
        .iter()
        .filter(|c| args.only.as_ref().is_none_or(|o| case_id(c).contains(o.as_str())))
        .collect();
    if cases.is_empty() {
        bail!("no case of {} matches", suite_path.display());
    }
    // Read every source first, and register fake behaviours.
    let mut sources = Vec::with_capacity(cases.len());
    for c in &cases {
        let p = base
            .join(&suite.candidates)
            .join(&c.task)
            .join(format!("{}.cu", c.case));
        let src =
            std::fs::read_to_string(&p).with_context(|| format!("case {}: {}", case_id(c), p.display()))?;
        if args.fake_gpu {
            kernel.add_fake(&src, c.fake.clone());
        }
        sources.push(src);
    }
    precompile(kernel, &tasks, &cases, &sources);
    let device = kernel
        .devices()
        .ok()
        .and_then(|l| l.devices.first())
        .map(|d| format!("{} ({}, driver {})", d.name, d.uuid, d.driver))
        .unwrap_or_default();
    println!("aorlta validate: {} cases on {device}", cases.len());
    println!("compiler: {}", kernel.compiler_version().unwrap_or("none"));
    println!(
        "{:<34} {:<46} {:<46} {:>7}  RESULT",
        "CASE", "EXPECTED", "GOT", "REWARD"
    );
    let mut results = Vec::new();
    for (c, src) in cases.iter().zip(&sources) {
        let r = run_case(c, src, &tasks, &profile, &env)?;
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
        results.push(r);
    }
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
    kernel.pool().shutdown();
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    })
}

/// Compiles every reference and candidate in parallel, so the legs find them cached.
fn precompile(kernel: &KernelEnv, tasks: &TaskSet, cases: &[&Case], sources: &[String]) {
    let jobs: Vec<(&Task, &str)> = cases
        .iter()
        .zip(sources)
        .filter_map(|(c, s)| tasks.get(&c.task).map(|t| (t.as_ref(), s.as_str())))
        .collect();
    let threads = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2)
        .clamp(1, 16);
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..threads {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((task, src)) = jobs.get(i) else { break };
                    if let TaskKind::Kernel(k) = &task.kind {
                        let _ = compile(kernel, k, &k.reference_source, Who::Reference);
                        let _ = compile(kernel, k, src, Who::Candidate);
                    }
                }
            });
        }
    });
}

fn leg_params(profile: &Profile, adapter: &str) -> Value {
    profile
        .legs
        .iter()
        .find(|l| l.adapter == adapter)
        .map(|l| l.params.clone())
        .unwrap_or(Value::Null)
}

fn describe(r: &LegResult) -> String {
    let code = r.first_code().map(|c| format!(" {c}")).unwrap_or_default();
    let s = r
        .detail
        .as_ref()
        .and_then(|d| d.get("s"))
        .and_then(Value::as_f64)
        .map(|s| format!(" s={s:.3}"))
        .unwrap_or_default();
    format!("{}{code}{s}", r.state)
}

fn run_case(
    c: &Case,
    source: &str,
    tasks: &TaskSet,
    loaded: &LoadedProfile,
    env: &Env,
) -> anyhow::Result<CaseResult> {
    let id = case_id(c);
    let task = tasks
        .get(&c.task)
        .with_context(|| format!("case {id}: no task `{}`", c.task))?;
    let profile = &loaded.profile;
    let compile_leg = run_leg(
        "compile",
        &KernelCompile,
        task,
        source,
        &leg_params(profile, "kernel-compile"),
        env,
    );
    let mut legs = vec![compile_leg];
    let mut run_r = None;
    let mut time_r = None;
    if legs[0].state == LegState::Clean {
        let rp = merge_params(&leg_params(profile, "kernel-run"), &c.run);
        let r = run_leg("ref.native", &KernelRun, task, source, &rp, env);
        let clean = r.state == LegState::Clean;
        legs.push(r.clone());
        run_r = Some(r);
        if clean || c.force_time {
            let tp = merge_params(&leg_params(profile, "kernel-time"), &c.time);
            let t = run_leg("ref.speedup", &KernelTime, task, source, &tp, env);
            legs.push(t.clone());
            time_r = Some(t);
        }
    }
    let compile_r = &legs[0];
    let skipped = |name: &str| {
        LegResult::with_state(
            name,
            "",
            LegState::Skipped,
            Reason::new("skipped", "an earlier leg was not clean"),
        )
    };
    let got_of = |e: &Option<OneOf>, r: Option<&LegResult>, name: &str| -> (bool, String) {
        let r = r.cloned().unwrap_or_else(|| skipped(name));
        match e {
            Some(e) => (e.matches(&r), format!("{name} {}", describe(&r))),
            None => (true, String::new()),
        }
    };
    let mut pass = true;
    let mut expected = Vec::new();
    let mut got = Vec::new();
    for (e, r, name) in [
        (&c.expect.compile, Some(compile_r), "compile"),
        (&c.expect.run, run_r.as_ref(), "run"),
        (&c.expect.time, time_r.as_ref(), "time"),
    ] {
        if let Some(x) = e {
            expected.push(format!("{name} {}", x.text()));
        }
        let (ok, text) = got_of(e, r, name);
        pass &= ok;
        if !text.is_empty() {
            got.push(text);
        }
    }
    if let Some([lo, hi]) = c.expect.s {
        expected.push(format!("s {lo}-{hi}"));
        let s = time_r
            .as_ref()
            .and_then(|t| t.detail.as_ref())
            .and_then(|d| d.get("s"))
            .and_then(Value::as_f64);
        pass &= s.is_some_and(|s| (lo..=hi).contains(&s));
    }
    // The reward, by the profile's gating and reward function.
    let (reward, unscored) = reward_of(loaded, &legs, source.len());
    match &c.expect.reward {
        Some(RewardExpect::Range([lo, hi])) => {
            pass &= reward.is_some_and(|r| (*lo - 1e-9..=*hi + 1e-9).contains(&r));
        }
        Some(RewardExpect::Word(w)) if w == "unscored" => pass &= reward.is_none(),
        Some(RewardExpect::Word(w)) => {
            bail!("case {id}: expected reward `{w}` is neither a range nor `unscored`")
        }
        None => {}
    }
    Ok(CaseResult {
        id,
        expected: expected.join("; "),
        got: got.join("; "),
        reward,
        unscored,
        legs,
        pass,
        note: c.note.clone(),
    })
}

/// The profile's legs filled from the legs that ran (parse is clean: the source was given),
/// gated by `needs`, and graded by the profile's reward function.
fn reward_of(loaded: &LoadedProfile, ran: &[LegResult], len: usize) -> (Option<f64>, Vec<Reason>) {
    let profile = &loaded.profile;
    let mut results: Vec<LegResult> = Vec::new();
    for spec in &profile.legs {
        let blocked = spec.needs.iter().find(|n| {
            results
                .iter()
                .any(|r| &r.name == *n && r.state != LegState::Clean)
        });
        let r = if let Some(n) = blocked {
            LegResult::with_state(
                &spec.name,
                &spec.adapter,
                LegState::Skipped,
                Reason::new("needs-not-clean", format!("needs `{n}`")),
            )
        } else if spec.adapter == "parse" {
            LegResult::clean(&spec.name, "parse")
        } else {
            match ran.iter().find(|r| r.adapter == spec.adapter) {
                Some(r) => LegResult {
                    name: spec.name.clone(),
                    ..r.clone()
                },
                None => LegResult::with_state(
                    &spec.name,
                    &spec.adapter,
                    LegState::Skipped,
                    Reason::new("not-run", "validate does not run this adapter"),
                ),
            }
        };
        results.push(r);
    }
    let rewards = RewardRegistry::builtin();
    let Some(f) = rewards.get(&profile.reward_fn) else {
        return (
            None,
            vec![Reason::new("unknown-reward-fn", profile.reward_fn.clone())],
        );
    };
    let input = RewardInput {
        profile,
        legs: &results,
        completion_len: len,
    };
    match apply(f.as_ref(), &input) {
        RewardOutcome::Scored(p) => (Some(p.sum()), Vec::new()),
        RewardOutcome::Unscored(r) => (None, r),
    }
}
