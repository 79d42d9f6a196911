//! Every verdict on synthetic samples, including the figures the original design asked for
//! (docs/JUDGE.md): a reference against itself, a 1.07x kernel at two ratios, a deliberately slow
//! kernel, and the noisy, too-few and invalid cases.

use super::decide::judge;
use super::input::{Pair, RunFacts, TooSlow};
use super::measurement::Measurement;
use super::params::JudgeParams;
use super::rng::seeded;
use super::sim::{Noise, Scenario};
use super::verdict::Verdict;
use super::version::JUDGE_VERSION;
use aorlta_record::LegState;

fn at_ratio(ratio: f64) -> JudgeParams {
    JudgeParams {
        ratio,
        ..JudgeParams::default()
    }
}

fn quiet_run(speedup: f64, sigma: f64, n: usize, seed: u64) -> Vec<Pair> {
    let reference = Noise::quiet(50e-6, sigma);
    Scenario {
        candidate: reference.scaled(1.0 / speedup),
        reference,
        drift_sigma: 0.005,
        resolution_s: 0.0,
    }
    .pairs(n, &mut seeded(seed))
}

fn run(pairs: &[Pair], params: &JudgeParams) -> Measurement {
    judge(pairs, &RunFacts::default(), params)
}

fn s_of(m: &Measurement) -> f64 {
    m.s.unwrap_or(f64::NAN)
}

#[test]
fn reference_against_itself_is_not_faster_at_about_one() {
    let m = run(&quiet_run(1.0, 0.01, 30, 1), &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::NotFaster, "{}", m.detail);
    assert_eq!(m.state, LegState::Broke);
    assert!((s_of(&m) - 1.0).abs() < 0.02, "s = {}", s_of(&m));
    let high = m.ci_high.expect("interval computed");
    assert!(high <= 1.1 && m.ci_low.expect("interval computed") <= s_of(&m));
}

#[test]
fn a_1_07x_kernel_is_not_faster_at_1_1_and_faster_at_1_0() {
    let pairs = quiet_run(1.07, 0.01, 30, 2);
    let strict = run(&pairs, &at_ratio(1.1));
    assert_eq!(strict.verdict, Verdict::NotFaster, "{}", strict.detail);
    assert!((s_of(&strict) - 1.07).abs() < 0.02, "s = {}", s_of(&strict));
    let loose = run(&pairs, &at_ratio(1.0));
    assert_eq!(loose.verdict, Verdict::Faster, "{}", loose.detail);
    assert_eq!(loose.state, LegState::Clean);
    assert!(loose.ci_low.expect("interval computed") >= 1.0);
    assert_eq!(
        loose.s, strict.s,
        "the ratio changes the verdict, not the measurement"
    );
}

fn slow_facts(lower_bound_s: f64, reference_median_s: f64) -> RunFacts {
    RunFacts {
        throttled: false,
        too_slow: Some(TooSlow {
            candidate_lower_bound_s: lower_bound_s,
            reference_median_s,
            launches_done: 2,
            budget_s: 5.0,
        }),
    }
}

#[test]
fn a_deliberately_slow_kernel_is_too_slow_in_the_budget_and_not_faster_at_0_001_with_more() {
    // Inside the default budget: the harness reports two launches done, each at least 2 s.
    let m = judge(&[], &slow_facts(2.0, 2e-3), &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::TooSlowToMeasure, "{}", m.detail);
    assert_eq!(m.state, LegState::Broke);
    let bound = m.s_upper_bound.expect("bound recorded");
    assert!((bound - 0.001).abs() < 1e-12, "{bound}");
    assert!(m.too_slow.is_some());
    // With a larger budget the same kernel is timed: 1000x slower.
    let m = run(&quiet_run(0.001, 0.01, 12, 3), &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::NotFaster, "{}", m.detail);
    assert!((s_of(&m) / 0.001 - 1.0).abs() < 0.05, "s = {}", s_of(&m));
}

#[test]
fn too_slow_comes_first_and_needs_a_bound_below_the_ratio() {
    // Too slow wins over everything the pairs would say, even a throttle.
    let facts = RunFacts {
        throttled: true,
        ..slow_facts(1.0, 1e-3)
    };
    let m = judge(&[Pair::new(f64::NAN, 1.0)], &facts, &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::TooSlowToMeasure);
    // A budget so small that even the reference could not have shown a speedup does not settle.
    let m = judge(&[], &slow_facts(1e-3, 2e-3), &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::TooFew, "{}", m.detail);
    assert_eq!(m.s_upper_bound, Some(2.0));
    // Unusable evidence is not a penalty.
    let m = judge(&[], &slow_facts(0.0, 2e-3), &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::Invalid, "{}", m.detail);
    assert_eq!(m.state, LegState::Unsettled);
}

