//! What the harness hands the judge: interleaved pairs of per-launch times and the facts of the run
//! that the times alone cannot show (a clock throttle, a candidate too slow to finish).

use serde::{Deserialize, Serialize};

/// One interleaved pair of per-launch times, in seconds: a candidate launch and a reference launch
/// taken back to back (in a seeded random order) on one GPU.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pair {
    /// The candidate's launch time in seconds.
    pub candidate: f64,
    /// The reference's launch time in seconds.
    pub reference: f64,
}

impl Pair {
    /// A pair from a candidate time and a reference time, in seconds.
    pub fn new(candidate: f64, reference: f64) -> Self {
        Pair { candidate, reference }
    }

    /// True when both times are finite and positive: the only times the statistics may use.
    pub fn is_valid(&self) -> bool {
        is_valid_time(self.candidate) && is_valid_time(self.reference)
    }
}

/// True for a finite, strictly positive time.
pub fn is_valid_time(t: f64) -> bool {
    t.is_finite() && t > 0.0
}

/// Facts of the timing run, set by the harness.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RunFacts {
    /// A clock throttle was seen during the run (where the driver reports clocks).
    #[serde(default)]
    pub throttled: bool,
    /// Set when the candidate could not finish `min-samples` launches inside the budget.
    #[serde(default)]
    pub too_slow: Option<TooSlow>,
}

/// Evidence that the candidate is too slow to measure inside the budget.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TooSlow {
    /// A lower bound on one candidate launch's time, in seconds (the candidate took at least this).
    pub candidate_lower_bound_s: f64,
    /// The reference's median launch time, in seconds.
    pub reference_median_s: f64,
    /// Candidate launches that finished inside the budget.
    pub launches_done: usize,
    /// The timing budget, in seconds.
    pub budget_s: f64,
}

impl TooSlow {
    /// The upper bound on the speedup: `reference_median_s / candidate_lower_bound_s`; `None` when
    /// either time is not finite and positive.
    pub fn s_upper_bound(&self) -> Option<f64> {
        (is_valid_time(self.candidate_lower_bound_s) && is_valid_time(self.reference_median_s))
            .then(|| self.reference_median_s / self.candidate_lower_bound_s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn validity_of_pairs() {
        assert!(Pair::new(1e-6, 2e-6).is_valid());
        assert!(!Pair::new(0.0, 1.0).is_valid());
        assert!(!Pair::new(1.0, -1.0).is_valid());
        assert!(!Pair::new(f64::NAN, 1.0).is_valid());
        assert!(!Pair::new(1.0, f64::INFINITY).is_valid());
    }

    #[test]
    fn too_slow_bound() {
        let t = TooSlow {
            candidate_lower_bound_s: 2.0,
            reference_median_s: 0.002,
            launches_done: 1,
            budget_s: 10.0,
        };
        assert_eq!(t.s_upper_bound(), Some(0.001));
        let bad = TooSlow {
            candidate_lower_bound_s: 0.0,
            ..t
        };
        assert_eq!(bad.s_upper_bound(), None);
    }

    #[test]
    fn run_facts_parse_snake_case_and_reject_unknown_keys() {
        let f: RunFacts = serde_json::from_str(r#"{"throttled": true}"#).expect("parses");
        assert!(f.throttled && f.too_slow.is_none());
        assert!(serde_json::from_str::<RunFacts>(r#"{"throttle": true}"#).is_err());
    }
}
