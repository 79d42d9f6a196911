//! Exact sign tests: what the pairs themselves show, whatever the shape of the noise.
//!
//! Two kernels timed interleaved, in a random order within each pair, are exchangeable within a
//! pair when neither is faster: each side is the larger with probability one half (ties
//! dropped), so the count of pairs that go one way is Binomial(n, 1/2) and its tail is an exact
//! p-value. `faster` needs the candidate to beat the ratio in significantly more than half of
//! the pairs ([`beats_ratio`]); `candidate-noisy` needs the candidate's deviations to be the
//! wider in significantly more than half ([`crate::own_noise`]). The bootstrap interval of a
//! median is too narrow in its far tails on 10 to 30 pairs (a resampled median of few values
//! takes few distinct values); these tests cannot be fooled that way.

use super::input::Pair;

/// `P(X >= k)` for `X ~ Binomial(n, 1/2)`, exactly (in floating point).
pub(crate) fn binomial_upper_tail(n: usize, k: usize) -> f64 {
    if k == 0 {
        return 1.0;
    }
    if k > n {
        return 0.0;
    }
    // Sum C(n, j) / 2^n for j >= k, with the terms built as ratios to stay in range.
    let mut term = 0.5f64.powi(n as i32); // C(n, 0) / 2^n
    let mut total = 0.0;
    for j in 0..=n {
        if j >= k {
            total += term;
        }
        term *= (n - j) as f64 / (j + 1) as f64;
    }
    total.min(1.0)
}

/// What the sign test of the ratio found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Beats {
    /// Pairs whose reference time is over `ratio` times the candidate's.
    pub beat: usize,
    /// Pairs counted.
    pub pairs: usize,
    /// The one-sided p-value of "the candidate is no faster than the ratio".
    pub p_value: f64,
}

/// The exact one-sided sign test of "the candidate is no faster than `ratio`": for such a
/// kernel each pair's `reference / candidate` exceeds the ratio with probability at most one
/// half, so `beat` of `pairs` has a p-value of at most `P(Binomial(pairs, 1/2) >= beat)`.
pub fn beats_ratio(pairs: &[Pair], ratio: f64) -> Beats {
    let beat = pairs.iter().filter(|x| x.reference > ratio * x.candidate).count();
    Beats {
        beat,
        pairs: pairs.len(),
        p_value: binomial_upper_tail(pairs.len(), beat),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_binomial_tail_is_exact_at_small_n() {
        assert_eq!(binomial_upper_tail(4, 0), 1.0);
        assert!((binomial_upper_tail(4, 4) - 1.0 / 16.0).abs() < 1e-15);
        assert!((binomial_upper_tail(4, 3) - 5.0 / 16.0).abs() < 1e-15);
        assert!((binomial_upper_tail(30, 15) - 0.5722322).abs() < 1e-6);
        assert_eq!(binomial_upper_tail(3, 4), 0.0);
        // 30 of 30 pairs wider: about 9.3e-10.
        assert!(binomial_upper_tail(30, 30) < 1e-9);
    }

    #[test]
    fn a_pair_at_the_ratio_does_not_beat_it() {
        let run = |n: usize, beat: usize| -> Vec<Pair> {
            (0..n)
                .map(|i| Pair::new(1.0, if i < beat { 1.5 } else { 1.1 }))
                .collect()
        };
        let b = beats_ratio(&run(16, 15), 1.1);
        assert_eq!((b.beat, b.pairs), (15, 16));
        assert!((b.p_value - 17.0 / 65536.0).abs() < 1e-15);
        // At the default single look (0.999, one side 0.0005) ten pairs can never show it; at a
        // look of four (0.99975) sixteen must all beat it, and 26 of 30.
        assert!(beats_ratio(&run(10, 10), 1.1).p_value > 0.0005);
        assert!(beats_ratio(&run(16, 16), 1.1).p_value <= 0.000125);
        assert!(beats_ratio(&run(16, 15), 1.1).p_value > 0.000125);
        assert!(beats_ratio(&run(30, 26), 1.1).p_value <= 0.000125);
        assert!(beats_ratio(&run(30, 25), 1.1).p_value > 0.000125);
    }
}
