//! An entry found in the store is served only when it is one this engine could have made for
//! the task and candidate it was looked up for: besides what the entry alone must keep
//! ([`StoredEntry::check`]: the reward contract, the stored form), it must be this task's and
//! this profile's, its legs the profile's legs in order with the gating the profile says, and
//! its parts exactly the ones the profile's reward function gives its legs and this
//! candidate's length. So a row edited to a reward the legs do not give, or holding another
//! task's entry, is a miss, whatever store it came from. The first part reads nothing but the
//! stored text and reward, so it is done once per distinct text ([`Checked`]).

use super::{Engine, Keyed, blocked_by};
use crate::reward::{RewardInput, RewardOutcome, apply};
use aorlta_record::{LegState, RewardEntry};
use aorlta_store::StoredEntry;
use std::collections::HashMap;
use std::sync::Arc;

/// Most entry texts [`Checked`] keeps before it starts over (a few KiB each with its parsed
/// entry, so at most a few MiB).
const CHECKED_MAX: usize = 2048;

/// Entry texts that passed [`StoredEntry::check`], with the entry parsed from each, by a hash of
/// the text and the reward column. That check reads nothing but the text and the reward, so a
/// row holding the very same bytes (compared whole, never by the hash alone) passes it again:
/// many candidates of a task end alike (the same answer read, the same verdict) and store the
/// same text, which is then parsed once and not once per row. A row that differs by a byte is
/// parsed and checked as any other, and every row still goes through the checks that depend on
/// its lookup (task, profile, legs, parts) and through the store's checksum.
#[derive(Default)]
pub(super) struct Checked {
    by_hash: HashMap<u64, Seen>,
}

/// A text that passed, its reward column's bits, and the entry parsed from it.
type Seen = (Arc<str>, Option<u64>, Arc<RewardEntry>);

impl Checked {
    /// The hash a text and reward column are kept under.
    fn key(text: &str, reward: Option<u64>) -> u64 {
        xxhash_rust::xxh3::xxh3_64_with_seed(text.as_bytes(), reward.unwrap_or(u64::MAX))
    }

    /// The entry kept for exactly this text and reward column.
    fn get(&self, key: u64, text: &str, reward: Option<u64>) -> Option<Arc<RewardEntry>> {
        self.by_hash
            .get(&key)
            .filter(|(t, r, _)| **t == *text && *r == reward)
            .map(|(_, _, e)| Arc::clone(e))
    }

    fn insert(&mut self, key: u64, text: &str, reward: Option<u64>, entry: Arc<RewardEntry>) {
        if self.by_hash.len() >= CHECKED_MAX {
            self.by_hash.clear();
        }
        self.by_hash.insert(key, (text.into(), reward, entry));
    }
}

impl Engine {
    /// The entry of `found` when it passes [`StoredEntry::check`] (remembered per text).
    fn checked_alone(&self, found: &StoredEntry) -> Result<Arc<RewardEntry>, String> {
        let (text, reward) = (found.json(), found.reward().map(f64::to_bits));
        let key = Checked::key(text, reward);
        let hit = self
            .checked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(key, text, reward);
        if let Some(e) = hit {
            return Ok(e);
        }
        let e = Arc::new(found.check()?);
        self.checked
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .insert(key, text, reward, Arc::clone(&e));
        Ok(e)
    }

    /// The entry found for `k`, parsed (in its stored form), when it is fit to serve; `Err`
    /// says why not.
    pub(super) fn vet(&self, k: &Keyed<'_>, found: &StoredEntry) -> Result<Arc<RewardEntry>, String> {
        let e = self.checked_alone(found)?;
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
            RewardOutcome::Scored(p) if Some(p) == e.parts => Ok(Arc::clone(&e)),
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
