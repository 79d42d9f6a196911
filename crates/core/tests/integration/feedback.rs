//! The feedback an entry carries for the model: what each lane says, the profile's template and
//! budget (checked when it loads, naming the file, line and field), and never a seed.

use aorlta_check::{Task, TaskSet};
use aorlta_core::LoadedProfile;
use aorlta_core::RewardRegistry;
use aorlta_core::{Engine, EngineParts};
use aorlta_core::{render_feedback, seeds_of};
use aorlta_record::{Candidate, LegResult, LegState, QaTask, Reason, RewardEntry};
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

const QA: &str = "name: qa\nlegs:\n  - name: parse\n    adapter: parse\n    on-broke: -1.0\n  - name: ref.exact\n    adapter: reference-match\n    needs: [parse]\n    informational: true\n  - name: ref.normalised\n    adapter: normalised-match\n    needs: [parse]\n    on-broke: -0.5\n";

fn load(text: &str) -> aorlta_check::Result<LoadedProfile> {
    LoadedProfile::from_yaml(
        text,
        Path::new("p.yaml"),
        &aorlta_core::adapters(),
        &RewardRegistry::builtin(),
    )
}

fn engine(profile: &str) -> Engine {
    let mut tasks = TaskSet::default();
    tasks.add(aorlta_answer::qa_task(QaTask {
        id: "mul".into(),
        prompt: "What is 17 × 23?".into(),
        answer: "391".into(),
    }));
    Engine::new(load(profile).unwrap(), Arc::new(tasks), EngineParts::default())
}

fn score(e: &Engine, completion: &str) -> RewardEntry {
    e.score(&Candidate {
        id: "c".into(),
        task: "mul".into(),
        completion: completion.into(),
    })
}

#[test]
fn a_qa_entry_says_what_was_read_and_never_the_reference() {
    let e = engine(QA);
    let wrong = score(&e, "So it is \\boxed{392}.");
    let text = wrong.feedback.as_deref().unwrap();
    assert!(text.contains("read as `392` (form: boxed)"), "{text}");
    assert!(
        text.contains("ref.normalised: The answer is not correct."),
        "{text}"
    );
    assert!(!text.contains("391"), "the reference leaked: {text}");
    // The informational leg is not listed.
    assert!(!text.contains("ref.exact"), "{text}");
    let none = score(&e, "I do not know.");
    assert!(none.feedback.unwrap().contains("No answer was found"));
    let right = score(&e, "\\boxed{391}");
    assert!(right.feedback.unwrap().contains("The answer is correct."));
}

#[test]
fn a_profile_template_and_budget_shape_the_text() {
    let e = engine(&format!(
        "{QA}feedback:\n  budget: 80\n  template: \"Reward {{reward}} on {{task}}. {{{{summary}}}}: {{summary}} {{leg:parse}}\"\n"
    ));
    let text = score(&e, "So it is \\boxed{392}.").feedback.unwrap();
    assert!(
        text.starts_with("Reward -0.500 on mul. {summary}: The answer is not correct."),
        "{text}"
    );
    assert_eq!(text.chars().count(), 80, "{text}");
    assert!(text.ends_with('…'), "{text}");
    let text = score(&e, "\\boxed{391}").feedback.unwrap();
    assert!(text.contains("Every check passed."), "{text}");
}

#[test]
fn a_bad_template_or_budget_is_refused_naming_the_file_line_and_field() {
    for (section, field, why) in [
        ("  budget: 10\n", "feedback.budget", "out of range"),
        (
            "  template: \"{legs} {nope}\"\n",
            "feedback.template",
            "unknown placeholder `{nope}`",
        ),
        (
            "  template: \"{leg:compile}\"\n",
            "feedback.template",
            "names no leg",
        ),
        ("  template: \"plain\"\n", "feedback.template", "no placeholder"),
    ] {
        let err = load(&format!("{QA}feedback:\n{section}"))
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("p.yaml:14: field `"), "{err}");
        assert!(err.contains(field) && err.contains(why), "{err}");
    }
    let err = load(&format!("{QA}feedback:\n  budgt: 100\n"))
        .unwrap_err()
        .to_string();
    assert!(err.contains("budgt"), "{err}");
}

