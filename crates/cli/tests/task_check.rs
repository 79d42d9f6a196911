//! `aorlta task check` on the fake device: the shipped tasks pass, one row each; a task file that
//! does not load, or whose tolerance lets an all-zero output pass, fails with its file and why
//! named, the other tasks of the run still checked; exit status 1 when any fails.

mod common;

use common::{aorlta, root};
use std::path::Path;

fn task_check(args: &[&str], dir: &Path) -> (i32, String) {
    let out = aorlta()
        .args(["task", "check", "--fake-gpu"])
        .args(args)
        .current_dir(dir)
        .output()
        .expect("aorlta runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

#[test]
fn the_example_tasks_pass_with_a_row_each() {
    let (code, text) = task_check(
        &[
            "examples/kernels/tasks",
            "--profile",
            "examples/kernels/profile-speed.yaml",
        ],
        &root(),
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("5 of 5 tasks pass"), "{text}");
    for id in ["vector_add", "transpose", "block_sum", "softmax", "matmul"] {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no row for {id}: {text}"));
        assert!(line.ends_with("pass"), "{line}");
        assert_eq!(
            line.split_whitespace().filter(|w| *w == "pass").count(),
            5,
            "{line}"
        );
    }
}

#[test]
fn triton_tasks_are_checked_beside_cuda_ones() {
    let (code, text) = task_check(
        &[
            "examples/triton-kernels/tasks",
            "examples/kernels/tasks/vector_add.yaml",
        ],
        &root(),
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("6 of 6 tasks pass"), "{text}");
    // The fake device's compiler stands in for every compiler: no Triton probe, no Triton line.
    assert!(text.contains("compiler: fake-nvcc"), "{text}");
    assert!(!text.contains("triton: "), "{text}");
}

/// A folder with `tasks/` (empty) and the example `vector_add` reference in `reference/`, and
/// the example `vector_add` task's text, to be written into `tasks/` as each test needs.
fn vector_add_folder() -> (tempfile::TempDir, String) {
    let dir = tempfile::tempdir().unwrap();
    let kernels = root().join("examples/kernels");
    std::fs::create_dir_all(dir.path().join("tasks")).unwrap();
    std::fs::create_dir_all(dir.path().join("reference")).unwrap();
    std::fs::copy(
        kernels.join("reference/vector_add.cu"),
        dir.path().join("reference/vector_add.cu"),
    )
    .unwrap();
    let text = std::fs::read_to_string(kernels.join("tasks/vector_add.yaml")).unwrap();
    (dir, text)
}

#[test]
fn a_bad_field_and_a_loose_tolerance_fail_naming_the_file_and_why() {
    let (dir, text) = vector_add_folder();
    let tol = "tolerance: {atol: 1.0e-6, rtol: 1.0e-6}";
    assert!(text.contains(tol));
    std::fs::write(dir.path().join("tasks/good.yaml"), &text).unwrap();
    let loose = text
        .replace(tol, "tolerance: {atol: 10.0, rtol: 1.0e-6}")
        .replace("id: vector_add", "id: loose");
    std::fs::write(dir.path().join("tasks/loose.yaml"), loose).unwrap();
    let bad = text
        .replace(tol, "tolerance: {atol: 1.0e-6, rtol: 1.0e-2}")
        .replace("id: vector_add", "id: bad");
    std::fs::write(dir.path().join("tasks/bad.yaml"), bad).unwrap();
    let (code, out) = task_check(&["tasks"], dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("1 of 3 tasks pass"), "{out}");
    let line = |id: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no row for {id}: {out}"))
            .to_string()
    };
    let bad = line("bad");
    assert!(bad.contains("FAIL: load:") && bad.contains("bad.yaml"), "{bad}");
    assert!(bad.contains("field `tolerance`"), "{bad}");
    let loose = line("loose");
    assert!(
        loose.contains("FAIL: sanity:") && loose.contains("all-zero output"),
        "{loose}"
    );
    assert!(line("vector_add").ends_with("pass"));
}

#[test]
fn a_task_that_computes_nothing_fails_to_load_naming_the_file_and_line() {
    let (dir, text) = vector_add_folder();
    let output = "{name: c, dtype: f32, len: n, role: out}";
    assert!(text.contains(output));
    std::fs::write(dir.path().join("tasks/good.yaml"), &text).unwrap();
    let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
    for (id, written) in [
        ("no_output", "{name: c, dtype: f32, len: n, role: in}"),
        (
            "empty_output",
            "{name: c, dtype: f32, len: \"n - 1000\", role: out}",
        ),
    ] {
        let edited = text
            .replace(output, written)
            .replace("id: vector_add", &format!("id: {id}"));
        std::fs::write(dir.path().join(format!("tasks/{id}.yaml")), edited).unwrap();
    }
    let (code, out) = task_check(&["tasks"], dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("1 of 3 tasks pass"), "{out}");
    let row = |id: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{id} ")))
            .unwrap_or_else(|| panic!("no row for {id}: {out}"))
            .to_string()
    };
    let none = row("no_output");
    assert!(
        none.contains("FAIL: load:")
            && none.contains(&format!("no_output.yaml:{}", line_of("buffers:")))
            && none.contains("no output buffer"),
        "{none}"
    );
    let empty = row("empty_output");
    assert!(
        empty.contains("FAIL: load:")
            && empty.contains(&format!("empty_output.yaml:{}", line_of(output)))
            && empty.contains("field `len`"),
        "{empty}"
    );
    assert!(row("vector_add").ends_with("pass"));
}

