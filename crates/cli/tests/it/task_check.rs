//! `aorlta task check` on the fake device: the shipped tasks pass, one row each, with the steps
//! the fake device does not run named and no time printed; the reference is compiled by the real
//! compiler where there is one (a reference that is not CUDA fails); a task file that does not
//! load, or whose tolerance lets an all-zero output pass, fails with its file and why named, the
//! other tasks of the run still checked; exit status 1 when any fails.

use crate::common;

use common::{aorlta, root};
use std::path::Path;

fn task_check(args: &[&str], dir: &Path) -> (i32, String) {
    task_check_with(args, dir, &[])
}

fn task_check_with(args: &[&str], dir: &Path, env: &[(&str, &str)]) -> (i32, String) {
    let out = aorlta()
        .args(["task", "check", "--fake-gpu"])
        .args(args)
        .envs(env.iter().copied())
        .current_dir(dir)
        .output()
        .expect("aorlta runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned() + &String::from_utf8_lossy(&out.stderr),
    )
}

/// True when nvcc is here (`AORLTA_NVCC`); without it a test that needs it says so and
/// passes, unless `CI` is set.
fn nvcc_here() -> bool {
    let here = std::env::var_os("AORLTA_NVCC").is_some_and(|p| Path::new(&p).is_file());
    assert!(
        here || std::env::var_os("CI").is_none(),
        "CI is set and AORLTA_NVCC names no nvcc"
    );
    here
}

/// The steps the fake device never runs, as the lines under the table name them.
const NOT_RUN: [&str; 3] = [
    "sanity: the tolerance sanity on the reference's real outputs was not run",
    "run: the reference against itself was not run",
    "a/a: the A/A timing was not run",
];

/// The printed row of task `id`.
fn row_of<'a>(text: &'a str, id: &str) -> &'a str {
    text.lines()
        .find(|l| l.starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("no row for {id}: {text}"))
}

#[test]
fn the_example_tasks_pass_with_a_row_each_and_the_steps_not_run_named() {
    let compiled = if nvcc_here() { "pass" } else { "skip" };
    let (code, text) = task_check(
        &[
            "examples/kernels/tasks",
            "--profile",
            "examples/kernels/profile-speed.yaml",
        ],
        &root(),
    );
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("5 of 5 tasks pass on the fake device"), "{text}");
    for id in ["vector_add", "transpose", "block_sum", "softmax", "matmul"] {
        let line = row_of(&text, id);
        let words: Vec<&str> = line.split_whitespace().collect();
        // The compile by the real compiler, the two steps on the fake device's stand-in, no
        // A/A timing, and no figure where a time or a noise would be.
        assert_eq!(
            words[1..9],
            [compiled, "fake", "fake", "skip", "-", "-", "-", "-"],
            "{line}"
        );
        assert!(
            line.contains("pass on the fake device (3 steps not run)"),
            "{line}"
        );
    }
    assert!(
        text.contains("not run on the fake device (aorlta task check --gpu runs them on a GPU):"),
        "{text}"
    );
    for step in NOT_RUN {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(step))
            .unwrap_or_else(|| panic!("no line `{step}`: {text}"));
        assert!(line.ends_with("[5 of 5 tasks]"), "{line}");
    }
}

