//! Helpers shared by the CLI's test binaries: the repository root, the `aorlta` binary,
//! `aorlta validate --fake-gpu` over a suite with its rows and verdicts, and the edits that
//! damage a stored entry row.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
pub(crate) fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The `aorlta` binary under test.
pub(crate) fn aorlta() -> Command {
    Command::new(env!("CARGO_BIN_EXE_aorlta"))
}

/// `aorlta validate --fake-gpu --suite SUITE EXTRA…` from the repository's root: the exit code
/// and the standard output.
pub(crate) fn validate(suite: &str, extra: &[&str]) -> (i32, String) {
    let out = aorlta()
        .args(["validate", "--fake-gpu", "--suite", suite])
        .args(extra)
        .current_dir(root())
        .output()
        .expect("aorlta runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}

/// The printed row of one case (`task/case[@label]`).
pub(crate) fn row<'a>(text: &'a str, case: &str) -> &'a str {
    text.lines()
        .find(|l| l.split_whitespace().next() == Some(case))
        .unwrap_or_else(|| panic!("no row for {case} in\n{text}"))
}

/// Every case's verdicts, one line each: its legs' states and first reason codes (the timing
/// leg's forced run after `|`), whether it was scored, and pass or FAIL. The speedups and
/// rewards are left out: they follow the fake device's noise model, the verdicts must not.
pub(crate) fn verdicts(json: &str) -> String {
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

/// The summary line's counts: (passed, of).
pub(crate) fn passed(text: &str) -> (usize, usize) {
    let summary = text
        .lines()
        .find(|l| l.contains("cases pass"))
        .expect("a summary line");
    let words: Vec<&str> = summary.split_whitespace().collect();
    (
        words[0].parse().expect("a count"),
        words[2].parse().expect("a count"),
    )
}

/// The threats of docs/VALIDATION.md that both suites (CUDA and HIP) hold on the tasks they
/// share, with the verdict each row must show.
pub(crate) const THREATS: &[(&str, &str)] = &[
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
];

/// Asserts that every `(case, verdict)` row of `expected` shows its verdict in `text`.
pub(crate) fn assert_rows(text: &str, expected: &[(&str, &str)]) {
    for (case, got) in expected {
        assert!(row(text, case).contains(got), "{case}: {}", row(text, case));
    }
}

/// Edits of a SQLite store's `entries` row (a `WHERE` clause is added by the caller), each with
/// what it does: a reward out of range, an edit that keeps the contract (caught only by the
/// row's checksum), and a flipped bit that leaves the text unreadable.
pub(crate) const ENTRY_ROW_EDITS: [(&str, &str); 3] = [
    (
        "UPDATE entries SET value = replace(value, '\"reward\":1.0', '\"reward\":7.0'), reward = 7.0",
        "a reward of 7.0",
    ),
    (
        "UPDATE entries SET value = replace(replace(value, '\"reward\":-0.5', '\"reward\":-0.4'), \
         '\"base\":-0.5', '\"base\":-0.4'), reward = -0.4",
        "-0.5 edited to -0.4",
    ),
    (
        "UPDATE entries SET value = CAST(substr(CAST(value AS BLOB), 1, 30) || X'A2' || \
         substr(CAST(value AS BLOB), 32) AS TEXT)",
        "a flipped bit",
    ),
];

/// The Python with torch the torch tests run (`$AORLTA_TORCH_PYTHON`); without one the test
/// says it is skipped (`what`), and fails when `AORLTA_TORCH_REQUIRED` is set (CI sets both).
pub(crate) fn torch_python(what: &str) -> Option<std::ffi::OsString> {
    let p = std::env::var_os("AORLTA_TORCH_PYTHON");
    if p.is_none() {
        assert!(
            std::env::var_os("AORLTA_TORCH_REQUIRED").is_none(),
            "AORLTA_TORCH_REQUIRED is set and AORLTA_TORCH_PYTHON is not"
        );
        eprintln!("{what}: skipped (no AORLTA_TORCH_PYTHON)");
    }
    p
}

/// The folders `subs` of examples/kernels (`tasks`, `reference`, `candidates/softmax`) copied
/// into `dir`, file by file.
pub(crate) fn copy_example_folders(dir: &Path, subs: &[&str]) {
    let src = root().join("examples/kernels");
    for sub in subs {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
        for e in std::fs::read_dir(src.join(sub)).unwrap() {
            let p = e.unwrap().path();
            std::fs::copy(&p, dir.join(sub).join(p.file_name().unwrap())).unwrap();
        }
    }
}

/// `file` with its text `from` (which it must hold) replaced by `to`.
pub(crate) fn replace_in(file: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(file).unwrap();
    assert!(text.contains(from), "{}: no {from}", file.display());
    std::fs::write(file, text.replace(from, to)).unwrap();
}

/// A folder holding examples/kernels' task `id` and its reference, laid out as the task file
/// expects them (`tasks/ID.yaml`, `reference/ID.cu`); returns the reference's source.
pub(crate) fn copy_kernel_task(dir: &Path, id: &str) -> String {
    let kernels = root().join("examples/kernels");
    std::fs::create_dir_all(dir.join("tasks")).unwrap();
    std::fs::create_dir_all(dir.join("reference")).unwrap();
    std::fs::copy(
        kernels.join(format!("tasks/{id}.yaml")),
        dir.join(format!("tasks/{id}.yaml")),
    )
    .unwrap();
    let reference = std::fs::read_to_string(kernels.join(format!("reference/{id}.cu"))).unwrap();
    std::fs::write(dir.join(format!("reference/{id}.cu")), &reference).unwrap();
    reference
}

/// Every case of a `validate --json` file has feedback, and no feedback holds a seed any of its
/// legs drew (the correctness seeds, the timing's order and input seeds), in decimal or in hex,
/// nor the `[seed]` mark the service's guard writes where a leg's text quoted one (so a leak the
/// guard hid still fails here). Returns how many seeds were looked for; a suite with none proves
/// nothing, so at least one case must have drawn some.
pub(crate) fn feedback_holds_no_seed(json: &str) -> usize {
    let cases: Vec<serde_json::Value> = serde_json::from_str(json).unwrap();
    let mut looked_for = 0;
    for c in &cases {
        let id = c["id"].as_str().unwrap_or("?");
        let text = c["feedback"]
            .as_str()
            .unwrap_or_else(|| panic!("{id}: no feedback"));
        assert!(
            !text.contains("[seed]"),
            "{id}: a leg's text quoted a seed: {text}"
        );
        let mut seeds: Vec<u64> = Vec::new();
        for l in c["legs"]
            .as_array()
            .into_iter()
            .flatten()
            .chain(c.get("forced_time"))
        {
            let d = &l["detail"];
            seeds.extend(
                d["seeds"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s.as_u64()),
            );
            seeds.extend(["order_seed", "input_seed"].iter().filter_map(|k| d[k].as_u64()));
        }
        let lower = text.to_ascii_lowercase();
        let numbers: Vec<&str> = lower.split(|ch: char| !ch.is_ascii_alphanumeric()).collect();
        for s in &seeds {
            let hex = format!("{s:x}");
            let hex0x = format!("0x{s:x}");
            assert!(
                !numbers.contains(&s.to_string().as_str())
                    && !numbers.contains(&hex.as_str())
                    && !numbers.contains(&hex0x.as_str()),
                "{id}: seed {s} in {text}"
            );
        }
        looked_for += seeds.len();
    }
    assert!(looked_for > 0, "no case drew a seed: the scan proves nothing");
    looked_for
}
