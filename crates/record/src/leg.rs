//! One leg's outcome: its state, the reasons for it, and what it measured.

use serde::{Deserialize, Serialize};

/// A leg's outcome.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, PartialOrd, Ord)]
#[serde(rename_all = "lowercase")]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub enum LegState {
    /// The check passed.
    Clean,
    /// The candidate failed the check; the result is settled and is the candidate's fault.
    Broke,
    /// The check could not be decided (infrastructure, noise, budget, missing tool, or a task
    /// that cannot be judged). Never counts as clean; an entry that depends on it is unscored.
    Unsettled,
    /// The leg was not run because a leg it `needs` was not clean. Says which in its reason.
    Skipped,
}

impl LegState {
    /// The lowercase word used in records and summaries.
    pub fn as_str(self) -> &'static str {
        match self {
            LegState::Clean => "clean",
            LegState::Broke => "broke",
            LegState::Unsettled => "unsettled",
            LegState::Skipped => "skipped",
        }
    }
}

impl std::fmt::Display for LegState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a leg is not clean (or, informationally, why it is): a kebab-case code and a human detail.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Reason {
    /// Kebab-case code, stable across versions (`no-answer`, `compile-error`, `within-noise`).
    pub code: String,
    /// A sentence for a person; not stable, never parsed.
    pub detail: String,
}

impl Reason {
    /// A reason from a code and a detail.
    pub fn new(code: impl Into<String>, detail: impl Into<String>) -> Self {
        Reason {
            code: code.into(),
            detail: detail.into(),
        }
    }
}

/// One leg's result as reported in a reward entry and cached.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct LegResult {
    /// The leg's name in the profile (`parse`, `ref.normalised`, `ref.speedup`).
    pub name: String,
    /// The adapter that ran it (`parse`, `normalised-match`, `kernel-time`).
    pub adapter: String,
    /// The outcome.
    pub state: LegState,
    /// At least one for every state but `clean`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
    /// True when the profile marks this leg informational: reported, never rewarded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub informational: bool,
    /// What the leg extracted or measured (the parsed answer, a timing measurement record).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<serde_json::Value>,
    /// Seconds this leg took when it ran (0 when served from the cache or skipped).
    #[serde(default)]
    pub elapsed_s: f64,
    /// True when the result came from the cache.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
}

impl LegResult {
    /// A clean result.
    pub fn clean(name: &str, adapter: &str) -> Self {
        LegResult {
            name: name.to_string(),
            adapter: adapter.to_string(),
            state: LegState::Clean,
            reasons: Vec::new(),
            informational: false,
            detail: None,
            elapsed_s: 0.0,
            cached: false,
        }
    }

    /// A non-clean result with one reason.
    pub fn with_state(name: &str, adapter: &str, state: LegState, reason: Reason) -> Self {
        LegResult {
            state,
            reasons: vec![reason],
            ..LegResult::clean(name, adapter)
        }
    }

    /// The first reason's code, if any.
    pub fn first_code(&self) -> Option<&str> {
        self.reasons.first().map(|r| r.code.as_str())
    }
}
