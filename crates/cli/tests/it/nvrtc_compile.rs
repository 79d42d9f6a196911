//! NVRTC against nvcc: every kernel source of the example and validation suites (the CUDA
//! references and candidates) compiled by both, through the compile driver as the
//! `kernel-compile` leg runs it (policy, sandbox, code-object checks), must get the same
//! verdict. NVRTC runs in its workers (`aorlta nvrtc-worker`, the binary under test). Needs
//! nvcc and NVRTC (`scripts/install-cuda-compiler.sh` installs both from the Python index);
//! without them the test says so and passes, unless `CI` is set.

use crate::common;

use aorlta_check::TaskSet;
use aorlta_kernel::KernelTaskDef;
use aorlta_kernel::{CompilerChoice, KernelEnv, NvrtcInstall, TestEnv, Who, compile};
use std::path::PathBuf;
use std::time::Instant;

/// nvcc (`AORLTA_NVCC`) with NVRTC beside it; without them the test says so and passes, unless
/// `CI` is set.
fn nvcc_with_nvrtc() -> Option<PathBuf> {
    let ci = std::env::var_os("CI").is_some();
    let Some(nvcc) = std::env::var_os("AORLTA_NVCC")
        .map(PathBuf::from)
        .filter(|p| p.is_file())
    else {
        assert!(!ci, "CI is set and AORLTA_NVCC names no nvcc");
        eprintln!("skipped: no nvcc (set AORLTA_NVCC)");
        return None;
    };
    if NvrtcInstall::find(Some(&nvcc)).is_none() {
        assert!(!ci, "CI is set and there is no NVRTC beside nvcc");
        eprintln!("skipped: no NVRTC beside {}", nvcc.display());
        return None;
    }
    Some(nvcc)
}

fn env(compiler: CompilerChoice, nvcc: &std::path::Path, dir: &std::path::Path) -> KernelEnv {
    TestEnv::new(dir)
        .nvcc(nvcc)
        .compiler(compiler)
        .nvrtc_worker(env!("CARGO_BIN_EXE_aorlta"))
        .compile_timeout_s(20.0)
        .compile_memory_mb(8192)
        .with(|c| c.secret = Some(1))
        .build()
}

fn verdict(r: &Result<aorlta_kernel::Compiled, aorlta_kernel::CompileFailure>) -> String {
    match r {
        Ok(_) => "clean".into(),
        Err(f) => format!("{} {}", f.state.as_str(), f.code),
    }
}

/// The CUDA example's tasks.
fn examples() -> TaskSet {
    TaskSet::load(
        &common::root().join("examples/kernels/tasks"),
        &aorlta_core::lanes(),
    )
    .unwrap()
    .0
}

/// Its `vector_add` task.
fn vector_add(tasks: &TaskSet) -> &KernelTaskDef {
    KernelTaskDef::of(tasks.get("vector_add").unwrap()).unwrap()
}

