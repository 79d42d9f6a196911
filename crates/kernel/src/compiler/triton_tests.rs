//! The compile leg on Triton sources with the real Triton (`AORLTA_TRITON_PYTHON`, a Python
//! that imports it; skipped with a message where unset, failing in CI, whose test command
//! installs the pinned version): what compiles and what it launches with, what is refused and
//! why, and the sandbox around the candidate's Python.

use super::sandbox::tests::processes_with;
use super::{Who, compile};
use crate::env::KernelEnv;
use crate::task::KernelTaskDef;
use crate::test_env::TestEnv;
use crate::tests::{code_of, task, tool};
use aorlta_record::LegState;
use aorlta_record::{KernelLanguage, TritonSpec};
use std::path::Path;
use std::time::{Duration, Instant};

const SIG: &str = "void scale(float* x, int n)";

const GOOD: &str = r#"import triton
import triton.language as tl


@triton.jit
def scale(x, n, BLOCK: tl.constexpr):
    i = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = i < n
    tl.store(x + i, tl.load(x + i, mask=m) * 2.0, mask=m)
"#;

fn triton_task() -> KernelTaskDef {
    let mut t = task(SIG, GOOD);
    t.spec.language = KernelLanguage::Triton;
    t.spec.block = Default::default();
    t.spec.grid = ["ceil_div(n, BLOCK)".into(), "1".into(), "1".into()];
    t.spec.triton = Some(TritonSpec {
        constexprs: [("BLOCK".to_string(), vec![1024, 256])].into(),
        ..TritonSpec::default()
    });
    t
}

fn env(python: &Path, dir: &Path, timeout_s: f64) -> KernelEnv {
    TestEnv::new(dir)
        .triton_python(python)
        .compile_timeout_s(timeout_s)
        .build()
}

/// A source whose module body runs `body` at import, beside the good kernel.
fn at_import(body: &str) -> String {
    format!("{GOOD}\n{body}\n")
}

#[test]
fn a_triton_kernel_compiles_to_a_cubin_with_its_launch_and_choices_are_checked() {
    let Some(python) = tool("AORLTA_TRITON_PYTHON") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let e = env(&python, dir.path(), 120.0);
    let t = triton_task();
    let ok = compile(&e, &t, GOOD, Who::Candidate).unwrap();
    assert_eq!(ok.symbols[0], "scale", "a Triton kernel has its plain name");
    let bytes = std::fs::read(&ok.cubin).unwrap();
    assert!(bytes.starts_with(b"\x7fELF"), "a cubin is an ELF file");
    let launch = ok.launch.clone().expect("a Triton compile decides its launch");
    assert_eq!(launch.block, [128, 1, 1], "num_warps 4 by default");
    assert_eq!(launch.vars.get("BLOCK"), Some(&1024));
    assert_eq!(
        launch.trailing_pointers, 2,
        "Triton 3.6 adds two scratch pointers"
    );
    assert_eq!(launch.grid[0], "ceil_div(n, BLOCK)");
    assert!(compile(&e, &t, GOOD, Who::Candidate).unwrap().cached);
    assert!(e.triton().unwrap().describe().starts_with("triton 3."));

    let chosen = at_import(
        "aorlta_launch = {\"BLOCK\": 256, \"num_warps\": 8, \"grid\": [\"ceil_div(n, 256)\", 1, 1]}",
    );
    let c = compile(&e, &t, &chosen, Who::Candidate).unwrap().launch.unwrap();
    assert_eq!(
        (c.block, c.vars["BLOCK"], c.grid[0].as_str()),
        ([256, 1, 1], 256, "ceil_div(n, 256)")
    );

    for (source, code, words) in [
        (
            at_import("aorlta_launch = {\"BLOCK\": 512}"),
            "compile-error",
            "allows",
        ),
        (
            at_import("aorlta_launch = {\"num_warps\": 3}"),
            "compile-error",
            "allows",
        ),
        (
            at_import("aorlta_launch = {\"SPLIT\": 2}"),
            "compile-error",
            "does not bind",
        ),
        (
            at_import("aorlta_launch = {\"grid\": [\"ceil_div(n, WHAT)\", 1, 1]}"),
            "compile-error",
            "WHAT",
        ),
        (
            GOOD.replace("def scale(x, n,", "def scale(n, x,"),
            "signature-mismatch",
            "in this order",
        ),
        (
            GOOD.replace("def scale(", "def other("),
            "kernel-not-found",
            "scale",
        ),
        (
            GOOD.replace("BLOCK: tl.constexpr", "BLOCK: tl.constexpr, SPLIT: tl.constexpr"),
            "signature-mismatch",
            "SPLIT",
        ),
        (
            GOOD.replace("* 2.0", "* undefined_name"),
            "compile-error",
            "undefined_name",
        ),
        (format!("{GOOD}\ndef (:\n"), "compile-error", "SyntaxError"),
        (at_import("raise SystemExit(0)"), "compile-error", "SystemExit"),
        (
            GOOD.replace("tl.store(", "tl.device_print(\"v\", n)\n    tl.store("),
            "device-printf",
            "printf",
        ),
    ] {
        let f = compile(&e, &t, &source, Who::Candidate).unwrap_err();
        assert_eq!(
            (f.state, f.code.as_str()),
            (LegState::Broke, code),
            "{source}\n{}",
            f.detail
        );
        assert!(f.detail.contains(words), "{code}: {}", f.detail);
    }
    // The reference's failures are the world's.
    let f = compile(
        &e,
        &t,
        &GOOD.replace("def scale(", "def another("),
        Who::Reference,
    )
    .unwrap_err();
    assert_eq!(
        (f.state, f.code.as_str()),
        (LegState::Unsettled, "reference-compile-failed")
    );
}

