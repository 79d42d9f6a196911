//! The shipped Q&A example, scored through the engine, agrees line by line with the outcome its
//! generator intended (`examples/qa/expected.jsonl`).

use aorlta_check::TaskSet;
use aorlta_core::LoadedProfile;
use aorlta_core::RewardRegistry;
use aorlta_core::read_pool;
use aorlta_core::{Engine, EngineParts};
use aorlta_record::{LegState, RewardEntry};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

fn example(file: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/qa")
        .join(file)
}

fn outcome(e: &RewardEntry) -> String {
    let leg = |n: &str| e.legs.iter().find(|l| l.name == n).expect("leg present");
    let parse = leg("parse");
    if parse.state == LegState::Broke {
        return parse.first_code().unwrap_or("?").to_string();
    }
    let norm = leg("ref.normalised");
    match (norm.state, norm.first_code()) {
        (LegState::Clean, _) => "right".into(),
        (LegState::Broke, Some("wrong-answer")) => "wrong".into(),
        (LegState::Broke, Some("answer-unreadable")) => "unreadable".into(),
        (s, c) => format!("{s}:{c:?}"),
    }
}

#[test]
fn both_pools_score_as_intended() {
    let registry = aorlta_core::adapters();
    let profile =
        LoadedProfile::load(&example("profile.yaml"), &registry, &RewardRegistry::builtin()).unwrap();
    let (tasks, skipped) = TaskSet::load(&example("tasks.jsonl"), &aorlta_core::lanes()).unwrap();
    assert!(skipped.is_empty());
    let engine = Engine::new(profile, Arc::new(tasks), EngineParts::default());
    let expected: HashMap<String, String> = std::fs::read_to_string(example("expected.jsonl"))
        .unwrap()
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["id"].as_str().unwrap().to_string(),
                v["expect"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let mut misses = Vec::new();
    let mut means = Vec::new();
    for pool in ["before.jsonl", "after.jsonl"] {
        let (cands, skipped) = read_pool(&example(pool)).unwrap();
        assert!(skipped.is_empty());
        assert!(cands.len() >= 200);
        let mut total = 0.0;
        for c in &cands {
            let e = engine.score(c);
            assert!(e.scored, "{}: unscored {:?}", c.id, e.reasons);
            total += e.reward.unwrap();
            let got = outcome(&e);
            let want = &expected[&c.id];
            if &got != want {
                let answer = e.legs[0].detail.as_ref().and_then(|d| d.get("answer")).cloned();
                misses.push(format!(
                    "{}: expected {want}, got {got} (answer {answer:?})",
                    c.id
                ));
            }
        }
        means.push(total / cands.len() as f64);
    }
    assert!(
        misses.is_empty(),
        "{} disagreements:\n{}",
        misses.len(),
        misses.join("\n")
    );
    assert!(
        means[1] > means[0] + 0.3,
        "after is better than before: {means:?}"
    );
}