/// Tasks checked several at a time are printed, and written to the JSON, in the order of their
/// files, whichever finishes first; one at a time gives the same rows.
#[test]
fn tasks_checked_side_by_side_come_out_in_file_order() {
    let dir = tempfile::tempdir().unwrap();
    let mut rows = Vec::new();
    for jobs in ["3", "1"] {
        let json = dir.path().join(format!("check-{jobs}.json"));
        let (code, text) = task_check(
            &[
                "examples/kernels/tasks",
                "--jobs",
                jobs,
                "--json",
                json.to_str().unwrap(),
            ],
            &root(),
        );
        assert_eq!(code, 0, "{text}");
        assert!(text.contains(&format!(", {jobs} at a time")), "{text}");
        let order = ["block_sum", "matmul", "softmax", "transpose", "vector_add"];
        let at = |id: &str| {
            text.find(&format!("\n{id} "))
                .unwrap_or_else(|| panic!("no row for {id}: {text}"))
        };
        assert!(order.windows(2).all(|w| at(w[0]) < at(w[1])), "{text}");
        let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
        let ids: Vec<String> = doc["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].as_str().unwrap().to_string())
            .collect();
        assert_eq!(ids, order, "{doc}");
        rows.push(doc["tasks"].clone());
    }
    assert_eq!(rows[0], rows[1]);
}

/// Tasks checked side by side run their harness jobs side by side: `--jobs` is also how many
/// sanity and correctness jobs share the device (the timeline's job spans overlap), not threads
/// queueing for its one slot.
#[test]
fn tasks_checked_side_by_side_share_the_device() {
    let dir = tempfile::tempdir().unwrap();
    let timeline = dir.path().join("timeline.jsonl");
    let (code, text) = task_check_with(
        &["examples/kernels/tasks", "--jobs", "4"],
        &root(),
        &[("AORLTA_TIMELINE", timeline.to_str().unwrap())],
    );
    assert_eq!(code, 0, "{text}");
    let jobs: Vec<(f64, f64)> = std::fs::read_to_string(&timeline)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|v| v["k"] == "job")
        .map(|v| (v["t0"].as_f64().unwrap(), v["t1"].as_f64().unwrap()))
        .collect();
    assert!(jobs.len() >= 10, "{jobs:?}");
    let most = jobs
        .iter()
        .map(|(t0, _)| jobs.iter().filter(|(s, e)| s <= t0 && t0 < e).count())
        .max()
        .unwrap();
    assert!(most >= 2, "no two harness jobs ran at once: {jobs:?}");
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
    assert!(text.contains("6 of 6 tasks pass on the fake device"), "{text}");
    // The references are compiled by the real compilers: nvcc for the CUDA one, Triton for
    // the others, each named; the fake device's own compiler is never reported as one.
    assert!(!text.contains("fake-nvcc"), "{text}");
    let triton = std::env::var_os("AORLTA_TRITON_PYTHON").is_some();
    assert!(
        triton || std::env::var_os("CI").is_none(),
        "CI is set and there is no AORLTA_TRITON_PYTHON"
    );
    if triton {
        let line = text
            .lines()
            .find(|l| l.starts_with("triton: "))
            .unwrap_or_else(|| panic!("{text}"));
        assert!(!line.contains("none"), "{line}");
        for l in text.lines().filter(|l| l.contains("pass on the fake device (")) {
            assert_eq!(l.split_whitespace().nth(1), Some("pass"), "{l}");
        }
    }
}

#[test]
fn a_reference_that_is_not_cuda_fails_on_the_fake_device_when_nvcc_is_here() {
    if !nvcc_here() {
        eprintln!("skipped: no nvcc (set AORLTA_NVCC)");
        return;
    }
    let (dir, text) = vector_add_folder();
    std::fs::write(dir.path().join("tasks/vector_add.yaml"), &text).unwrap();
    let broken = text
        .replace("id: vector_add", "id: not_cuda")
        .replace("reference/vector_add.cu", "reference/not_cuda.cu");
    assert!(broken.contains("reference/not_cuda.cu"), "{broken}");
    std::fs::write(dir.path().join("tasks/not_cuda.yaml"), broken).unwrap();
    std::fs::write(
        dir.path().join("reference/not_cuda.cu"),
        "This reference is prose, not CUDA: vector_add adds a and b into c.\n",
    )
    .unwrap();
    let (code, out) = task_check(&["tasks"], dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("1 of 2 tasks pass"), "{out}");
    let bad = row_of(&out, "not_cuda");
    assert_eq!(bad.split_whitespace().nth(1), Some("FAIL"), "{bad}");
    assert!(
        bad.contains("FAIL: compile: the reference does not compile: reference-compile-failed"),
        "{bad}"
    );
    let good = row_of(&out, "vector_add");
    assert!(good.contains("pass on the fake device"), "{good}");
    assert_eq!(good.split_whitespace().nth(1), Some("pass"), "{good}");
}

#[test]
fn without_a_compiler_the_reference_is_said_not_compiled() {
    let (dir, text) = vector_add_folder();
    std::fs::write(dir.path().join("tasks/vector_add.yaml"), &text).unwrap();
    let missing = dir.path().join("no-such-nvcc");
    let (code, out) = task_check_with(
        &["tasks"],
        dir.path(),
        &[("AORLTA_NVCC", missing.to_str().unwrap())],
    );
    assert_eq!(code, 0, "{out}");
    let row = row_of(&out, "vector_add");
    assert_eq!(row.split_whitespace().nth(1), Some("skip"), "{row}");
    assert!(row.contains("pass on the fake device (4 steps not run)"), "{row}");
    assert!(out.contains("compiler: none ("), "{out}");
    let line = out
        .lines()
        .find(|l| {
            l.trim_start()
                .starts_with("compile: the reference was not compiled: ")
        })
        .unwrap_or_else(|| panic!("no compile line: {out}"));
    assert!(line.contains("no-such-nvcc"), "{line}");
    for step in NOT_RUN {
        assert!(out.contains(step), "{step}: {out}");
    }
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
    assert!(line("vector_add").contains("pass on the fake device"));
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
    assert!(row("vector_add").contains("pass on the fake device"));
}

#[test]
fn no_task_file_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let (code, out) = task_check(&["."], dir.path());
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("no task files"), "{out}");
}