#[test]
fn the_candidates_python_is_contained() {
    let Some(python) = tool("AORLTA_TRITON_PYTHON") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret");
    std::fs::write(&secret, "the-host-secret").unwrap();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let port = listener.local_addr().unwrap().port();
    let e = env(&python, dir.path(), 8.0);
    let t = triton_task();
    let out = outside.path().display().to_string();
    let secret_path = secret.display().to_string();
    // Each source compiles when its attempt fails, and says what it got when it succeeds.
    let attempts = [
        format!("try:\n    got = open({secret_path:?}).read()\nexcept OSError:\n    got = None\nif got:\n    raise RuntimeError('LEAK ' + got)"),
        format!("try:\n    open({:?}, 'w').write('x')\n    raise RuntimeError('LEAK wrote outside')\nexcept OSError:\n    pass", format!("{out}/written")),
        // Beside its folder is the namespace's own root where it has one: whatever lands there
        // is gone with it (checked below on the host).
        "try:\n    open('../escaped', 'w').write('x')\nexcept OSError:\n    pass".to_string(),
        format!("import socket\ntry:\n    socket.create_connection(('127.0.0.1', {port}), timeout=2)\n    raise RuntimeError('LEAK connected')\nexcept OSError:\n    pass"),
        "import os\nif os.path.exists('/etc/passwd') or os.path.exists('/proc/self'):\n    raise RuntimeError('LEAK host paths')".to_string(),
        // The service's own files: its work folder holds the stored code objects.
        format!("import os\ntry:\n    got = os.listdir({:?})\nexcept OSError:\n    got = None\nif got:\n    raise RuntimeError('LEAK ' + ' '.join(got))", dir.path().join("cubins").display().to_string()),

        // The toolkit is read-only: Triton's own site-packages (a `.pth` file there would run in
        // every later Python of that environment) and the host's headers.
        "import os, triton\nsite = os.path.dirname(os.path.dirname(triton.__file__))\nfor d in (site, '/usr/include', '/usr/lib'):\n    try:\n        open(os.path.join(d, 'aorlta_planted.pth'), 'w').write('import os')\n        raise RuntimeError('LEAK wrote into ' + d)\n    except OSError:\n        pass".to_string(),
        // No capability, and the calls a root process would escape with are refused.
        "import ctypes, os, socket\nlibc = ctypes.CDLL(None)\nhdr = (ctypes.c_uint32 * 2)(0x20080522, 0)\ndata = (ctypes.c_uint32 * 6)()\nlibc.capget(hdr, data)\nif data[0] or data[3]:\n    raise RuntimeError('LEAK capabilities %x' % data[0])\nfor name, f in [('chroot', lambda: os.chroot('/usr')), ('mknod', lambda: os.mknod('n', 0o20600, os.makedev(1, 3))), ('hostname', lambda: socket.sethostname('x'))]:\n    try:\n        f()\n        raise RuntimeError('LEAK ' + name)\n    except OSError:\n        pass".to_string(),
    ];
    for source in &attempts {
        let r = compile(&e, &t, &at_import(source), Who::Candidate);
        let detail = r.as_ref().err().map(|f| f.detail.clone()).unwrap_or_default();
        assert!(!detail.contains("LEAK"), "{source}\n{detail}");
        assert!(r.is_ok(), "{source}\n{detail}");
    }
    assert!(listener.accept().is_err(), "nothing connected to the host");
    let site = std::process::Command::new(&python)
        .args([
            "-I",
            "-c",
            "import os, triton; print(os.path.dirname(os.path.dirname(triton.__file__)))",
        ])
        .output()
        .unwrap();
    let site = String::from_utf8_lossy(&site.stdout).trim().to_string();
    for d in [site.as_str(), "/usr/include", "/usr/lib"] {
        assert!(!Path::new(d).join("aorlta_planted.pth").exists(), "{d}");
    }
    assert!(!outside.path().join("written").exists());
    assert_eq!(std::fs::read_to_string(&secret).unwrap(), "the-host-secret");
    assert!(!dir.path().join("compile").join("escaped").exists());

    // A forked process that leaves the group, and one that sleeps forever: both end with the
    // compile, which is stopped at its limit.
    let fork = "import os, time\nif os.fork() == 0:\n    os.setsid()\n    os.execv('/bin/sleep', ['sleep', '1000.31337'])\ntime.sleep(0.2)";
    let r = compile(&e, &t, &at_import(fork), Who::Candidate);
    assert!(r.is_ok(), "{:?}", r.err());
    let slow = "import time\ntime.sleep(1000.4242)";
    let t0 = Instant::now();
    let f = compile(&e, &t, &at_import(slow), Who::Candidate).unwrap_err();
    assert_eq!(f.code, "compile-timeout", "{}", f.detail);
    assert!(t0.elapsed() < Duration::from_secs(12));
    std::thread::sleep(Duration::from_millis(300));
    if super::sandbox::available().is_ok() {
        assert_eq!(
            processes_with("1000.31337"),
            0,
            "the forked sleeper ended with its namespace"
        );
    }
    // Every compile's folder is gone.
    let left: Vec<_> = std::fs::read_dir(dir.path().join("compile")).unwrap().collect();
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn a_compile_bomb_is_stopped() {
    let Some(python) = tool("AORLTA_TRITON_PYTHON") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let e = env(&python, dir.path(), 10.0);
    let bomb = r#"import triton
import triton.language as tl


@triton.jit
def scale(x, n, BLOCK: tl.constexpr):
    acc = tl.zeros([BLOCK], dtype=tl.float32)
    for j in tl.static_range(200000):
        acc += tl.load(x + j + tl.arange(0, BLOCK))
    tl.store(x + tl.arange(0, BLOCK), acc)
"#;
    let (state, code) = code_of(compile(&e, &triton_task(), bomb, Who::Candidate));
    assert_eq!(state, LegState::Broke);
    assert!(
        ["compile-timeout", "compile-memory"].contains(&code.as_str()),
        "{code}"
    );
}
