//! `aorlta validate --fake-gpu` over the shipped suite: every case passes on the fake device,
//! and a case's row is the same when run again on its own (the run is deterministic).

use std::path::PathBuf;
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn validate(extra: &[&str]) -> (i32, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_aorlta"))
        .args([
            "validate",
            "--fake-gpu",
            "--suite",
            "examples/kernels/validation.yaml",
        ])
        .args(extra)
        .current_dir(root())
        .output()
        .expect("aorlta runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

fn row<'a>(text: &'a str, case: &str) -> &'a str {
    text.lines()
        .find(|l| l.split_whitespace().next() == Some(case))
        .unwrap_or_else(|| panic!("no row for {case} in\n{text}"))
}

#[test]
fn the_suite_passes_on_the_fake_device_and_repeats() {
    let (code, text) = validate(&[]);
    assert_eq!(code, 0, "{text}");
    let summary = text
        .lines()
        .find(|l| l.contains("cases pass"))
        .expect("a summary line");
    let words: Vec<&str> = summary.split_whitespace().collect();
    assert_eq!(words[0], words[2], "{summary}");
    assert!(words[0].parse::<usize>().unwrap() >= 40, "{summary}");
    assert!(!text.contains("FAIL"));
    // Every threat of docs/VALIDATION.md is a case, and each was caught.
    for (case, got) in [
        (
            "vector_add/stateful-counter",
            "run broke output-mismatch; time broke not-faster",
        ),
        ("transpose/sentinel-skip", "time broke not-faster"),
        ("vector_add/oob-write", "run broke guard-overwritten"),
        ("vector_add/input-mutation", "run broke input-mutated"),
        ("vector_add/infinite-loop", "run broke hung"),
        ("vector_add/illegal-address", "run broke device-faulted"),
        ("vector_add/launch-overflow", "run broke launch-out-of-bounds"),
        ("vector_add/include-host-file", "compile broke include-forbidden"),
        ("vector_add/printf-flood", "compile broke device-printf"),
        ("vector_add/very-slow", "time broke too-slow-to-measure"),
    ] {
        assert!(row(&text, case).contains(got), "{case}: {}", row(&text, case));
    }
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
    let out = Command::new(env!("CARGO_BIN_EXE_aorlta"))
        .args(["validate", "--fake-gpu", "--suite", "no/such/suite.yaml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("no/such/suite.yaml"));
}