#[test]
fn a_candidate_noisy_alone_is_broke() {
    let reference = Noise::quiet(50e-6, 0.01);
    let pairs = Scenario {
        candidate: Noise::quiet(25e-6, 0.4),
        reference,
        drift_sigma: 0.0,
        resolution_s: 0.0,
    }
    .pairs(40, &mut seeded(4));
    let m = run(&pairs, &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::CandidateNoisy, "{}", m.detail);
    assert_eq!(m.state, LegState::Broke);
    assert!(m.rel_mad_candidate.expect("computed") > 0.1);
    assert!(m.rel_mad_reference.expect("computed") <= 0.1);
}

#[test]
fn a_noisy_reference_is_unsettled_even_when_the_candidate_is_noisy_too() {
    let noisy = Noise::quiet(50e-6, 0.4);
    for candidate in [Noise::quiet(50e-6, 0.01), noisy] {
        let pairs = Scenario {
            candidate,
            reference: noisy,
            drift_sigma: 0.0,
            resolution_s: 0.0,
        }
        .pairs(40, &mut seeded(5));
        let m = run(&pairs, &JudgeParams::default());
        assert_eq!(m.verdict, Verdict::Noisy, "{}", m.detail);
        assert_eq!(m.state, LegState::Unsettled);
    }
}

#[test]
fn fewer_valid_pairs_than_min_samples_is_too_few() {
    let m = run(&quiet_run(1.5, 0.01, 9, 6), &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::TooFew, "{}", m.detail);
    assert_eq!(m.state, LegState::Unsettled);
    assert_eq!((m.pairs, m.valid_pairs), (9, 9));
    assert!(m.s.is_some(), "the few pairs are still described");
    let m = run(&[], &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::TooFew);
    assert_eq!((m.s, m.median_candidate, m.floor), (None, None, None));
    // Twelve pairs of which three are invalid: nine valid, too few (before invalid).
    let mut pairs = quiet_run(1.5, 0.01, 12, 7);
    pairs[0].candidate = f64::NAN;
    pairs[4].reference = 0.0;
    pairs[8].candidate = -1.0;
    let m = run(&pairs, &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::TooFew, "{}", m.detail);
    assert_eq!(m.valid_pairs, 9);
}

#[test]
fn any_bad_time_or_a_throttle_is_invalid() {
    let good = quiet_run(1.5, 0.01, 30, 8);
    assert_eq!(run(&good, &JudgeParams::default()).verdict, Verdict::Faster);
    for bad in [f64::NAN, 0.0, -1e-6, f64::INFINITY, f64::NEG_INFINITY] {
        for on_candidate in [true, false] {
            let mut pairs = good.clone();
            if on_candidate {
                pairs[17].candidate = bad;
            } else {
                pairs[17].reference = bad;
            }
            let m = run(&pairs, &JudgeParams::default());
            assert_eq!(
                m.verdict,
                Verdict::Invalid,
                "{bad} on candidate={on_candidate}: {}",
                m.detail
            );
            assert_eq!(m.state, LegState::Unsettled);
            assert_eq!(m.valid_pairs, 29);
        }
    }
    let facts = RunFacts {
        throttled: true,
        too_slow: None,
    };
    let m = judge(&good, &facts, &JudgeParams::default());
    assert_eq!(m.verdict, Verdict::Invalid, "{}", m.detail);
    assert!(m.throttled && m.detail.contains("throttled"));
}

#[test]
fn unusable_parameters_are_invalid_not_a_verdict_on_the_candidate() {
    let good = quiet_run(1.5, 0.01, 30, 9);
    let p = JudgeParams {
        resamples: 10,
        ..JudgeParams::default()
    };
    let m = run(&good, &p);
    assert_eq!(m.verdict, Verdict::Invalid);
    assert!(m.detail.contains("resamples"), "{}", m.detail);
}

#[test]
fn mad_zero_falls_back_to_the_minimum_floor() {
    // Every time identical: MAD 0 on both sides, the floor is min-floor and the interval a point.
    let pairs = vec![Pair::new(1e-5, 1.2e-5); 20];
    let m = run(&pairs, &JudgeParams::default());
    assert_eq!((m.mad_candidate, m.rel_mad_reference), (Some(0.0), Some(0.0)));
    assert_eq!(m.floor, Some(0.01));
    assert_eq!(m.verdict, Verdict::Faster, "{}", m.detail);
    assert_eq!((m.ci_low, m.ci_high), (m.s, m.s));
    // Identical sides at ratio 1: inside the floor band, no interval needed.
    let same = vec![Pair::new(1e-5, 1e-5); 20];
    let m = run(&same, &at_ratio(1.0));
    assert_eq!(m.verdict, Verdict::WithinNoise, "{}", m.detail);
    assert_eq!(
        m.ci_low, None,
        "the bootstrap is skipped when the floor test fails"
    );
    // A zero MAD hides outliers the bootstrap still sees: 11 of 20 candidate times tie at 7 µs,
    // the other 9 are far slower, so resampled medians often land on the slow ones.
    let mut pairs: Vec<Pair> = (0..20).map(|_| Pair::new(7e-6, 8e-6)).collect();
    for p in pairs.iter_mut().skip(11) {
        p.candidate = 9e-6;
    }
    let m = run(&pairs, &at_ratio(1.1));
    assert_eq!(m.rel_mad_candidate, Some(0.0));
    assert!(s_of(&m) >= 1.1 * 1.01, "s = {} passes the floor", s_of(&m));
    assert_eq!(m.verdict, Verdict::WithinNoise, "{}", m.detail);
    assert!(m.ci_low.expect("interval computed") < 1.1);
}

