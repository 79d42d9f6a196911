//! `aorlta validate --fake-gpu` over the shipped suite: every case passes on the fake device, every
//! verdict is the recorded one, and a case's row is the same when run again on its own (the run is
//! deterministic).

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

/// Every case's verdicts, one line each: its legs' states and first reason codes (the timing
/// leg's forced run after `|`), whether it was scored, and pass or FAIL. The speedups and
/// rewards are left out: they follow the fake device's noise model, the verdicts must not.
fn verdicts(json: &str) -> String {
    let cases: Vec<serde_json::Value> = serde_json::from_str(json).expect("the --json output");
    let leg = |l: &serde_json::Value| {
        let code = l["reasons"][0]["code"]
            .as_str()
            .map(|c| format!(" {c}"))
            .unwrap_or_default();
        format!(
            "{} {}{code}",
            l["name"].as_str().unwrap_or("?"),
            l["state"].as_str().unwrap_or("?")
        )
    };
    let mut out = String::new();
    for c in &cases {
        let legs: Vec<String> = c["legs"].as_array().into_iter().flatten().map(leg).collect();
        let forced = c
            .get("forced_time")
            .map(|l| format!(" | forced {}", leg(l)))
            .unwrap_or_default();
        let scored = if c["reward"].is_null() {
            "unscored"
        } else {
            "scored"
        };
        let pass = if c["pass"] == true { "pass" } else { "FAIL" };
        out.push_str(&format!(
            "{}: {}{forced}; {scored}; {pass}\n",
            c["id"].as_str().unwrap_or("?"),
            legs.join(", ")
        ));
    }
    out
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
