//! The harness validation suite (docs/VALIDATION.md), run through the production path: every
//! case is one candidate kernel of one task, wrapped as a completion whose code block the
//! profile's `parse` leg extracts, and scored by a [`Engine`] on the suite's profile, with the
//! profile's own legs, gating (`needs`), caching and reward function. A case's parameters go
//! over the profile's in a per-case variant of the profile; `force-time` runs the timing leg a
//! second time, through a second engine on a variant whose timing leg does not need the
//! correctness leg, while the reward stays the one the profile itself gives. The outcome is
//! compared with what the case expects; `aorlta validate` only prints it.
//!
//! With the fake device the compiler's and the kernels' behaviour come from each case's `fake:`
//! entry, and the plans, the verification and the judge decide, so CI covers everything but the
//! device itself.

mod suite;

pub use suite::{Case, Expect, OneOf, RewardExpect, Suite};

use aorlta_check::Env;
use aorlta_check::TaskSet;
use aorlta_check::{CoreError, Result};
use aorlta_core::RewardRegistry;
use aorlta_core::{Engine, EngineParts};
use aorlta_core::{LoadedProfile, Profile};
use aorlta_kernel::KernelTaskDef;
use aorlta_kernel::KernelTools;
use aorlta_kernel::Who;
use aorlta_kernel::{Compilers, KernelEnv, KernelOverrides};
use aorlta_record::KernelLanguage;
use aorlta_record::{Candidate, LegResult, LegState, Reason, RewardEntry};
use aorlta_store::{Cache, MemoryCache};
use serde::Serialize;
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The adapters whose legs a case's expectations name, by expectation key.
const EXPECTED: [(&str, &str); 4] = [
    ("parse", "parse"),
    ("compile", "kernel-compile"),
    ("run", "kernel-run"),
    ("time", "kernel-time"),
];

/// What to run: the device and the cases.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The fake device and the GPUs to lease, over the suite's `kernel:` settings.
    pub kernel: KernelOverrides,
    /// Only the cases whose id contains this text.
    pub only: Option<String>,
}

/// Why the suite cannot run on this machine.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unavailable {
    /// No GPU (or no harness that could list one).
    #[error("no GPU: {0}")]
    NoGpu(String),
    /// No compiler.
    #[error("no compiler: {0}")]
    NoCompiler(String),
}

/// One case's outcome.
#[derive(Debug, Clone, Serialize)]
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
    /// Every leg of the profile, as the engine answered.
    pub legs: Vec<LegResult>,
    /// With `force-time`, the timing leg run on the variant that does not need the correctness
    /// leg (when the profile's own gating skipped it).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub forced_time: Option<LegResult>,
    /// True when everything matched.
    pub pass: bool,
    /// The case's note.
    pub note: String,
    /// The entry's feedback for the model.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
}

/// A case ready to run: its candidate's source and the completion that carries it.
#[derive(Debug)]
struct Prepared {
    case: Case,
    id: String,
    source: String,
    completion: String,
}

/// A loaded suite, ready to run on one device.
pub struct Validation {
    suite_path: PathBuf,
    tasks: Arc<TaskSet>,
    profile: LoadedProfile,
    env: Arc<Env>,
    cases: Vec<Prepared>,
    not_run: Vec<String>,
}

/// A completion whose only code block is `source`, fenced with more backticks than any run in
/// it, so that the `parse` leg extracts `source` exactly (with a final newline added when it has
/// none; the returned source is the one extracted).
#[cfg(test)]
fn completion_for(source: &str) -> (String, String) {
    completion_in(source, KernelLanguage::Cuda)
}

/// [`completion_for`] with the code block tagged with `language` (`cuda`, `hip`), as a model
/// answering that task's prompt would tag it.
pub(crate) fn completion_in(source: &str, language: KernelLanguage) -> (String, String) {
    let mut source = source.to_string();
    if !source.ends_with('\n') {
        source.push('\n');
    }
    let longest = source.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest.max(2) + 1);
    let tag = language.as_str();
    (format!("{fence}{tag}\n{source}{fence}\n"), source)
}

