//! `aorlta validate --fake-gpu` over the plan suite (`examples/plans/`): a task that allows plans
//! answered with one kernel and with plans (docs/PLANS.md), through parse, compile, `ref.native`
//! and `ref.speedup` on the fake device: a two-step plan through a scratch buffer is correct and
//! timed whole (slower than the reference as two launches, faster when its kernels are), a step
//! writing past its scratch buffer and a step reading a scratch buffer no step wrote are caught,
//! and a plan naming no buffer is refused at parse with the step and field named; a linear layer
//! answered by a library GEMM and an epilogue is right, and wrong when the epilogue forgets the
//! ReLU or the GEMM reads the weight untransposed.

use crate::common;

const SUITE: &str = "examples/plans/validation.yaml";

#[test]
fn the_plan_suite_runs_plans_whole_on_the_fake_device() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("validate.json");
    let (code, text) = common::validate(SUITE, &["--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    common::feedback_holds_no_seed(&std::fs::read_to_string(&json).unwrap());
    let (pass, of) = common::passed(&text);
    assert_eq!((pass, of), (9, 9), "{text}");
    common::assert_rows(
        &text,
        &[
            ("vector_add_plan/self", "run clean; time broke not-faster"),
            ("vector_add_plan/two-step", "run clean; time broke not-faster"),
            ("vector_add_plan/fast-two-step", "run clean; time clean faster"),
            ("vector_add_plan/scratch-oob", "run broke guard-overwritten"),
            ("vector_add_plan/unwritten-scratch", "run broke output-mismatch"),
            ("vector_add_plan/bad-plan", "parse broke plan-invalid"),
            ("linear_relu/gemm-epilogue", "run clean; time broke not-faster"),
            ("linear_relu/gemm-no-relu", "run broke output-mismatch"),
            ("linear_relu/gemm-untransposed", "run broke output-mismatch"),
        ],
    );
    let cases: Vec<serde_json::Value> =
        serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
    let detail = |id: &str, leg: &str| -> String {
        let c = cases.iter().find(|c| c["id"] == id).unwrap();
        let l = c["legs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == leg)
            .unwrap();
        l["reasons"][0]["detail"].as_str().unwrap_or("").to_string()
    };
    let bad = detail("vector_add_plan/bad-plan", "parse");
    assert!(
        bad.starts_with("plan step 2 (launch): field `args`: argument 1 (`temp`) for the pointer `tmp`"),
        "{bad}"
    );
    let oob = detail("vector_add_plan/scratch-oob", "ref.native");
    assert!(oob.contains("scratch tmp"), "{oob}");
}

/// The KernelBench example pools (plans for level 2, kernels for level 1) are what their
/// generators write from their candidate folders.
#[test]
fn the_kernelbench_example_pools_are_what_their_generators_write() {
    for script in [
        "examples/kernelbench-plans/make_pool.py",
        "examples/kernelbench-l1/make_pool.py",
    ] {
        let out = std::process::Command::new("python3")
            .arg(common::root().join(script))
            .arg("--check")
            .output()
            .expect("python3 runs");
        assert!(
            out.status.success(),
            "{script}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
