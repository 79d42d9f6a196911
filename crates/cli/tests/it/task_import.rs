//! `aorlta task import kernelbench` over this project's own problems in KernelBench's format
//! (examples/torch-problems): which import, what the tasks say, why the rest do not, and what
//! happens without torch; at level 2 (examples/torch-problems/level2) the tasks allow plans, with
//! the library's `gemm` where the module has a linear layer, and a plan of a `gemm` and an
//! epilogue kernel is scored against the module on the fake device. The probe needs a Python with
//! torch: `$AORLTA_TORCH_PYTHON` (scripts/test
//! points it at the trainers' venv, CPU torch, and sets `AORLTA_TORCH_REQUIRED=1`); without one the
//! torch test says it is skipped, and fails when torch is required.

use crate::common;

use common::{aorlta, root};
use std::path::Path;

fn import(python: &str, out: &Path) -> (i32, String, String) {
    import_level(python, out, 1)
}

fn import_level(python: &str, out: &Path, level: u32) -> (i32, String, String) {
    import_as(python, out, level, "cuda")
}

/// The example problems imported at `level` for kernels in `language`: the exit status, stdout
/// and stderr.
fn import_as(python: &str, out: &Path, level: u32, language: &str) -> (i32, String, String) {
    let o = aorlta()
        .args([
            "task",
            "import",
            "kernelbench",
            "examples/torch-problems",
            "--jobs",
            "2",
            "--level",
            &level.to_string(),
            "--language",
            language,
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

fn conv_of(out: &Path) -> String {
    task(out, "kernelbench_l1_6_conv1d_strided")
}

/// `aorlta task check --fake-gpu --profile PROFILE FOLDER` with `python` as the torch Python: the
/// exit status and everything printed.
fn check_fake(python: &std::ffi::OsStr, folder: &Path, profile: &str) -> (Option<i32>, String) {
    let o = aorlta()
        .args(["task", "check", "--fake-gpu", "--profile", profile])
        .arg(folder)
        .env("AORLTA_TORCH_PYTHON", python)
        .current_dir(root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code(), text)
}

/// `aorlta task import kernelbench DIR --jobs 1 EXTRA... --out OUT --python PYTHON`: the exit
/// status and standard output, standard error after it.
fn import_folder(dir: &Path, out: &Path, python: &std::ffi::OsStr, extra: &[&str]) -> (Option<i32>, String) {
    let o = aorlta()
        .args(["task", "import", "kernelbench"])
        .arg(dir)
        .args(["--jobs", "1"])
        .args(extra)
        .arg("--out")
        .arg(out)
        .arg("--python")
        .arg(python)
        .current_dir(root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    (o.status.code(), text)
}

/// A task file's prompt.
fn prompt_of(task: &str) -> String {
    let v: serde_json::Value = serde_norway::from_str(task).unwrap();
    v["prompt"].as_str().unwrap().to_string()
}

#[test]
fn problems_import_as_tasks_with_their_signatures_sizes_and_laws_and_the_rest_say_why() {
    let Some(python) = common::torch_python("torch import test") else {
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
    // Level 1 is one kernel: no `plans` field, and the prompt says nothing of plans.
    for one in [&softmax, &linear, &conv_of(&out)] {
        assert!(!one.contains("\nplans:"), "{one}");
        let prompt = prompt_of(one);
        assert!(!prompt.contains("plan") && !prompt.contains("`gemm`"), "{prompt}");
    }
    assert!(!stdout.contains("plan tasks"), "{stdout}");
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
fn a_task_whose_module_file_is_missing_is_refused_at_load_naming_the_field() {
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
    assert!(
        text.contains("t.yaml") && text.contains("field `reference`") && text.contains("p.py"),
        "{text}"
    );
}

#[test]
fn the_example_torch_tasks_pass_task_check_on_the_fake_device_with_their_modules_run() {
    let Some(python) = common::torch_python("torch reference test") else {
        return;
    };
    let o = aorlta()
        .args([
            "task",
            "check",
            "--fake-gpu",
            "--profile",
            "examples/kernels/profile-speed.yaml",
            "examples/torch-problems/tasks",
        ])
        .env("AORLTA_TORCH_PYTHON", &python)
        .current_dir(root())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{text}");
    assert!(text.contains("5 of 5 tasks pass"), "{text}");
    // The module ran: its real outputs went through the tolerance sanity (a `pass`, not the fake
    // device's stand-in), and the run and A/A steps say why they did not run.
    let row = text
        .lines()
        .find(|l| l.starts_with("kernelbench_l1_1_row_softmax "))
        .unwrap_or_else(|| panic!("{text}"));
    let cols: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(&cols[1..5], ["pass", "pass", "skip", "skip"], "{row}");
    assert!(text.contains("a PyTorch reference is no kernel"), "{text}");
}

#[test]
fn a_triton_import_makes_tasks_for_jit_functions_that_load_and_pass_task_check_and_refuses_level_2() {
    let Some(python) = common::torch_python("torch import test") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("triton");
    let python_text = python.to_string_lossy().into_owned();
    let (code, stdout, stderr) = import_as(&python_text, &out, 1, "triton");
    let text = stdout + &stderr;
    assert_eq!(code, 0, "{text}");
    assert!(text.contains("imported 5 of 6 problems"), "{text}");
    let t = task(&out, "kernelbench_l1_2_scaled_tanh_triton");
    assert!(t.contains("language: triton"), "{t}");
    assert!(t.contains("BLOCK:"), "{t}");
    let prompt = prompt_of(&t);
    assert!(prompt.contains("@triton.jit"), "{prompt}");
    assert!(!prompt.contains("__global__"), "{prompt}");
    // The tasks load (the kernel lane's rules) and their modules run as references.
    let (code, text) = check_fake(&python, &out, "examples/triton-kernels/tritonk-speed.yaml");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("5 of 5 tasks pass"), "{text}");
    // Level 2's tasks allow plans, whose kernels are CUDA: refused before anything is written.
    let (code, _, stderr) = import_as(&python_text, &dir.path().join("level2"), 2, "triton");
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("Triton tasks are imported from level 1"),
        "{stderr}"
    );
    assert!(!dir.path().join("level2").exists());
}

/// The example pool scored on the fake device against the modules, with `python` as the torch
/// Python; the rewards file's entries by id.
fn score_torch_pool(
    python: &std::ffi::OsStr,
    kernel_extra: &str,
) -> std::collections::BTreeMap<String, serde_json::Value> {
    let dir = tempfile::tempdir().unwrap();
    let r = root();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "tasks: {0}/examples/torch-problems/tasks\npool: {0}/examples/torch-problems/pool.jsonl\n\
             profile: {0}/examples/kernels/profile.yaml\nout: {1}\nconcurrency: 4\nkernel:\n  fake-gpu: true\n{2}",
            r.display(),
            dir.path().join("out").display(),
            kernel_extra
        ),
    )
    .unwrap();
    let o = aorlta()
        .args(["score", "--quiet"])
        .arg(&config)
        .env("AORLTA_TORCH_PYTHON", python)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{text}");
    std::fs::read_to_string(dir.path().join("out/rewards.jsonl"))
        .unwrap_or_else(|e| panic!("{e}: {text}"))
        .lines()
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (v["id"].as_str().unwrap().to_string(), v)
        })
        .collect()
}

