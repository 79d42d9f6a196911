//! The one percentile of every benchmark's figures: nearest rank, over values sorted in
//! ascending order.

/// The nearest-rank percentile `p` (0 to 100) of values sorted in ascending order: the smallest
/// value with at least `p` % of the values at or below it (`p = 0` gives the smallest, `100` the
/// largest); `None` when there are none.
pub fn percentile<T: Copy>(sorted: &[T], p: f64) -> Option<T> {
    let n = sorted.len();
    if n == 0 {
        return None;
    }
    let rank = ((p / 100.0) * n as f64).ceil() as usize;
    Some(sorted[rank.clamp(1, n) - 1])
}

#[cfg(test)]
mod tests {
    use super::percentile;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<u32> = (1..=100).collect();
        assert_eq!(percentile(&v, 50.0), Some(50));
        assert_eq!(percentile(&v, 99.0), Some(99));
        assert_eq!(percentile(&v, 100.0), Some(100));
        assert_eq!(percentile(&v, 0.0), Some(1));
        assert_eq!(percentile(&v[..1], 99.0), Some(1));
        assert_eq!(percentile(&[0.5, 1.5, 2.5], 50.0), Some(1.5));
        assert_eq!(percentile::<f64>(&[], 50.0), None);
    }
}
