//! Simulated timing runs: the judge's false-positive rate on A/A runs (the same kernel on both
//! sides) and its power on a real difference, on skewed, heavy-tailed, drifting and quantised
//! synthetic noise (see [`super::sim`]). The larger reports (false-`faster` rates of each rule,
//! power near the ratio, cost per judgement) are the `judge` bench: `cargo bench -p aorlta-judge
//! --bench judge`.

use super::sim::{Noise, Scenario, aa_scenarios, verdict_counts};
use super::{JudgeParams, Verdict};

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
