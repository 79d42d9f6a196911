//! A candidate's plan (docs/PLANS.md) run whole by the correctness job on the fake device: two
//! launches through a scratch buffer, a library GEMM, and the threats a plan adds (a step writing
//! outside its buffers, scratch included; a step reading a scratch buffer no step wrote).

use crate::common::*;
use aorlta_gpu::FakeBackend;
use aorlta_gpu::run_job;
use aorlta_record::FakeBehaviour as F;
use aorlta_record::{FakeImage, FakeKernel, HarnessRecord, ImagePlan, Plan, PlanKernel, Work};

const ADD: &str = "void add_into(const float* a, const float* b, float* t, int n)";
const EPI: &str = "void epilogue(const float* t, float* c, int n)";

fn kernel(decl: &str, name: &str) -> PlanKernel {
    let (_, mangled) = aorlta_record::mangle(decl).unwrap();
    PlanKernel {
        declaration: decl.to_string(),
        symbols: vec![mangled, name.to_string()],
    }
}

/// The plan: `tmp = a + b` by `add_into`, then `c = tmp` by `epilogue` (or what `steps` says).
fn plan(steps: serde_json::Value) -> ImagePlan {
    let plan: Plan = serde_json::from_value(serde_json::json!({
        "scratch": [{"name": "tmp", "dtype": "f32", "len": "n"}],
        "steps": steps,
    }))
    .unwrap();
    ImagePlan {
        plan,
        kernels: [("add_into", ADD), ("epilogue", EPI)]
            .into_iter()
            .map(|(n, d)| (n.to_string(), kernel(d, n)))
            .collect(),
    }
}

fn two_steps() -> serde_json::Value {
    let g = serde_json::json!(["ceil_div(n, 256)", "1", "1"]);
    let b = serde_json::json!(["256", "1", "1"]);
    serde_json::json!([
        {"launch": {"kernel": "add_into", "grid": g, "block": b, "args": ["a", "b", "tmp", "n"]}},
        {"launch": {"kernel": "epilogue", "grid": g, "block": b, "args": ["tmp", "c", "n"]}},
    ])
}

/// The plan's code object: `add_into` computes the vector sum, `epilogue` copies, each with its
/// behaviour.
fn image(add: F, epi: F) -> FakeImage {
    let mut img = FakeImage::correct("vector_add", vec!["add_into".into(), "epilogue".into()]);
    img.kernels.insert(
        "add_into".into(),
        FakeKernel {
            compute: Some("vector_add".into()),
            behaviour: add,
        },
    );
    img.kernels.insert(
        "epilogue".into(),
        FakeKernel {
            compute: Some("copy".into()),
            behaviour: epi,
        },
    );
    img
}

fn run_plan(img: &FakeImage, p: ImagePlan, work: Work) -> (HarnessRecord, FakeBackend) {
    let dir = tempfile::tempdir().unwrap();
    let mut j = job(dir.path(), img, work);
    j.candidate.plan = Some(p);
    let mut b = FakeBackend::new(0);
    let rec = run_job(&mut b, &j);
    (rec, b)
}

#[test]
fn a_two_step_plan_through_a_scratch_buffer_is_correct() {
    let (rec, b) = run_plan(&image(F::Correct, F::Correct), plan(two_steps()), check_work());
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    let cases = &rec.check.as_ref().unwrap().cases;
    assert_eq!(cases.len(), 6);
    assert!(
        cases
            .iter()
            .all(|c| c.mismatches == 0 && c.guards_broken.is_empty())
    );
    assert_eq!(cases[0].candidate.grid, [16, 1, 1]);
    // Per case: two candidate launches (the plan's steps) and one of the reference.
    let launches = b
        .log
        .iter()
        .filter(|c| matches!(c, aorlta_gpu::Call::Launch(_)))
        .count();
    assert_eq!(launches, 6 * 3);
}

#[test]
fn a_step_reading_a_scratch_buffer_no_step_wrote_reads_the_sentinel() {
    // `epilogue` alone: `tmp` still holds the harness's sentinel, and so does `c` after the copy.
    let steps = serde_json::json!([two_steps()[1].clone()]);
    let (rec, _) = run_plan(&image(F::Correct, F::Correct), plan(steps), check_work());
    assert_eq!(codes(&rec), ["candidate:output-mismatch"]);
}