fn leg<'a>(entry: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    entry["legs"]
        .as_array()
        .and_then(|legs| legs.iter().find(|l| l["name"] == name))
        .unwrap_or_else(|| panic!("no leg {name} in {entry}"))
}

#[test]
fn candidates_are_checked_against_the_modules_own_outputs() {
    let Some(python) = common::torch_python("torch reference test") else {
        return;
    };
    let entries = score_torch_pool(&python, "");
    assert_eq!(entries.len(), 6, "{entries:?}");
    // The fake device's stand-in computes a row softmax for `row_softmax`: the module's real
    // softmax (torch on the CPU) accepts it. For `scaled_tanh` its stand-in is a generic function,
    // not tanh(2.5 x): the module's outputs tell it wrong. A reference computed by the fake
    // device itself would have accepted both.
    for (id, v) in &entries {
        let run = leg(v, "ref.native");
        if id.starts_with("row_softmax") {
            assert_eq!(run["state"], "clean", "{id}: {run}");
            assert_eq!(v["reward"], 1.0, "{id}: {v}");
        } else {
            assert_eq!(run["state"], "broke", "{id}: {run}");
            assert_eq!(run["reasons"][0]["code"], "output-mismatch", "{id}: {run}");
        }
    }
}

#[test]
fn without_torch_a_module_reference_leaves_the_entry_unscored_no_torch() {
    // A Python that runs and has no torch: an interpreter started on an empty library path.
    let dir = tempfile::tempdir().unwrap();
    let fake_python = dir.path().join("python");
    std::fs::write(
        &fake_python,
        "#!/bin/sh\necho 'No module named torch' >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake_python, std::fs::Permissions::from_mode(0o755)).unwrap();
    let unscored = |entries: &std::collections::BTreeMap<String, serde_json::Value>| {
        assert_eq!(entries.len(), 6, "{entries:?}");
        for (id, v) in entries {
            let run = leg(v, "ref.native");
            assert_eq!(run["state"], "unsettled", "{id}: {run}");
            assert_eq!(run["reasons"][0]["code"], "no-torch", "{id}: {run}");
            assert!(v["reward"].is_null(), "{id}: {v}");
        }
    };
    unscored(&score_torch_pool(fake_python.as_os_str(), ""));
    // The run config's `kernel.torch-python` is the one used, whatever the environment names.
    if let Some(real) = common::torch_python("torch reference test") {
        let line = format!("  torch-python: {}\n", fake_python.display());
        unscored(&score_torch_pool(&real, &line));
    }
}

#[test]
fn level_2_problems_import_as_plan_tasks_with_gemm_where_the_module_has_a_linear_layer() {
    let Some(python) = common::torch_python("torch import test") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("tasks");
    let (code, stdout, stderr) = import_level(python.to_str().unwrap(), &out, 2);
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stdout.contains("imported 3 of 3 problems"), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("3 plan tasks, 1 of them with the library's gemm"),
        "{stdout}"
    );

    // A linear layer: `gemm` in the menu, twice its product's bytes of scratch (1024 x 64 f32
    // per batch row of 64: 2 * 4 * 64 = 512 bytes a row), one step per operator and one more.
    let gemm = task(&out, "kernelbench_l2_1_gemm_biasadd_relu");
    assert!(
        gemm.contains("\nplans:\n  max_steps: 4\n  max_scratch_bytes: 512 * batch\n  library:\n  - gemm\n"),
        "{gemm}"
    );
    let prompt = prompt_of(&gemm);
    for needle in [
        "as one kernel or as a plan",
        "a ```yaml block whose top key is `plan:`",
        "Library steps this task allows: `gemm` only",
        "- gemm: {a: x, b: proj_weight, c: tmp, m: \"batch\", n: \"64\", k: \"128\", trans_b: true, dtype: f32}",
        "at most `512 * batch` bytes in all",
        "without running anything of yours on the host",
    ] {
        assert!(prompt.contains(needle), "{needle:?} not in:\n{prompt}");
    }
    // A convolution and a batched product: plans of launches only, and the prompt says so.
    for (id, why) in [
        ("kernelbench_l2_2_conv2d_tanh_scale", "conv2d (a convolution)"),
        (
            "kernelbench_l2_3_batched_matmul_relu",
            "bmm (a batched or higher-rank product)",
        ),
    ] {
        let t = task(&out, id);
        assert!(t.contains("\nplans:\n  max_steps: 4\n"), "{t}");
        assert!(!t.contains("  library:"), "{t}");
        let prompt = prompt_of(&t);
        assert!(prompt.contains("This task allows no library step"), "{prompt}");
        assert!(
            prompt.contains(&format!("No library step computes {why} yet")),
            "{prompt}"
        );
        assert!(!prompt.contains("- gemm:"), "{prompt}");
    }

    let report = std::fs::read_to_string(out.join("IMPORT.md")).unwrap();
    assert!(
        report.contains(
            "3 of 3 problems imported as tasks. 3 of them allow plans, 1 with the library's `gemm`."
        ),
        "{report}"
    );
    let row = |name: &str| {
        report
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name}: {report}"))
            .to_string()
    };
    assert!(
        row("1_Gemm_BiasAdd_ReLU").contains("a plan task: at most 4 steps, scratch at most `512 * batch` bytes, library steps `gemm` (linear by `gemm`)"),
        "{report}"
    );
    assert!(
        row("2_Conv2d_Tanh_Scale").contains("no library step; none yet for conv2d (a convolution)"),
        "{report}"
    );
    assert!(
        row("3_Batched_matmul_ReLU").contains("no library step; none yet for bmm"),
        "{report}"
    );

    // examples/torch-problems/level2/tasks is this import (but for the path to the problem).
    let committed = root().join("examples/torch-problems/level2/tasks");
    let without_path = |t: &str| -> String {
        t.lines()
            .filter(|l| !l.trim_start().starts_with("torch: "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    for entry in std::fs::read_dir(&out).unwrap() {
        let name = entry.unwrap().file_name();
        let fresh = std::fs::read_to_string(out.join(&name)).unwrap();
        let kept = std::fs::read_to_string(committed.join(&name))
            .unwrap_or_else(|e| panic!("{}: {e}", committed.join(&name).display()));
        assert_eq!(
            without_path(&kept),
            without_path(&fresh),
            "{name:?} differs from a fresh import: import again into examples/torch-problems/level2/tasks"
        );
    }

    // The tasks load and their modules pass the checks the fake device runs.
    let (code, text) = check_fake(&python, &out, "examples/kernels/profile-speed.yaml");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("3 of 3 tasks pass"), "{text}");
}

#[test]
fn a_plan_of_the_librarys_gemm_and_an_epilogue_kernel_is_checked_against_the_module() {
    let Some(python) = common::torch_python("torch reference test") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    // The tasks as imported (the test above checks they are what an import writes).
    let tasks = root().join("examples/torch-problems/level2/tasks");
    // The pool: each candidate of examples/torch-problems/level2/candidates, a whole completion
    // (kernels and a plan), for the task its name starts with.
    let candidates = root().join("examples/torch-problems/level2/candidates");
    let mut pool = String::new();
    for (case, task) in [
        ("gemm_biasadd_relu-plan", "kernelbench_l2_1_gemm_biasadd_relu"),
        (
            "gemm_biasadd_relu-untransposed",
            "kernelbench_l2_1_gemm_biasadd_relu",
        ),
        ("conv2d_tanh_scale-gemm", "kernelbench_l2_2_conv2d_tanh_scale"),
    ] {
        let completion = std::fs::read_to_string(candidates.join(format!("{case}.md"))).unwrap();
        pool.push_str(&serde_json::json!({"id": case, "task": task, "completion": completion}).to_string());
        pool.push('\n');
    }
    std::fs::write(dir.path().join("pool.jsonl"), pool).unwrap();
    let config = dir.path().join("c.yaml");
    std::fs::write(
        &config,
        format!(
            "tasks: {}\npool: {}\nprofile: {}/examples/kernels/profile.yaml\nout: {}\nconcurrency: 2\nkernel:\n  fake-gpu: true\n",
            tasks.display(),
            dir.path().join("pool.jsonl").display(),
            root().display(),
            dir.path().join("out").display()
        ),
    )
    .unwrap();
    let o = aorlta()
        .args(["score", "--quiet"])
        .arg(&config)
        .env("AORLTA_TORCH_PYTHON", &python)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&o.stdout).into_owned() + &String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{text}");
    let entries: std::collections::BTreeMap<String, serde_json::Value> =
        std::fs::read_to_string(dir.path().join("out/rewards.jsonl"))
            .unwrap_or_else(|e| panic!("{e}: {text}"))
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (v["id"].as_str().unwrap().to_string(), v)
            })
            .collect();
    assert_eq!(entries.len(), 3, "{entries:?}");
    // The fake device computes the GEMM on the CPU and the epilogue `bias_relu` as its name says;
    // the module's outputs, computed by torch, accept the plan.
    let plan = &entries["gemm_biasadd_relu-plan"];
    assert_eq!(leg(plan, "ref.native")["state"], "clean", "{plan}");
    assert_eq!(plan["reward"], 1.0, "{plan}");
    // The same plan with the weight read untransposed computes x @ W, not x @ W.T: the module
    // tells it wrong.
    let wrong = leg(&entries["gemm_biasadd_relu-untransposed"], "ref.native");
    assert_eq!(wrong["state"], "broke", "{wrong}");
    assert_eq!(wrong["reasons"][0]["code"], "output-mismatch", "{wrong}");
    // A `gemm` step where the task's menu holds none is refused when the completion is parsed.
    let refused = leg(&entries["conv2d_tanh_scale-gemm"], "parse");
    assert_eq!(refused["state"], "broke", "{refused}");
    assert_eq!(refused["reasons"][0]["code"], "plan-invalid", "{refused}");
    assert!(
        refused["reasons"][0]["detail"]
            .as_str()
            .unwrap_or("")
            .starts_with("plan step 1 (gemm): field `kind`: the task allows no `gemm` step"),
        "{refused}"
    );
}

