//! Synthetic per-launch timing noise, for testing and benchmarking the judge without a GPU (and
//! for fake timers that stand in for one).
//!
//! A launch time is `median * drift * body * outlier`, rounded to the timer's resolution:
//! - `body`: lognormal, `exp(sigma * Z)`, the skewed spread of a quiet GPU;
//! - `drift`: lognormal with `drift_sigma`, drawn once per pair and shared by its two launches
//!   (clock and temperature move slowly, so the two launches of one pair see the same machine);
//! - `outlier`: with probability `outlier_rate`, a factor drawn uniformly from
//!   `[1 + outlier_min, 1 + outlier_max]` (a preempted launch, a page fault, an interrupt);
//! - `resolution_s`: GPU event timers tick in steps (about 0.5 µs on current NVIDIA parts), so a
//!   short kernel's times tie often and its MAD can be 0.

use super::input::Pair;
use super::rng::SeededRng;
use rand::Rng;

/// The noise of one kernel's launch times.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Noise {
    /// The median launch time in seconds before outliers and rounding.
    pub median_s: f64,
    /// The lognormal body's sigma (0.02 is about 2 % spread).
    pub sigma: f64,
    /// The probability of an outlier launch.
    pub outlier_rate: f64,
    /// The smallest outlier slowdown, as a fraction added to 1.
    pub outlier_min: f64,
    /// The largest outlier slowdown, as a fraction added to 1.
    pub outlier_max: f64,
}

impl Noise {
    /// A quiet kernel: `median_s` with a lognormal spread `sigma` and no outliers.
    pub fn quiet(median_s: f64, sigma: f64) -> Self {
        Noise {
            median_s,
            sigma,
            outlier_rate: 0.0,
            outlier_min: 0.0,
            outlier_max: 0.0,
        }
    }

    /// The same noise with outliers: at `rate`, a slowdown between `1 + min` and `1 + max`.
    pub fn with_outliers(self, rate: f64, min: f64, max: f64) -> Self {
        Noise {
            outlier_rate: rate,
            outlier_min: min,
            outlier_max: max,
            ..self
        }
    }

    /// The same noise with its median scaled by `factor`.
    pub fn scaled(self, factor: f64) -> Self {
        Noise {
            median_s: self.median_s * factor,
            ..self
        }
    }

    fn draw(&self, drift: f64, rng: &mut SeededRng) -> f64 {
        let mut t = self.median_s * drift * (self.sigma * standard_normal(rng)).exp();
        if rng.random::<f64>() < self.outlier_rate {
            t *= 1.0 + self.outlier_min + (self.outlier_max - self.outlier_min) * rng.random::<f64>();
        }
        t
    }
}

/// A simulated timing run: the candidate's and the reference's noise, the per-pair drift and the
/// timer's resolution.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scenario {
    /// The candidate's launch-time noise.
    pub candidate: Noise,
    /// The reference's launch-time noise.
    pub reference: Noise,
    /// Sigma of the lognormal drift shared by the two launches of a pair.
    pub drift_sigma: f64,
    /// The timer's resolution in seconds (0: exact times).
    pub resolution_s: f64,
}

impl Scenario {
    /// `n` interleaved pairs drawn from this scenario.
    pub fn pairs(&self, n: usize, rng: &mut SeededRng) -> Vec<Pair> {
        (0..n)
            .map(|_| {
                let drift = (self.drift_sigma * standard_normal(rng)).exp();
                let c = self.round(self.candidate.draw(drift, rng));
                let r = self.round(self.reference.draw(drift, rng));
                Pair::new(c, r)
            })
            .collect()
    }

    fn round(&self, t: f64) -> f64 {
        if self.resolution_s > 0.0 {
            ((t / self.resolution_s).round() * self.resolution_s).max(self.resolution_s)
        } else {
            t
        }
    }
}

/// The A/A scenarios the judge's false-`faster` rate is measured on: the same noise on both
/// sides, from a quiet 100 µs kernel to a 7 µs one on a coarse timer and a drifting 2 ms one.
pub fn aa_scenarios() -> Vec<(&'static str, Scenario)> {
    let same = |noise: Noise, drift_sigma, resolution_s| Scenario {
        candidate: noise,
        reference: noise,
        drift_sigma,
        resolution_s,
    };
    vec![
        (
            "100 µs, 3% lognormal, 2% outliers up to 5x",
            same(
                Noise::quiet(100e-6, 0.03).with_outliers(0.02, 0.5, 4.0),
                0.01,
                0.0,
            ),
        ),
        (
            "7 µs on a 0.5 µs timer, 4% lognormal, 3% outliers up to 3x",
            same(
                Noise::quiet(7e-6, 0.04).with_outliers(0.03, 0.2, 2.0),
                0.02,
                0.5e-6,
            ),
        ),
        (
            "2 ms, 6% lognormal, 5% outliers up to 11x, 3% drift",
            same(Noise::quiet(2e-3, 0.06).with_outliers(0.05, 1.0, 10.0), 0.03, 0.0),
        ),
    ]
}

/// A standard normal draw (Box–Muller, one of the pair).
pub(crate) fn standard_normal(rng: &mut SeededRng) -> f64 {
    // 1 - u lies in (0, 1], so the logarithm is finite.
    let u1 = 1.0 - rng.random::<f64>();
    let u2 = rng.random::<f64>();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

#[cfg(test)]
mod tests {
    use super::super::stats::median;
    use super::*;

    #[test]
    fn standard_normal_has_mean_zero_and_unit_variance() {
        let mut r = super::super::rng::seeded(1);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| standard_normal(&mut r)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n as f64;
        assert!(mean.abs() < 0.01, "mean {mean}");
        assert!((var - 1.0).abs() < 0.02, "variance {var}");
    }

    #[test]
    fn scenario_medians_follow_the_noise_and_resolution_rounds() {
        let sc = Scenario {
            candidate: Noise::quiet(1e-3, 0.02),
            reference: Noise::quiet(1e-3, 0.02).scaled(1.5),
            drift_sigma: 0.01,
            resolution_s: 0.0,
        };
        let mut r = super::super::rng::seeded(2);
        let pairs = sc.pairs(2001, &mut r);
        let mut s = Vec::new();
        let mc = median(&pairs.iter().map(|p| p.candidate).collect::<Vec<_>>(), &mut s).expect("n>0");
        let mr = median(&pairs.iter().map(|p| p.reference).collect::<Vec<_>>(), &mut s).expect("n>0");
        assert!((mc / 1e-3 - 1.0).abs() < 0.01, "{mc}");
        assert!((mr / mc - 1.5).abs() < 0.02, "{}", mr / mc);
        let coarse = Scenario {
            resolution_s: 0.5e-6,
            candidate: Noise::quiet(7e-6, 0.03),
            reference: Noise::quiet(7e-6, 0.03),
            ..sc
        };
        for p in coarse.pairs(100, &mut r) {
            let steps = p.candidate / 0.5e-6;
            assert!((steps - steps.round()).abs() < 1e-9 && p.candidate > 0.0);
        }
    }

    #[test]
    fn outliers_appear_at_their_rate() {
        let noise = Noise::quiet(1.0, 0.0).with_outliers(0.1, 1.0, 2.0);
        let mut r = super::super::rng::seeded(3);
        let n = 20_000;
        let slow = (0..n).filter(|_| noise.draw(1.0, &mut r) > 1.5).count();
        assert!((1_800..=2_200).contains(&slow), "{slow} outliers of {n}");
    }
}
