//! Simulated timing runs: the judge's false-positive rate on A/A runs (the same kernel on both
//! sides) and its power on a real difference, on skewed, heavy-tailed, drifting and quantised
//! synthetic noise (see [`super::sim`]).

use super::sim::{Noise, Scenario};
use super::{JudgeParams, RunFacts, SplitMix64, Verdict, judge};

/// A/A scenarios: the same noise on both sides.
pub(super) fn aa_scenarios() -> Vec<(&'static str, Scenario)> {
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

/// Verdict counts over `trials` runs of `n` pairs, the bootstrap seed varying per trial.
pub(super) fn run_trials(
    sc: &Scenario,
    n: usize,
    trials: usize,
    params: &JudgeParams,
    seed: u64,
) -> [usize; 8] {
    let mut rng = SplitMix64::new(seed);
    let mut counts = [0usize; 8];
    for t in 0..trials {
        let pairs = sc.pairs(n, &mut rng);
        let p = JudgeParams {
            seed: params.seed.wrapping_add(t as u64),
            ..params.clone()
        };
        let m = judge(&pairs, &RunFacts::default(), &p);
        if let Some(i) = Verdict::ALL.iter().position(|v| *v == m.verdict) {
            counts[i] += 1;
        }
    }
    counts
}

fn count(counts: &[usize; 8], v: Verdict) -> usize {
    Verdict::ALL.iter().position(|x| *x == v).map_or(0, |i| counts[i])
}

fn show(counts: &[usize; 8]) -> String {
    Verdict::ALL
        .iter()
        .zip(counts)
        .filter(|(_, c)| **c > 0)
        .map(|(v, c)| format!("{v} {c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[test]
fn ten_thousand_aa_runs_of_each_kind_are_never_faster_at_ratio_one() {
    let params = JudgeParams {
        ratio: 1.0,
        ..JudgeParams::default()
    };
    for (i, (name, sc)) in aa_scenarios().iter().enumerate() {
        let counts = run_trials(sc, 30, 10_000, &params, 1000 + i as u64);
        assert_eq!(count(&counts, Verdict::Faster), 0, "{name}: {}", show(&counts));
        // The scenarios are quiet enough to be judged: nearly every run reaches the last rules.
        let decided = count(&counts, Verdict::NotFaster) + count(&counts, Verdict::WithinNoise);
        assert!(decided >= 9_900, "{name}: {}", show(&counts));
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
    let counts = run_trials(&sc, 50, trials, &params, 77);
    let faster = count(&counts, Verdict::Faster);
    assert!(
        faster * 100 >= trials * 99,
        "{faster} of {trials} faster: {}",
        show(&counts)
    );
}

/// Prints, for each A/A scenario, how many of `AORLTA_AA_TRIALS` (default 100,000) runs of 30
/// pairs at ratio 1.0 each rule would call faster: the floor alone (the seed's rule), SPEC §3's
/// letter (floor and `low >= ratio`), and the judge. A report, not a check:
/// `cargo test --release -p aorlta-core judge::simulation_tests::aa_rate_report -- --ignored --nocapture`.
#[test]
#[ignore = "a report that takes a minute in release"]
fn aa_rate_report() {
    let trials: usize = std::env::var("AORLTA_AA_TRIALS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(100_000);
    let params = JudgeParams {
        ratio: 1.0,
        ..JudgeParams::default()
    };
    for (i, (name, sc)) in aa_scenarios().iter().enumerate() {
        let mut rng = SplitMix64::new(1000 + i as u64);
        let (mut floor_only, mut letter, mut judged) = (0, 0, 0);
        let start = std::time::Instant::now();
        for t in 0..trials {
            let pairs = sc.pairs(30, &mut rng);
            let p = JudgeParams {
                seed: t as u64,
                ..params.clone()
            };
            let m = judge(&pairs, &RunFacts::default(), &p);
            let (Some(s), Some(floor)) = (m.s, m.floor) else {
                continue;
            };
            let reached_last_rules = matches!(
                m.verdict,
                Verdict::Faster | Verdict::NotFaster | Verdict::WithinNoise
            );
            if reached_last_rules && s >= m.ratio * (1.0 + floor) {
                floor_only += 1;
                letter += usize::from(m.ci_low.is_some_and(|low| low >= m.ratio));
            }
            judged += usize::from(m.verdict == Verdict::Faster);
        }
        let per_call = start.elapsed().as_secs_f64() / trials as f64;
        println!(
            "{name}: {trials} A/A runs; faster by the floor alone {floor_only}, by SPEC's letter {letter}, \
             by the judge {judged}; {:.1} µs per run",
            per_call * 1e6
        );
        assert_eq!(judged, 0, "{name}: an identical kernel was judged faster");
    }
}

/// Prints how often a candidate with a true speedup over the reference is called faster at ratio
/// 1.1 (by SPEC §3's letter and by the judge), for 30 and 100 pairs at 2 % lognormal noise: what
/// the stricter `faster` rule costs in power. A report, not a check:
/// `cargo test --release -p aorlta-core judge::simulation_tests::power_report -- --ignored --nocapture`.
#[test]
#[ignore = "a report"]
fn power_report() {
    let trials = 1000;
    let params = JudgeParams::default();
    for n in [30, 100] {
        for speedup in [1.12, 1.14, 1.16, 1.18, 1.20, 1.25] {
            let reference = Noise::quiet(100e-6, 0.02);
            let sc = Scenario {
                candidate: reference.scaled(1.0 / speedup),
                reference,
                drift_sigma: 0.01,
                resolution_s: 0.0,
            };
            let mut rng = SplitMix64::new(5);
            let (mut letter, mut judged) = (0, 0);
            for t in 0..trials {
                let pairs = sc.pairs(n, &mut rng);
                let p = JudgeParams {
                    seed: t as u64,
                    ..params.clone()
                };
                let m = judge(&pairs, &RunFacts::default(), &p);
                let passed_floor = m.ci_low.is_some() && m.s >= m.floor.map(|f| m.ratio * (1.0 + f));
                letter += usize::from(passed_floor && m.ci_low.is_some_and(|low| low >= m.ratio));
                judged += usize::from(m.verdict == Verdict::Faster);
            }
            println!(
                "{n} pairs, true speedup {speedup:.2} at ratio 1.1: faster by SPEC's letter {letter}/{trials}, \
                 by the judge {judged}/{trials}"
            );
        }
    }
}

/// Prints what one judgement costs with and without the bootstrap, for 30, 100 and 1000 pairs.
/// A report, not a check:
/// `cargo test --release -p aorlta-core judge::simulation_tests::cost_report -- --ignored --nocapture`.
#[test]
#[ignore = "a report"]
fn cost_report() {
    let reference = Noise::quiet(100e-6, 0.02);
    for (what, speedup) in [
        ("with the bootstrap", 1.5),
        ("floor test fails, no bootstrap", 1.1),
    ] {
        let sc = Scenario {
            candidate: reference.scaled(1.0 / speedup),
            reference,
            drift_sigma: 0.01,
            resolution_s: 0.0,
        };
        for n in [30, 100, 1000] {
            let pairs = sc.pairs(n, &mut SplitMix64::new(1));
            let reps = 200;
            let start = std::time::Instant::now();
            let mut faster = 0;
            for _ in 0..reps {
                let m = judge(&pairs, &RunFacts::default(), &JudgeParams::default());
                faster += usize::from(m.verdict == Verdict::Faster);
            }
            let per = start.elapsed().as_secs_f64() / reps as f64;
            println!(
                "{n} pairs, {what}: {:.1} µs per judgement ({faster}/{reps} faster)",
                per * 1e6
            );
        }
    }
}
