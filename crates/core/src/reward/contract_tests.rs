//! Property tests of the reward contract over every registered function: random profiles and
//! random leg outcomes never give a scored reward out of [-1.55, 1.0], never a scored entry
//! over an unsettled rewarded leg, and the unscored outcome always carries a reason; the
//! entries they make pass [`aorlta_record::check_entry`].

use super::*;
use crate::profile::{LegSpec, LengthLimits, Profile};
use aorlta_record::{LegResult, LegState};
use aorlta_record::{REWARD_MAX, REWARD_MIN, check_entry};
use proptest::prelude::*;

fn state() -> impl Strategy<Value = LegState> {
    prop_oneof![
        Just(LegState::Clean),
        Just(LegState::Broke),
        Just(LegState::Unsettled),
        Just(LegState::Skipped)
    ]
}

fn code() -> impl Strategy<Value = String> {
    prop_oneof![
        Just("not-faster"),
        Just("too-slow-to-measure"),
        Just("candidate-noisy"),
        Just("timed-launch-mismatch"),
        Just("guard-overwritten"),
        Just("input-mutated"),
        Just("device-faulted"),
        Just("hung"),
        Just("wrong-answer"),
        Just("within-noise"),
    ]
    .prop_map(String::from)
}

/// A leg outcome: state, reason codes, and a detail with a possibly odd `s` and `ratio`.
fn outcome() -> impl Strategy<Value = (LegState, Vec<String>, Option<(f64, f64)>)> {
    let num = prop_oneof![
        (0.0001f64..100.0),
        Just(f64::NAN),
        Just(f64::INFINITY),
        Just(0.0),
        Just(-1.0),
        Just(1e300)
    ];
    (
        state(),
        prop::collection::vec(code(), 0..4),
        prop::option::of((num.clone(), num)),
    )
}

fn leg_spec() -> impl Strategy<Value = (bool, Option<f64>)> {
    (any::<bool>(), prop::option::of(-1.0f64..=1.0))
}

prop_compose! {
    fn case()(
        specs in prop::collection::vec(leg_spec(), 1..6),
        outcomes in prop::collection::vec(outcome(), 6),
        timing_at in 0usize..6,
        clean_base in -1.0f64..=1.0,
        length in prop::option::of((1usize..5000, 0usize..5000)),
        completion_len in 0usize..20000,
    ) -> (Profile, Vec<LegResult>, usize) {
        let n = specs.len();
        let legs: Vec<LegSpec> = specs.iter().enumerate().map(|(i, (informational, on_broke))| LegSpec {
            name: format!("leg{i}"),
            adapter: "parse".into(),
            needs: vec![],
            params: serde_json::Value::Null,
            on_broke: if *informational { None } else { *on_broke },
            informational: *informational && i != timing_at % n,
            timing: i == timing_at % n,
        }).collect();
        let results: Vec<LegResult> = legs.iter().zip(outcomes).map(|(l, (state, codes, sr))| {
            let mut r = LegResult::clean(&l.name, "parse");
            r.state = state;
            r.informational = l.informational;
            r.reasons = codes.into_iter().map(|c| aorlta_record::Reason::new(c, "x")).collect();
            if state != LegState::Clean && r.reasons.is_empty() {
                r.reasons.push(aorlta_record::Reason::new("other", "x"));
            }
            r.detail = sr.map(|(s, ratio)| serde_json::json!({"s": s, "ratio": ratio}));
            r
        }).collect();
        let profile = Profile {
            name: "p".into(),
            description: String::new(),
            reward_fn: String::new(),
            clean_base,
            unscored_value: 0.0,
            length: length.map(|(soft, extra)| LengthLimits { soft, hard: soft + extra }),
            legs,
            feedback: None,
        };
        (profile, results, completion_len)
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(3000))]

    #[test]
    fn every_registered_function_keeps_the_contract((profile, legs, completion_len) in case()) {
        let registry = RewardRegistry::builtin();
        let input = RewardInput { profile: &profile, legs: &legs, completion_len };
        let any_unsettled = !unsettled_rewarded(&input).is_empty();
        for f in registry.all().filter(|f| f.check_profile(&profile).is_ok()) {
            match apply(f.as_ref(), &input) {
                RewardOutcome::Scored(p) => {
                    prop_assert!(parts_in_range(&p), "{}: {:?}", f.name(), p);
                    prop_assert!(p.sum().is_finite());
                    prop_assert!((REWARD_MIN..=REWARD_MAX).contains(&p.sum()));
                    prop_assert!(!any_unsettled, "{} scored over an unsettled leg", f.name());
                }
                RewardOutcome::Unscored(r) => prop_assert!(!r.is_empty(), "{}: no reason", f.name()),
            }
            // The entry it makes passes the check an entry read back from a store must pass.
            let (reward, parts, reasons) = match apply(f.as_ref(), &input) {
                RewardOutcome::Scored(p) => (Some(p.sum()), Some(p), vec![]),
                RewardOutcome::Unscored(r) => (None, None, r),
            };
            let mut entry = aorlta_record::RewardEntry::error("c", "t", "p", aorlta_record::Reason::new("x", "y"));
            (entry.reward, entry.scored, entry.parts, entry.reasons, entry.legs) =
                (reward, reward.is_some(), parts, reasons, legs.clone());
            prop_assert_eq!(check_entry(&entry), Ok(()), "{}: {:?}", f.name(), entry);
            // The raw function (before the guard) must keep the rules too.
            if let RewardOutcome::Scored(p) = f.reward(&input) {
                prop_assert!(parts_in_range(&p), "{} (raw): {:?}", f.name(), p);
                prop_assert!(!any_unsettled, "{} (raw) scored over an unsettled leg", f.name());
            }
        }
    }
}

