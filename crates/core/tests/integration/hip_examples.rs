//! Every HIP source of `examples/hip-kernels` (references and the validation suite's candidates)
//! through the real compile leg for each platform it targets: gfx90a with hipcc
//! (`AORLTA_HIPCC`), gfx942 with the clang-19 stand-in (`AORLTA_HIPCC_GFX942`), and sm_90
//! through the portability header with nvcc (`AORLTA_NVCC`). A bundle of two architectures, each
//! one's metadata read, is the kernel crate's test
//! `hip_sources_compile_for_gfx942_and_gfx90a_in_one_bundle`; here gfx90a is hipcc's alone, as
//! compiling it twice would only double the slowest platform's time.
//! On AMD the leg reads each architecture's kernel metadata and checks it against the task's
//! signature, so a clean compile here is a metadata match. Each candidate's outcome must be the
//! one its suite case expects of the `compile` leg (clean unless the case says otherwise).
//! Skipped with a message where a compiler's variable is unset, failing in CI (the test command
//! installs all three).

use crate::common;

use aorlta_kernel::KernelTaskDef;
use aorlta_kernel::{KernelConfig, KernelEnv, Platform, TestEnv};
use aorlta_kernel::{Who, compile};
use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/hip-kernels")
}

fn tool(var: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(p) => Some(PathBuf::from(p)),
        None if std::env::var_os("CI").is_some() => panic!("CI is set but {var} is not"),
        None => {
            eprintln!("skipped: set {var} to compile the HIP examples with it");
            None
        }
    }
}

fn cases() -> Vec<(String, String, Vec<String>)> {
    common::compile_cases(&root().join("validation.yaml"))
}

fn tasks() -> Vec<KernelTaskDef> {
    let tasks = common::kernel_tasks(&root().join("tasks"));
    assert_eq!(tasks.len(), 3);
    tasks
}

/// Compiles every reference and candidate with `env` (a case that must end at a compile limit
/// with `limited`, the same configuration at a short time limit); returns the mismatches.
fn check_all(env: &KernelEnv, limited: &KernelEnv, label: &str) -> Vec<String> {
    let tasks = tasks();
    let mut bad = Vec::new();
    for t in &tasks {
        if let Err(f) = compile(env, t, &t.reference_source, Who::Reference) {
            bad.push(format!(
                "{label}: reference {}: {} {}",
                t.spec.id, f.code, f.detail
            ));
        }
    }
    for (task, case, expect) in cases() {
        let t = tasks.iter().find(|t| t.spec.id == task).unwrap();
        let path = root().join("candidates").join(&task).join(format!("{case}.hip"));
        let source = std::fs::read_to_string(&path).unwrap();
        let env = if common::ends_at_a_limit(&expect) {
            limited
        } else {
            env
        };
        let got = match compile(env, t, &source, Who::Candidate) {
            Ok(_) => "clean".to_string(),
            Err(f) => format!("{} {}", f.state.as_str(), f.code),
        };
        if !expect.contains(&got) {
            bad.push(format!("{label}: {task}/{case}: expected {expect:?}, got {got}"));
        }
    }
    bad
}

fn env(dir: &Path, config: KernelConfig, timeout_s: f64) -> KernelEnv {
    TestEnv::of(config)
        .work_dir(dir)
        .compile_timeout_s(timeout_s)
        .build()
}

fn amd(compiler: PathBuf, archs: &[&str]) -> KernelConfig {
    KernelConfig {
        platform: Platform::Amd,
        hipcc: Some(compiler),
        hip_arch: archs.iter().map(|a| a.to_string()).collect(),
        ..KernelConfig::default()
    }
}

#[test]
fn every_hip_example_compiles_as_its_case_expects_on_each_platform() {
    let mut runs: Vec<(&str, KernelConfig)> = Vec::new();
    if let Some(hipcc) = tool("AORLTA_HIPCC") {
        runs.push(("gfx90a (hipcc)", amd(hipcc, &["gfx90a"])));
    }
    if let Some(clang) = tool("AORLTA_HIPCC_GFX942") {
        runs.push(("gfx942 (clang-19)", amd(clang, &["gfx942"])));
    }
    if let Some(nvcc) = tool("AORLTA_NVCC") {
        let config = KernelConfig {
            nvcc: Some(nvcc),
            compiler: aorlta_kernel::CompilerChoice::Nvcc,
            ..KernelConfig::default()
        };
        runs.push(("sm_90 (nvcc, HIP source on NVIDIA)", config));
    }
    let dir = tempfile::tempdir().unwrap();
    let bad: Vec<String> = std::thread::scope(|s| {
        let handles: Vec<_> = runs
            .into_iter()
            .enumerate()
            .map(|(i, (label, config))| {
                let d = dir.path().join(i.to_string());
                s.spawn(move || {
                    let limited = env(&d.join("limited"), config.clone(), common::LIMIT_CASE_TIMEOUT_S);
                    check_all(&env(&d, config, 20.0), &limited, label)
                })
            })
            .collect();
        handles.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
