//! `aorlta validate --fake-gpu` over the shipped suite: every case passes on the fake device, every
//! verdict is the recorded one, and a case's row is the same when run again on its own (the run is
//! deterministic).

use crate::common;

use common::{aorlta, passed, row, verdicts};

const SUITE: &str = "examples/kernels/validation.yaml";

fn validate(extra: &[&str]) -> (i32, String) {
    common::validate(SUITE, extra)
}

#[test]
fn the_suite_passes_on_the_fake_device_and_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("validate.json");
    let (code, text) = validate(&["--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    insta::assert_snapshot!(
        "fake_gpu_verdicts",
        verdicts(&std::fs::read_to_string(&json).unwrap())
    );
    let (pass, of) = passed(&text);
    assert_eq!(pass, of, "{text}");
    assert!(pass >= 40, "{text}");
    feedback_without_seeds(&std::fs::read_to_string(&json).unwrap());
    assert!(!text.contains("FAIL"));
    assert!(text.contains("\ntarget: CUDA on NVIDIA\n"), "{text}");
    // Every threat of docs/VALIDATION.md is a case, and each was caught.
    common::assert_rows(&text, common::THREATS);
    common::assert_rows(
        &text,
        &[("vector_add/very-slow", "time broke too-slow-to-measure")],
    );
    let (code, again) = validate(&["--only", "transpose/s"]);
    assert_eq!(code, 0, "{again}");
    for case in [
        "transpose/self",
        "transpose/slower",
        "transpose/sentinel-skip",
        "transpose/stateful-counter",
    ] {
        assert_eq!(row(&text, case), row(&again, case), "{case} differs between runs");
    }
}

/// Every case's entry carries feedback with no seed its legs drew (common::feedback_holds_no_seed),
/// and a wrong output's names its size, the family of its inputs in words and the place of the
/// first mismatch.
fn feedback_without_seeds(json: &str) {
    common::feedback_holds_no_seed(json);
    let cases: Vec<serde_json::Value> = serde_json::from_str(json).unwrap();
    let mut mismatches = 0;
    for c in &cases {
        let id = c["id"].as_str().unwrap_or("?");
        let text = c["feedback"].as_str().unwrap_or_default();
        let mismatch = c["legs"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|l| l["reasons"][0]["code"] == "output-mismatch");
        if mismatch {
            mismatches += 1;
            assert!(text.contains("Wrong at size "), "{id}: {text}");
            assert!(text.contains(" held "), "{id}: {text}");
            assert!(text.contains("the first mismatch is in `"), "{id}: {text}");
        }
    }
    assert!(mismatches > 0, "no case with a wrong output");
}

#[test]
fn a_missing_suite_is_an_error_naming_it() {
    let out = aorlta()
        .args(["validate", "--fake-gpu", "--suite", "no/such/suite.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/suite.yaml"));
}

/// A copy of the example suite with one task file edited; the stderr of validating it.
fn validate_edited(task: &str, from: &str, to: &str) -> (Option<i32>, String, std::path::PathBuf) {
    let dir = tempfile::tempdir().unwrap().keep();
    let src = common::root().join("examples/kernels");
    let candidates = format!("candidates/{task}");
    common::copy_example_folders(&dir, &["tasks", "reference", candidates.as_str()]);
    for f in ["validation.yaml", "profile-speed.yaml"] {
        std::fs::copy(src.join(f), dir.join(f)).unwrap();
    }
    let file = dir.join("tasks").join(format!("{task}.yaml"));
    common::replace_in(&file, from, to);
    let out = aorlta()
        .args(["validate", "--fake-gpu", "--suite"])
        .arg(dir.join("validation.yaml"))
        .args(["--only", &format!("{task}/self")])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        file,
    )
}

#[test]
fn a_task_whose_tolerance_lets_zeros_pass_is_refused_naming_the_file_and_size() {
    // softmax outputs are at most 1: with atol 1 an all-zero output passes every size.
    let (code, err, file) = validate_edited(
        "softmax",
        "tolerance: {atol: 1.0e-6, rtol: 1.0e-4}",
        "tolerance: {atol: 1.0, rtol: 1.0e-4}",
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains(file.to_str().unwrap()), "{err}");
    assert!(err.contains("tolerance sanity"), "{err}");
    assert!(err.contains("size 0 (cols = "), "{err}");
    assert!(
        err.contains("an all-zero output matches the reference within atol 1, rtol 0.0001"),
        "{err}"
    );
}

#[test]
fn a_tolerance_loose_enough_for_a_coarser_precision_is_refused_at_its_line() {
    let (code, err, file) = validate_edited(
        "matmul",
        "tolerance: {atol: 1.0e-3, rtol: 1.0e-4}",
        "tolerance: {atol: 1.0e-3, rtol: 1.0e-3}",
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains(&format!("{}:51: field `tolerance`", file.display())),
        "{err}"
    );
    assert!(err.contains("a kernel computing in tf32 passes it"), "{err}");
}

/// The scan fails on a seed in decimal or hex, on the guard's mark, and on a suite with no seed.
#[test]
fn the_seed_scan_fails_where_a_seed_or_its_mark_reaches_the_feedback() {
    let entry = |feedback: &str, seeds: &str| {
        format!(
            r#"[{{"id": "t/c", "feedback": "{feedback}", "legs": [{{"detail": {{"seeds": [{seeds}]}}}}]}}]"#
        )
    };
    assert_eq!(
        common::feedback_holds_no_seed(&entry("Correct.", "3735928559, 77")),
        2
    );
    for (feedback, seeds) in [
        ("drawn with 3735928559", "3735928559"),
        ("drawn with 0xdeadbeef", "3735928559"),
        ("drawn with DEADBEEF", "3735928559"),
        ("drawn with [seed]", "3735928559"),
        ("Correct.", ""),
    ] {
        let json = entry(feedback, seeds);
        let failed = std::panic::catch_unwind(|| common::feedback_holds_no_seed(&json)).is_err();
        assert!(failed, "{feedback:?} with seeds [{seeds}] passed the scan");
    }
}
