//! The trusted reference process (`reference.py`) driven as the harness will drive it, on the
//! CPU (buffers in shared files): outputs written in place and right, the module's parameters
//! taken from the harness's buffers, a file that is not the task's refused, and Python started
//! isolated. Needs a Python with torch (`$AORLTA_TORCH_PYTHON`, CPU torch is enough); without
//! one each test says it is skipped, and fails when `AORLTA_TORCH_REQUIRED` is set.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

const REFERENCE: &str = include_str!("reference.py");

fn python() -> Option<PathBuf> {
    match std::env::var_os("AORLTA_TORCH_PYTHON") {
        Some(p) => Some(PathBuf::from(p)),
        None => {
            assert!(
                std::env::var_os("AORLTA_TORCH_REQUIRED").is_none(),
                "AORLTA_TORCH_REQUIRED is set and AORLTA_TORCH_PYTHON is not"
            );
            eprintln!("reference process test: skipped (no AORLTA_TORCH_PYTHON)");
            None
        }
    }
}

fn problem(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/torch-problems")
        .join(name)
}

fn sha256(path: &Path) -> String {
    let out = Command::new("sha256sum")
        .arg(path)
        .output()
        .expect("sha256sum runs");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .next()
        .unwrap()
        .to_string()
}

struct Process {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    _dir: tempfile::TempDir,
}

impl Process {
    fn start(python: &Path, args: &[(&str, String)], planted: Option<&Path>) -> (Process, serde_json::Value) {
        let dir = tempfile::tempdir().unwrap();
        let script = dir.path().join("reference.py");
        std::fs::write(&script, REFERENCE).unwrap();
        let mut cmd = Command::new(python);
        cmd.arg("-I").arg(&script);
        for (k, v) in args {
            cmd.arg(format!("--{k}")).arg(v);
        }
        if let Some(d) = planted {
            cmd.env("PYTHONPATH", d).current_dir(d);
        }
        let mut child = cmd.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn().unwrap();
        let stdin = child.stdin.take().unwrap();
        let mut stdout = BufReader::new(child.stdout.take().unwrap());
        let mut first = String::new();
        stdout.read_line(&mut first).unwrap();
        let ready = serde_json::from_str(&first).unwrap_or_else(|e| panic!("{e}: {first:?}"));
        (
            Process {
                child,
                stdin,
                stdout,
                _dir: dir,
            },
            ready,
        )
    }

    fn ask(&mut self, req: serde_json::Value) -> serde_json::Value {
        writeln!(self.stdin, "{req}").unwrap();
        self.stdin.flush().unwrap();
        let mut line = String::new();
        self.stdout.read_line(&mut line).unwrap();
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("{e}: {line:?}"))
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "{{\"op\": \"quit\"}}");
        let _ = self.child.wait();
    }
}

fn write_f32(path: &Path, values: &[f32]) {
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, bytes).unwrap();
}

