//! The reward entry: the answer for one candidate.

use crate::leg::{LegResult, Reason};
use crate::version::{FORMAT_VERSION, FormatVersion};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The three parts whose sum is a scored reward.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct Parts {
    /// From the profile's correctness ladder (and the timing grade), in [-1.0, 1.0].
    pub base: f64,
    /// Penalty for breaking something healthy (guard bands, inputs, device state), in [-0.5, 0].
    pub broke_healthy: f64,
    /// Penalty for a completion past the profile's soft length limit, in [-0.05, 0].
    pub length: f64,
}

impl Parts {
    /// `base + broke_healthy + length`.
    pub fn sum(&self) -> f64 {
        self.base + self.broke_healthy + self.length
    }
}

/// What a cached result is keyed by besides the task and candidate (docs/ARCHITECTURE.md, "Cache identity").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct VersionIdentity {
    /// The AORLTA build (`aorlta <version>`).
    pub aorlta: String,
    /// blake3 hash of the profile's canonical form.
    pub profile: String,
    /// Per leg: the hash of that leg's version identity (adapter version, compiler, reference,
    /// judge, host fingerprint as applicable).
    #[serde(default)]
    pub legs: BTreeMap<String, String>,
}

/// The answer for one candidate.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct RewardEntry {
    /// The record format this entry follows.
    #[serde(default)]
    pub format: FormatVersion,
    /// The candidate's id (from the pool, or `<task>#<line>` when the pool gave none).
    pub id: String,
    /// The task id.
    pub task: String,
    /// The reward, in [-1.55, 1.0]; `null` when unscored.
    pub reward: Option<f64>,
    /// False when a leg the reward depends on is unsettled (or the item could not be judged).
    pub scored: bool,
    /// The parts of a scored reward; `null` when unscored.
    pub parts: Option<Parts>,
    /// Why the entry is unscored (empty when scored).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<Reason>,
    /// Every leg in profile order, skipped ones included.
    pub legs: Vec<LegResult>,
    /// The profile's name.
    pub profile: String,
    /// The reward function that produced `reward`.
    pub reward_fn: String,
    /// What the result is keyed by.
    pub version: VersionIdentity,
    /// Seconds spent on this entry (legs run now, not cached ones).
    #[serde(default)]
    pub elapsed_s: f64,
    /// Text for the model: what was read, which size and input broke it and how, the timing
    /// and what it achieved, from the profile's template within its budget of characters
    /// (docs/REWARDS.md, "Feedback"). Never a seed, never more of the inputs than the first
    /// mismatch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub feedback: Option<String>,
}

impl RewardEntry {
    /// An entry for an item that could not be judged at all (unknown task, over-long input):
    /// unscored, no legs, with the reason.
    pub fn error(id: &str, task: &str, profile: &str, reason: Reason) -> Self {
        RewardEntry {
            format: FORMAT_VERSION,
            id: id.to_string(),
            task: task.to_string(),
            reward: None,
            scored: false,
            parts: None,
            reasons: vec![reason.clone()],
            legs: Vec::new(),
            profile: profile.to_string(),
            reward_fn: String::new(),
            version: VersionIdentity::default(),
            elapsed_s: 0.0,
            feedback: Some(format!("Not judged: {}.", reason.detail.trim_end_matches('.'))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::leg::LegState;

    /// A scored entry with a clean and a broke leg, and an unscored error entry: the reward
    /// entry format as a trainer reads it.
    #[test]
    fn the_entry_format_is_stable_and_round_trips() {
        let mut broke = LegResult::with_state(
            "ref.normalised",
            "normalised-match",
            LegState::Broke,
            Reason::new("mismatch", "42 is not 41"),
        );
        broke.detail = Some(serde_json::json!({"answer": "42"}));
        broke.elapsed_s = 0.001;
        let entry = RewardEntry {
            format: crate::version::FORMAT_VERSION,
            id: "c7".into(),
            task: "t3".into(),
            reward: Some(-0.5),
            scored: true,
            parts: Some(Parts {
                base: -0.5,
                broke_healthy: 0.0,
                length: 0.0,
            }),
            reasons: vec![],
            legs: vec![LegResult::clean("parse", "parse"), broke],
            profile: "qa".into(),
            reward_fn: "rewardfn.base".into(),
            version: VersionIdentity {
                aorlta: "aorlta 0.1.0+src.0123456789abcdef".into(),
                profile: "p-hash".into(),
                legs: [("parse".to_string(), "l-hash".to_string())].into(),
            },
            elapsed_s: 0.002,
            feedback: None,
        };
        insta::assert_json_snapshot!("scored_entry", entry);
        let back: RewardEntry = serde_json::from_value(serde_json::to_value(&entry).unwrap()).unwrap();
        assert_eq!(back, entry);
        let error = RewardEntry::error("c8", "nope", "qa", Reason::new("unknown-task", "no task `nope`"));
        insta::assert_json_snapshot!("error_entry", error);
    }
}
