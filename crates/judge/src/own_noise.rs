//! Whether a candidate's noise is its own: the proof `candidate-noisy` (broke) needs.
//!
//! A candidate whose relative MAD is over the noise limit is penalised only when the run proves
//! that its spread is larger than the reference's, not merely that both were noisy: its relative
//! MAD must be more than [`FACTOR`] times the reference's, *and* an exact one-sided sign test on
//! the pairs must reject "the two spread alike" at [`ALPHA`]. In each pair, the candidate's
//! absolute relative deviation from its median is compared with the reference's; for identical
//! kernels timed interleaved in a random order, each pair is exchangeable, so the candidate's is
//! the larger with probability one half (ties dropped) and the count of pairs where it is larger
//! is Binomial(n, 1/2). The rule therefore penalises an identical kernel with probability at most
//! `ALPHA` per run, whatever the noise's shape; on the H200, the factor alone fired on 3 of 700
//! identical `vector_add` timings at 2^20 elements.

use super::sample::PairedSample;
use super::signs::binomial_upper_tail;

/// The candidate's relative MAD must exceed the reference's by more than this factor.
pub(crate) const FACTOR: f64 = 2.0;

/// The sign test's level.
pub(crate) const ALPHA: f64 = 1e-4;

/// What the sign test found.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct SignTest {
    /// Pairs where the candidate deviated more than the reference (ties dropped).
    pub wider: usize,
    /// Pairs counted.
    pub untied: usize,
    /// The one-sided p-value.
    pub p_value: f64,
}

/// The sign test of the candidate's deviations against the reference's, about their medians.
pub(crate) fn sign_test(sample: &PairedSample, median_candidate: f64, median_reference: f64) -> SignTest {
    let c = sample.candidate().times();
    let r = sample.reference().times();
    let (mut wider, mut untied) = (0, 0);
    for (x, y) in c.iter().zip(r) {
        let dc = ((x - median_candidate) / median_candidate).abs();
        let dr = ((y - median_reference) / median_reference).abs();
        if dc != dr {
            untied += 1;
            if dc > dr {
                wider += 1;
            }
        }
    }
    SignTest {
        wider,
        untied,
        p_value: binomial_upper_tail(untied, wider),
    }
}

/// True when the run proves the candidate's noise is its own.
pub(crate) fn proven(rel_mad_candidate: f64, rel_mad_reference: f64, test: &SignTest) -> bool {
    rel_mad_candidate > FACTOR * rel_mad_reference && test.p_value < ALPHA
}

#[cfg(test)]
mod tests {
    use super::super::input::Pair;
    use super::*;

    #[test]
    fn only_a_candidate_wider_in_nearly_every_pair_is_proven_noisy() {
        let pairs = |f: &dyn Fn(usize) -> (f64, f64)| {
            let p: Vec<Pair> = (0..30)
                .map(|i| {
                    let (c, r) = f(i);
                    Pair::new(c, r)
                })
                .collect();
            PairedSample::from_pairs(&p).unwrap()
        };
        // The candidate swings +-20% in every pair; the reference +-1%.
        let wild = pairs(&|i| {
            (
                if i % 2 == 0 { 1.2 } else { 0.8 },
                if i % 2 == 0 { 1.01 } else { 0.99 },
            )
        });
        let t = sign_test(&wild, 1.0, 1.0);
        assert_eq!((t.wider, t.untied), (30, 30));
        assert!(proven(0.2, 0.01, &t));
        // Two outliers are not a proof, however large.
        let two = pairs(&|i| {
            (
                if i < 2 { 3.0 } else { 1.0 + 0.001 * i as f64 },
                1.0 + 0.002 * i as f64,
            )
        });
        let t = sign_test(&two, 1.01, 1.03);
        assert!(!proven(0.5, 0.01, &t), "{t:?}");
    }
}
