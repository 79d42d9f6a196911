//! `aorlta validate --fake-gpu` over the shipped suite: every case passes on the fake device, every
//! verdict is the recorded one, and a case's row is the same when run again on its own (the run is
//! deterministic).

mod common;

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

#[test]
fn a_missing_suite_is_an_error_naming_it() {
    let out = aorlta()
        .args(["validate", "--fake-gpu", "--suite", "no/such/suite.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/suite.yaml"));
}
