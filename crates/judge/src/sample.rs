//! Samples whose constructors enforce what the statistics assume: at least one time, every time
//! finite and positive, and (for paired samples) candidate and reference times taken together.
//! Once a [`PairedSample`] exists, no statistic downstream needs to check for NaN, zero or a
//! length mismatch.

use super::input::{Pair, is_valid_time};
use super::stats::{Summary, summarize};

/// Why a sample could not be built.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum SampleError {
    /// No times at all.
    #[error("a sample needs at least one time")]
    Empty,
    /// A time that is NaN, infinite, zero or negative, with its position.
    #[error("time #{index} is {value} s; every time must be finite and positive")]
    BadTime {
        /// Position of the time in the input (0-based).
        index: usize,
        /// The offending value.
        value: f64,
    },
}

/// A non-empty list of finite, positive times in seconds.
#[derive(Debug, Clone, PartialEq)]
pub struct Sample(Vec<f64>);

impl Sample {
    /// A sample from times in seconds; fails on an empty list or on any time that is not finite and
    /// positive, naming the first such time.
    pub fn new(times: Vec<f64>) -> Result<Self, SampleError> {
        if times.is_empty() {
            return Err(SampleError::Empty);
        }
        if let Some((index, &value)) = times.iter().enumerate().find(|(_, t)| !is_valid_time(**t)) {
            return Err(SampleError::BadTime { index, value });
        }
        Ok(Sample(times))
    }

    /// The times, in input order.
    pub fn times(&self) -> &[f64] {
        &self.0
    }

    /// How many times there are (at least 1).
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Always false: a sample holds at least one time. (Present for the `len` convention.)
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Median, raw MAD and relative MAD, computed in `scratch`.
    pub fn summary(&self, scratch: &mut Vec<f64>) -> Summary {
        match summarize(&self.0, scratch) {
            Some(s) => s,
            // Unreachable: the constructor rejects an empty list.
            None => Summary {
                median: f64::NAN,
                mad: f64::NAN,
                rel_mad: f64::NAN,
            },
        }
    }
}

/// Candidate and reference times of the same launches, pair by pair (equal lengths by
/// construction), every time finite and positive.
#[derive(Debug, Clone, PartialEq)]
pub struct PairedSample {
    candidate: Sample,
    reference: Sample,
}

impl PairedSample {
    /// Paired samples from interleaved pairs; fails on no pairs or on any invalid time (its index
    /// counts times in the order candidate, reference of pair 0, then pair 1, …).
    pub fn from_pairs(pairs: &[Pair]) -> Result<Self, SampleError> {
        if let Some((i, p)) = pairs.iter().enumerate().find(|(_, p)| !p.is_valid()) {
            let (index, value) = if is_valid_time(p.candidate) {
                (2 * i + 1, p.reference)
            } else {
                (2 * i, p.candidate)
            };
            return Err(SampleError::BadTime { index, value });
        }
        Ok(PairedSample {
            candidate: Sample::new(pairs.iter().map(|p| p.candidate).collect())?,
            reference: Sample::new(pairs.iter().map(|p| p.reference).collect())?,
        })
    }

    /// The candidate's times.
    pub fn candidate(&self) -> &Sample {
        &self.candidate
    }

    /// The reference's times.
    pub fn reference(&self) -> &Sample {
        &self.reference
    }

    /// The number of pairs (at least 1).
    pub fn len(&self) -> usize {
        self.candidate.len()
    }

    /// Always false: a paired sample holds at least one pair.
    pub fn is_empty(&self) -> bool {
        self.candidate.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_rejects_empty_and_bad_times() {
        assert_eq!(Sample::new(vec![]), Err(SampleError::Empty));
        assert!(matches!(
            Sample::new(vec![1.0, f64::NAN]),
            Err(SampleError::BadTime { index: 1, .. })
        ));
        assert_eq!(
            Sample::new(vec![1.0, 2.0, 0.0]),
            Err(SampleError::BadTime { index: 2, value: 0.0 })
        );
        assert!(Sample::new(vec![1.0, -3.0]).is_err());
        assert!(Sample::new(vec![f64::INFINITY]).is_err());
        let ok = Sample::new(vec![2.0, 1.0, 3.0]).expect("valid");
        assert_eq!(ok.len(), 3);
        assert!(!ok.is_empty());
        assert_eq!(ok.summary(&mut Vec::new()).median, 2.0);
    }

    #[test]
    fn paired_sample_keeps_pairs_together_and_names_the_bad_time() {
        let pairs = [Pair::new(1.0, 2.0), Pair::new(3.0, 4.0)];
        let ps = PairedSample::from_pairs(&pairs).expect("valid");
        assert_eq!(ps.candidate().times(), &[1.0, 3.0]);
        assert_eq!(ps.reference().times(), &[2.0, 4.0]);
        assert_eq!(ps.len(), 2);
        let bad = [Pair::new(1.0, 2.0), Pair::new(3.0, -4.0)];
        assert_eq!(
            PairedSample::from_pairs(&bad),
            Err(SampleError::BadTime {
                index: 3,
                value: -4.0
            })
        );
        assert_eq!(PairedSample::from_pairs(&[]), Err(SampleError::Empty));
    }
}
