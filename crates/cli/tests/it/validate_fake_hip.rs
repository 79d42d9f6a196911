//! `aorlta validate --fake-gpu` over the HIP example's suite (`examples/hip-kernels/`): every case
//! passes on the fake device with the recorded verdicts, the seed's four validation facts are
//! cases, every threat of the CUDA suite on the tasks the HIP example has is a case, every HIP
//! candidate file is used, and the HIP pool is up to date with its generator.

use crate::common;

use aorlta_app::Suite;
use common::{passed, root, verdicts};
use std::collections::BTreeSet;

const SUITE: &str = "examples/hip-kernels/validation.yaml";

fn suite(path: &str) -> Suite {
    aorlta_check::load_yaml(&root().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn the_hip_suite_passes_on_the_fake_device_with_the_seed_facts() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("validate.json");
    let (code, text) = common::validate(SUITE, &["--json", json.to_str().unwrap()]);
    assert_eq!(code, 0, "{text}");
    let json = std::fs::read_to_string(&json).unwrap();
    insta::assert_snapshot!("hip_fake_gpu_verdicts", verdicts(&json));
    common::feedback_holds_no_seed(&json);
    let (pass, of) = passed(&text);
    assert_eq!(pass, of, "{text}");
    assert!(pass >= 39, "{text}");
    assert!(!text.contains("FAIL"));
    assert!(text.contains("\ntarget: HIP source on NVIDIA\n"), "{text}");
    let facts = [
        // 1. Each reference against itself is not-faster at about 1.00.
        ("vector_add/self", "time broke not-faster"),
        ("transpose/self", "time broke not-faster"),
        ("block_sum/self", "time broke not-faster"),
        // 2. Host code printing a fake "10x" line is never run: measured as itself.
        ("vector_add/host-fake-timing", "time broke not-faster"),
        // 3. Too slow in the default budget, measured at about 0.001 with a larger one.
        ("vector_add/very-slow", "time broke too-slow-to-measure"),
        ("vector_add/very-slow@budget", "time broke not-faster s=0.001"),
        ("transpose/very-slow", "time broke too-slow-to-measure"),
        ("block_sum/very-slow@budget", "time broke not-faster s=0.001"),
        // 4. A slightly faster tiled transpose: not-faster at 1.1, faster at 1.0.
        ("transpose/tiled-slight@ratio-1.1", "time broke not-faster s=1.0"),
        ("transpose/tiled-slight@ratio-1.0", "time clean faster s=1.0"),
    ];
    common::assert_rows(&text, &facts);
    common::assert_rows(&text, common::THREATS);
}

#[test]
fn every_cuda_case_of_the_hip_tasks_has_a_hip_twin_and_every_hip_file_a_case() {
    let hip = suite(SUITE);
    let cuda = suite("examples/kernels/validation.yaml");
    let tasks: BTreeSet<&str> = hip.cases.iter().map(|c| c.task.as_str()).collect();
    assert_eq!(tasks, BTreeSet::from(["block_sum", "transpose", "vector_add"]));
    let ids = |s: &Suite| -> BTreeSet<String> {
        s.cases
            .iter()
            .filter(|c| tasks.contains(c.task.as_str()))
            .map(|c| c.id())
            .collect()
    };
    let (hip_ids, cuda_ids) = (ids(&hip), ids(&cuda));
    let missing: Vec<&String> = cuda_ids.difference(&hip_ids).collect();
    assert!(missing.is_empty(), "CUDA cases with no HIP twin: {missing:?}");
    for (h, c) in hip.cases.iter().flat_map(|h| {
        cuda.cases
            .iter()
            .filter(move |c| c.id() == h.id())
            .map(move |c| (h, c))
    }) {
        assert_eq!(h.expect, c.expect, "{}: the HIP twin expects otherwise", h.id());
    }
    // Every candidate file is some case's, and every source is HIP (includes the runtime header).
    let used: BTreeSet<(String, String)> = hip
        .cases
        .iter()
        .map(|c| (c.task.clone(), c.case.clone()))
        .collect();
    let base = root().join("examples/hip-kernels");
    let mut files = 0;
    for task in &tasks {
        let dir = base.join("candidates").join(task);
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            assert_eq!(
                p.extension().and_then(|x| x.to_str()),
                Some("hip"),
                "{}",
                p.display()
            );
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            assert!(
                used.contains(&(task.to_string(), stem.clone())),
                "{task}/{stem} is no case's"
            );
            files += 1;
        }
        let reference = base.join("reference").join(format!("{task}.hip"));
        for p in std::iter::once(reference).chain(std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()))
        {
            let text = std::fs::read_to_string(&p).unwrap();
            let first = text.lines().find(|l| !l.starts_with("//"));
            assert_eq!(first, Some("#include <hip/hip_runtime.h>"), "{}", p.display());
        }
    }
    assert_eq!(files, used.len());
}

#[test]
fn the_hip_pool_is_what_its_generator_writes() {
    let out = std::process::Command::new("python3")
        .arg(root().join("examples/hip-kernels/make_pool.py"))
        .arg("--check")
        .output()
        .expect("python3 runs");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}