impl Validation {
    /// Loads a suite file, its tasks, its profile and its candidates, and builds the kernel
    /// tools (nothing is started yet).
    pub fn load(suite_path: &Path, options: &Options) -> Result<Self> {
        let suite_path = std::path::absolute(suite_path).map_err(|e| CoreError::io(suite_path, e))?;
        let suite: Suite = aorlta_check::load_yaml(&suite_path)?;
        let base = suite_path.parent().unwrap_or(Path::new("."));
        let env = aorlta_kernel::env_with_kernel(&suite.kernel.clone().overridden(&options.kernel))?;
        let (tasks, _) = TaskSet::load(&base.join(&suite.tasks), &aorlta_core::lanes())?;
        let profile = LoadedProfile::load(
            &base.join(&suite.profile),
            &aorlta_core::adapters(),
            &RewardRegistry::builtin(),
        )?;
        let invalid = |m: String| CoreError::invalid(&suite_path, m);
        let mut cases = Vec::new();
        let mut not_run = Vec::new();
        let kernel = env.kernel().expect("built with kernel tools");
        for case in suite.cases {
            let id = case.id();
            if options.only.as_ref().is_some_and(|o| !id.contains(o.as_str())) {
                continue;
            }
            let Some(task) = tasks.get(&case.task) else {
                return Err(invalid(format!("case {id}: no task `{}`", case.task)));
            };
            let language = KernelTaskDef::of(task).map_or_else(KernelLanguage::default, |k| k.spec.language);
            for (key, adapter) in EXPECTED {
                let expects = match key {
                    "parse" => case.expect.parse.is_some(),
                    "compile" => case.expect.compile.is_some(),
                    "run" => case.expect.run.is_some(),
                    _ => case.expect.time.is_some() || case.expect.s.is_some(),
                };
                if expects && !profile.profile.legs.iter().any(|l| l.adapter == adapter) {
                    return Err(invalid(format!(
                        "case {id}: expects `{key}` but the profile has no `{adapter}` leg"
                    )));
                }
            }
            if let Some(RewardExpect::Word(w)) = &case.expect.reward
                && w != "unscored"
            {
                return Err(invalid(format!(
                    "case {id}: expected reward `{w}` is neither a range nor `unscored`"
                )));
            }
            // Checked like every case first, so that a suite's errors are the same on any device.
            if case.fake_only && !kernel.is_fake() {
                not_run.push(id);
                continue;
            }
            let folder = base.join(&suite.candidates).join(&case.task);
            // A case may be a whole completion (`<case>.md`: a plan and its kernels, for one);
            // its source is what the lane's `parse` reads from it.
            let markdown = folder.join(format!("{}.md", case.case));
            let (completion, source) = if markdown.is_file() {
                let completion =
                    std::fs::read_to_string(&markdown).map_err(|e| CoreError::io(&markdown, e))?;
                let source = KernelTaskDef::of(task)
                    .and_then(|k| aorlta_kernel::kernel_source(&completion, k).ok())
                    .unwrap_or_else(|| completion.clone());
                (completion, source)
            } else {
                let file = folder.join(format!("{}.{}", case.case, language.extension()));
                let source = std::fs::read_to_string(&file).map_err(|e| CoreError::io(&file, e))?;
                completion_in(&source, language)
            };
            if kernel.is_fake() {
                kernel.add_fake(&source, case.fake.clone());
            }
            cases.push(Prepared {
                case,
                id,
                source,
                completion,
            });
        }
        if cases.is_empty() {
            return Err(invalid("no case matches".into()));
        }
        Ok(Validation {
            suite_path,
            tasks: Arc::new(tasks),
            profile,
            env: Arc::new(env),
            cases,
            not_run,
        })
    }

    /// The kernel tools the cases run with.
    pub fn kernel(&self) -> &KernelEnv {
        self.env.kernel().expect("built with kernel tools")
    }

    /// The number of cases to run.
    pub fn len(&self) -> usize {
        self.cases.len()
    }

