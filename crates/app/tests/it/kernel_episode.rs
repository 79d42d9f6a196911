//! A scripted kernel episode on the fake device, replayed through the engine: a kernel wrong on
//! one size, then a correct one no faster than the reference, then a faster one. Each turn's
//! feedback says what the model needs (the failing size and its input families, then the
//! verdict, the speedup and the bandwidth), and the turn rewards follow the mode.

use aorlta_check::TaskSet;
use aorlta_core::LoadedProfile;
use aorlta_core::RewardRegistry;
use aorlta_core::{Engine, EngineParts};
use aorlta_kernel::{FakeSpec, GpuSet, KernelConfig, KernelEnv, KernelTools};
use aorlta_record::FakeBehaviour;
use aorlta_record::TurnReward;
use std::path::PathBuf;
use std::sync::Arc;

fn kernels() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels")
}

#[test]
fn wrong_then_correct_then_faster_on_the_fake_device() {
    let dir = tempfile::tempdir().unwrap();
    let kernel = KernelEnv::from_config(&KernelConfig {
        work_dir: Some(dir.path().join("work")),
        lease_dir: Some(dir.path().join("leases")),
        gpus: GpuSet::List(vec![0]),
        fake_gpu: true,
        ..KernelConfig::default()
    })
    .unwrap();
    let env = Arc::new(aorlta_kernel::env_of(dir.path().join("work"), Some(kernel)));
    let (tasks, _) = TaskSet::load(&kernels().join("tasks/vector_add.yaml"), &aorlta_core::lanes()).unwrap();
    let task = tasks.get("vector_add").unwrap().clone();
    let Some(def) = aorlta_kernel::KernelTaskDef::of(&task) else {
        panic!("a kernel task")
    };
    let mut lines = String::new();
    for (name, spec) in [
        (
            "hardcoded-size",
            FakeSpec {
                behaviour: FakeBehaviour::HardcodedSize,
                ..FakeSpec::default()
            },
        ),
        (
            "slower",
            FakeSpec {
                speed: 1.3,
                ..FakeSpec::default()
            },
        ),
        (
            "faster",
            FakeSpec {
                speed: 0.6,
                ..FakeSpec::default()
            },
        ),
    ] {
        let source =
            std::fs::read_to_string(kernels().join(format!("candidates/vector_add/{name}.cu"))).unwrap();
        let completion = format!("My kernel:\n```cuda\n{source}```\n");
        let extracted = aorlta_kernel::kernel_source(&completion, def).unwrap();
        env.kernel().unwrap().add_fake(&extracted, spec);
        lines.push_str(&format!(
            "{}\n",
            serde_json::json!({"episode": "k", "task": "vector_add", "completion": completion})
        ));
    }
    let profile_text = std::fs::read_to_string(kernels().join("profile-speed.yaml"))
        .unwrap()
        .replace("params: {ratio: 1.1}", "params: {ratio: 1.0}");
    let profile = LoadedProfile::from_yaml(
        &profile_text,
        &kernels().join("profile-speed.yaml"),
        &aorlta_core::adapters(),
        &RewardRegistry::builtin(),
    )
    .unwrap();
    let parts = EngineParts {
        env,
        ..EngineParts::default()
    };
    let engine = Engine::new(profile, Arc::new(tasks), parts);
    let file = dir.path().join("episodes.jsonl");
    std::fs::write(&file, lines).unwrap();
    let out = dir.path().join("out.jsonl");
    let r = aorlta_app::replay(&engine, &file, TurnReward::BestSoFar, 1.0, &out).unwrap();
    assert_eq!((r.episodes, r.turns), (1, 3));
    let rows: Vec<serde_json::Value> = std::fs::read_to_string(&out)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let own: Vec<f64> = rows
        .iter()
        .map(|r| r["entry"]["reward"].as_f64().unwrap())
        .collect();
    let feedback: Vec<&str> = rows.iter().map(|r| r["feedback"].as_str().unwrap()).collect();
    // Turn 1: wrong on a size the task names, with its values and input families.
    assert_eq!(own[0], -0.5, "{}", feedback[0]);
    assert!(
        feedback[0].contains("ref.native: Wrong at size "),
        "{}",
        feedback[0]
    );
    assert!(feedback[0].contains("(n = "), "{}", feedback[0]);
    assert!(feedback[0].contains("`a` held "), "{}", feedback[0]);
    assert!(
        feedback[0].contains("the first mismatch is in `c` at element "),
        "{}",
        feedback[0]
    );
    assert!(feedback[0].contains("ref.speedup: Not timed"), "{}", feedback[0]);
    // Turn 2: correct, not faster: below 0.5.
    assert!((0.0..0.5).contains(&own[1]), "{}", feedback[1]);
    assert!(
        feedback[1].contains("Correct: every output matched"),
        "{}",
        feedback[1]
    );
    assert!(
        feedback[1].contains("Timing: not faster than the reference."),
        "{}",
        feedback[1]
    );
    // Turn 3: faster, with the speedup, its interval, both times and the bandwidth.
    assert!(own[2] >= 0.75, "{}", feedback[2]);
    for part in [
        "Timing: faster than the reference. Speedup s = ",
        "(interval ",
        "Reference ",
        "yours ",
        "B/s",
    ] {
        assert!(feedback[2].contains(part), "{part}: {}", feedback[2]);
    }
    // The fake device is no GPU the peaks table knows: no comparison.
    assert!(!feedback[2].contains("% of the"), "{}", feedback[2]);
    let best: Vec<f64> = rows.iter().map(|r| r["reward"].as_f64().unwrap()).collect();
    assert_eq!(best, vec![own[0], own[1], own[2]]);
}
