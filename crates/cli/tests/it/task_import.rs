//! `aorlta task import kernelbench` over this project's own problems in KernelBench's format
//! (examples/torch-problems): which import, what the tasks say, why the rest do not, and what
//! happens without torch. The probe needs a Python with torch: `$AORLTA_TORCH_PYTHON` (scripts/test
//! points it at the trainers' venv, CPU torch, and sets `AORLTA_TORCH_REQUIRED=1`); without one the
//! torch test says it is skipped, and fails when torch is required.

use crate::common;

use common::{aorlta, root};
use std::path::Path;

fn import(python: &str, out: &Path) -> (i32, String, String) {
    let o = aorlta()
        .args([
            "task",
            "import",
            "kernelbench",
            "examples/torch-problems",
            "--jobs",
            "2",
            "--out",
        ])
        .arg(out)
        .args(["--python", python])
        .current_dir(root())
        .output()
        .expect("aorlta runs");
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

fn task(out: &Path, id: &str) -> String {
    std::fs::read_to_string(out.join(format!("{id}.yaml"))).unwrap_or_else(|e| panic!("{id}: {e}"))
}

#[test]
fn problems_import_as_tasks_with_their_signatures_sizes_and_laws_and_the_rest_say_why() {
    let Some(python) = std::env::var_os("AORLTA_TORCH_PYTHON") else {
        assert!(
            std::env::var_os("AORLTA_TORCH_REQUIRED").is_none(),
            "AORLTA_TORCH_REQUIRED is set and AORLTA_TORCH_PYTHON is not"
        );
        eprintln!("torch import test: skipped (no AORLTA_TORCH_PYTHON)");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tasks");
    let (code, stdout, stderr) = import(python.to_str().unwrap(), &out);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("imported 5 of 6 problems"), "{stdout}\n{stderr}");
    assert_eq!(
        stderr.matches("[").count(),
        6,
        "one progress line per problem:\n{stderr}"
    );

    let softmax = task(&out, "kernelbench_l1_1_row_softmax");
    assert!(
        softmax.contains("signature: void row_softmax(const float* x, float* out, int rows, int cols)"),
        "{softmax}"
    );
    assert!(
        softmax.contains("torch: ../../"),
        "the reference names the problem file, relative to the task:\n{softmax}"
    );
    assert!(
        softmax.contains("kind: normal"),
        "torch.randn is normal(0, 1):\n{softmax}"
    );
    // The problem's own size is the first (timed) one.
    let sizes = &softmax[softmax.find("\nsizes:").unwrap()..];
    assert!(
        sizes.starts_with("\nsizes:\n- rows: 2048\n  cols: 4096")
            || sizes.starts_with("\nsizes:\n- cols: 4096\n  rows: 2048"),
        "{sizes}"
    );

    let linear = task(&out, "kernelbench_l1_3_linear_relu");
    assert!(
        linear.contains(
            "signature: void linear_relu(const float* x, const float* fc_weight, const float* fc_bias, float* out, int batch)"
        ),
        "{linear}"
    );
    assert!(linear.contains("fc_weight: fc.weight"), "{linear}");
    assert!(
        linear.contains("len: 256 * 512"),
        "the weight's shape is fixed by the module:\n{linear}"
    );

    // A dimension that follows no size variable is one of its own, with its value at each size:
    // (65536 - 5) / 3 + 1 = 21844 at the timed size.
    let conv = task(&out, "kernelbench_l1_6_conv1d_strided");
    assert!(conv.contains("int out_d2)"), "{conv}");
    assert!(conv.contains("out_d2: 21844"), "{conv}");

    let report = std::fs::read_to_string(out.join("IMPORT.md")).unwrap();
    assert!(report.contains("5 of 6 problems imported"), "{report}");
    let tril = report
        .lines()
        .find(|l| l.contains("5_Lower_triangular_matmul"))
        .unwrap();
    assert!(
        tril.contains("not imported: input `a` is computed from a draw"),
        "{tril}"
    );
    assert!(!out.join("kernelbench_l1_5_lower_triangular_matmul.yaml").exists());
}

#[test]
fn without_torch_nothing_imports_and_every_problem_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tasks");
    // A Python that exists and has no torch: a plain interpreter with an empty path.
    let fake = dir.path().join("python-without-torch");
    std::fs::write(&fake, "#!/bin/sh\nexec python3 -I -S \"$@\"\n").unwrap();
    let mut perms = std::fs::metadata(&fake).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&fake, perms).unwrap();
    let (code, stdout, stderr) = import(fake.to_str().unwrap(), &out);
    assert_eq!(code, 1, "{stdout}\n{stderr}");
    assert!(stdout.contains("imported 0 of 6 problems"), "{stdout}");
    assert_eq!(stderr.matches("no torch in").count(), 6, "{stderr}");
}

#[test]
fn a_task_whose_reference_is_a_module_is_refused_at_load_naming_the_field() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("t.yaml");
    std::fs::write(
        &file,
        "id: t\nprompt: p\nsignature: \"void t(const float* x, float* out, int n)\"\n\
         reference: {torch: \"p.py:Model\"}\n\
         buffers:\n  - {name: x, dtype: f32, len: n, role: in}\n  - {name: out, dtype: f32, len: n, role: out}\n\
         scalars: {n: n}\nsizes: [{n: 10}]\ngrid: [\"1\", \"1\", \"1\"]\nblock: [\"32\", \"1\", \"1\"]\n",
    )
    .unwrap();
    let o = aorlta()
        .args(["task", "check", "--fake-gpu"])
        .arg(&file)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(text.contains("field `reference`: a PyTorch reference"), "{text}");
}