    /// The cases of the suite not run on this device: `fake-only` ones on a real device.
    pub fn not_run(&self) -> &[String] {
        &self.not_run
    }

    /// True when no case is to run (never, once loaded).
    pub fn is_empty(&self) -> bool {
        self.cases.is_empty()
    }

    /// Whether this machine has what the suite needs: a device and the compilers of its tasks.
    pub fn check_tools(&self) -> Result<(), Unavailable> {
        let kernel = self.kernel();
        kernel.devices().map_err(Unavailable::NoGpu)?;
        self.compilers().check(kernel).map_err(Unavailable::NoCompiler)
    }

    /// The Python and Triton that compile the suite's Triton tasks, when it has any (and the
    /// device is real: the fake compiler stands in for every compiler).
    pub fn triton(&self) -> Option<String> {
        self.compilers().triton_line(self.kernel())
    }

    /// The compilers the suite's tasks need.
    fn compilers(&self) -> Compilers {
        let tasks = self.tasks.iter().filter_map(|t| KernelTaskDef::of(t));
        Compilers::of(self.kernel(), tasks)
    }

    /// The platforms and languages the suite's tasks run as (`HIP source on NVIDIA`), each once.
    pub fn targets(&self) -> Vec<&'static str> {
        let mut out: Vec<&'static str> = self
            .tasks
            .iter()
            .filter_map(|t| KernelTaskDef::of(t).map(|k| aorlta_kernel::target_label(k, self.kernel())))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The first device, as `name (uuid, driver d)`; empty when there is none.
    pub fn device(&self) -> String {
        self.kernel().device_label()
    }

    /// Compiles every reference and candidate in parallel, so that the compile legs find them
    /// in the compile cache instead of compiling one at a time.
    pub fn precompile(&self) {
        let mut jobs: Vec<(&KernelTaskDef, &str, Who)> = Vec::new();
        for p in &self.cases {
            if let Some(k) = self.tasks.get(&p.case.task).and_then(|t| KernelTaskDef::of(t)) {
                jobs.push((k, &k.reference_source, Who::Reference));
                jobs.push((k, &p.source, Who::Candidate));
            }
        }
        aorlta_kernel::compile_many(self.kernel(), &jobs);
    }

    /// Runs every case in order, handing each result to `on_case` as it comes.
    pub fn run(&self, mut on_case: impl FnMut(&CaseResult)) -> Result<Vec<CaseResult>> {
        // Every task's tolerance must tell its reference from a kernel that computes nothing.
        aorlta_kernel::check_tolerances(&self.env, self.tasks.iter().map(|t| &**t))?;
        let mut out = Vec::with_capacity(self.cases.len());
        for p in &self.cases {
            let r = self.run_case(p)?;
            on_case(&r);
            out.push(r);
        }
        Ok(out)
    }

    /// Stops the harness processes.
    pub fn shutdown(&self) {
        self.kernel().pool().shutdown();
    }

    /// The case's variant of the suite's profile ([`case_profile`]), checked like any profile.
    fn variant(&self, case: &Case, id: &str, forced: bool) -> Result<LoadedProfile> {
        LoadedProfile::check(
            case_profile(&self.profile.profile, case, forced),
            &self.suite_path,
            &aorlta_core::adapters(),
            &RewardRegistry::builtin(),
        )
        .map_err(|e| CoreError::invalid(&self.suite_path, format!("case {id}: {e}")))
    }

    /// Scores the case's completion with an engine on `profile`, sharing `cache` (one per case).
    fn score(&self, profile: LoadedProfile, cache: &Arc<MemoryCache>, p: &Prepared) -> RewardEntry {
        let parts = EngineParts {
            cache: Some(Arc::clone(cache) as Arc<dyn Cache>),
            env: Arc::clone(&self.env),
            ..EngineParts::default()
        };
        let engine = Engine::new(profile, Arc::clone(&self.tasks), parts);
        engine.score(&Candidate {
            id: p.id.clone(),
            task: p.case.task.clone(),
            completion: p.completion.clone(),
        })
    }