/// A kernel task with a matrix output, for the kernel lane's text.
fn kernel_task(extra: &str) -> Task {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("r.cu"),
        "__global__ void scale(const float* a, float* c, int rows, int cols) {}\n",
    )
    .unwrap();
    let yaml = format!(
        "id: scale\nprompt: p\nsignature: \"void scale(const float* a, float* c, int rows, int cols)\"\n\
         reference: r.cu\nbuffers:\n  - {{name: a, dtype: f32, len: rows * cols, role: in, special: [inf]}}\n  \
         - {{name: c, dtype: f32, len: rows * cols, role: out}}\nscalars: {{rows: rows, cols: cols}}\n\
         sizes:\n  - {{rows: 64, cols: 100}}\n  - {{rows: 1000, cols: 1000}}\ngrid: [\"rows\", \"1\", \"1\"]\n\
         block: [\"128\", \"1\", \"1\"]\n{extra}"
    );
    let path = dir.path().join("scale.yaml");
    std::fs::write(&path, yaml).unwrap();
    let (set, skipped) = TaskSet::load(&path, &aorlta_core::lanes()).unwrap();
    assert!(skipped.is_empty());
    let task = set.get("scale").unwrap();
    Task::clone(task)
}

fn kernel_entry(legs: Vec<LegResult>) -> RewardEntry {
    RewardEntry {
        legs,
        ..RewardEntry::error("c", "scale", "kernel", Reason::new("x", "y"))
    }
}

#[test]
fn a_kernel_entry_names_the_size_the_family_and_the_place_of_the_first_mismatch() {
    let task = kernel_task("");
    let mut run = LegResult::with_state(
        "ref.native",
        "kernel-run",
        LegState::Broke,
        Reason::new("output-mismatch", "3 output elements outside tolerance at size 1"),
    );
    let seeds = [9_876_543_210_123u64, 5_555_123_456_789];
    run.detail = Some(json!({
        "seeds": seeds, "sizes": [0, 1], "cases": 4,
        "first_failure": {"size": 1, "families": {"a": "specials"}, "mismatches": 3,
                          "mismatch": {"buffer": "c", "index": 2005, "expected": "1.5", "got": "inf"},
                          "guards_broken": [], "inputs_changed": []},
    }));
    let entry = kernel_entry(vec![LegResult::clean("compile", "kernel-compile"), run]);
    let profile = load(QA).unwrap().profile;
    let text = render_feedback(&profile, &task, &entry);
    assert!(text.contains("compile: It compiled."), "{text}");
    assert!(
        text.contains("Wrong at size 1 (cols = 1000, rows = 1000)"),
        "{text}"
    );
    assert!(text.contains("`a` held infinities mixed in"), "{text}");
    assert!(
        text.contains("in `c` at row 2, column 5 (element 2005): expected 1.5, got inf"),
        "{text}"
    );
    for s in seeds_of(&entry) {
        assert!(!text.contains(&s.to_string()), "{text}");
    }
    assert_eq!(seeds_of(&entry), seeds.to_vec());

    // A guard band written.
    let mut guard = LegResult::with_state(
        "ref.native",
        "kernel-run",
        LegState::Broke,
        Reason::new("guard-overwritten", "x"),
    );
    guard.detail = Some(
        json!({"first_failure": {"size": 0, "families": {"a": "top"}, "guards_broken": ["c"], "inputs_changed": []}}),
    );
    let text = render_feedback(&profile, &task, &kernel_entry(vec![guard]));
    assert!(text.contains("size 0 (cols = 100, rows = 64), where `a` held values near the top of the domain: it wrote outside its buffers (the guard bands of c)"), "{text}");
}

