//! `aorlta bench kernels`'s A/A against a PyTorch reference on the fake device: a kernel given by
//! `--aa-candidate` timed against a task of `--aa-tasks` whose reference is a module, with the
//! profile's `baseline`; without a candidate such a task is refused, naming why.

use crate::common;

use common::{aorlta, root};

#[test]
fn an_aa_against_a_module_times_the_given_kernel_against_the_baseline_named() {
    let Some(python) = common::torch_python("torch A/A test") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("aa.json");
    let base = [
        "bench",
        "kernels",
        "--fake-gpu",
        "--no-compile",
        "--aa",
        "2",
        "--aa-tasks",
        "examples/torch-problems/tasks",
        "--aa-task",
        "kernelbench_l1_1_row_softmax",
    ];
    let o = aorlta()
        .args(base)
        .args([
            "--aa-candidate",
            "examples/torch-problems/candidates/row_softmax-block.cu",
        ])
        .args(["--aa-baseline", "torch-compile", "--json"])
        .arg(&json)
        .env("AORLTA_TORCH_PYTHON", &python)
        .current_dir(root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let line = text
        .lines()
        .find(|l| l.starts_with("A/A: "))
        .unwrap_or_else(|| panic!("{text}"));
    assert!(
        line.starts_with(
            "A/A: 2 timings of examples/torch-problems/candidates/row_softmax-block.cu against kernelbench_l1_1_row_softmax"
        ),
        "{line}"
    );
    assert!(
        line.contains("(ratio 1.0, symmetric, against torch-compile)"),
        "{line}"
    );
    let report: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    let aa = &report["aa"];
    assert_eq!(aa["timings"], 2, "{aa}");
    assert_eq!(aa["baseline"], "torch-compile", "{aa}");
    // Each timing ran against the module: a verdict of the judge (a loaded machine may leave it
    // too few pairs), none a harness or setup failure.
    let verdicts = aa["verdicts"].as_object().unwrap();
    let judged = ["faster", "not-faster", "within-noise", "noisy", "too-few"];
    assert!(verdicts.keys().all(|v| judged.contains(&v.as_str())), "{aa}");
    assert!(aa["s_median"].as_f64().is_some_and(f64::is_finite), "{aa}");

    let o = aorlta()
        .args(base)
        .env("AORLTA_TORCH_PYTHON", &python)
        .current_dir(root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("reference is a PyTorch module, no kernel to time against itself: give --aa-candidate"),
        "{text}"
    );
}