#[test]
fn no_task_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = task_check(&["."], dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no task files"), "{out}");
}

#[test]
fn the_library_passes_its_checks_and_its_suite_on_the_fake_device() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("check.json");
    let (code, text) = task_check(
        &[
            "examples/library/tasks",
            "--profile",
            "examples/library/profile.yaml",
            "--json",
            json.to_str().unwrap(),
        ],
        &root(),
    );
    assert_eq!(code, 0, "{text}");
    // The JSON that make_library.py --index reads: the device, and each task's A/A figures.
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(doc["device"].as_str().unwrap().contains("fake"), "{doc}");
    let tasks = doc["tasks"].as_array().unwrap();
    for t in tasks {
        assert_eq!(t["pass"], true, "{t}");
        for key in ["median_s", "floor", "s"] {
            assert!(t["aa"][key].as_f64().is_some(), "{key}: {t}");
        }
    }
    let words: Vec<&str> = text
        .lines()
        .find(|l| l.contains(" tasks pass;"))
        .unwrap_or_else(|| panic!("no summary: {text}"))
        .split_whitespace()
        .collect();
    let (pass, of): (usize, usize) = (words[0].parse().unwrap(), words[2].parse().unwrap());
    assert_eq!(pass, of, "{text}");
    assert!(of >= 30, "{text}");
    let (code, text) = common::validate("examples/library/validation.yaml", &[]);
    assert_eq!(code, 0, "{text}");
    let (pass, of) = common::passed(&text);
    assert_eq!(pass, of, "{text}");
    assert_eq!(of, 64, "{text}");
}

/// A `kernel-run` that panics.
struct PanickingRun;

impl aorlta_check::Adapter for PanickingRun {
    fn name(&self) -> &'static str {
        "kernel-run"
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn check_params(&self, _: &serde_json::Value) -> Result<(), String> {
        Ok(())
    }
    fn run(&self, _: &aorlta_check::LegInput<'_>) -> aorlta_check::LegOutput {
        panic!("boom")
    }
}

#[test]
fn a_leg_that_panics_under_task_check_is_caught_and_reported_as_the_engine_reports_it() {
    use aorlta_kernel::KernelTools;
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    // The harness is this build's `aorlta`, serving as it.
    let harness = dir.path().join("harness");
    std::fs::write(
        &harness,
        format!(
            "#!/bin/sh\nexec '{}' harness \"$@\"\n",
            env!("CARGO_BIN_EXE_aorlta")
        ),
    )
    .unwrap();
    std::fs::set_permissions(&harness, std::fs::Permissions::from_mode(0o755)).unwrap();
    let kernel = aorlta_kernel::TestEnv::new(dir.path().join("work"))
        .fake_gpu()
        .harness(harness)
        .with(|c| c.lease_dir = Some(dir.path().join("leases")))
        .build();
    let env = aorlta_kernel::env_of(dir.path().to_path_buf(), Some(kernel));
    let (tasks, _) = aorlta_check::TaskSet::load(
        &root().join("examples/kernels/tasks/vector_add.yaml"),
        &aorlta_core::lanes(),
    )
    .unwrap();
    let mut adapters = aorlta_core::adapters();
    adapters.add(std::sync::Arc::new(PanickingRun));
    let legs = aorlta_core::run::Legs::new(adapters);
    let task = tasks.get("vector_add").unwrap();
    let check = aorlta_kernel::check_task(&legs, &env, task, &aorlta_kernel::CheckParams::default());
    env.kernel().unwrap().pool().shutdown();
    assert_eq!(check.steps, ["pass", "pass", "FAIL", "-"], "{check:?}");
    assert!(!check.pass);
    // The engine's words for a leg whose adapter panicked: unsettled, `internal-error`.
    assert_eq!(
        check.why,
        "run: the reference against itself: unsettled internal-error: adapter `kernel-run` panicked: boom"
    );
}
