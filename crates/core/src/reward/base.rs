//! `rewardfn.base`: the correctness ladder. The first rewarded leg (in profile order) that broke,
//! or was skipped, sets `base` to its `on-broke` rung (default -1.0); when every rewarded
//! correctness leg is clean, `base` is the profile's `clean-base`. Timing legs are not read.

use super::{RewardFn, RewardInput, RewardOutcome, broke_healthy, length_penalty, rewarded_legs};
use aorlta_record::{LegState, Parts, Reason};

/// Rung used when a broke leg names none.
pub const DEFAULT_ON_BROKE: f64 = -1.0;

/// `rewardfn.base`.
pub struct BaseReward;

/// The ladder over the rewarded legs, ignoring timing legs: `Ok(Some(rung))` for the first leg
/// that broke or was skipped, `Ok(None)` when all are clean, `Err` with the unsettled legs'
/// reasons when one of them is unsettled.
pub fn ladder(input: &RewardInput<'_>) -> Result<Option<f64>, Vec<Reason>> {
    let mut reasons = Vec::new();
    let mut base: Option<f64> = None;
    for (spec, result) in rewarded_legs(input).filter(|(s, _)| !s.timing) {
        match result.state {
            LegState::Unsettled => reasons.extend(
                result
                    .reasons
                    .iter()
                    .map(|r| Reason::new(r.code.clone(), format!("leg `{}`: {}", spec.name, r.detail))),
            ),
            LegState::Broke | LegState::Skipped if base.is_none() => {
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
