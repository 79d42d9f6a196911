//! The paired percentile bootstrap of the speedup `s = median(reference) / median(candidate)`.
//!
//! Each resample draws `n` whole pairs with replacement (a pair's candidate and reference times
//! stay together, so whatever the two launches of a pair shared, a clock step or a busy neighbour,
//! stays shared) and computes `s` on it. The interval at confidence `c` is the pair of order
//! statistics `k` from each end of the `B` sorted resampled values, with
//! `k = ceil(B (1 - c) / 2)` counted from 1: at the defaults (`c = 0.999`, `B = 2000`) that is the
//! smallest and the largest resampled `s`, the conservative reading of the 0.05 % tails
//! (Efron and Tibshirani, "An Introduction to the Bootstrap", 1993, ch. 13).
//!
//! The generator is seeded, so the interval is a pure function of the pairs and the seed.
//!
//! Written here because the bootstrap crates resample one sample's statistic; none resamples
//! pairs for a ratio of medians and reads fixed order statistics, which takes a few lines.

use super::rng::seeded;
use super::sample::PairedSample;
use super::stats::median_in_place;
use rand::Rng;

/// A bootstrap interval of the speedup.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The lower end.
    pub low: f64,
    /// The upper end.
    pub high: f64,
}

/// The 1-based order statistic `k` that bounds a two-sided interval of `confidence` among
/// `resamples` sorted values: `ceil(resamples * (1 - confidence) / 2)`, at least 1 and at most
/// `(resamples + 1) / 2`. A tiny tolerance keeps `2000 * 0.0005` at 1 despite rounding.
pub fn tail_rank(resamples: usize, confidence: f64) -> usize {
    let tail = resamples as f64 * (1.0 - confidence) / 2.0;
    let k = (tail - 1e-9).ceil();
    let k = if k.is_finite() && k >= 1.0 { k as usize } else { 1 };
    k.min(resamples.div_ceil(2).max(1))
}

/// The speedups of `resamples` paired resamples (at least 1) drawn from a generator seeded
/// with `seed`, in the order drawn: each resample takes `n` whole pairs with replacement and
/// gives `median(reference) / median(candidate)`.
pub fn resampled_speedups(sample: &PairedSample, resamples: usize, seed: u64) -> Vec<f64> {
    let resamples = resamples.max(1);
    let cand = sample.candidate().times();
    let refr = sample.reference().times();
    let n = cand.len();
    let mut rng = seeded(seed);
    let mut cand_buf = vec![0.0; n];
    let mut ref_buf = vec![0.0; n];
    let mut speedups = Vec::with_capacity(resamples);
    for _ in 0..resamples {
        for (c, r) in cand_buf.iter_mut().zip(ref_buf.iter_mut()) {
            let i = rng.random_range(0..n);
            *c = cand[i];
            *r = refr[i];
        }
        // Both buffers hold n >= 1 positive times (a PairedSample is never empty).
        let (Some(mc), Some(mr)) = (median_in_place(&mut cand_buf), median_in_place(&mut ref_buf)) else {
            continue;
        };
        speedups.push(mr / mc);
    }
    speedups
}

/// The interval of `confidence` read from resampled values: the order statistics
/// [`tail_rank`] from each end (NaN ends when there are none).
pub fn percentile_interval(mut values: Vec<f64>, confidence: f64) -> Interval {
    values.sort_unstable_by(f64::total_cmp);
    let k = tail_rank(values.len(), confidence);
    match (
        values.get(k - 1),
        values.len().checked_sub(k).and_then(|i| values.get(i)),
    ) {
        (Some(&low), Some(&high)) => Interval { low, high },
        _ => Interval {
            low: f64::NAN,
            high: f64::NAN,
        },
    }
}

/// The paired percentile bootstrap interval of `median(reference) / median(candidate)` with
/// `resamples` resamples (at least 1) drawn from a generator seeded with `seed`.
pub fn speedup_interval(sample: &PairedSample, confidence: f64, resamples: usize, seed: u64) -> Interval {
    percentile_interval(resampled_speedups(sample, resamples, seed), confidence)
}

#[cfg(test)]
mod tests {
    use super::super::input::Pair;
    use super::*;

    fn paired(pairs: &[(f64, f64)]) -> PairedSample {
        let pairs: Vec<Pair> = pairs.iter().map(|&(c, r)| Pair::new(c, r)).collect();
        PairedSample::from_pairs(&pairs).expect("valid pairs")
    }

    #[test]
    fn tail_rank_at_the_defaults_and_elsewhere() {
        assert_eq!(tail_rank(2000, 0.999), 1);
        assert_eq!(tail_rank(4000, 0.999), 2);
        assert_eq!(tail_rank(10_000, 0.999), 5);
        assert_eq!(tail_rank(1000, 0.95), 25);
        assert_eq!(tail_rank(10, 0.999), 1);
        assert_eq!(tail_rank(3, 0.0), 2);
    }

    #[test]
    fn identical_times_give_a_point_interval() {
        let s = paired(&[(1.0, 2.0); 12]);
        let iv = speedup_interval(&s, 0.999, 2000, 1);
        assert_eq!(iv, Interval { low: 2.0, high: 2.0 });
    }

    #[test]
    fn interval_contains_the_point_estimate_and_is_deterministic() {
        let mut r = seeded(5);
        let pairs: Vec<(f64, f64)> = (0..40)
            .map(|_| (1.0 + 0.1 * r.random::<f64>(), 1.2 + 0.1 * r.random::<f64>()))
            .collect();
        let s = paired(&pairs);
        let iv = speedup_interval(&s, 0.999, 2000, 9);
        let mut scratch = Vec::new();
        let point = s.reference().summary(&mut scratch).median / s.candidate().summary(&mut scratch).median;
        assert!(iv.low < point && point < iv.high, "{iv:?} vs {point}");
        assert!(iv.low > 1.0 && iv.high < 1.4, "{iv:?}");
        assert_eq!(iv, speedup_interval(&s, 0.999, 2000, 9));
        let other = speedup_interval(&s, 0.999, 2000, 10);
        assert_ne!(iv, other, "a different seed draws different resamples");
    }

    #[test]
    fn lower_confidence_gives_a_narrower_interval() {
        let mut r = seeded(6);
        let pairs: Vec<(f64, f64)> = (0..30)
            .map(|_| (1.0 + 0.2 * r.random::<f64>(), 1.0 + 0.2 * r.random::<f64>()))
            .collect();
        let s = paired(&pairs);
        let wide = speedup_interval(&s, 0.999, 2000, 1);
        let narrow = speedup_interval(&s, 0.9, 2000, 1);
        assert!(
            narrow.low > wide.low && narrow.high < wide.high,
            "{narrow:?} within {wide:?}"
        );
    }

    #[test]
    fn pairs_are_resampled_together() {
        // Candidate and reference move together (a shared per-pair factor spanning 1x to 3x), and
        // the reference is always exactly twice the candidate: every resample sees s = 2 only if
        // whole pairs are drawn.
        let pairs: Vec<(f64, f64)> = (0..25)
            .map(|i| (1.0 + i as f64 / 12.0, 2.0 + i as f64 / 6.0))
            .collect();
        let iv = speedup_interval(&paired(&pairs), 0.999, 2000, 3);
        assert!(
            (iv.low - 2.0).abs() < 1e-12 && (iv.high - 2.0).abs() < 1e-12,
            "{iv:?}"
        );
    }
}