#[test]
fn nvrtc_and_nvcc_give_every_example_source_the_same_verdict() {
    let Some(nvcc) = nvcc_with_nvrtc() else {
        return;
    };
    let root = common::root().join("examples/kernels");
    let tasks = examples();
    let dir = tempfile::tempdir().unwrap();
    let by_nvcc = env(CompilerChoice::Nvcc, &nvcc, &dir.path().join("nvcc"));
    let by_nvrtc = env(CompilerChoice::Nvrtc, &nvcc, &dir.path().join("nvrtc"));
    assert!(
        by_nvrtc.compiler_version().unwrap().starts_with("nvrtc 13."),
        "{:?}",
        by_nvrtc.compiler_version()
    );
    let mut rows = Vec::new();
    let (mut nvcc_s, mut nvrtc_s) = (0.0, 0.0);
    let mut sources: Vec<(String, PathBuf, Who)> = Vec::new();
    for task in tasks.iter() {
        let Some(k) = KernelTaskDef::of(task) else {
            continue;
        };
        sources.push((
            task.id.clone(),
            k.dir.join(k.spec.reference.source().expect("a kernel source")),
            Who::Reference,
        ));
        let folder = root.join("candidates").join(&task.id);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .filter(|p| p.extension().is_some_and(|x| x == "cu"))
            .collect();
        files.sort();
        sources.extend(files.into_iter().map(|f| (task.id.clone(), f, Who::Candidate)));
    }
    assert!(sources.len() > 40, "{} sources", sources.len());
    let mut differ = Vec::new();
    for (id, file, who) in &sources {
        let name = file.file_name().unwrap().to_string_lossy().to_string();
        if name == "compile-bomb.cu" {
            // Held to its limits by both, but the 20 s timeout twice would dominate the test;
            // the compile-limit tests cover it.
            continue;
        }
        let task = KernelTaskDef::of(tasks.get(id).unwrap()).unwrap();
        let source = std::fs::read_to_string(file).unwrap();
        let t0 = Instant::now();
        let a = compile(&by_nvcc, task, &source, *who);
        nvcc_s += t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let b = compile(&by_nvrtc, task, &source, *who);
        nvrtc_s += t1.elapsed().as_secs_f64();
        let (va, vb) = (verdict(&a), verdict(&b));
        rows.push(format!("{id}/{name}: nvcc {va}, nvrtc {vb}"));
        if va != vb {
            differ.push(format!(
                "{id}/{name}: nvcc {va}, nvrtc {vb} ({})",
                b.err().map(|f| f.detail).unwrap_or_default()
            ));
        }
    }
    eprintln!("{}", rows.join("\n"));
    eprintln!(
        "{} sources: nvcc {nvcc_s:.2} s, nvrtc {nvrtc_s:.2} s (one at a time)",
        rows.len()
    );
    assert!(differ.is_empty(), "verdicts differ:\n{}", differ.join("\n"));
}

#[test]
fn a_compile_bomb_stops_its_worker_and_the_next_compile_gets_a_fresh_one() {
    let Some(nvcc) = nvcc_with_nvrtc() else {
        return;
    };
    let root = common::root().join("examples/kernels");
    let tasks = examples();
    let task = vector_add(&tasks);
    let dir = tempfile::tempdir().unwrap();
    let by_nvrtc = TestEnv::new(dir.path())
        .nvcc(&nvcc)
        .compiler(CompilerChoice::Nvrtc)
        .nvrtc_worker(env!("CARGO_BIN_EXE_aorlta"))
        .compile_timeout_s(3.0)
        .compile_memory_mb(2048)
        .with(|c| c.secret = Some(1))
        .build();
    let bomb = std::fs::read_to_string(root.join("candidates/vector_add/compile-bomb.cu")).unwrap();
    let t0 = Instant::now();
    let f = compile(&by_nvrtc, task, &bomb, Who::Candidate).unwrap_err();
    assert!(
        ["compile-timeout", "compile-memory"].contains(&f.code.as_str()),
        "{} {}",
        f.code,
        f.detail
    );
    assert!(t0.elapsed().as_secs_f64() < 30.0, "{:?}", t0.elapsed());
    let good = std::fs::read_to_string(root.join("candidates/vector_add/self.cu")).unwrap();
    let c = compile(&by_nvrtc, task, &good, Who::Candidate).unwrap();
    assert!(c.bytes > 0 && !c.cached);
}

/// A kernel whose loads fall back to the constants nvcc's implicit headers give (`INFINITY`,
/// `NAN`, `HUGE_VALF`, `HUGE_VAL`): the pattern of a pooling kernel's padded window, where
/// NVRTC with `1.0f / 0.0f` for `INFINITY` divided once per load. Two of them also in constant
/// expressions.
const CONSTANTS_KERNEL: &str = r#"
constexpr float LOW = -INFINITY;
__global__ void vector_add(const float* a, const float* b, float* c, int n)
{
    constexpr float QUIET = NAN;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    float v[4];
#pragma unroll
    for (int k = 0; k < 4; ++k) {
        v[k] = i + k < n ? __ldg(a + i + k) : -INFINITY;
    }
    float w = i + 4 < n ? __ldg(b + i + 4) : NAN;
    float x = i + 5 < n ? __ldg(b + i + 5) : HUGE_VALF;
    float y = i + 6 < n ? __ldg(b + i + 6) : (float)HUGE_VAL;
    if (i < n) {
        c[i] = fmaxf(fmaxf(v[0], v[1]), fmaxf(v[2], v[3])) + fmaxf(w, fminf(x, y)) + (b[i] > 0.0f ? LOW : QUIET);
    }
}
"#;

