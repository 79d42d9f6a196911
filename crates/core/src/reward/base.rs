//! `rewardfn.base`: the correctness ladder. The first rewarded leg (in profile order) that broke,
//! or was skipped, sets `base` to its `on-broke` rung (default -1.0); when every rewarded
//! correctness leg is clean, `base` is the profile's `clean-base`. A profile with a timing leg is
//! refused (`rewardfn.speedup` grades timing), and so is a rung at or above `clean-base` (it would
//! rank a broken candidate with or above a correct one).

use super::{RewardFn, RewardInput, RewardOutcome, broke_healthy, length_penalty, rewarded_legs};
use aorlta_record::{LegState, Parts, Reason};

use crate::profile::DEFAULT_ON_BROKE;

/// `rewardfn.base`.
pub struct BaseReward;

/// The ladder over the rewarded legs: `Err` with the unsettled legs' reasons when any rewarded
/// leg (timing legs included) is unsettled; else `Ok(Some(rung))` for the first non-timing leg
/// that broke or was skipped, `Ok(None)` when all of those are clean.
pub fn ladder(input: &RewardInput<'_>) -> Result<Option<f64>, Vec<Reason>> {
    let mut reasons = Vec::new();
    let mut base: Option<f64> = None;
    for (spec, result) in rewarded_legs(input) {
        match result.state {
            LegState::Unsettled => reasons.extend(
                result
                    .reasons
                    .iter()
                    .map(|r| Reason::new(r.code.clone(), format!("leg `{}`: {}", spec.name, r.detail))),
            ),
            LegState::Broke | LegState::Skipped if base.is_none() && !spec.timing => {
                base = Some(spec.on_broke.unwrap_or(DEFAULT_ON_BROKE));
            }
            _ => {}
        }
    }
    if !reasons.is_empty() {
        return Err(reasons);
    }
    Ok(base)
}

impl RewardFn for BaseReward {
    fn name(&self) -> &'static str {
        "rewardfn.base"
    }

    fn check_profile(&self, profile: &crate::profile::Profile) -> Result<(), String> {
        match profile.legs.iter().find(|l| l.timing) {
            Some(l) => Err(format!(
                "leg `{}` is a timing leg, which rewardfn.base does not grade: use rewardfn.speedup, \
                 or mark the leg `informational: true`",
                l.name
            )),
            None => Ok(()),
        }
    }

    fn reward(&self, input: &RewardInput<'_>) -> RewardOutcome {
        match ladder(input) {
            Ok(rung) => RewardOutcome::Scored(Parts {
                base: rung.unwrap_or(input.profile.clean_base),
                broke_healthy: broke_healthy(input),
                length: length_penalty(input.profile, input.completion_len),
            }),
            Err(reasons) => RewardOutcome::Unscored(reasons),
        }
    }
}
