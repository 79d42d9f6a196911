//! An episode at a kernel task through the service on the fake device: no kernel, then the
//! reference; each turn's feedback says what happened, the turn rewards follow the mode.

use super::client::{Server, examples};
use serde_json::json;

#[test]
fn a_kernel_episode_on_the_fake_device_reads_its_feedback_turn_by_turn() {
    let kernels = examples().join("../kernels");
    let s = Server::start_with(&format!(
        "tasks: {k}/tasks\nprofiles: [{k}/profile.yaml]\ngpus: [0]\nkernel: {{fake-gpu: true, lease-dir: leases}}\n",
        k = kernels.display()
    ));
    let head = s
        .post_json(
            "/v1/episodes",
            &json!({"task": "vector_add", "max_turns": 2, "turn_reward": "gain"}),
        )
        .json();
    let id = head["id"]
        .as_str()
        .unwrap_or_else(|| panic!("{head}"))
        .to_string();
    let turns = format!("/v1/episodes/{id}/turns");
    let t0 = s
        .post_json(
            &turns,
            &json!({"completion": "I would loop over the elements.", "turn_id": "a"}),
        )
        .json();
    assert_eq!(t0["reward"], -1.0, "{t0}");
    assert!(
        t0["feedback"].as_str().unwrap().contains("No fenced code block"),
        "{t0}"
    );
    let reference = std::fs::read_to_string(kernels.join("reference/vector_add.cu")).unwrap();
    let completion = format!("Here it is.\n```cuda\n{reference}```\n");
    let t1 = s
        .post_json(&turns, &json!({"completion": completion, "turn_id": "b"}))
        .json();
    assert_eq!(
        (t1["reward"].clone(), t1["done"].clone()),
        (json!(2.0), json!(true)),
        "{t1}"
    );
    let feedback = t1["feedback"].as_str().unwrap();
    assert!(feedback.contains("compile: It compiled."), "{feedback}");
    assert!(
        feedback.contains("ref.native: Correct: every output matched the reference"),
        "{feedback}"
    );
    // Retried: the same turn, not a third.
    let again = s
        .post_json(&turns, &json!({"completion": "x", "turn_id": "b"}))
        .json();
    assert_eq!(again, t1);
    let transcript = s.get(&format!("/v1/episodes/{id}")).json();
    assert_eq!(transcript["turns"].as_array().unwrap().len(), 2);
}