#[test]
fn the_library_passes_its_checks_on_the_fake_device() {
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
    assert_eq!(doc["fake_device"], true, "{doc}");
    let tasks = doc["tasks"].as_array().unwrap();
    for t in tasks {
        assert_eq!(t["pass"], true, "{t}");
        // No A/A timing on the fake device: no time, no noise; the steps not run, named.
        assert!(t["aa"].is_null(), "{t}");
        assert_eq!(t["fake_device"], true, "{t}");
        let not_run: Vec<&str> = t["not_run"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        for step in NOT_RUN {
            assert!(not_run.iter().any(|l| l.starts_with(step)), "{step}: {t}");
        }
    }
    let words: Vec<&str> = text
        .lines()
        .find(|l| l.contains(" tasks pass on the fake device"))
        .unwrap_or_else(|| panic!("no summary: {text}"))
        .split_whitespace()
        .collect();
    let (pass, of): (usize, usize) = (words[0].parse().unwrap(), words[2].parse().unwrap());
    assert_eq!(pass, of, "{text}");
    assert!(of >= 30, "{text}");
}

/// The library's validation suite, apart from its task checks so that the two run side by side.
#[test]
fn the_library_suite_passes_on_the_fake_device() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("validate.json");
    let (code, text) = common::validate(
        "examples/library/validation.yaml",
        &["--json", json.to_str().unwrap()],
    );
    assert_eq!(code, 0, "{text}");
    common::feedback_holds_no_seed(&std::fs::read_to_string(&json).unwrap());
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
    let legs = aorlta_core::Legs::new(adapters);
    let task = tasks.get("vector_add").unwrap();
    let check = aorlta_app::check_task(&legs, &env, task, &aorlta_app::CheckParams::default());
    env.kernel().unwrap().pool().shutdown();
    // On the fake device the compile step is not run here (no real compiler set up) and the
    // sanity runs on the stand-in; the run is the panicking leg.
    assert_eq!(
        check.steps,
        [aorlta_app::NOT_RUN, aorlta_app::FAKE, "FAIL", "-"],
        "{check:?}"
    );
    assert!(!check.pass);
    // The engine's words for a leg whose adapter panicked: unsettled, `internal-error`.
    assert_eq!(
        check.why,
        "run: the task on the fake device: unsettled internal-error: adapter `kernel-run` panicked: boom"
    );
}

/// `--resume` reuses the passes `--json` recorded, by key: a task whose file changed is checked
/// again, the others are not; a malformed results file is an error naming it.
#[test]
fn a_resumed_check_reuses_earlier_passes_and_checks_a_changed_task_again() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    common::copy_example_folders(d, &["tasks", "reference"]);
    let json = d.join("check.json");
    let args = ["tasks", "--jobs", "2", "--json", "check.json", "--resume"];
    let (code, first) = task_check(&args, d);
    assert_eq!(code, 0, "{first}");
    assert!(!first.contains("resumed"), "{first}");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert!(doc.get("partial").is_none(), "{doc}");
    let keys: Vec<&str> = doc["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["key"].as_str().unwrap())
        .collect();
    assert_eq!(keys.len(), 5);
    assert!(keys.iter().all(|k| k.len() >= 32), "{keys:?}");

    // The same tasks again: every pass is reused.
    let (code, again) = task_check(&args, d);
    assert_eq!(code, 0, "{again}");
    assert_eq!(again.matches("pass, resumed").count(), 5, "{again}");

    // softmax's tolerance changes: it is checked again, the other four are reused.
    common::replace_in(
        &d.join("tasks/softmax.yaml"),
        "tolerance: {atol: 1.0e-6, rtol: 1.0e-4}",
        "tolerance: {atol: 2.0e-6, rtol: 1.0e-4}",
    );
    let (code, third) = task_check(&args, d);
    assert_eq!(code, 0, "{third}");
    assert_eq!(third.matches("pass, resumed").count(), 4, "{third}");
    assert!(!row_of(&third, "softmax").contains("resumed"), "{third}");
    let doc: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let resumed: Vec<bool> = doc["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["resumed"].as_bool().unwrap())
        .collect();
    assert_eq!(resumed.iter().filter(|r| **r).count(), 4, "{doc}");

    // A run stopped part-way left only its journal, its last line cut short: what it holds is
    // reused, and the journal is gone once the file is written.
    let journal = d.join("check.partial.jsonl");
    let tasks = doc["tasks"].as_array().unwrap();
    let mut text: String = tasks[..3].iter().map(|t| format!("{t}\n")).collect();
    text.push_str(&tasks[3].to_string()[..20]);
    std::fs::write(&journal, text).unwrap();
    std::fs::remove_file(&json).unwrap();
    let (code, fourth) = task_check(&args, d);
    assert_eq!(code, 0, "{fourth}");
    assert_eq!(fourth.matches("pass, resumed").count(), 3, "{fourth}");
    assert!(json.exists() && !journal.exists());

    // A results file that is not one is refused, naming it.
    std::fs::write(&json, "{\"tasks\": 3}").unwrap();
    let (code, bad) = task_check(&args, d);
    assert_eq!(code, 1, "{bad}");
    assert!(
        bad.contains("check.json") && bad.contains("field `tasks`"),
        "{bad}"
    );
}
