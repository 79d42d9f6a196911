//! Sequential looks: a timing may stop early, at looks declared before it starts (by default
//! after 10, 16, 24 and 30 pairs), as soon as the verdict is settled. The error is split evenly
//! across the looks (Bonferroni): each look's interval has confidence `1 - (1 - c) / K` for `K`
//! looks, and as many resamples as its tails need, so the chance of a wrong `faster` (or a wrong
//! `not-faster`) over the whole run is no larger than the single-look judge's. Only `faster`,
//! `not-faster` and `too-slow-to-measure` settle a look early; `candidate-noisy` and every
//! unsettled verdict wait for the last look, which is the judge with the same per-look
//! parameters on every pair taken (fewer than the declared last look when the budget ran out,
//! still at most `K` looks in all).
//!
//! `faster` also needs its sign test (`crate::signs`) at the look's level, which bounds a wrong
//! `faster` at each look by that level whatever the noise's shape; with the default looks it
//! needs all 16 pairs at the 16-pair look, 22 of 24 and 26 of 30, and none at 10 pairs is
//! enough, so a faster kernel settles at 16 pairs at the earliest (a slower one at 10).
//!
//! The harness asks [`settled`] at each look while it times; the timing leg replays
//! [`judge_looks`] over the pairs it returns, so the recorded verdict is the one that stopped it.

use super::decide::judge;
use super::input::{Pair, RunFacts};
use super::measurement::Measurement;
use super::params::JudgeParams;
use super::verdict::Verdict;

/// The looks a timing declares unless its parameters say otherwise.
pub const DEFAULT_LOOKS: [usize; 4] = [10, 16, 24, 30];

/// The looks of a timing of at most `pairs` pairs: the declared ones from `min_samples` up to
/// `pairs`, always ending at `pairs`.
pub fn looks_for(declared: &[usize], min_samples: usize, pairs: usize) -> Vec<usize> {
    let mut looks: Vec<usize> = declared
        .iter()
        .copied()
        .filter(|&l| l >= min_samples && l < pairs)
        .collect();
    looks.sort_unstable();
    looks.dedup();
    looks.push(pairs);
    looks
}

/// The parameters every look is judged with, for `looks` looks: the error split evenly, and at
/// least enough resamples for the interval's tails to be the order statistics they name.
pub fn per_look(p: &JudgeParams, looks: usize) -> JudgeParams {
    let k = looks.max(1) as f64;
    let confidence = 1.0 - (1.0 - p.confidence) / k;
    let resamples = p.resamples.max((2.0 / (1.0 - confidence)).ceil() as usize);
    JudgeParams {
        confidence,
        resamples,
        ..p.clone()
    }
}

/// True when a verdict at a look ends the timing.
pub(crate) fn settles(v: Verdict) -> bool {
    matches!(
        v,
        Verdict::Faster | Verdict::NotFaster | Verdict::TooSlowToMeasure
    )
}

/// True when the pairs so far, at a declared look, settle the verdict (what the harness asks).
pub fn settled(pairs: &[Pair], facts: &RunFacts, p: &JudgeParams, looks: &[usize]) -> bool {
    let last = looks.last().copied().unwrap_or(pairs.len());
    pairs.len() < last
        && looks.contains(&pairs.len())
        && settles(judge(pairs, facts, &per_look(p, looks.len())).verdict)
}

/// A sequential verdict: the measurement and the look that gave it.
#[derive(Debug, Clone)]
pub struct Looked {
    /// The judge's measurement at that look.
    pub measurement: Measurement,
    /// Pairs at the look that settled the verdict early; `None` when the last look decided.
    pub settled_at: Option<usize>,
    /// The looks declared.
    pub looks: Vec<usize>,
    /// The interval confidence each look used.
    pub confidence_per_look: f64,
}

/// Judges the looks in turn over the pairs taken: the first look before the last declared one
/// whose verdict settles (a harness that stopped there returns exactly that look's pairs), else
/// the judge on every pair taken.
pub fn judge_looks(pairs: &[Pair], facts: &RunFacts, p: &JudgeParams, looks: &[usize]) -> Looked {
    let each = per_look(p, looks.len());
    let last = looks.last().copied().unwrap_or(pairs.len());
    let looked = |measurement, settled_at| Looked {
        measurement,
        settled_at,
        looks: looks.to_vec(),
        confidence_per_look: each.confidence,
    };
    for &l in looks.iter().filter(|&&l| l < last && l <= pairs.len()) {
        let m = judge(&pairs[..l], facts, &each);
        if settles(m.verdict) {
            return looked(m, Some(l));
        }
    }
    looked(judge(pairs, facts, &each), None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn looks_end_at_the_pairs_and_start_at_the_minimum() {
        assert_eq!(looks_for(&DEFAULT_LOOKS, 10, 30), [10, 16, 24, 30]);
        assert_eq!(looks_for(&DEFAULT_LOOKS, 10, 20), [10, 16, 20]);
        assert_eq!(looks_for(&DEFAULT_LOOKS, 12, 30), [16, 24, 30]);
        assert_eq!(looks_for(&[], 10, 30), [30]);
        let p = per_look(&JudgeParams::default(), 4);
        assert!((p.confidence - 0.99975).abs() < 1e-12);
        assert!(p.resamples >= 8000, "{}", p.resamples);
        assert_eq!(per_look(&JudgeParams::default(), 1), JudgeParams::default());
    }

    /// Thirty quiet pairs: the candidate about `c`, the reference about `r` (small, uneven
    /// spreads on each side).
    fn steady(c: f64, r: f64) -> Vec<Pair> {
        (0..30)
            .map(|i| {
                Pair::new(
                    c * (1.0 + 0.001 * (i % 5) as f64),
                    r * (1.0 + 0.001 * (i % 3) as f64),
                )
            })
            .collect()
    }

    #[test]
    fn a_clear_speedup_settles_at_the_first_look_that_can_show_it_and_replays_the_same() {
        let pairs = steady(1.0, 2.0);
        let facts = RunFacts::default();
        let p = JudgeParams::default();
        let looks = looks_for(&DEFAULT_LOOKS, p.min_samples, 30);
        // Ten pairs, all twice as fast: ten signs cannot reach a look's level (1/1024 > 1.25e-4).
        let ten = judge(&pairs[..10], &facts, &per_look(&p, looks.len()));
        assert_eq!(ten.verdict, Verdict::WithinNoise, "{}", ten.detail);
        assert!(!settled(&pairs[..10], &facts, &p, &looks));
        assert!(settled(&pairs[..16], &facts, &p, &looks));
        // A harness that stopped at the look returns its pairs: the replay names the look.
        let l = judge_looks(&pairs[..16], &facts, &p, &looks);
        assert_eq!(l.measurement.verdict, Verdict::Faster);
        assert_eq!(l.settled_at, Some(16));
        let all = judge_looks(&pairs, &facts, &p, &looks);
        assert_eq!(all.settled_at, Some(16));
        assert_eq!(all.measurement.verdict, Verdict::Faster);
    }

    #[test]
    fn a_clear_slowdown_still_settles_at_ten_pairs() {
        let pairs: Vec<Pair> = steady(1.0, 2.0)
            .iter()
            .map(|x| Pair::new(x.reference, x.candidate))
            .collect();
        let p = JudgeParams::default();
        let looks = looks_for(&DEFAULT_LOOKS, p.min_samples, 30);
        let l = judge_looks(&pairs, &RunFacts::default(), &p, &looks);
        assert_eq!(l.measurement.verdict, Verdict::NotFaster);
        assert_eq!(l.settled_at, Some(10));
    }
}
