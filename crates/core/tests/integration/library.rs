//! The task library (`examples/library`): its generated files are up to date with `library.py`,
//! every task loads (fields, tolerance against precision, rows), and every reference, faster and
//! wrong kernel compiles alone for sm_90 with the real nvcc (`AORLTA_NVCC`; skipped with a
//! message where it is unset, failing in CI, whose test command installs it) and defines the
//! task's kernel. The tolerance sanity and the suite itself run through the CLI on the fake
//! device (crates/cli/tests/it/task_check.rs), and on a GPU with `aorlta task check --gpu`.

use aorlta_kernel::KernelTaskDef;
use aorlta_kernel::TestEnv;
use aorlta_kernel::{Who, compile, compile_many};
use std::path::PathBuf;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples/library")
}

fn tasks() -> Vec<KernelTaskDef> {
    crate::common::kernel_tasks(&root().join("tasks"))
}

#[test]
fn the_library_is_generated_from_its_table_and_every_task_loads() {
    let out = std::process::Command::new("python3")
        .arg(root().join("make_library.py"))
        .arg("--check")
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let tasks = tasks();
    assert!(tasks.len() >= 30, "{} tasks", tasks.len());
    for t in &tasks {
        assert!(
            t.spec.sizes.len() >= 3,
            "{}: an odd size or two besides the timed one",
            t.spec.id
        );
        for case in ["faster", "wrong"] {
            let p = root()
                .join("candidates")
                .join(&t.spec.id)
                .join(format!("{case}.cu"));
            assert!(p.is_file(), "{}", p.display());
        }
    }
}

#[test]
fn every_library_kernel_compiles_with_nvcc() {
    let Some(nvcc) = std::env::var_os("AORLTA_NVCC").map(PathBuf::from) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but AORLTA_NVCC is not"
        );
        eprintln!("skipped: set AORLTA_NVCC to compile the library with it");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let env = TestEnv::new(dir.path())
        .nvcc(nvcc)
        .compiler(aorlta_kernel::CompilerChoice::Nvcc)
        .compile_timeout_s(60.0)
        .build();
    let tasks = tasks();
    let mut jobs: Vec<(String, &KernelTaskDef, String, Who)> = Vec::new();
    for t in &tasks {
        jobs.push((
            format!("{}/reference", t.spec.id),
            t,
            t.reference_source.clone(),
            Who::Reference,
        ));
        for case in ["faster", "wrong"] {
            let p = root()
                .join("candidates")
                .join(&t.spec.id)
                .join(format!("{case}.cu"));
            let source = std::fs::read_to_string(&p).unwrap();
            jobs.push((format!("{}/{case}", t.spec.id), t, source, Who::Candidate));
        }
    }
    // All at once into the compile cache, then each outcome read back.
    let many: Vec<_> = jobs
        .iter()
        .map(|(_, t, src, who)| (*t, src.as_str(), *who))
        .collect();
    compile_many(&env, &many);
    let bad: Vec<String> = jobs
        .iter()
        .filter_map(|(name, t, src, who)| {
            compile(&env, t, src, *who)
                .err()
                .map(|f| format!("{name}: {} {}", f.code, f.detail))
        })
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
