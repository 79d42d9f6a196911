//! Properties of the judge over random runs: the verdict never contradicts the point speedup, the
//! record's state always matches its verdict, the verdict is a pure function of pairs, facts and
//! parameters, and it does not depend on the time unit.

use super::decide::judge;
use super::input::{Pair, RunFacts};
use super::params::JudgeParams;
use super::verdict::Verdict;
use proptest::prelude::*;

/// A random run: pairs with a true speedup, a spread (wider on the candidate's side in some runs), optional timer ticks (ties) and an optional
/// bad time, with random ratio, min-samples and seed.
fn runs() -> impl Strategy<Value = (Vec<Pair>, RunFacts, JudgeParams)> {
    (
        prop::collection::vec((-1.0f64..1.0, -1.0f64..1.0, -1.0f64..1.0), 0..48),
        0.0f64..0.25,
        0.5f64..2.0,
        prop_oneof![Just(0.0), 0.01f64..0.1],
        0.8f64..1.4,
        2usize..16,
        any::<u64>(),
        prop_oneof![8 => Just(None), 1 => Just(Some(f64::NAN)), 1 => Just(Some(0.0)), 1 => Just(Some(-1.0))],
        prop::bool::weighted(0.05),
        prop_oneof![Just(1.0), 1.0f64..12.0],
    )
        .prop_map(
            |(noise, spread, speedup, tick, ratio, min_samples, seed, bad, throttled, cand_mult)| {
                let base = 1e-4;
                let quantise = |t: f64| {
                    if tick > 0.0 {
                        ((t / (base * tick)).round().max(1.0)) * base * tick
                    } else {
                        t
                    }
                };
                let mut pairs: Vec<Pair> = noise
                    .iter()
                    .map(|&(shared, c, r)| {
                        let drift = (0.02 * shared).exp();
                        Pair::new(
                            quantise(base / speedup * drift * (spread * cand_mult * c).exp()),
                            quantise(base * drift * (spread * r).exp()),
                        )
                    })
                    .collect();
                if let (Some(bad), Some(first)) = (bad, pairs.first_mut()) {
                    first.reference = bad;
                }
                let params = JudgeParams {
                    ratio,
                    min_samples,
                    seed,
                    ..JudgeParams::default()
                };
                let facts = RunFacts {
                    throttled,
                    too_slow: None,
                };
                (pairs, facts, params)
            },
        )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(160))]

    #[test]
    fn faster_never_below_the_ratio_and_not_faster_never_above((pairs, facts, params) in runs()) {
        let m = judge(&pairs, &facts, &params);
        let s = m.s.unwrap_or(f64::NAN);
        if m.verdict == Verdict::Faster {
            prop_assert!(s >= params.ratio, "faster at s = {s} < ratio {}: {}", params.ratio, m.detail);
            prop_assert!(m.ci_low.is_some_and(|low| low >= params.ratio), "{}", m.detail);
        }
        if m.verdict == Verdict::NotFaster {
            prop_assert!(s <= params.ratio, "not-faster at s = {s} > ratio {}: {}", params.ratio, m.detail);
            prop_assert!(m.ci_high.is_some_and(|high| high <= params.ratio), "{}", m.detail);
        }
    }

    #[test]
    fn the_state_matches_the_verdict_in_the_record_and_in_json((pairs, facts, params) in runs()) {
        let m = judge(&pairs, &facts, &params);
        prop_assert_eq!(m.state, m.verdict.state());
        let v = serde_json::to_value(&m).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let code = v["verdict"].as_str().unwrap_or_default();
        prop_assert_eq!(code, m.verdict.code());
        prop_assert_eq!(Verdict::from_code(code).map(|v| v.state()), Some(m.state));
        prop_assert_eq!(v["state"].as_str(), Some(m.state.as_str()));
        prop_assert!(!m.detail.is_empty());
    }

    #[test]
    fn the_verdict_is_deterministic_for_a_seed((pairs, facts, params) in runs()) {
        let a = judge(&pairs, &facts, &params);
        let b = judge(&pairs, &facts, &params);
        // Compared through JSON: a NaN in a bad pair is not equal to itself as an f64.
        let (ja, jb) = (serde_json::to_string(&a), serde_json::to_string(&b));
        prop_assert_eq!(ja.ok(), jb.ok());
    }

    #[test]
    fn the_time_unit_does_not_matter((pairs, facts, params) in runs(), exp in -20i32..20) {
        // Scaling by a power of two is exact, so every statistic scales and every ratio is equal.
        let k = 2f64.powi(exp);
        let scaled: Vec<Pair> = pairs.iter().map(|p| Pair::new(p.candidate * k, p.reference * k)).collect();
        let a = judge(&pairs, &facts, &params);
        let b = judge(&scaled, &facts, &params);
        prop_assert_eq!(a.verdict, b.verdict);
        prop_assert_eq!(a.s.map(f64::to_bits), b.s.map(f64::to_bits));
        prop_assert_eq!(a.ci_low.map(f64::to_bits), b.ci_low.map(f64::to_bits));
    }

    #[test]
    fn faster_at_a_ratio_is_faster_at_every_lower_one((pairs, facts, params) in runs(), cut in 0.5f64..1.0) {
        let m = judge(&pairs, &facts, &params);
        if m.verdict == Verdict::Faster {
            let lower = JudgeParams { ratio: params.ratio * cut, ..params.clone() };
            let l = judge(&pairs, &facts, &lower);
            prop_assert_eq!(l.verdict, Verdict::Faster, "{}", l.detail);
        }
    }
}

/// The properties above mean something only if the generated runs reach the verdicts they test.
#[test]
fn the_generated_runs_reach_every_verdict_the_properties_are_about() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let mut counts = std::collections::HashMap::new();
    for _ in 0..400 {
        let tree = runs().new_tree(&mut runner);
        let (pairs, facts, params) = tree.map_err(|e| e.to_string()).expect("strategy draws").current();
        *counts
            .entry(judge(&pairs, &facts, &params).verdict)
            .or_insert(0usize) += 1;
    }
    for v in Verdict::ALL
        .into_iter()
        .filter(|v| *v != Verdict::TooSlowToMeasure)
    {
        assert!(
            counts.get(&v).copied().unwrap_or(0) >= 10,
            "{v} drawn too rarely: {counts:?}"
        );
    }
}
