//! `rewardfn.speedup` (docs/REWARDS.md): a candidate whose correctness legs are all clean is graded by
//! its timing leg, whose `detail` carries the judge's `s` (speedup) and `ratio`:
//! - `faster` (clean): `0.75 + 0.25 * min(1, log2(s / ratio))`;
//! - `not-faster` (broke): `0.49 * min(1, s / ratio)`, always below 0.5;
//! - `too-slow-to-measure` and `candidate-noisy` (broke): 0.0;
//! - any other broke reason (a timed launch that computed the wrong thing): the timing leg's
//!   `on-broke` rung (default -0.5): speed never rescues a wrong kernel;
//! - unsettled timing: unscored.
//!
//! A correctness failure keeps its negative base from the ladder: the profile loader refuses an
//! `on-broke` rung (the timing leg's included) that is not below 0.0, the lowest grade of a
//! correct kernel.

use super::base::ladder;
use super::{RewardFn, RewardInput, RewardOutcome, broke_healthy, length_penalty};
use crate::profile::Profile;
use crate::reason::EngineReason;
use aorlta_record::{LegResult, LegState, Parts, Reason};

use crate::profile::DEFAULT_TIMING_ON_BROKE;

/// `rewardfn.speedup`.
pub struct SpeedupReward;

/// `0.75 + 0.25 * min(1, log2(s / ratio))`, for a `faster` verdict.
pub(crate) fn faster_grade(s: f64, ratio: f64) -> f64 {
    0.75 + 0.25 * (s / ratio).log2().clamp(0.0, 1.0)
}

/// `0.49 * min(1, s / ratio)`, for a `not-faster` verdict.
pub(crate) fn not_faster_grade(s: f64, ratio: f64) -> f64 {
    0.49 * (s / ratio).clamp(0.0, 1.0)
}

fn speed_and_ratio(leg: &LegResult) -> Option<(f64, f64)> {
    let d = leg.detail.as_ref()?;
    let s = d.get("s")?.as_f64()?;
    let ratio = d.get("ratio")?.as_f64()?;
    (s.is_finite() && s > 0.0 && ratio.is_finite() && ratio > 0.0).then_some((s, ratio))
}

fn timing_base(spec_on_broke: Option<f64>, leg: &LegResult) -> Result<f64, Vec<Reason>> {
    let missing = || {
        vec![Reason::new(
            EngineReason::NoMeasurement.as_str(),
            format!("timing leg `{}` carries no speedup and ratio", leg.name),
        )]
    };
    match leg.state {
        LegState::Clean => speed_and_ratio(leg)
            .map(|(s, r)| faster_grade(s, r))
            .ok_or_else(missing),
        LegState::Broke => match leg.first_code() {
            Some("not-faster") => speed_and_ratio(leg)
                .map(|(s, r)| not_faster_grade(s, r))
                .ok_or_else(missing),
            Some("too-slow-to-measure") | Some("candidate-noisy") => Ok(0.0),
            _ => Ok(spec_on_broke.unwrap_or(DEFAULT_TIMING_ON_BROKE)),
        },
        LegState::Unsettled => Err(leg
            .reasons
            .iter()
            .map(|r| Reason::new(r.code.clone(), format!("leg `{}`: {}", leg.name, r.detail)))
            .collect()),
        LegState::Skipped => Err(vec![Reason::new(
            EngineReason::TimingSkipped.as_str(),
            format!(
                "timing leg `{}` was skipped though every correctness leg is clean",
                leg.name
            ),
        )]),
    }
}

impl RewardFn for SpeedupReward {
    fn name(&self) -> &'static str {
        "rewardfn.speedup"
    }

    fn check_profile(&self, profile: &Profile) -> Result<(), String> {
        match profile.legs.iter().filter(|l| l.timing).count() {
            1 => Ok(()),
            _ => Err("rewardfn.speedup needs exactly one leg with `timing: true`".into()),
        }
    }

    /// A correct kernel too slow to measure, or too noisy, gets 0.0, the lowest grade of a correct
    /// one (`clean-base` is not used).
    fn correct_floor(&self, _profile: &Profile) -> (f64, &'static str) {
        (
            0.0,
            "the grade rewardfn.speedup gives a correct kernel too slow to measure",
        )
    }

    fn reward(&self, input: &RewardInput<'_>) -> RewardOutcome {
        let rung = match ladder(input) {
            Ok(r) => r,
            Err(r) => return RewardOutcome::Unscored(r),
        };
        let base = if let Some(rung) = rung {
            rung
        } else {
            let timing = input.profile.legs.iter().zip(input.legs).find(|(s, _)| s.timing);
            let Some((spec, leg)) = timing else {
                return RewardOutcome::Unscored(vec![Reason::new(
                    EngineReason::NoTimingLeg.as_str(),
                    "rewardfn.speedup needs a leg with `timing: true`",
                )]);
            };
            match timing_base(spec.on_broke, leg) {
                Ok(b) => b,
                Err(r) => return RewardOutcome::Unscored(r),
            }
        };
        RewardOutcome::Scored(Parts {
            base,
            broke_healthy: broke_healthy(input),
            length: length_penalty(input.profile, input.completion_len),
        })
    }
}