fn profile_of(legs: Vec<LegSpec>) -> Profile {
    Profile {
        name: "p".into(),
        description: String::new(),
        reward_fn: String::new(),
        clean_base: 1.0,
        unscored_value: 0.0,
        length: Some(LengthLimits { soft: 100, hard: 200 }),
        legs,
        feedback: None,
    }
}

fn spec(name: &str, on_broke: Option<f64>, informational: bool, timing: bool) -> LegSpec {
    LegSpec {
        name: name.into(),
        adapter: "parse".into(),
        needs: vec![],
        params: serde_json::Value::Null,
        on_broke,
        informational,
        timing,
    }
}

fn result(name: &str, state: LegState, code: Option<&str>, sr: Option<(f64, f64)>) -> LegResult {
    let mut r = LegResult::clean(name, "parse");
    r.state = state;
    if let Some(c) = code {
        r.reasons.push(aorlta_record::Reason::new(c, "d"));
    }
    r.detail = sr.map(|(s, ratio)| serde_json::json!({"s": s, "ratio": ratio}));
    r
}

fn speed_profile() -> Profile {
    profile_of(vec![
        spec("parse", Some(-1.0), false, false),
        spec("compile", Some(-0.75), false, false),
        spec("ref.native", Some(-0.5), false, false),
        spec("ref.speedup", None, false, true),
    ])
}

fn speed(legs: &[LegResult], len: usize) -> RewardOutcome {
    let p = speed_profile();
    apply(
        &SpeedupReward,
        &RewardInput {
            profile: &p,
            legs,
            completion_len: len,
        },
    )
}

fn clean3() -> Vec<LegResult> {
    ["parse", "compile", "ref.native"]
        .iter()
        .map(|n| result(n, LegState::Clean, None, None))
        .collect()
}

#[test]
fn speedup_grades_follow_the_spec() {
    let mut legs = clean3();
    legs.push(result(
        "ref.speedup",
        LegState::Clean,
        Some("faster"),
        Some((2.2, 1.1)),
    ));
    assert_eq!(
        speed(&legs, 10),
        RewardOutcome::Scored(Parts {
            base: 1.0,
            broke_healthy: 0.0,
            length: 0.0
        })
    );
    legs[3] = result(
        "ref.speedup",
        LegState::Clean,
        Some("faster"),
        Some((1.1 * 2f64.sqrt(), 1.1)),
    );
    let RewardOutcome::Scored(p) = speed(&legs, 10) else {
        panic!()
    };
    assert!((p.base - 0.875).abs() < 1e-12, "{p:?}");
    legs[3] = result(
        "ref.speedup",
        LegState::Broke,
        Some("not-faster"),
        Some((1.0, 1.1)),
    );
    let RewardOutcome::Scored(p) = speed(&legs, 10) else {
        panic!()
    };
    assert!((p.base - 0.49 / 1.1).abs() < 1e-12 && p.base < 0.5, "{p:?}");
    legs[3] = result("ref.speedup", LegState::Broke, Some("too-slow-to-measure"), None);
    assert!(matches!(speed(&legs, 10), RewardOutcome::Scored(p) if p.base == 0.0));
    legs[3] = result(
        "ref.speedup",
        LegState::Broke,
        Some("timed-launch-mismatch"),
        None,
    );
    assert!(matches!(speed(&legs, 10), RewardOutcome::Scored(p) if p.base == -0.5));
    legs[3] = result(
        "ref.speedup",
        LegState::Unsettled,
        Some("within-noise"),
        Some((1.1, 1.1)),
    );
    let RewardOutcome::Unscored(r) = speed(&legs, 10) else {
        panic!("within-noise must be unscored")
    };
    assert_eq!(r[0].code, "within-noise");
}