fn read_f32(path: &Path) -> Vec<f32> {
    std::fs::read(path)
        .unwrap()
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn args(file: &Path, sha: String, init: &str, state: &str, forward: &str) -> Vec<(&'static str, String)> {
    vec![
        ("module", file.display().to_string()),
        ("sha256", sha),
        ("init", init.into()),
        ("state", state.into()),
        ("forward-names", forward.into()),
    ]
}

#[test]
fn the_forward_is_written_into_the_harness_output_in_place() {
    let Some(py) = python() else { return };
    let file = problem("2_Scaled_tanh.py");
    let (mut p, ready) = Process::start(&py, &args(&file, sha256(&file), "[2.5]", "{}", "[\"x\"]"), None);
    assert!(ready["ok"]["ready"].as_bool().unwrap_or(false), "{ready}");
    let dir = tempfile::tempdir().unwrap();
    let x: Vec<f32> = (0..1000).map(|i| (i as f32) / 500.0 - 1.0).collect();
    let (xin, out) = (dir.path().join("x"), dir.path().join("out"));
    write_f32(&xin, &x);
    write_f32(&out, &[f32::NAN; 1000]);
    let bound = p.ask(serde_json::json!({"op": "bind", "buffers": [
        {"name": "x", "dtype": "f32", "shape": [1000], "file": xin},
        {"name": "out", "dtype": "f32", "shape": [1000], "file": out},
    ]}));
    assert!(bound.get("ok").is_some(), "{bound}");
    let answer = p.ask(serde_json::json!({"op": "forward"}));
    assert!(answer.get("ok").is_some(), "{answer}");
    let got = read_f32(&out);
    for (i, (g, v)) in got.iter().zip(&x).enumerate() {
        let want = (2.5 * v).tanh();
        assert!((g - want).abs() <= 1e-6, "element {i}: {g} against {want}");
    }
    // The input is read, never written.
    assert_eq!(read_f32(&xin), x);
}

#[test]
fn the_modules_parameters_are_the_buffers_the_harness_drew() {
    let Some(py) = python() else { return };
    let file = problem("3_Linear_relu.py");
    let (mut p, ready) = Process::start(
        &py,
        &args(
            &file,
            sha256(&file),
            "[512, 256]",
            r#"{"fc_weight": "fc.weight", "fc_bias": "fc.bias"}"#,
            "[\"x\"]",
        ),
        None,
    );
    assert!(ready.get("ok").is_some(), "{ready}");
    let dir = tempfile::tempdir().unwrap();
    let (batch, k, n) = (3usize, 512usize, 256usize);
    let x: Vec<f32> = (0..batch * k)
        .map(|i| ((i * 7 % 13) as f32 - 6.0) / 8.0)
        .collect();
    let w: Vec<f32> = (0..n * k).map(|i| ((i * 5 % 11) as f32 - 5.0) / 64.0).collect();
    let b: Vec<f32> = (0..n).map(|j| (j as f32 - 128.0) / 32.0).collect();
    let path = |s: &str| dir.path().join(s);
    write_f32(&path("x"), &x);
    write_f32(&path("w"), &w);
    write_f32(&path("b"), &b);
    write_f32(&path("out"), &vec![f32::NAN; batch * n]);
    let bound = p.ask(serde_json::json!({"op": "bind", "buffers": [
        {"name": "x", "dtype": "f32", "shape": [batch, k], "file": path("x")},
        {"name": "fc_weight", "dtype": "f32", "shape": [n, k], "file": path("w")},
        {"name": "fc_bias", "dtype": "f32", "shape": [n], "file": path("b")},
        {"name": "out", "dtype": "f32", "shape": [batch, n], "file": path("out")},
    ]}));
    assert!(bound.get("ok").is_some(), "{bound}");
    let answer = p.ask(serde_json::json!({"op": "forward"}));
    assert!(answer.get("ok").is_some(), "{answer}");
    let got = read_f32(&path("out"));
    for r in 0..batch {
        for j in 0..n {
            let dot: f64 = (0..k)
                .map(|t| f64::from(x[r * k + t]) * f64::from(w[j * k + t]))
                .sum();
            let want = (dot + f64::from(b[j])).max(0.0);
            let g = f64::from(got[r * n + j]);
            assert!(
                (g - want).abs() <= 1e-4 + 1e-4 * want.abs(),
                "out[{r}][{j}]: {g} against {want}"
            );
        }
    }
    // A parameter of the wrong shape is refused by name.
    let bad = p.ask(serde_json::json!({"op": "bind", "buffers": [
        {"name": "x", "dtype": "f32", "shape": [batch, k], "file": path("x")},
        {"name": "fc_weight", "dtype": "f32", "shape": [k], "file": path("w")},
        {"name": "fc_bias", "dtype": "f32", "shape": [n], "file": path("b")},
        {"name": "out", "dtype": "f32", "shape": [batch, n], "file": path("out")},
    ]}));
    assert!(bad["error"].as_str().unwrap_or("").contains("fc_weight"), "{bad}");
}

#[test]
fn a_file_that_is_not_the_tasks_reference_is_never_run() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    // A "candidate" that would leave a mark if it were ever imported.
    let mark = dir.path().join("ran");
    let candidate = dir.path().join("candidate.py");
    std::fs::write(
        &candidate,
        format!(
            "open({:?}, 'w').write('ran')\nclass Model: pass\n",
            mark.display().to_string()
        ),
    )
    .unwrap();
    let task_file = problem("2_Scaled_tanh.py");
    // The task's hash with another file: refused before anything is imported.
    let (p, answer) = Process::start(
        &py,
        &args(&candidate, sha256(&task_file), "[]", "{}", "[\"x\"]"),
        None,
    );
    let msg = answer["error"].as_str().unwrap_or("");
    assert!(msg.contains("not the task's reference"), "{answer}");
    drop(p);
    assert!(!mark.exists(), "the file was run");
    // Not a regular file.
    let (p, answer) = Process::start(
        &py,
        &args(dir.path(), sha256(&task_file), "[]", "{}", "[\"x\"]"),
        None,
    );
    assert!(
        answer["error"]
            .as_str()
            .unwrap_or("")
            .contains("not a regular file"),
        "{answer}"
    );
    drop(p);
}

