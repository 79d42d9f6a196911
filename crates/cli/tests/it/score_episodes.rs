//! `aorlta score CONFIG --episodes FILE`: a file of episodes replayed offline, each turn's
//! entry, feedback and turn reward written a line each; a malformed line names its place.

use std::path::Path;
use std::process::Command;

const PROFILE: &str = "name: qa
legs:
  - {name: parse, adapter: parse, on-broke: -1.0}
  - {name: ref.normalised, adapter: normalised-match, needs: [parse], on-broke: -0.5}
";

fn setup(dir: &Path, episodes: &str) {
    std::fs::write(
        dir.join("tasks.jsonl"),
        "{\"id\":\"mul\",\"prompt\":\"17*23?\",\"answer\":\"391\"}\n{\"id\":\"add\",\"prompt\":\"1+1?\",\"answer\":\"2\"}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("pool.jsonl"),
        "{\"task\":\"add\",\"completion\":\"\\\\boxed{2}\"}\n",
    )
    .unwrap();
    std::fs::write(dir.join("profile.yaml"), PROFILE).unwrap();
    std::fs::write(
        dir.join("run.yaml"),
        "tasks: tasks.jsonl\npool: pool.jsonl\nprofile: profile.yaml\nout: out\n",
    )
    .unwrap();
    std::fs::write(dir.join("episodes.jsonl"), episodes).unwrap();
}

fn replay(dir: &Path, extra: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_aorlta"))
        .env_remove(aorlta_store::CACHE_URL_VAR)
        .args(["score", "--quiet"])
        .arg(dir.join("run.yaml"))
        .arg("--episodes")
        .arg(dir.join("episodes.jsonl"))
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn episodes_replay_into_turn_rewards_and_feedback() {
    let dir = tempfile::tempdir().unwrap();
    // Two episodes interleaved: wrong, then no answer, then right; right at once.
    setup(
        dir.path(),
        "{\"episode\":\"e1\",\"task\":\"mul\",\"completion\":\"\\\\boxed{390}\"}\n\
         {\"episode\":\"e2\",\"task\":\"add\",\"completion\":\"\\\\boxed{2}\"}\n\
         {\"episode\":\"e1\",\"task\":\"mul\",\"completion\":\"hmm\"}\n\
         {\"episode\":\"e1\",\"task\":\"mul\",\"completion\":\"\\\\boxed{391}\"}\n",
    );
    let out = replay(dir.path(), &["--turn-reward", "best-so-far", "--discount", "0.5"]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("2 episodes, 4 turns"), "{stdout}");
    let text = std::fs::read_to_string(dir.path().join("out/episodes.jsonl")).unwrap();
    let rows: Vec<serde_json::Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let got: Vec<(String, u64, f64, f64)> = rows
        .iter()
        .map(|r| {
            (
                r["episode"].as_str().unwrap().to_string(),
                r["turn"].as_u64().unwrap(),
                r["reward"].as_f64().unwrap(),
                r["discounted_sum"].as_f64().unwrap(),
            )
        })
        .collect();
    // e1: own rewards -0.5, -1.0, 1.0; best so far -0.5, -0.5, 1.0; sum -0.5 - 0.25 + 0.25.
    assert_eq!(
        got,
        vec![
            ("e1".into(), 0, -0.5, -0.5),
            ("e2".into(), 0, 1.0, 1.0),
            ("e1".into(), 1, -0.5, -0.75),
            ("e1".into(), 2, 1.0, -0.5),
        ]
    );
    assert!(
        rows[0]["feedback"].as_str().unwrap().contains("read as `390`"),
        "{}",
        rows[0]
    );
    assert!(
        rows[2]["feedback"]
            .as_str()
            .unwrap()
            .contains("No answer was found"),
        "{}",
        rows[2]
    );
    assert_eq!(rows[3]["entry"]["id"], "e1#2");
}

#[test]
fn a_line_that_is_not_a_turn_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    setup(
        dir.path(),
        "{\"episode\":\"e1\",\"task\":\"mul\",\"completion\":\"x\"}\n{\"episode\":\"e1\",\"task\":\"mul\"}\n",
    );
    let out = replay(dir.path(), &[]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("episodes.jsonl:2"), "{err}");
    assert!(!dir.path().join("out/episodes.jsonl").exists());
    let out = replay(dir.path(), &["--turn-reward", "median"]);
    assert!(String::from_utf8_lossy(&out.stderr).contains("not one of own, best-so-far, gain"));
}