#[test]
fn a_step_writing_past_its_scratch_buffer_or_its_output_breaks_a_guard() {
    let (rec, _) = run_plan(&image(F::OobWrite, F::Correct), plan(two_steps()), check_work());
    assert_eq!(codes(&rec), ["candidate:guard-overwritten"]);
    assert!(
        rec.findings[0].detail.contains("scratch tmp"),
        "{}",
        rec.findings[0].detail
    );
    let (rec, _) = run_plan(&image(F::Correct, F::OobWrite), plan(two_steps()), check_work());
    assert_eq!(codes(&rec), ["candidate:guard-overwritten"]);
    assert!(
        rec.findings[0].detail.ends_with("guard bands of c"),
        "{}",
        rec.findings[0].detail
    );
    // A step that writes the reference's set (another set than its own) is caught as well.
    let (rec, _) = run_plan(&image(F::Correct, F::Scribble), plan(two_steps()), check_work());
    assert!(
        codes(&rec).contains(&"candidate:guard-overwritten".to_string()),
        "{:?}",
        rec.findings
    );
}

#[test]
fn a_gemm_step_runs_on_the_fake_device_between_the_launches() {
    // A 1 x 1 product of the scratch into `c`, which the epilogue then overwrites: the plan
    // runs its library step in order and stays correct.
    let g = serde_json::json!(["ceil_div(n, 256)", "1", "1"]);
    let b = serde_json::json!(["256", "1", "1"]);
    let steps = serde_json::json!([
        {"launch": {"kernel": "add_into", "grid": g, "block": b, "args": ["a", "b", "tmp", "n"]}},
        {"gemm": {"a": "tmp", "b": "tmp", "c": "c", "m": "1", "n": "1", "k": "1", "dtype": "f32"}},
        {"launch": {"kernel": "epilogue", "grid": g, "block": b, "args": ["tmp", "c", "n"]}},
    ]);
    let (rec, b) = run_plan(&image(F::Correct, F::Correct), plan(steps), check_work());
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    let gemms = b
        .log
        .iter()
        .filter(|c| matches!(c, aorlta_gpu::Call::Library(_)))
        .count();
    assert_eq!(gemms, 6);
}

#[test]
fn a_plan_kernel_missing_from_the_code_object_is_the_candidates() {
    let mut img = image(F::Correct, F::Correct);
    img.symbols = vec!["add_into".into()];
    let (rec, _) = run_plan(&img, plan(two_steps()), check_work());
    assert_eq!(codes(&rec), ["candidate:kernel-not-found"]);
    assert!(
        rec.findings[0].detail.contains("`epilogue`"),
        "{}",
        rec.findings[0].detail
    );
}

#[test]
fn a_plan_is_timed_whole_against_the_reference_and_verified_after_every_run() {
    let (rec, b) = run_plan(&image(F::Correct, F::Correct), plan(two_steps()), time_work(20));
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    let t = rec.time.unwrap();
    assert_eq!(t.pairs.len(), 20);
    // Two launches (each the fake device's 50 us plus its bytes) against one: s about 0.6.
    let ratio: f64 =
        t.pairs.iter().map(|p| p.reference_s / p.candidate_s).sum::<f64>() / t.pairs.len() as f64;
    assert!((0.4..0.8).contains(&ratio), "speedup {ratio}");
    assert_eq!(t.candidate_geometry.unwrap().grid, [16, 1, 1]);
    // A fresh module for every timed run of the plan, as for a single kernel's launch.
    let loads = b
        .log
        .iter()
        .filter(|c| matches!(c, aorlta_gpu::Call::LoadModule(_)))
        .count();
    assert!(loads >= 2 * 20, "{loads} module loads");
    // A step writing past its scratch buffer in a timed run is caught there too.
    let (rec, _) = run_plan(&image(F::OobWrite, F::Correct), plan(two_steps()), time_work(20));
    let codes = codes(&rec);
    assert!(
        codes.contains(&"candidate:timed-launch-mismatch".to_string()),
        "{codes:?}"
    );
    assert!(
        codes.contains(&"candidate:guard-overwritten".to_string()),
        "{codes:?}"
    );
}

#[test]
fn a_launch_job_for_a_profiler_runs_one_kernel_and_says_so_for_a_plan() {
    let work = Work::Launch(aorlta_record::LaunchWork { size: 0, seed: 1 });
    let (rec, _) = run_plan(&image(F::Correct, F::Correct), plan(two_steps()), work);
    assert_eq!(codes(&rec), ["harness:bad-job"]);
    assert!(
        rec.findings[0].detail.contains("not supported yet"),
        "{}",
        rec.findings[0].detail
    );
}