#[test]
fn python_is_started_isolated_from_the_environment_and_the_current_folder() {
    let Some(py) = python() else { return };
    // A `torch` in the current folder and on PYTHONPATH would be imported by a Python that is not
    // isolated; the reference process must get the real one.
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("torch.py"),
        "raise SystemExit('the planted torch ran')\n",
    )
    .unwrap();
    let file = problem("2_Scaled_tanh.py");
    let (_p, ready) = Process::start(
        &py,
        &args(&file, sha256(&file), "[2.5]", "{}", "[\"x\"]"),
        Some(dir.path()),
    );
    assert!(
        ready["ok"]["torch"].as_str().is_some_and(|v| v.contains('.')),
        "{ready}"
    );
}

/// The parent pid of a process (`/proc/PID/stat`'s fourth field).
fn parent_of(pid: i32) -> i32 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
    let after = &stat[stat.rfind(')').unwrap() + 2..];
    after.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[test]
fn each_modules_process_is_forked_from_one_zygote_and_shares_nothing_written_with_another() {
    let Some(py) = python() else { return };
    let dir = tempfile::tempdir().unwrap();
    // A module that changes torch's global state when it is imported, and one that refuses to be
    // built if that change reached it, or if its Python is not isolated (`-I`, as the zygote is).
    let a = dir.path().join("a.py");
    std::fs::write(
        &a,
        "import torch\ntorch.set_default_dtype(torch.float64)\n\nclass Model(torch.nn.Module):\n    def forward(self, x):\n        return x * 2\n",
    )
    .unwrap();
    let b = dir.path().join("b.py");
    std::fs::write(
        &b,
        "import sys\nimport torch\n\nclass Model(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n        assert torch.get_default_dtype() == torch.float32, 'state of another module'\n        assert sys.flags.isolated == 1, 'not isolated'\n\n    def forward(self, x):\n        return x + 1\n",
    )
    .unwrap();
    let job = |file: &Path| aorlta_record::TorchJob {
        python: py.clone(),
        module: file.to_path_buf(),
        sha256: sha256(file),
        class: "Model".into(),
        init: Vec::new(),
        state: Default::default(),
        forward: vec!["x".into()],
        outputs: vec!["out".into()],
        shapes: Default::default(),
        compile: false,
    };
    let pa = super::Process::start(&job(&a), "cpu", "a".into()).unwrap();
    let pb = super::Process::start(&job(&b), "cpu", "b".into()).unwrap();
    let (ia, ib) = (pa.pid.as_raw_nonzero().get(), pb.pid.as_raw_nonzero().get());
    assert_ne!(ia, ib);
    let zygote = {
        let zygotes = super::ZYGOTES.lock().unwrap();
        zygotes
            .iter()
            .find(|z| z.python == py)
            .expect("a zygote for this Python")
            .child
            .id() as i32
    };
    assert_eq!(parent_of(ia), zygote);
    assert_eq!(parent_of(ib), zygote);
    // A module file that is not the task's is refused by its process, through the zygote too.
    let mut bad = job(&b);
    bad.sha256 = "0".repeat(64);
    let err = super::Process::start(&bad, "cpu", "bad".into())
        .err()
        .expect("refused");
    assert!(err.contains("SHA-256") || err.contains("sha256"), "{err}");
    drop(pa);
    assert!(
        (0..100).any(|_| {
            std::thread::sleep(std::time::Duration::from_millis(20));
            rustix::process::test_kill_process(rustix::process::Pid::from_raw(ia).unwrap()).is_err()
        }),
        "a dropped process is gone"
    );
}

