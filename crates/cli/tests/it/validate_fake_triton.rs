//! `aorlta validate --fake-gpu` over the Triton example's suite (`examples/triton-kernels/`):
//! every case passes on the fake device with the recorded verdicts, its records say `Triton on
//! NVIDIA`, every candidate file is some case's, and the Triton pool is up to date with its
//! generator. (Each source's real compile by Triton is crates/core/tests/integration/triton_examples.rs.)

use crate::common;

use aorlta_app::Suite;
use common::{passed, root, verdicts};
use std::collections::BTreeSet;

const SUITE: &str = "examples/triton-kernels/validation.yaml";

#[test]
fn the_triton_suite_passes_on_the_fake_device() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("validate.json");
    let (code, text) = common::validate(SUITE, &["--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    let json = std::fs::read_to_string(&json).unwrap();
    insta::assert_snapshot!("triton_fake_gpu_verdicts", verdicts(&json));
    common::feedback_holds_no_seed(&json);
    let (pass, of) = passed(&text);
    assert_eq!(pass, of, "{text}");
    assert!(pass >= 30, "{text}");
    assert!(text.contains("\ntarget: Triton on NVIDIA\n"), "{text}");
}

#[test]
fn every_triton_candidate_file_is_a_case() {
    let suite: Suite = aorlta_check::load_yaml(&root().join(SUITE)).unwrap();
    let used: BTreeSet<(String, String)> = suite
        .cases
        .iter()
        .map(|c| (c.task.clone(), c.case.clone()))
        .collect();
    let base = root().join("examples/triton-kernels/candidates");
    let mut files = 0;
    for task in std::fs::read_dir(&base).unwrap() {
        let task = task.unwrap().path();
        let name = task.file_name().unwrap().to_string_lossy().into_owned();
        for f in std::fs::read_dir(&task).unwrap() {
            let p = f.unwrap().path();
            assert_eq!(
                p.extension().and_then(|x| x.to_str()),
                Some("py"),
                "{}",
                p.display()
            );
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(
                used.contains(&(name.clone(), stem.clone())),
                "{name}/{stem} is no case's"
            );
            files += 1;
        }
    }
    assert_eq!(files, used.len());
}

#[test]
fn the_triton_pool_is_what_its_generator_writes() {
    let out = std::process::Command::new("python3")
        .arg(root().join("examples/triton-kernels/make_pool.py"))
        .arg("--check")
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

/// Without a GPU the Triton pool compiles for real (Triton in the sandbox) and nothing is
/// rewarded: every run leg is unsettled `no-gpu`, so no completion scores above zero.
#[test]
fn without_a_gpu_the_triton_pool_compiles_and_earns_nothing() {
    if std::env::var_os("AORLTA_TRITON_PYTHON").is_none() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but AORLTA_TRITON_PYTHON is not"
        );
        eprintln!("skipped: set AORLTA_TRITON_PYTHON to compile the Triton pool");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let base = root().join("examples/triton-kernels");
    let config = dir.path().join("run.yaml");
    std::fs::write(
        &config,
        format!(
            "tasks: {}\npool: {}\nprofile: {}\nout: {}\nkernel:\n  gpus: all\n",
            base.join("tasks").display(),
            base.join("pool.jsonl").display(),
            base.join("tritonk-speed.yaml").display(),
            dir.path().join("out").display()
        ),
    )
    .unwrap();
    // The tests run where there is no GPU (CI): the harness finds no driver library.
    let out = common::aorlta()
        .args(["score", "--quiet"])
        .arg(&config)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    let rewards = std::fs::read_to_string(dir.path().join("out/rewards.jsonl")).unwrap();
    let mut compiled = 0;
    for line in rewards.lines() {
        let r: serde_json::Value = serde_json::from_str(line).unwrap();
        assert!(r["reward"].as_f64().is_none_or(|x| x <= 0.0), "{line}");
        for leg in r["legs"].as_array().unwrap() {
            if leg["name"] == "compile" && leg["state"] == "clean" {
                compiled += 1;
                assert_eq!(leg["detail"]["target"], "Triton on NVIDIA");
                assert!(
                    leg["detail"]["compiler"]
                        .as_str()
                        .unwrap()
                        .starts_with("triton 3."),
                    "{leg}"
                );
            }
            if leg["name"] == "ref.native" && leg["state"] != "skipped" {
                assert_eq!(leg["state"], "unsettled", "{leg}");
            }
        }
    }
    assert!(compiled >= 20, "{compiled} compiled\n{text}");
}