/// The code object holds a division's slow path: a division that runs on the GPU.
fn divides(cubin: &std::path::Path) -> bool {
    let bytes = std::fs::read(cubin).unwrap();
    bytes.windows(6).any(|w| w == b"div_rn")
}

#[test]
fn the_constants_of_the_implicit_headers_cost_no_division_under_nvrtc() {
    let Some(nvcc) = nvcc_with_nvrtc() else {
        return;
    };
    let tasks = examples();
    let task = vector_add(&tasks);
    let dir = tempfile::tempdir().unwrap();
    for choice in [CompilerChoice::Nvcc, CompilerChoice::Nvrtc] {
        let e = env(choice, &nvcc, &dir.path().join(format!("{choice:?}")));
        let c = compile(&e, task, CONSTANTS_KERNEL, Who::Candidate)
            .unwrap_or_else(|f| panic!("{choice:?}: {} {}", f.code, f.detail));
        assert!(
            !divides(&c.cubin),
            "{choice:?}: the code object divides at run time"
        );
        // The control: a kernel that divides is seen dividing.
        let div = CONSTANTS_KERNEL.replace("+ fmaxf(w,", "/ fmaxf(w,");
        let d = compile(&e, task, &div, Who::Candidate).unwrap();
        assert!(divides(&d.cubin), "{choice:?}: the division is not seen");
    }
}

/// A token beside the worker's binary (a container's `/app`) is not there for a source to probe:
/// a source that tests for it, past the text policy (`__has_include` formed by token pasting),
/// gets the same verdict as one that tests for a path that does not exist, and so does one that
/// includes it.
#[test]
fn nothing_beside_the_workers_binary_can_be_probed() {
    let Some(nvcc) = nvcc_with_nvrtc() else {
        return;
    };
    let tasks = examples();
    let task = vector_add(&tasks);
    let app = tempfile::tempdir().unwrap();
    let worker = app.path().join("aorlta");
    std::fs::copy(env!("CARGO_BIN_EXE_aorlta"), &worker).unwrap();
    let token = app.path().join("token");
    // Text that is C (a config could be): where the worker could read it, a source that
    // includes it compiles (NVRTC's verdict, clean) and one that cannot falls back to nvcc's
    // (`include-forbidden`): one bit of the file per request.
    std::fs::write(&token, "#define AORLTA_TOKEN 0x0123456789abcdefULL\n").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let by_nvrtc = TestEnv::new(dir.path())
        .nvcc(&nvcc)
        .compiler(CompilerChoice::Nvrtc)
        .nvrtc_worker(&worker)
        .compile_timeout_s(20.0)
        .compile_memory_mb(4096)
        .with(|c| c.secret = Some(1))
        .build();
    let kernel = "__global__ void vector_add(const float* a, const float* b, float* c, int n)\n{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}\n";
    // A path of the same length, so that even a caret line under it is the same.
    let missing = app.path().join("tokex").display().to_string();
    let forms = [
        "#define CAT(a, b) a##b\n#if CAT(__has_, include)(\"P\")\nstatic_assert(false, \"present\");\n#endif\n",
        // A character literal that a text policy reads as a comment's start hides the include
        // from it; the preprocessor sees the include.
        "#if 0\n1'/*'\n#endif\n#include \"P\"\nstatic_assert(AORLTA_TOKEN & 1, \"bit\");\n// */\n",
    ];
    for (i, form) in forms.into_iter().enumerate() {
        let outcome = |path: &str| {
            let src = format!("{}{kernel}", form.replace('P', path));
            let r = compile(&by_nvrtc, task, &src, Who::Candidate);
            let v = verdict(&r);
            let detail = r
                .err()
                .map(|f| f.detail.replace(path, "PATH"))
                .unwrap_or_default();
            assert!(!detail.contains("0123456789abcdef"), "{detail}");
            if i == 1 {
                assert_ne!(v, "clean", "{path}: the token was read");
            }
            (v, detail)
        };
        assert_eq!(outcome(&token.display().to_string()), outcome(&missing), "{form}");
    }
}
