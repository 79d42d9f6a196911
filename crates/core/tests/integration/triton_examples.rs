//! Every Triton source of `examples/triton-kernels` (references and the validation suite's
//! candidates) through the real compile leg: Triton (`AORLTA_TRITON_PYTHON`, the version the
//! test command pins) compiles each, in the compile sandbox and with no GPU, to an sm_90 cubin
//! and its launch. Each candidate's outcome must be the one its suite case expects of the
//! `compile` leg (clean unless the case says otherwise), and every launch it decides must be one
//! its task allows: `num_warps`, the constexprs, the trailing arguments of the Triton that
//! compiled the reference, the kernel's plain name. Skipped with a message where the variable is
//! unset, failing in CI.

use crate::common;

use aorlta_kernel::TestEnv;
use aorlta_kernel::{Who, compile};
use std::collections::BTreeSet;
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/triton-kernels")
}

fn cases() -> Vec<(String, String, Vec<String>)> {
    common::compile_cases(&root().join("validation.yaml"))
}

#[test]
fn every_triton_example_compiles_as_its_case_expects_with_a_launch_its_task_allows() {
    let python = match std::env::var_os("AORLTA_TRITON_PYTHON") {
        Some(p) => PathBuf::from(p),
        None if std::env::var_os("CI").is_some() => panic!("CI is set but AORLTA_TRITON_PYTHON is not"),
        None => {
            eprintln!("skipped: set AORLTA_TRITON_PYTHON to compile the Triton examples");
            return;
        }
    };
    let tasks = common::kernel_tasks(&root().join("tasks"));
    assert_eq!(tasks.len(), 5);
    let dir = tempfile::tempdir().unwrap();
    // The rest take about 0.5 s; the import that never ends and the compile bomb stop at the
    // short limit.
    let env = TestEnv::new(dir.path())
        .triton_python(&python)
        .compile_timeout_s(8.0)
        .build();
    let limited = TestEnv::new(dir.path().join("limited"))
        .triton_python(&python)
        .compile_timeout_s(common::LIMIT_CASE_TIMEOUT_S)
        .build();
    let mut bad = Vec::new();
    let mut trailing = BTreeSet::new();
    for t in &tasks {
        match compile(&env, t, &t.reference_source, Who::Reference) {
            Ok(c) => {
                trailing.insert(
                    c.launch
                        .expect("a Triton compile decides its launch")
                        .trailing_pointers,
                );
            }
            Err(f) => bad.push(format!("reference {}: {} {}", t.spec.id, f.code, f.detail)),
        }
    }
    assert_eq!(
        trailing.len(),
        1,
        "one Triton, one count of trailing pointers: {trailing:?}"
    );
    for (task, case, expect) in cases() {
        let t = tasks.iter().find(|t| t.spec.id == task).unwrap();
        let spec = t.spec.triton_spec();
        let source =
            std::fs::read_to_string(root().join("candidates").join(&task).join(format!("{case}.py")))
                .unwrap();
        let env = if common::ends_at_a_limit(&expect) {
            &limited
        } else {
            &env
        };
        let got = match compile(env, t, &source, Who::Candidate) {
            Ok(c) => {
                let launch = c.launch.expect("a Triton compile decides its launch");
                let warps = launch.block[0] / 32;
                let fits = spec.num_warps.contains(&warps)
                    && launch.block[1..] == [1, 1]
                    && trailing.contains(&launch.trailing_pointers)
                    && c.symbols[0] == t.kernel_name()
                    && launch
                        .vars
                        .iter()
                        .all(|(k, v)| k == "num_warps" || spec.constexprs[k].contains(v));
                if !fits {
                    bad.push(format!(
                        "{task}/{case}: a launch its task does not allow: {launch:?}"
                    ));
                }
                "clean".to_string()
            }
            Err(f) => format!("{} {}", f.state.as_str(), f.code),
        };
        if !expect.contains(&got) {
            bad.push(format!("{task}/{case}: expected {expect:?}, got {got}"));
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