/// Ten pairs whose candidate times are bimodal (1.0 or 1.2) and paired against the opposite mode
/// of the reference (1.5 or 1.3): rel MADs under 10 %, s = 1.4 / 1.1, yet resampled speedups
/// range from 1.3 / 1.2 to 1.5.
fn bimodal_pairs() -> Vec<Pair> {
    (0..10)
        .map(|i| {
            if i % 2 == 0 {
                Pair::new(1.0e-4, 1.5e-4)
            } else {
                Pair::new(1.2e-4, 1.3e-4)
            }
        })
        .collect()
}

#[test]
fn passing_the_floor_is_not_enough_without_the_interval() {
    let pairs = bimodal_pairs();
    let up = run(&pairs, &at_ratio(1.15));
    let s = s_of(&up);
    let floor = up.floor.expect("computed");
    assert!((s - 1.4 / 1.1).abs() < 1e-9);
    assert!(
        s >= 1.15 * (1.0 + floor),
        "the floor test passes: s {s}, floor {floor}"
    );
    assert_eq!(up.verdict, Verdict::WithinNoise, "{}", up.detail);
    assert!(up.ci_low.expect("interval computed") < 1.15);
    let down = run(&pairs, &at_ratio(1.4));
    assert!(s <= 1.4 / (1.0 + floor), "the floor test passes the other way");
    assert_eq!(down.verdict, Verdict::WithinNoise, "{}", down.detail);
    assert!(down.ci_high.expect("interval computed") > 1.4);
}

#[test]
fn a_speedup_near_the_ratio_is_within_noise() {
    let m = run(&quiet_run(1.1, 0.01, 30, 10), &at_ratio(1.1));
    assert_eq!(m.verdict, Verdict::WithinNoise, "{}", m.detail);
    assert_eq!(m.state, LegState::Unsettled);
}

#[test]
fn the_record_serializes_s_ratio_and_the_verdict_code_and_round_trips() {
    let p = JudgeParams {
        keep_samples: true,
        ..JudgeParams::default()
    };
    let pairs = quiet_run(1.5, 0.01, 30, 11);
    let m = run(&pairs, &p);
    let v = serde_json::to_value(&m).expect("serializes");
    assert_eq!(v["verdict"], "faster");
    assert_eq!(v["state"], "clean");
    assert_eq!(v["s"].as_f64(), m.s);
    assert_eq!(v["ratio"].as_f64(), Some(1.1));
    assert_eq!(v["judge_version"], JUDGE_VERSION);
    assert_eq!(v["samples"].as_array().map(Vec::len), Some(30));
    let back: Measurement = serde_json::from_value(v).expect("deserializes");
    assert_eq!(back, m);
    let lean = serde_json::to_value(run(&pairs, &JudgeParams::default())).expect("serializes");
    assert!(lean.get("samples").is_none() && lean.get("too_slow").is_none());
}

/// Pairs whose sides have relative MAD `c` and `r` around medians 1.0 (`{1-a, 1, 1+a}` repeated).
fn spread_pairs(c: f64, r: f64, n: usize) -> Vec<Pair> {
    (0..n)
        .map(|i| {
            let k = [-1.0, 0.0, 1.0][i % 3];
            Pair::new(1.0 + k * c, 1.0 + k * r)
        })
        .collect()
}

#[test]
fn candidate_noise_must_be_its_own_to_be_penalised() {
    let p = JudgeParams::default();
    let f = RunFacts::default();
    let shared = judge(&spread_pairs(0.12, 0.09, 30), &f, &p);
    assert_eq!(shared.verdict, Verdict::Noisy, "{}", shared.detail);
    let own = judge(&spread_pairs(0.25, 0.05, 30), &f, &p);
    assert_eq!(own.verdict, Verdict::CandidateNoisy, "{}", own.detail);
    assert_eq!(own.verdict.state(), aorlta_record::LegState::Broke);
}
