//! The validation suite's file (`examples/kernels/validation.yaml`): the tasks, the candidates'
//! folder, the profile the cases run under, the `kernel:` settings, and the cases with what
//! each expects. Unknown keys are an error naming the file, line and key.

use aorlta_kernel::FakeSpec;
use aorlta_kernel::KernelConfig;
use aorlta_record::LegResult;
use serde::Deserialize;
use serde_json::Value;
use std::path::PathBuf;

/// The suite file.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Suite {
    /// The task files' folder, relative to the suite file.
    pub tasks: PathBuf,
    /// The candidates' folder (`<candidates>/<task>/<case>.<ext>`, `<ext>` the task language's:
    /// `cu` for CUDA, `hip` for HIP), relative to the suite file.
    pub candidates: PathBuf,
    /// The profile whose legs, gating, parameters and reward function the cases run under.
    pub profile: PathBuf,
    /// The `kernel:` settings for a validation run (limits, GPUs).
    #[serde(default)]
    pub kernel: KernelConfig,
    /// The cases, in order.
    pub cases: Vec<Case>,
}

/// One case: one candidate file of one task, with parameters over the profile's and what must
/// come out.
#[derive(Debug, Clone, Deserialize)]
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
    /// Parameters of the profile's `kernel-run` legs, over the profile's.
    #[serde(default)]
    pub run: Value,
    /// Parameters of the profile's `kernel-time` legs, over the profile's.
    #[serde(default)]
    pub time: Value,
    /// Also time the candidate when the correctness leg was not clean (to show the timing plan's
    /// own protection): the timing leg then runs on a variant of the profile whose timing leg
    /// does not need the correctness leg; the reward still comes from the profile itself.
    #[serde(default)]
    pub force_time: bool,
    /// What the legs and the reward must come out as.
    pub expect: Expect,
    /// How the candidate behaves on the fake device.
    #[serde(default)]
    pub fake: FakeSpec,
    /// The candidate is what its note says on the fake device alone (a `fake: {speed: …}` that
    /// its code does not earn on a GPU): on a real device the case is not run, and the run says
    /// so.
    #[serde(default)]
    pub fake_only: bool,
}

impl Case {
    /// `task/case[@label]`.
    pub fn id(&self) -> String {
        match &self.label {
            Some(l) => format!("{}/{}@{l}", self.task, self.case),
            None => format!("{}/{}", self.task, self.case),
        }
    }
}

/// One expected outcome or several acceptable ones: `clean`, `broke <code>`,
/// `unsettled <code>`, `skipped` (a state alone accepts any code).
#[derive(Debug, Clone, PartialEq, Deserialize)]
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

    /// Whether a leg's result is one of the outcomes.
    pub fn matches(&self, r: &LegResult) -> bool {
        self.options().iter().any(|o| {
            let mut w = o.split_whitespace();
            let state = w.next().unwrap_or("");
            let code = w.next();
            state == r.state.as_str() && code.is_none_or(|c| r.first_code() == Some(c))
        })
    }

    /// The outcomes as text (`broke compile-timeout | broke compile-memory`).
    pub fn text(&self) -> String {
        self.options().join(" | ")
    }
}

/// The reward a case expects.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum RewardExpect {
    /// A scored reward in `[lo, hi]`.
    Range([f64; 2]),
    /// `unscored`.
    Word(String),
}

/// What a case expects, per kind of leg (the profile's legs of that adapter) and of the reward.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Expect {
    /// The `parse` leg; when absent it must be clean (the case's source is the completion's
    /// code block).
    pub parse: Option<OneOf>,
    /// The `kernel-compile` leg.
    pub compile: Option<OneOf>,
    /// The `kernel-run` (correctness) leg.
    pub run: Option<OneOf>,
    /// The `kernel-time` (timing) leg.
    pub time: Option<OneOf>,
    /// The speedup `s`, in `[lo, hi]`.
    pub s: Option<[f64; 2]>,
    /// The reward.
    pub reward: Option<RewardExpect>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::{LegState, Reason};

    #[test]
    fn one_of_matches_a_state_with_or_without_its_code() {
        let broke = LegResult::with_state("t", "a", LegState::Broke, Reason::new("not-faster", "d"));
        assert!(OneOf::One("broke".into()).matches(&broke));
        assert!(OneOf::One("broke not-faster".into()).matches(&broke));
        assert!(!OneOf::One("broke faster".into()).matches(&broke));
        let any = OneOf::Any(vec!["clean".into(), "broke not-faster".into()]);
        assert!(any.matches(&broke));
        assert_eq!(any.text(), "clean | broke not-faster");
    }

    #[test]
    fn a_case_reads_with_its_expectations_and_rejects_unknown_keys() {
        let c: Case = serde_norway::from_str(
            "task: t\ncase: c\nlabel: l\ntime: {ratio: 1.0}\nexpect: {run: clean, reward: unscored}\n",
        )
        .unwrap();
        assert_eq!(c.id(), "t/c@l");
        assert_eq!(c.expect.reward, Some(RewardExpect::Word("unscored".into())));
        assert!(serde_norway::from_str::<Case>("task: t\ncase: c\nexpect: {runs: clean}\n").is_err());
    }
}
