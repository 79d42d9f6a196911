//! The seeded generator behind every resampling and every synthetic sample in this crate, so that
//! a verdict is a pure function of its samples and its seed (no global state).
//!
//! It is PCG's 128-bit multiplicative generator with the XSL-RR output (`rand_pcg::Pcg64Mcg`,
//! O'Neill, "PCG: A family of simple fast space-efficient statistically good algorithms for
//! random number generation", 2014), seeded through `SeedableRng::seed_from_u64`; draws go
//! through `rand::Rng` (`random_range` for an index, exactly uniform; `random::<f64>()` for
//! `[0, 1)`).

use rand::SeedableRng;

/// The generator.
pub type SeededRng = rand_pcg::Pcg64Mcg;

/// A generator whose stream is fixed by `seed`.
pub fn seeded(seed: u64) -> SeededRng {
    SeededRng::seed_from_u64(seed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn same_seed_same_stream_and_different_seed_different_stream() {
        let stream = |seed| -> Vec<usize> {
            let mut r = seeded(seed);
            (0..8).map(|_| r.random_range(0..1_000_000)).collect()
        };
        assert_eq!(stream(7), stream(7));
        assert_ne!(stream(7), stream(8));
    }

    #[test]
    fn an_index_is_in_range_and_roughly_uniform() {
        let mut r = seeded(42);
        let mut counts = [0usize; 7];
        for _ in 0..70_000 {
            counts[r.random_range(0..7)] += 1;
        }
        // Each bucket expects 10,000 with a standard deviation near 93; 600 is over six of them.
        for c in counts {
            assert!(
                (9_400..=10_600).contains(&c),
                "bucket count {c} is far from 10,000"
            );
        }
    }
}
