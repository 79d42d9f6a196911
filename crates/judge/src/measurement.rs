//! The measurement record a timing verdict carries (docs/JUDGE.md): what was measured, what was decided
//! and with which parameters, so that a verdict can be checked and reproduced from its record.
//!
//! The speedup reward reads the top-level numbers `s` and `ratio` from this record; the verdict is
//! its kebab-case code. Statistics that could not be computed (no valid pair) are `null`. The
//! harness's own facts (device, driver, clocks, budget used, order seed) sit beside this record in
//! the leg's detail, not inside it.

use super::input::{Pair, TooSlow};
use super::params::JudgeParams;
use super::verdict::Verdict;
use aorlta_record::LegState;
use serde::{Deserialize, Serialize};

/// The judge's record of one timing.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Measurement {
    /// The judge's version ([`JUDGE_VERSION`](crate::version::JUDGE_VERSION)) that decided.
    pub judge_version: String,
    /// The verdict, as its kebab-case code.
    pub verdict: Verdict,
    /// The leg state the verdict means.
    pub state: LegState,
    /// A sentence for a person saying why; not stable, never parsed.
    pub detail: String,
    /// Pairs handed to the judge.
    pub pairs: usize,
    /// Pairs whose two times are finite and positive; the statistics use only these.
    pub valid_pairs: usize,
    /// The candidate's median launch time in seconds.
    pub median_candidate: Option<f64>,
    /// The reference's median launch time in seconds.
    pub median_reference: Option<f64>,
    /// The candidate's raw MAD in seconds (not scaled by 1.4826).
    pub mad_candidate: Option<f64>,
    /// The reference's raw MAD in seconds (not scaled by 1.4826).
    pub mad_reference: Option<f64>,
    /// `mad_candidate / median_candidate`.
    pub rel_mad_candidate: Option<f64>,
    /// `mad_reference / median_reference`.
    pub rel_mad_reference: Option<f64>,
    /// The noise floor: `max(min_floor, rel_mad_candidate, rel_mad_reference)`.
    pub floor: Option<f64>,
    /// The speedup `median_reference / median_candidate` (above 1: the candidate is faster).
    pub s: Option<f64>,
    /// Lower end of the bootstrap interval of `s`; computed only when `s` passed a floor test.
    pub ci_low: Option<f64>,
    /// Upper end of the bootstrap interval of `s`; computed only when `s` passed a floor test.
    pub ci_high: Option<f64>,
    /// For `too-slow-to-measure`: `reference_median_s / candidate_lower_bound_s`, a bound `s`
    /// cannot exceed.
    pub s_upper_bound: Option<f64>,
    /// The parameters the verdict was decided with, under the keys a profile gives them
    /// (`ratio`, `min-floor`, `max-noise`, `min-samples`, `confidence`, `resamples`, `seed`,
    /// `keep-samples`), beside the other fields of the record.
    #[serde(flatten)]
    pub params: JudgeParams,
    /// A clock throttle was seen during the run.
    pub throttled: bool,
    /// The harness's too-slow evidence, when it gave any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub too_slow: Option<TooSlow>,
    /// The raw pairs, when `keep-samples` asked for them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub samples: Option<Vec<Pair>>,
}