/// A draw scaled by a positive number or by another uniform draw (KernelBench's losses draw
/// `torch.rand(shape) * torch.rand(())`) imports with the domain its values lie in; a scale of
/// unknown sign does not.
#[test]
fn a_draw_scaled_by_a_draw_imports_with_the_domain_of_its_values() {
    let Some(python) = common::torch_python("torch import test") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let problem = |scale: &str| {
        format!(
            "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def __init__(self):\n        \
             super().__init__()\n\n    def forward(self, a, b):\n        return torch.mean((a - b) ** 2)\n\n\n\
             n = 4096\n\n\ndef get_inputs():\n    scale = {scale}\n    \
             return [torch.rand(n, 64) * scale, torch.rand(n, 64) * 3.0]\n\n\ndef get_init_inputs():\n    return []\n"
        )
    };
    std::fs::write(dir.path().join("1_Scaled_mse.py"), problem("torch.rand(())")).unwrap();
    std::fs::write(dir.path().join("2_Signed_mse.py"), problem("torch.randn(())")).unwrap();
    let out = dir.path().join("tasks");
    let (_, text) = import_folder(dir.path(), &out, &python, &[]);
    assert!(text.contains("imported 1 of 2"), "{text}");
    let v: serde_json::Value = serde_norway::from_str(&task(&out, "kernelbench_l1_1_scaled_mse")).unwrap();
    let init = |name: &str| {
        let b = v["buffers"]
            .as_array()
            .unwrap()
            .iter()
            .find(|b| b["name"] == name)
            .unwrap();
        (
            b["init"]["kind"].clone(),
            b["init"]["lo"].as_f64(),
            b["init"]["hi"].as_f64(),
        )
    };
    assert_eq!(init("a"), ("uniform".into(), Some(0.0), Some(1.0)));
    assert_eq!(init("b"), ("uniform".into(), Some(0.0), Some(3.0)));
    let report = std::fs::read_to_string(out.join("IMPORT.md")).unwrap();
    let signed = report.lines().find(|l| l.contains("2_Signed_mse")).unwrap();
    assert!(
        signed.contains("not imported: input `a` is computed from a draw"),
        "{signed}"
    );
}

