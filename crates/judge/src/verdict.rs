//! The judge's verdicts, their stable kebab-case codes, and the leg state each one means.

use aorlta_record::LegState;
use serde::{Deserialize, Serialize};

/// What the judge decided about a candidate's speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Faster than the reference by the ratio: the speedup and the lower end of its bootstrap
    /// interval both clear `ratio * (1 + floor)` (clean).
    Faster,
    /// Not faster by the ratio, past the noise floor and the interval the other way (broke).
    NotFaster,
    /// The candidate could not finish `min-samples` launches in the budget, and even its best
    /// possible speed is below the ratio (broke).
    TooSlowToMeasure,
    /// Fewer valid pairs than `min-samples` (unsettled).
    TooFew,
    /// A time that is not finite and positive, a clock throttle, or unusable parameters or facts
    /// (unsettled).
    Invalid,
    /// The reference's relative MAD is over `max-noise`: the machine or the reference is noisy
    /// (unsettled).
    Noisy,
    /// Only the candidate's relative MAD is over `max-noise`: its noise is its own (broke).
    CandidateNoisy,
    /// Neither faster nor not-faster could be shown (unsettled).
    WithinNoise,
}

impl Verdict {
    /// Every verdict, in rule order.
    pub const ALL: [Verdict; 8] = [
        Verdict::TooSlowToMeasure,
        Verdict::TooFew,
        Verdict::Invalid,
        Verdict::Noisy,
        Verdict::CandidateNoisy,
        Verdict::Faster,
        Verdict::NotFaster,
        Verdict::WithinNoise,
    ];

    /// The stable kebab-case code, also the leg's reason code.
    pub fn code(&self) -> &'static str {
        match self {
            Verdict::Faster => "faster",
            Verdict::NotFaster => "not-faster",
            Verdict::TooSlowToMeasure => "too-slow-to-measure",
            Verdict::TooFew => "too-few",
            Verdict::Invalid => "invalid",
            Verdict::Noisy => "noisy",
            Verdict::CandidateNoisy => "candidate-noisy",
            Verdict::WithinNoise => "within-noise",
        }
    }

    /// The leg state: `faster` is clean; `not-faster`, `too-slow-to-measure` and
    /// `candidate-noisy` are broke (settled, the candidate's doing); the rest are unsettled.
    pub fn state(&self) -> LegState {
        match self {
            Verdict::Faster => LegState::Clean,
            Verdict::NotFaster | Verdict::TooSlowToMeasure | Verdict::CandidateNoisy => LegState::Broke,
            Verdict::TooFew | Verdict::Invalid | Verdict::Noisy | Verdict::WithinNoise => LegState::Unsettled,
        }
    }

    /// The verdict with this code, if any.
    pub fn from_code(code: &str) -> Option<Verdict> {
        Verdict::ALL.into_iter().find(|v| v.code() == code)
    }
}

impl std::fmt::Display for Verdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.code())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_states_and_serde_agree() {
        let expected = [
            (Verdict::Faster, "faster", LegState::Clean),
            (Verdict::NotFaster, "not-faster", LegState::Broke),
            (Verdict::TooSlowToMeasure, "too-slow-to-measure", LegState::Broke),
            (Verdict::TooFew, "too-few", LegState::Unsettled),
            (Verdict::Invalid, "invalid", LegState::Unsettled),
            (Verdict::Noisy, "noisy", LegState::Unsettled),
            (Verdict::CandidateNoisy, "candidate-noisy", LegState::Broke),
            (Verdict::WithinNoise, "within-noise", LegState::Unsettled),
        ];
        assert_eq!(expected.len(), Verdict::ALL.len());
        for (v, code, state) in expected {
            assert_eq!(v.code(), code);
            assert_eq!(v.to_string(), code);
            assert_eq!(v.state(), state, "{code}");
            assert_eq!(
                serde_json::to_value(v).expect("serializes"),
                serde_json::json!(code)
            );
            assert_eq!(
                serde_json::from_value::<Verdict>(serde_json::json!(code)).expect("parses"),
                v
            );
            assert_eq!(Verdict::from_code(code), Some(v));
        }
        assert_eq!(Verdict::from_code("fast"), None);
    }
}