    fn run_case(&self, p: &Prepared) -> Result<CaseResult> {
        let c = &p.case;
        // A cache per case: the forced run reuses this case's legs, never another case's.
        let cache = Arc::new(MemoryCache::new(64));
        let entry = self.score(self.variant(c, &p.id, false)?, &cache, p);
        let leg = |adapter: &str| entry.legs.iter().find(|l| l.adapter == adapter);
        let forced_time = match leg("kernel-time") {
            Some(t) if c.force_time && t.state == LegState::Skipped => {
                let forced = self.score(self.variant(c, &p.id, true)?, &cache, p);
                forced.legs.into_iter().find(|l| l.adapter == "kernel-time")
            }
            _ => None,
        };
        let mut pass = true;
        let mut expected = Vec::new();
        let mut got = Vec::new();
        for (key, adapter) in EXPECTED {
            let want = match key {
                "parse" => &c.expect.parse,
                "compile" => &c.expect.compile,
                "run" => &c.expect.run,
                _ => &c.expect.time,
            };
            let result = if adapter == "kernel-time" {
                forced_time.as_ref().or(leg(adapter))
            } else {
                leg(adapter)
            };
            let Some(r) = result else { continue };
            match want {
                Some(w) => {
                    expected.push(format!("{key} {}", w.text()));
                    got.push(format!("{key} {}", describe(r)));
                    pass &= w.matches(r);
                }
                // The case's source is the completion's code block: parse must be clean.
                None if key == "parse" && r.state != LegState::Clean => {
                    got.push(format!("{key} {}", describe(r)));
                    pass = false;
                }
                None => {}
            }
        }
        if let Some([lo, hi]) = c.expect.s {
            expected.push(format!("s {lo}-{hi}"));
            let s = forced_time
                .as_ref()
                .or(leg("kernel-time"))
                .and_then(|t| t.detail.as_ref())
                .and_then(|d| d.get("s"))
                .and_then(Value::as_f64);
            pass &= s.is_some_and(|s| (lo..=hi).contains(&s));
        }
        match &c.expect.reward {
            Some(RewardExpect::Range([lo, hi])) => {
                pass &= entry
                    .reward
                    .is_some_and(|r| (*lo - 1e-9..=*hi + 1e-9).contains(&r));
            }
            Some(RewardExpect::Word(_)) => pass &= entry.reward.is_none(),
            None => {}
        }
        Ok(CaseResult {
            id: p.id.clone(),
            expected: expected.join("; "),
            got: got.join("; "),
            reward: entry.reward,
            unscored: entry.reasons,
            legs: entry.legs,
            forced_time,
            pass,
            note: c.note.clone(),
            feedback: entry.feedback,
        })
    }
}

/// A case's variant of a profile: the case's `run:` and `time:` parameters over those of the
/// profile's `kernel-run` and `kernel-time` legs and, when `forced`, every timing leg's needs on a
/// correctness (`kernel-run`) leg replaced by what that leg needs itself, so the timing leg runs
/// whenever the correctness leg ran, whatever its verdict.
pub(crate) fn case_profile(base: &Profile, case: &Case, forced: bool) -> Profile {
    let mut profile = base.clone();
    let correctness: Vec<(String, Vec<String>)> = profile
        .legs
        .iter()
        .filter(|l| l.adapter == "kernel-run")
        .map(|l| (l.name.clone(), l.needs.clone()))
        .collect();
    for leg in &mut profile.legs {
        match leg.adapter.as_str() {
            "kernel-run" => leg.params = merge_params(&leg.params, &case.run),
            "kernel-time" => {
                leg.params = merge_params(&leg.params, &case.time);
                if forced {
                    let mut needs: Vec<String> = Vec::new();
                    for n in &leg.needs {
                        let up = match correctness.iter().find(|(name, _)| name == n) {
                            Some((_, up)) => up.clone(),
                            None => vec![n.clone()],
                        };
                        for u in up {
                            if !needs.contains(&u) {
                                needs.push(u);
                            }
                        }
                    }
                    leg.needs = needs;
                }
            }
            _ => {}
        }
    }
    profile
}

