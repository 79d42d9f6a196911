//! Robust location and spread: the median and the median absolute deviation (MAD).
//!
//! The MAD here is **raw**: `MAD(x) = median(|x_i - median(x)|)`, not scaled by 1.4826 (the factor
//! that makes it estimate a normal distribution's standard deviation). Timing noise is skewed and
//! heavy-tailed, so no normal scale is implied; the judge only compares `MAD / median` with
//! fractions (`min-floor`, `max-noise`) chosen for the raw value.
//!
//! A MAD of 0 is a legal result (more than half of the times are identical, as happens when a short
//! kernel's times fall on the timer's resolution steps). Nothing here divides by a MAD, so 0 needs
//! no special case: the judge's floor then falls back to its `min-floor`, and the bootstrap
//! interval, which sees the outliers that a zero MAD hides, still has to clear the ratio.
//!
//! Medians are computed with `select_nth_unstable` on a caller's scratch buffer, so a bootstrap
//! that computes thousands of them allocates nothing per median.

/// A sample's median and raw MAD.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Summary {
    /// The median.
    pub median: f64,
    /// The raw median absolute deviation from the median (not scaled by 1.4826).
    pub mad: f64,
    /// `mad / median`: the relative spread the judge compares with its floor and noise limit.
    pub rel_mad: f64,
}

/// The median of `buf`, reordering it; `None` when it is empty. The mean of the two middle values
/// for an even length. Values are ordered by `f64::total_cmp`, so a NaN cannot panic (the judge
/// never passes one: [`super::Sample`] rejects them).
pub fn median_in_place(buf: &mut [f64]) -> Option<f64> {
    let n = buf.len();
    if n == 0 {
        return None;
    }
    let mid = n / 2;
    let (lower, &mut upper, _) = buf.select_nth_unstable_by(mid, f64::total_cmp);
    if n % 2 == 1 {
        return Some(upper);
    }
    // `lower` holds the `mid` smallest values; its maximum is the lower middle value.
    let below = lower.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    Some(below + (upper - below) / 2.0)
}

/// The median of `values`, copying them into `scratch` (which keeps its capacity for the next call).
pub fn median(values: &[f64], scratch: &mut Vec<f64>) -> Option<f64> {
    scratch.clear();
    scratch.extend_from_slice(values);
    median_in_place(scratch)
}

/// The raw MAD of `values` around `center` (normally their median), using `scratch`.
pub fn mad(values: &[f64], center: f64, scratch: &mut Vec<f64>) -> Option<f64> {
    scratch.clear();
    scratch.extend(values.iter().map(|v| (v - center).abs()));
    median_in_place(scratch)
}

/// Median, raw MAD and relative MAD of `values`; `None` when empty. The relative MAD is
/// `mad / median`, meaningful for positive values (the judge's samples are positive).
pub fn summarize(values: &[f64], scratch: &mut Vec<f64>) -> Option<Summary> {
    let median = median(values, scratch)?;
    let mad = mad(values, median, scratch)?;
    Some(Summary {
        median,
        mad,
        rel_mad: mad / median,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_of_odd_and_even_lengths() {
        let mut s = Vec::new();
        assert_eq!(median(&[3.0, 1.0, 2.0], &mut s), Some(2.0));
        assert_eq!(median(&[4.0, 1.0, 3.0, 2.0], &mut s), Some(2.5));
        assert_eq!(median(&[5.0], &mut s), Some(5.0));
        assert_eq!(median(&[], &mut s), None);
        assert_eq!(median(&[1.0, 1.0, 1.0, 9.0], &mut s), Some(1.0));
    }

    #[test]
    fn median_matches_sorting_on_many_inputs() {
        use rand::Rng;
        let mut r = super::super::rng::seeded(11);
        let mut s = Vec::new();
        for n in 1..40 {
            let v: Vec<f64> = (0..n)
                .map(|_| (r.random_range(0..10usize) as f64) + r.random::<f64>())
                .collect();
            let mut sorted = v.clone();
            sorted.sort_by(f64::total_cmp);
            let want = if n % 2 == 1 {
                sorted[n / 2]
            } else {
                (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0
            };
            let got = median(&v, &mut s).expect("non-empty");
            assert!((got - want).abs() < 1e-12, "n={n}: {got} vs {want}");
        }
    }

    #[test]
    fn mad_is_raw_not_scaled() {
        // Deviations from the median 3 are 2,1,0,1,2: their median is 1 (a scaled MAD would be 1.4826).
        let sum = summarize(&[1.0, 2.0, 3.0, 4.0, 5.0], &mut Vec::new()).expect("non-empty");
        assert_eq!(sum.median, 3.0);
        assert_eq!(sum.mad, 1.0);
        assert!((sum.rel_mad - 1.0 / 3.0).abs() < 1e-15);
    }

    #[test]
    fn mad_is_zero_when_most_values_tie_and_ignores_outliers() {
        let sum = summarize(&[7.0, 7.0, 7.0, 7.0, 100.0, 7.5], &mut Vec::new()).expect("non-empty");
        assert_eq!(sum.median, 7.0);
        assert_eq!(sum.mad, 0.0);
        assert_eq!(sum.rel_mad, 0.0);
    }
}
