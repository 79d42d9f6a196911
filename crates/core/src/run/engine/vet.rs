//! An entry found in the store is served only when it is one this engine could have made for
//! the task and candidate it was looked up for: besides what the entry alone must keep
//! ([`StoredEntry::check`]: the reward contract, the stored form), it must be this task's and
//! this profile's, its legs the profile's legs in order with the gating the profile says, and
//! its parts exactly the ones the profile's reward function gives its legs and this
//! candidate's length. So a row edited to a reward the legs do not give, or holding another
//! task's entry, is a miss, whatever store it came from.

use super::{Engine, Keyed, blocked_by};
use crate::reward::{RewardInput, RewardOutcome, apply};
use aorlta_record::{LegState, RewardEntry};
use aorlta_store::StoredEntry;

impl Engine {
    /// The entry found for `k`, parsed (in its stored form), when it is fit to serve; `Err`
    /// says why not.
    pub(super) fn vet(&self, k: &Keyed<'_>, found: &StoredEntry) -> Result<RewardEntry, String> {
        let e = found.check()?;
        let profile = &self.profile.profile;
        if e.task != k.task.id {
            return Err(format!(
                "it is an entry of task `{}`, not `{}`",
                e.task, k.task.id
            ));
        }
        if e.profile != profile.name || e.version.profile != self.profile.hash {
            return Err(format!(
                "it is an entry of profile `{}` ({}), not `{}` ({})",
                e.profile, e.version.profile, profile.name, self.profile.hash
            ));
        }
        if e.legs.len() != profile.legs.len() {
            return Err(format!(
                "it has {} legs, the profile {}",
                e.legs.len(),
                profile.legs.len()
            ));
        }
        for (i, (spec, leg)) in profile.legs.iter().zip(&e.legs).enumerate() {
            if leg.name != spec.name || leg.adapter != spec.adapter || leg.informational != spec.informational
            {
                return Err(format!(
                    "its leg {} is `{}` ({}), not the profile's `{}` ({})",
                    i + 1,
                    leg.name,
                    leg.adapter,
                    spec.name,
                    spec.adapter
                ));
            }
            let blocked = blocked_by(spec, &e.legs[..i]).is_some();
            if blocked != (leg.state == LegState::Skipped) {
                return Err(format!(
                    "leg `{}` is {} though a leg it needs {}",
                    leg.name,
                    leg.state,
                    if blocked { "is not clean" } else { "is clean" }
                ));
            }
        }
        let reward_fn = self
            .parts
            .rewards
            .get(&profile.reward_fn)
            .expect("profile checked against reward registry");
        if e.reward_fn != reward_fn.name() {
            return Err(format!(
                "its reward function is `{}`, not `{}`",
                e.reward_fn,
                reward_fn.name()
            ));
        }
        let input = RewardInput {
            profile,
            legs: &e.legs,
            completion_len: k.cand.completion.len(),
        };
        match apply(reward_fn.as_ref(), &input) {
            RewardOutcome::Scored(p) if Some(p) == e.parts => Ok(e),
            RewardOutcome::Scored(p) => Err(format!(
                "its parts {:?} are not the ones its legs give: base {}, broke_healthy {}, length {}",
                e.parts, p.base, p.broke_healthy, p.length
            )),
            RewardOutcome::Unscored(r) => Err(format!(
                "its legs give no reward ({})",
                r.first().map_or("", |r| r.code.as_str())
            )),
        }
    }
}
