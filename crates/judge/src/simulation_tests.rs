//! Simulated timing runs: the judge's false-positive rate on A/A runs (the same kernel on both
//! sides) and its power on a real difference, on skewed, heavy-tailed, drifting and quantised
//! synthetic noise (see [`super::sim`]). The larger reports (false-`faster` rates of each rule,
//! power near the ratio, cost per judgement) are the `judge` bench: `cargo bench -p aorlta-judge
//! --bench judge`.

use super::decide::judge;
use super::input::RunFacts;
use super::params::JudgeParams;
use super::sim::{Noise, Scenario, aa_scenarios};
use super::verdict::Verdict;

#[test]
fn ten_thousand_aa_runs_of_each_kind_are_never_faster_at_ratio_one() {
    let params = JudgeParams {
        ratio: 1.0,
        ..JudgeParams::default()
    };
    for (i, (name, sc)) in aa_scenarios().iter().enumerate() {
        let counts = verdict_counts(sc, 30, 10_000, &params, 1000 + i as u64);
        assert_eq!(counts.get(Verdict::Faster), 0, "{name}: {counts}");
        // The scenarios are quiet enough to be judged: nearly every run reaches the last rules.
        let decided = counts.get(Verdict::NotFaster) + counts.get(Verdict::WithinNoise);
        assert!(decided >= 9_900, "{name}: {counts}");
    }
}

#[test]
fn a_true_1_15x_speedup_at_2_percent_noise_is_faster_at_ratio_1_05() {
    let params = JudgeParams {
        ratio: 1.05,
        ..JudgeParams::default()
    };
    let reference = Noise::quiet(100e-6, 0.02);
    let sc = Scenario {
        candidate: reference.scaled(1.0 / 1.15),
        reference,
        drift_sigma: 0.01,
        resolution_s: 0.0,
    };
    let trials = 300;
    let counts = verdict_counts(&sc, 50, trials, &params, 77);
    let faster = counts.get(Verdict::Faster);
    assert!(
        faster * 100 >= trials * 99,
        "{faster} of {trials} faster: {counts}"
    );
}

/// How many runs of a simulation came out as each verdict.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct VerdictCounts([usize; Verdict::ALL.len()]);

impl VerdictCounts {
    /// Runs that came out as `v`.
    fn get(&self, v: Verdict) -> usize {
        Verdict::ALL.iter().position(|x| *x == v).map_or(0, |i| self.0[i])
    }

    fn add(&mut self, v: Verdict) {
        if let Some(i) = Verdict::ALL.iter().position(|x| *x == v) {
            self.0[i] += 1;
        }
    }
}

impl std::fmt::Display for VerdictCounts {
    /// The verdicts that occurred with their counts (`not-faster 9990, within-noise 10`).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let parts: Vec<String> = Verdict::ALL
            .iter()
            .zip(self.0)
            .filter(|(_, c)| *c > 0)
            .map(|(v, c)| format!("{v} {c}"))
            .collect();
        f.write_str(&parts.join(", "))
    }
}

/// Judges `trials` runs of `n` pairs drawn from `scenario` (the pairs from a generator seeded
/// with `seed`, the bootstrap seed moving on by one per trial) and counts the verdicts.
fn verdict_counts(
    scenario: &Scenario,
    n: usize,
    trials: usize,
    params: &JudgeParams,
    seed: u64,
) -> VerdictCounts {
    let mut rng = super::rng::seeded(seed);
    let mut counts = VerdictCounts::default();
    for t in 0..trials {
        let pairs = scenario.pairs(n, &mut rng);
        let p = JudgeParams {
            seed: params.seed.wrapping_add(t as u64),
            ..params.clone()
        };
        counts.add(judge(&pairs, &RunFacts::default(), &p).verdict);
    }
    counts
}