#[test]
fn speed_never_rescues_a_wrong_kernel_and_penalties_add_up() {
    let mut legs = clean3();
    legs[2] = result("ref.native", LegState::Broke, Some("guard-overwritten"), None);
    legs[2]
        .reasons
        .push(aorlta_record::Reason::new("input-mutated", "d"));
    legs.push(result(
        "ref.speedup",
        LegState::Skipped,
        Some("needs-not-clean"),
        None,
    ));
    let RewardOutcome::Scored(p) = speed(&legs, 150) else {
        panic!()
    };
    assert_eq!(p.base, -0.5);
    assert_eq!(p.broke_healthy, -0.5);
    assert!((p.length + 0.025).abs() < 1e-12, "{p:?}");
    assert!((p.sum() + 1.025).abs() < 1e-12);
}

#[test]
fn ladder_takes_the_first_broken_rung_and_informational_legs_do_not_count() {
    let p = profile_of(vec![
        spec("parse", Some(-1.0), false, false),
        spec("ref.exact", None, true, false),
        spec("ref.normalised", Some(-0.5), false, false),
    ]);
    let legs = vec![
        result("parse", LegState::Clean, None, None),
        result("ref.exact", LegState::Unsettled, Some("x"), None),
        result("ref.normalised", LegState::Broke, Some("wrong-answer"), None),
    ];
    let out = apply(
        &BaseReward,
        &RewardInput {
            profile: &p,
            legs: &legs,
            completion_len: 0,
        },
    );
    assert_eq!(
        out,
        RewardOutcome::Scored(Parts {
            base: -0.5,
            broke_healthy: 0.0,
            length: 0.0
        })
    );
    let legs = vec![
        result("parse", LegState::Broke, Some("no-answer"), None),
        result("ref.exact", LegState::Skipped, Some("needs-not-clean"), None),
        result("ref.normalised", LegState::Skipped, Some("needs-not-clean"), None),
    ];
    let out = apply(
        &BaseReward,
        &RewardInput {
            profile: &p,
            legs: &legs,
            completion_len: 500,
        },
    );
    assert_eq!(
        out,
        RewardOutcome::Scored(Parts {
            base: -1.0,
            broke_healthy: 0.0,
            length: -0.05
        })
    );
}

#[test]
fn an_unsettled_rewarded_leg_is_never_scored() {
    let p = profile_of(vec![
        spec("parse", Some(-1.0), false, false),
        spec("ref.normalised", Some(-0.5), false, false),
    ]);
    let legs = vec![
        result("parse", LegState::Clean, None, None),
        result(
            "ref.normalised",
            LegState::Unsettled,
            Some("reference-unreadable"),
            None,
        ),
    ];
    let out = apply(
        &BaseReward,
        &RewardInput {
            profile: &p,
            legs: &legs,
            completion_len: 0,
        },
    );
    let RewardOutcome::Unscored(r) = out else {
        panic!("must be unscored")
    };
    assert_eq!(r[0].code, "reference-unreadable");
}

struct Cheater;
impl RewardFn for Cheater {
    fn name(&self) -> &'static str {
        "rewardfn.cheater"
    }
    fn reward(&self, _: &RewardInput<'_>) -> RewardOutcome {
        RewardOutcome::Scored(Parts {
            base: 1.0,
            broke_healthy: 0.0,
            length: 0.5,
        })
    }
}

#[test]
fn the_guard_catches_a_function_that_breaks_the_rules() {
    let p = profile_of(vec![spec("parse", Some(-1.0), false, false)]);
    let legs = vec![result("parse", LegState::Unsettled, Some("x"), None)];
    let out = apply(
        &Cheater,
        &RewardInput {
            profile: &p,
            legs: &legs,
            completion_len: 0,
        },
    );
    assert!(matches!(out, RewardOutcome::Unscored(r) if r[0].code == "reward-contract-violated"));
    let legs = vec![result("parse", LegState::Clean, None, None)];
    let out = apply(
        &Cheater,
        &RewardInput {
            profile: &p,
            legs: &legs,
            completion_len: 0,
        },
    );
    assert!(matches!(out, RewardOutcome::Unscored(r) if r[0].code == "reward-contract-violated"));
}