#[test]
fn a_timing_entry_gives_the_verdict_times_and_bandwidth_against_the_gpus_peak() {
    let task = kernel_task("bytes: 8 * rows * cols\nflops: 2 * rows * cols\n");
    let timing = |device: &str| {
        let mut t = LegResult::with_state(
            "ref.speedup",
            "kernel-time",
            LegState::Clean,
            Reason::new("faster", "x"),
        );
        t.detail = Some(json!({
            "s": 1.6, "ci_low": 1.5, "ci_high": 1.7, "ratio": 1.1,
            "median_candidate": 5.0e-6, "median_reference": 8.0e-6, "size": 0,
            "order_seed": 77_777_777_777u64, "input_seed": 88_888_888_888u64,
            "device": {"name": device},
        }));
        t
    };
    let profile = load(QA).unwrap().profile;
    let text = render_feedback(&profile, &task, &kernel_entry(vec![timing("NVIDIA H200")]));
    assert!(
        text.contains(
            "Timing: faster than the reference. Speedup s = 1.600 (interval 1.500 to 1.700), needed 1.10."
        ),
        "{text}"
    );
    assert!(text.contains("Reference 8.0 µs, yours 5.0 µs"), "{text}");
    // 8 × 6400 bytes in 5 µs: 10.24 GB/s, 0.2% of 4.8 TB/s; 12800 flops: 2.56 GFLOP/s.
    assert!(
        text.contains("51.20 kB moved, 10.24 GB/s (0.2% of the H200's 4.80 TB/s)"),
        "{text}"
    );
    assert!(
        text.contains("2.56 GFLOP/s (0.0% of its FP32 peak 67.00 TFLOP/s)"),
        "{text}"
    );
    assert!(
        !text.contains("77777777777") && !text.contains("88888888888"),
        "{text}"
    );
    // An unknown GPU: the figures, no comparison.
    let text = render_feedback(&profile, &task, &kernel_entry(vec![timing("fake device")]));
    assert!(text.contains("10.24 GB/s") && !text.contains('%'), "{text}");
    // Without a declaration the bytes come from the buffers: 2 × 6400 floats.
    let plain = kernel_task("");
    let text = render_feedback(&profile, &plain, &kernel_entry(vec![timing("NVIDIA H200")]));
    assert!(text.contains("51.20 kB moved"), "{text}");
    assert!(!text.contains("FLOP/s"), "{text}");
}

#[test]
fn a_timing_over_several_sizes_gives_the_mean_and_each_sizes_speedup() {
    let task = kernel_task("timed_sizes: [0, 1]\n");
    let mut t = LegResult::with_state(
        "ref.speedup",
        "kernel-time",
        LegState::Clean,
        Reason::new("faster", "x"),
    );
    t.detail = Some(json!({
        "s": 1.414, "ci_low": 1.3, "ci_high": 1.5, "ratio": 1.1, "timed_sizes": [0, 1],
        "sizes": [
            {"size": 0, "s": 2.0, "median_candidate": 4.0e-6, "median_reference": 8.0e-6,
             "input_seed": 55_555_555_555u64},
            {"size": 1, "s": 1.0, "median_candidate": 6.0e-4, "median_reference": 6.0e-4},
        ],
    }));
    let profile = load(QA).unwrap().profile;
    let text = render_feedback(&profile, &task, &kernel_entry(vec![t]));
    assert!(
        text.contains("Speedup s = 1.414 (interval 1.300 to 1.500), needed 1.10. The geometric mean over 2 sizes: at cols = 100, rows = 64 s = 2.000 (reference 8.0 µs, yours 4.0 µs); at cols = 1000, rows = 1000 s = 1.000 (reference 600.0 µs, yours 600.0 µs)."),
        "{text}"
    );
    assert!(!text.contains("55555555555"), "{text}");
}

#[test]
fn a_seed_written_into_a_reason_never_reaches_the_text() {
    let task = kernel_task("");
    let mut run = LegResult::with_state(
        "ref.native",
        "kernel-run",
        LegState::Broke,
        Reason::new("mystery", "failed with seed 1234567890123 somehow"),
    );
    run.detail = Some(json!({"seeds": [1_234_567_890_123u64]}));
    let text = render_feedback(&load(QA).unwrap().profile, &task, &kernel_entry(vec![run]));
    assert!(!text.contains("1234567890123"), "{text}");
    assert!(text.contains("[seed]"), "{text}");
}
