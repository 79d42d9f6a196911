//! `aorlta score` of the HIP example pool on `platform: amd` where there is no AMD GPU (CI has
//! Debian's `libamdhip64.so.5` and hipcc, no device): every completion is compiled for gfx90a by
//! the real hipcc and checked by its kernel metadata, and every one that compiles is unscored
//! with `no-gpu` from the HIP backend; none gets a positive reward. Skipped with a message where
//! `AORLTA_HIPCC` is unset, failing in CI.

use crate::common;

use common::{aorlta, root};

#[test]
fn hip_on_amd_without_a_device_is_unscored_never_rewarded() {
    let hipcc = match std::env::var("AORLTA_HIPCC") {
        Ok(p) => p,
        Err(_) if std::env::var_os("CI").is_some() => panic!("CI is set but AORLTA_HIPCC is not"),
        Err(_) => {
            eprintln!("skipped: set AORLTA_HIPCC to run the HIP no-device test");
            return;
        }
    };
    let ex = root().join("examples/hip-kernels");
    let dir = tempfile::tempdir().unwrap();
    let config = dir.path().join("run.yaml");
    std::fs::write(
        &config,
        format!(
            "tasks: {tasks}\npool: {pool}\nprofile: {profile}\nout: {out}\nconcurrency: 4\n\
             kernel:\n  platform: amd\n  hip-arch: [gfx90a]\n  hipcc: {hipcc}\n  lease-dir: {leases}\n",
            tasks = ex.join("tasks").display(),
            pool = ex.join("pool.jsonl").display(),
            profile = ex.join("hipk-speed.yaml").display(),
            out = dir.path().join("out").display(),
            leases = dir.path().join("leases").display(),
        ),
    )
    .unwrap();
    let run = aorlta()
        .args(["score", "--quiet"])
        .arg(&config)
        .output()
        .expect("aorlta runs");
    let text = String::from_utf8_lossy(&run.stdout).into_owned() + &String::from_utf8_lossy(&run.stderr);
    let rewards = std::fs::read_to_string(dir.path().join("out/rewards.jsonl")).expect(&text);
    let entries: Vec<serde_json::Value> = rewards
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(entries.len(), 21, "{text}");
    let leg = |e: &serde_json::Value, name: &str| {
        e["legs"]
            .as_array()
            .unwrap()
            .iter()
            .find(|l| l["name"] == name)
            .cloned()
            .unwrap()
    };
    let mut compiled = 0;
    for e in &entries {
        let id = e["id"].as_str().unwrap();
        assert!(
            e["reward"].as_f64().is_none_or(|r| r <= 0.0),
            "{id} rewarded: {e}"
        );
        let compile = leg(e, "compile");
        if compile["state"] == "clean" {
            compiled += 1;
            assert_eq!(compile["detail"]["target"], "HIP on AMD", "{id}");
            assert_eq!(compile["detail"]["arch"], "gfx90a", "{id}");
            let run = leg(e, "ref.native");
            assert_eq!(
                (run["state"].as_str(), run["reasons"][0]["code"].as_str()),
                (Some("unsettled"), Some("no-gpu")),
                "{id}: {run}"
            );
            assert_eq!(e["scored"], false, "{id}");
        }
    }
    // The CUDA-only completion (`__stcs`) does not compile for AMD; the rest of the correct
    // and wrong kernels do.
    let cuda_only = entries
        .iter()
        .find(|e| e["id"] == "vector_add/cuda-intrinsic")
        .unwrap();
    assert_eq!(leg(cuda_only, "compile")["reasons"][0]["code"], "compile-error");
    assert!(compiled >= 15, "{compiled} compiled\n{text}");
}