/// `state[ code][ s=…]`.
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

/// Merges `over` into `base` (both JSON objects; `null` is empty): keys of `over` win.
pub(crate) fn merge_params(base: &Value, over: &Value) -> Value {
    let mut out = match base {
        Value::Object(m) => m.clone(),
        _ => serde_json::Map::new(),
    };
    if let Value::Object(m) = over {
        for (k, v) in m {
            out.insert(k.clone(), v.clone());
        }
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merging_overrides_keys() {
        let m = merge_params(&json!({"ratio": 1.1, "pairs": 30}), &json!({"ratio": 1.0}));
        assert_eq!(m, json!({"ratio": 1.0, "pairs": 30}));
        assert_eq!(merge_params(&Value::Null, &json!({"a": 1})), json!({"a": 1}));
        assert_eq!(merge_params(&json!({"a": 1}), &Value::Null), json!({"a": 1}));
    }

    #[test]
    fn a_case_variant_overrides_parameters_and_forcing_unties_timing_from_correctness() {
        let base: Profile = serde_norway::from_str(
            "name: k\nreward-fn: rewardfn.speedup\nlegs:\n\
             - {name: parse, adapter: parse}\n\
             - {name: compile, adapter: kernel-compile, needs: [parse]}\n\
             - {name: ref.native, adapter: kernel-run, needs: [compile], params: {seeds: 3}}\n\
             - {name: ref.speedup, adapter: kernel-time, needs: [ref.native], timing: true, params: {ratio: 1.1, pairs: 30}}\n",
        )
        .unwrap();
        let case: Case = serde_norway::from_str(
            "task: t\ncase: c\nrun: {seeds: 2}\ntime: {ratio: 1.0}\nforce-time: true\nexpect: {}\n",
        )
        .unwrap();
        let plain = case_profile(&base, &case, false);
        assert_eq!(plain.legs[2].params, json!({"seeds": 2}));
        assert_eq!(plain.legs[3].params, json!({"ratio": 1.0, "pairs": 30}));
        assert_eq!(plain.legs[3].needs, vec!["ref.native"]);
        let forced = case_profile(&base, &case, true);
        assert_eq!(forced.legs[3].needs, vec!["compile"]);
        assert_eq!(forced.legs[..3], plain.legs[..3]);
        for p in [plain, forced] {
            LoadedProfile::check(
                p,
                Path::new("v.yaml"),
                &aorlta_core::adapters(),
                &RewardRegistry::builtin(),
            )
            .expect("a variant is a valid profile");
        }
    }

    #[test]
    fn the_parse_leg_extracts_exactly_the_source() {
        for src in [
            "__global__ void k(int n) {}\n",
            "__global__ void k(int n) {}",
            "// ```` a fence in a comment\n__global__ void k(int n) {}\n",
            "#include <hip/hip_runtime.h>\n__global__ void k(int n) {}\n",
        ] {
            for language in [KernelLanguage::Cuda, KernelLanguage::Hip] {
                let (completion, source) = completion_in(src, language);
                assert!(source.starts_with(src));
                assert!(completion.contains(&format!("`{}\n", language.as_str())));
                assert_eq!(aorlta_kernel::extract_kernel(&completion, "k"), Ok(source));
            }
        }
        assert_eq!(completion_for("x"), completion_in("x", KernelLanguage::Cuda));
        let py = "import triton\n\n@triton.jit\ndef k(x, n):\n    pass\n";
        let (completion, source) = completion_in(py, KernelLanguage::Triton);
        assert!(completion.contains("```triton\n"), "{completion}");
        assert_eq!(aorlta_kernel::extract_triton_kernel(&completion, "k"), Ok(source));
        assert_eq!(
            aorlta_kernel::extract_triton_kernel(&completion, "kk")
                .unwrap_err()
                .code,
            "kernel-not-found"
        );
    }
}