/// A module whose own single-precision rounding exceeds its tolerance on inputs the task draws
/// (a variance as the mean of squares minus the squared mean, on values in a narrow window near
/// the top of [0, 1]) fails `task check`: a kernel closer to the exact result than the module
/// would be judged wrong. The same task with an exact enough module passes.
#[test]
fn a_module_less_exact_than_its_tolerance_fails_task_check() {
    let Some(python) = common::torch_python("torch precision test") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let problem = |forward: &str| {
        format!(
            "import torch\nimport torch.nn as nn\n\n\nclass Model(nn.Module):\n    def __init__(self):\n        \
             super().__init__()\n\n    def forward(self, x):\n{forward}\n\n\n\
             batch_size = 64\ndim = 256\n\n\ndef get_inputs():\n    return [torch.rand(batch_size, dim)]\n\n\n\
             def get_init_inputs():\n    return []\n"
        )
    };
    let naive = "        m = x.mean(dim=1, keepdim=True)\n        v = (x * x).mean(dim=1, keepdim=True) - m * m\n        \
                 return (x - m) * torch.rsqrt(v.clamp_min(0.0) + 1e-6)";
    std::fs::write(dir.path().join("1_Naive_norm.py"), problem(naive)).unwrap();
    std::fs::write(
        dir.path().join("2_Affine.py"),
        problem("        return x * 2.0 + 1.0"),
    )
    .unwrap();
    let out = dir.path().join("tasks");
    let (_, text) = import_folder(dir.path(), &out, &python, &[]);
    assert!(text.contains("imported 2 of 2"), "{text}");
    let (code, text) = check_fake(python.as_os_str(), &out, "examples/kernels/profile-speed.yaml");
    assert_eq!(code, Some(1), "{text}");
    let naive = text
        .lines()
        .find(|l| l.starts_with("kernelbench_l1_1_naive_norm"))
        .unwrap();
    assert!(naive.contains("FAIL"), "{naive}");
    for part in [
        "its result in double precision",
        "times the tolerance",
        "inputs x ",
    ] {
        assert!(naive.contains(part), "{part}: {naive}");
    }
    let affine = text
        .lines()
        .find(|l| l.starts_with("kernelbench_l1_2_affine"))
        .unwrap();
    assert!(!affine.contains("FAIL"), "{affine}");
    assert!(text.contains("1 of 2 tasks pass"), "{text}");

    // Imported with --fit-tolerance (the modules on the CPU here), the naive module's atol is
    // widened until its own rounding fits, its prompt says so, and both tasks pass.
    let fitted = dir.path().join("fitted");
    let (code, text) = import_folder(dir.path(), &fitted, &python, &["--fit-tolerance", "--fake-gpu"]);
    assert_eq!(code, Some(0), "{text}");
    assert!(
        text.contains("tolerances fitted to the modules' precision: 1 tasks listed"),
        "{text}"
    );
    let report = std::fs::read_to_string(fitted.join("IMPORT.md")).unwrap();
    let row = report
        .lines()
        .find(|l| l.starts_with("| `kernelbench_l1_1_naive_norm` | atol 0.0001, rtol 0.0001 | atol "))
        .unwrap_or_else(|| panic!("{report}"));
    assert!(row.contains("| widened: the module's own result was "), "{row}");
    let naive_task = task(&fitted, "kernelbench_l1_1_naive_norm");
    let v: serde_json::Value = serde_norway::from_str(&naive_task).unwrap();
    let atol = v["tolerance"]["atol"].as_f64().unwrap();
    assert!(
        atol > 1e-4 && v["tolerance"]["rtol"].as_f64() == Some(1e-4),
        "{}",
        v["tolerance"]
    );
    let sentence = format!("with atol = {atol}, rtol = 0.0001.");
    assert!(prompt_of(&naive_task).contains(&sentence), "{sentence}");
    assert!(
        !task(&fitted, "kernelbench_l1_2_affine").contains("atol: "),
        "the affine task keeps its default"
    );
    let (code, text) = check_fake(python.as_os_str(), &fitted, "examples/kernels/profile-speed.yaml");
    assert_eq!(code, Some(0), "{text}");
    assert!(text.contains("2 of 2 tasks pass"), "{text}");
}
