//! Reward functions and the contract every one of them keeps (docs/REWARDS.md):
//! - a scored reward is `base + broke_healthy + length`, with `base` in [-1, 1],
//!   `broke_healthy` in [-0.5, 0], `length` in [-0.05, 0], so the sum is in [-1.55, 1.0];
//! - an unsettled leg the reward depends on makes the entry unscored (`reward: null`), never 0.
//!
//! [`apply`] enforces both around any registered function: an out-of-range result or a scored
//! result over an unsettled rewarded leg becomes unscored with reason `reward-contract-violated`;
//! [`aorlta_record::check_entry`] reads the contract off a finished entry (one found in a store).

pub(crate) mod base;
pub(crate) mod feedback;
pub(crate) mod speedup;

use base::BaseReward;
use speedup::SpeedupReward;

use crate::profile::Profile;
use crate::reason::EngineReason;
use aorlta_record::parts_in_range;
use aorlta_record::{LegResult, LegState, Parts, Reason};
use std::collections::BTreeMap;
use std::sync::Arc;

/// What a reward function sees.
pub struct RewardInput<'a> {
    /// The profile (legs, ladder, length limits).
    pub profile: &'a Profile,
    /// Every leg's result, in profile order.
    pub legs: &'a [LegResult],
    /// The completion's length in bytes.
    pub completion_len: usize,
}

/// A reward function's answer.
#[derive(Debug, Clone, PartialEq)]
pub enum RewardOutcome {
    /// A reward made of three parts.
    Scored(Parts),
    /// No reward: why.
    Unscored(Vec<Reason>),
}

/// A named reward function.
pub trait RewardFn: Send + Sync {
    /// The registered name (`rewardfn.base`).
    fn name(&self) -> &'static str;
    /// Checks that a profile gives this function what it needs.
    fn check_profile(&self, _profile: &Profile) -> Result<(), String> {
        Ok(())
    }
    /// The lowest `base` this function gives a candidate that broke nothing (every rewarded
    /// correctness leg clean, and a timing leg's verdict about speed alone), with what that
    /// floor is, for messages. The profile loader refuses an `on-broke` rung at or above it, so
    /// that no broken candidate ranks with or above a correct one. The default is the profile's
    /// `clean-base`.
    fn correct_floor(&self, profile: &Profile) -> (f64, &'static str) {
        (profile.clean_base, "`clean-base`")
    }
    /// The reward for one candidate's legs.
    fn reward(&self, input: &RewardInput<'_>) -> RewardOutcome;
}

/// Reward functions by name.
#[derive(Clone, Default)]
pub struct RewardRegistry {
    fns: BTreeMap<&'static str, Arc<dyn RewardFn>>,
}

impl crate::profile::RewardCheck for RewardRegistry {
    fn names(&self) -> Vec<&'static str> {
        RewardRegistry::names(self)
    }

    fn check(&self, name: &str, profile: &Profile) -> Option<Result<(f64, &'static str), String>> {
        let f = self.get(name)?;
        Some(f.check_profile(profile).map(|()| f.correct_floor(profile)))
    }
}

impl RewardRegistry {
    /// `rewardfn.base` and `rewardfn.speedup`.
    pub fn builtin() -> Self {
        let mut r = RewardRegistry::default();
        r.add(Arc::new(BaseReward));
        r.add(Arc::new(SpeedupReward));
        r
    }

    /// Adds (or replaces) a function.
    pub fn add(&mut self, f: Arc<dyn RewardFn>) {
        self.fns.insert(f.name(), f);
    }

    /// A function by name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn RewardFn>> {
        self.fns.get(name)
    }

    /// The names, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        self.fns.keys().copied().collect()
    }

    /// Every registered function.
    pub fn all(&self) -> impl Iterator<Item = &Arc<dyn RewardFn>> {
        self.fns.values()
    }
}

/// Runs a reward function under the contract: `(reward, parts)` when scored, the reasons when not.
pub fn apply(f: &dyn RewardFn, input: &RewardInput<'_>) -> RewardOutcome {
    let unsettled = unsettled_rewarded(input);
    match f.reward(input) {
        RewardOutcome::Scored(_) if !unsettled.is_empty() => RewardOutcome::Unscored(vec![Reason::new(
            EngineReason::RewardContractViolated.as_str(),
            format!(
                "{} scored an entry whose leg(s) {} are unsettled",
                f.name(),
                unsettled.join(", ")
            ),
        )]),
        RewardOutcome::Scored(p) if !parts_in_range(&p) => RewardOutcome::Unscored(vec![Reason::new(
            EngineReason::RewardContractViolated.as_str(),
            format!(
                "{} returned parts out of range: base {}, broke_healthy {}, length {}",
                f.name(),
                p.base,
                p.broke_healthy,
                p.length
            ),
        )]),
        RewardOutcome::Unscored(r) if r.is_empty() => RewardOutcome::Unscored(vec![Reason::new(
            EngineReason::Unscored.as_str(),
            format!("{} left the entry unscored without a reason", f.name()),
        )]),
        other => other,
    }
}

/// Names of rewarded (non-informational) legs that are unsettled.
pub(crate) fn unsettled_rewarded(input: &RewardInput<'_>) -> Vec<String> {
    rewarded_legs(input)
        .filter(|(_, r)| r.state == LegState::Unsettled)
        .map(|(s, _)| s.name.clone())
        .collect()
}

/// The profile's non-informational legs with their results.
pub(crate) fn rewarded_legs<'a>(
    input: &'a RewardInput<'_>,
) -> impl Iterator<Item = (&'a crate::profile::LegSpec, &'a LegResult)> {
    input
        .profile
        .legs
        .iter()
        .zip(input.legs.iter())
        .filter(|(s, _)| !s.informational)
}

/// Penalty per reason code for breaking something healthy (summed, floored at -0.5).
pub const BROKE_HEALTHY: &[(&str, f64)] = &[
    ("guard-overwritten", -0.25),
    ("input-mutated", -0.25),
    ("device-faulted", -0.25),
    ("hung", -0.25),
];

/// The `broke_healthy` part: the penalties of every broke rewarded leg's reasons, at least -0.5.
pub fn broke_healthy(input: &RewardInput<'_>) -> f64 {
    let mut codes: Vec<&str> = rewarded_legs(input)
        .filter(|(_, r)| r.state == LegState::Broke)
        .flat_map(|(_, r)| r.reasons.iter().map(|x| x.code.as_str()))
        .collect();
    codes.sort_unstable();
    codes.dedup();
    let total: f64 = codes
        .iter()
        .filter_map(|c| BROKE_HEALTHY.iter().find(|(k, _)| k == c).map(|(_, v)| *v))
        .sum();
    (total + 0.0).max(-0.5)
}

/// The `length` part: 0 up to the soft limit, linear to -0.05 at the hard limit.
pub fn length_penalty(profile: &Profile, len: usize) -> f64 {
    let Some(l) = profile.length else { return 0.0 };
    if len <= l.soft {
        return 0.0;
    }
    if l.hard <= l.soft || len >= l.hard {
        return -0.05;
    }
    -0.05 * (len - l.soft) as f64 / (l.hard - l.soft) as f64
}

#[cfg(test)]
mod contract_tests;