/// `open_ipc` and `close_ipc` against a stand-in of the CUDA runtime with its prototypes
/// (`cudaIpcMemHandle_t`, 64 bytes, by value), found where they look for libcudart (beside a
/// stand-in torch): the library receives the harness's handle bytes, not a pointer to them (the
/// first GPU run of a PyTorch reference failed every `cudaIpcOpenMemHandle` with `invalid value`
/// when a bare ctypes array was passed), and the region starts at the opened base plus the offset.
#[test]
fn the_ipc_handle_reaches_the_runtime_by_value() {
    let dir = tempfile::tempdir().unwrap();
    let c = dir.path().join("stub.c");
    // The stub folds the handle's bytes and the flags into the pointer it returns.
    std::fs::write(
        &c,
        "typedef struct { char reserved[64]; } cudaIpcMemHandle_t;\n\
         int cudaIpcOpenMemHandle(void **p, cudaIpcMemHandle_t h, unsigned flags) {\n\
         unsigned long v = flags; for (int i = 0; i < 64; i++) v = v * 31 + (unsigned char)h.reserved[i];\n\
         *p = (void *)v; return 0; }\n\
         int cudaIpcCloseMemHandle(void *p) { return p == (void *)0 ? 1 : 0; }\n",
    )
    .unwrap();
    let lib_dir = dir.path().join("torch/lib");
    std::fs::create_dir_all(&lib_dir).unwrap();
    let cc = Command::new("cc")
        .args(["-shared", "-fPIC", "-o"])
        .arg(lib_dir.join("libcudart.so.13"))
        .arg(&c)
        .status()
        .expect("a C compiler (cc) runs");
    assert!(cc.success());
    let script = dir.path().join("reference.py");
    std::fs::write(&script, REFERENCE).unwrap();
    let check = format!(
        "import importlib.util, types\n\
         spec = importlib.util.spec_from_file_location('r', {script:?})\n\
         r = importlib.util.module_from_spec(spec); spec.loader.exec_module(r)\n\
         torch = types.ModuleType('torch'); torch.__file__ = {init:?}\n\
         torch.cuda = types.SimpleNamespace(set_device=lambda d: None, synchronize=lambda: None)\n\
         torch.as_tensor = lambda region, device: region.__cuda_array_interface__['data'][0]\n\
         h = bytes(range(64)); opened = {{}}\n\
         got = r.open_ipc(torch, h.hex(), 16, 64, 0, opened)\n\
         v = 1\n\
         for b in h: v = (v * 31 + b) % 2**64\n\
         assert got == v + 16 and opened == {{h.hex(): v}}, (got, v, opened)\n\
         r.close_ipc(torch, opened)\n\
         assert opened == {{}}\n\
         print('by value')\n",
        script = script.display().to_string(),
        init = dir.path().join("torch/__init__.py").display().to_string(),
    );
    let out = Command::new("python3")
        .arg("-c")
        .arg(&check)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "by value",
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}
