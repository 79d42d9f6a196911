//! Tests of the compile leg against the real compiler (`AORLTA_NVCC`; skipped with a message
//! when unset, failing when `CI` is set), of Itanium mangling against the symbols of real
//! cubins, and of the harness pool's deadline and crash handling with stand-in harness scripts.

use crate::compile::KernelCompile;
use crate::compiler::{Who, compile};
use crate::config::{CompilerChoice, FakeSource, GpuSet, KernelConfig};
use crate::elf;
use crate::env::{KernelEnv, env_of};
use crate::exec::shrink_for_fake;
use crate::fake::FakeSpec;
use crate::identity::HARNESS_BUILD;
use crate::pool::PoolError;
use crate::run::KernelRun;
use crate::task::{KernelTaskDef, LANE};
use crate::test_env::TestEnv;
use crate::time::KernelTime;
use aorlta_check::Task;
use aorlta_record::LegState;
use aorlta_record::mangle;
use aorlta_record::{HarnessJob, KernelTask};
use std::path::{Path, PathBuf};

/// The compiler under test, or `None` (skipped) when `AORLTA_NVCC` is unset outside CI.
fn nvcc() -> Option<PathBuf> {
    tool("AORLTA_NVCC")
}

/// The compiler the environment variable `var` names, or `None` (skipped, with a message) when
/// it is unset outside CI; in CI (`CI` set, as the test command runs) a missing one fails.
pub(crate) fn tool(var: &str) -> Option<PathBuf> {
    match std::env::var_os(var) {
        Some(p) => Some(PathBuf::from(p)),
        None if std::env::var_os("CI").is_some() => {
            panic!("CI is set but {var} is not: the compile tests need it")
        }
        None => {
            eprintln!("skipped: set {var} to run this compiler's tests");
            None
        }
    }
}

pub(crate) fn task(signature: &str, reference: &str) -> KernelTaskDef {
    let spec: KernelTask = serde_json::from_value(serde_json::json!({
        "id": "t",
        "prompt": "p",
        "signature": signature,
        "reference": "r.cu",
        "buffers": [{"name": "x", "dtype": "f32", "len": "n", "role": "inout"}],
        "scalars": {"n": "n"},
        "sizes": [{"n": 64}],
        "grid": ["1", "1", "1"],
        "block": ["64", "1", "1"]
    }))
    .unwrap();
    KernelTaskDef {
        signature: aorlta_record::Signature::parse(signature).unwrap(),
        spec,
        dir: PathBuf::from("."),
        file: PathBuf::from("t.yaml"),
        reference_source: reference.to_string(),
        reference_hash: aorlta_check::hash_str(reference),
        torch: None,
    }
}

fn env(nvcc: &Path, dir: &Path, edit: impl FnOnce(&mut KernelConfig)) -> KernelEnv {
    // nvcc's own behaviour is tested here; NVRTC's worker is the `aorlta` program's
    // (crates/cli/tests/nvrtc_compile.rs).
    TestEnv::new(dir)
        .nvcc(nvcc)
        .compiler(CompilerChoice::Nvcc)
        .compile_timeout_s(60.0)
        .with(edit)
        .build()
}

pub(crate) const SIG: &str = "void scale(float* x, int n)";
const GOOD: &str =
    "__global__ void scale(float* x, int n) { int i = threadIdx.x; if (i < n) x[i] *= 2.0f; }\n";

pub(crate) fn code_of(
    r: Result<crate::compiler::Compiled, crate::compiler::CompileFailure>,
) -> (LegState, String) {
    match r {
        Ok(_) => (LegState::Clean, String::new()),
        Err(f) => (f.state, f.code),
    }
}

#[test]
fn compile_leg_outcomes_with_the_real_compiler() {
    let Some(nvcc) = nvcc() else { return };
    let d = tempfile::tempdir().unwrap();
    let e = env(&nvcc, d.path(), |_| {});
    let t = task(SIG, GOOD);
    let ok = compile(&e, &t, GOOD, Who::Candidate).unwrap();
    assert_eq!(ok.symbols[0], "_Z5scalePfi");
    assert!(ok.cubin.is_file() && ok.bytes > 0 && !ok.cached);
    assert!(
        compile(&e, &t, GOOD, Who::Candidate).unwrap().cached,
        "second compile is cached"
    );
    let plain = "extern \"C\" __global__ void scale(float* x, int n) { x[0] = n; }\n";
    assert_eq!(
        compile(&e, &t, plain, Who::Candidate).unwrap().symbols[0],
        "scale"
    );

    let err = compile(
        &e,
        &t,
        "__global__ void scale(float* x, int n) { x[0] = y; }\n",
        Who::Candidate,
    )
    .unwrap_err();
    assert_eq!((err.state, err.code.as_str()), (LegState::Broke, "compile-error"));
    assert!(
        err.detail.contains("k.cu") && err.detail.contains("undefined"),
        "{}",
        err.detail
    );
    assert!(
        !err.detail.contains(&d.path().display().to_string()),
        "temp path leaked: {}",
        err.detail
    );

    let wrong_sig = "__global__ void scale(double* x, int n) { x[0] = n; }\n";
    assert_eq!(
        code_of(compile(&e, &t, wrong_sig, Who::Candidate)),
        (LegState::Broke, "kernel-not-found".into())
    );
    let printf =
        "#include <cstdio>\n__global__ void scale(float* x, int n) { printf(\"%d\\n\", n); x[0] = n; }\n";
    assert_eq!(
        code_of(compile(&e, &t, printf, Who::Candidate)),
        (LegState::Broke, "device-printf".into())
    );
    let include = "#include \"/etc/hostname\"\n__global__ void scale(float* x, int n) {}\n";
    assert_eq!(
        code_of(compile(&e, &t, include, Who::Candidate)),
        (LegState::Broke, "include-forbidden".into())
    );
    let big = format!("{GOOD}//{}\n", "x".repeat(70_000));
    assert_eq!(
        code_of(compile(&e, &t, &big, Who::Candidate)),
        (LegState::Broke, "source-too-large".into())
    );

    // A reference that does not compile is the world's problem, not the candidate's.
    let bad_ref = task(SIG, "__global__ void scale(float* x, int n) { nope; }\n");
    assert_eq!(
        code_of(compile(&e, &bad_ref, &bad_ref.reference_source, Who::Reference)),
        (LegState::Unsettled, "reference-compile-failed".into())
    );
}

/// Host files cannot reach a compile's detail (sent to the client and stored): the policy
/// refuses the known ways around a line-by-line reading, and below it (the reference's path,
/// which the policy does not read) the sandboxed compiler cannot read them, and what it says of
/// them is withheld.
#[test]
fn host_files_never_reach_a_compile_detail() {
    let Some(nvcc) = nvcc() else { return };
    let d = tempfile::tempdir().unwrap();
    let e = env(&nvcc, d.path(), |_| {});
    let t = task(SIG, GOOD);
    let body = "__global__ void scale(float* x, int n) { x[0] = n; }\n";
    for src in [
        format!("#incl\\  \nude \"/etc/passwd\"\n{body}"),
        format!("int a;\r#include \"/etc/passwd\"\n{body}"),
        format!("const char* s = R\"(\n/*\n)\";\n#include \"/etc/passwd\"\n// */\n{body}"),
        format!("#pragma GCC dependency \"/etc/passwd\"\n{body}"),
        format!("_Pragma(\"GCC dependency \\\"/etc/passwd\\\"\")\n{body}"),
        format!("#include \"/dev/zero\"\n{body}"),
    ] {
        assert_eq!(
            code_of(compile(&e, &t, &src, Who::Candidate)),
            (LegState::Broke, "include-forbidden".into()),
            "{src}"
        );
    }
    let host = tempfile::tempdir().unwrap();
    let secret = host.path().join("secret.h");
    std::fs::write(&secret, "HOST_SECRET_MARKER_7 = 1;\n").unwrap();
    let before = std::time::Instant::now();
    for path in [
        secret.display().to_string(),
        "/etc/passwd".into(),
        "/etc/shadow".into(),
        "/etc/no-such-file-here".into(),
        "/dev/zero".into(),
    ] {
        let src = format!("#include \"{path}\"\n{body}");
        let r = task(SIG, &src);
        let err = compile(&e, &r, &src, Who::Reference).unwrap_err();
        assert_eq!(err.code, "reference-compile-failed", "{path}: {}", err.detail);
        for leak in ["HOST_SECRET_MARKER", "root:", "No such file", "Permission denied"] {
            assert!(!err.detail.contains(leak), "{path}: {leak} in {}", err.detail);
        }
        assert!(
            err.detail.contains(crate::compiler::diagnostic::UNREADABLE),
            "{path}: {}",
            err.detail
        );
    }
    // Whether a host path exists does not change a compile's outcome, even where the source
    // forms `__has_include` by token pasting (past any text policy): in the compiler's own root
    // the path is not there.
    if crate::compiler::sandbox::available().is_ok() {
        for form in [
            "#define CAT(a, b) a##b\n#if CAT(__has_, include)(\"P\")\n#error present\n#endif\n",
            "#pragma GCC dependency \"P\"\n",
        ] {
            let outcome = |path: &str| {
                let src = format!("{}{body}", form.replace('P', path));
                let r = task(SIG, &src);
                let out = compile(&e, &r, &src, Who::Reference);
                out.map(|_| ()).map_err(|f| f.detail.replace(path, "PATH"))
            };
            assert_eq!(
                outcome("/etc/passwd"),
                outcome("/etc/no-such-file-here"),
                "{form}"
            );
            assert_eq!(
                outcome(&secret.display().to_string()),
                outcome("/etc/no-such-file-here"),
                "{form}"
            );
        }
    }
    // A readable file that is not a toolkit header (the dependency list the compiler writes,
    // beside the source) is caught by the preprocessor's dependency list.
    let src = format!("#include \"k.d\"\n{body}");
    let r = task(SIG, &src);
    let err = compile(&e, &r, &src, Who::Reference).unwrap_err();
    assert!(
        err.detail.contains("include-forbidden") && err.detail.contains("outside the toolkit"),
        "{}",
        err.detail
    );
    // /dev/zero is refused at once, not read until the memory limit.
    assert!(before.elapsed().as_secs_f64() < 30.0, "{:?}", before.elapsed());
}

#[test]
fn compile_limits_time_and_memory() {
    let Some(nvcc) = nvcc() else { return };
    let d = tempfile::tempdir().unwrap();
    let t = task(SIG, GOOD);
    let slow = env(&nvcc, d.path(), |c| c.compile_timeout_s = 0.05);
    let start = std::time::Instant::now();
    assert_eq!(
        code_of(compile(&slow, &t, GOOD, Who::Candidate)),
        (LegState::Broke, "compile-timeout".into())
    );
    assert!(
        start.elapsed().as_secs_f64() < 5.0,
        "the process group was killed promptly"
    );
    for mb in [40, 80] {
        let small = env(&nvcc, d.path(), |c| c.compile_memory_mb = mb);
        let other = format!("{GOOD}// memory {mb}\n");
        assert_eq!(
            code_of(compile(&small, &t, &other, Who::Candidate)),
            (LegState::Broke, "compile-memory".into()),
            "{mb} MiB"
        );
    }
}

#[test]
fn missing_compiler_is_unsettled() {
    let d = tempfile::tempdir().unwrap();
    let e = env(Path::new("/nonexistent/nvcc"), d.path(), |_| {});
    let t = task(SIG, GOOD);
    assert_eq!(
        code_of(compile(&e, &t, GOOD, Who::Candidate)),
        (LegState::Unsettled, "no-compiler".into())
    );
}

#[test]
fn mangling_matches_the_compilers_symbols() {
    let Some(nvcc) = nvcc() else { return };
    let sigs = [
        "void vector_add(const float* a, const float* b, float* c, int n)",
        "void transpose(const float* __restrict__ in, float* __restrict__ out, int rows, int cols)",
        "void k1(const __half* a, __half* b, const __half* c, unsigned int n)",
        "void k2(float** p, float** q, const float* const* r)",
        "void k3(volatile int* a, const volatile int* b, const int n, float* const p, unsigned long long m, size_t s)",
        "void k4(const float4* a, float4* b, long x, int64_t y, uint32_t z, double w)",
        "void k5(const __nv_bfloat16* a, __nv_bfloat16* b, float alpha, char c, unsigned char d, short e)",
        "void k6()",
    ];
    let mut src = String::from(
        "#include <stdint.h>\n#include <stddef.h>\nstruct __half { unsigned short x; };\nstruct __nv_bfloat16 { unsigned short x; };\n",
    );
    for s in sigs {
        src.push_str(&format!("__global__ {s} {{}}\n"));
    }
    let d = tempfile::tempdir().unwrap();
    std::fs::write(d.path().join("m.cu"), &src).unwrap();
    let st = std::process::Command::new(&nvcc)
        .args(["--cubin", "-arch=sm_90", "-o", "m.cubin", "m.cu"])
        .current_dir(d.path())
        .status()
        .unwrap();
    assert!(st.success());
    let bytes = std::fs::read(d.path().join("m.cubin")).unwrap();
    let defined: Vec<String> = elf::symbols(&bytes)
        .unwrap()
        .into_iter()
        .filter(|s| s.defined && s.function)
        .map(|s| s.name)
        .collect();
    for s in sigs {
        let (_, m) = mangle(s).unwrap();
        assert!(defined.contains(&m), "{s}: {m} not among {defined:?}");
    }
}

/// A lease on GPU 0 of a stand-in environment.
fn lease(e: &KernelEnv) -> crate::lease::Lease {
    e.leases()
        .unwrap()
        .acquire(std::time::Duration::from_secs(10))
        .unwrap()
}

/// A stand-in harness: a shell script given as the harness program, leasing GPU 0 under its
/// own folder.
fn script_env(dir: &Path, body: &str) -> KernelEnv {
    let path = dir.join("harness.sh");
    std::fs::write(&path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::process::Command::new("chmod")
        .arg("+x")
        .arg(&path)
        .status()
        .unwrap();
    TestEnv::new(dir.join("work"))
        .harness(path)
        .fake_gpu()
        .with(|c| {
            c.lease_dir = Some(dir.join("leases"));
            c.gpus = GpuSet::List(vec![0]);
        })
        .build()
}

fn dummy_job() -> HarnessJob {
    use aorlta_record::{CheckWork, HARNESS_FORMAT, JobReference, KernelImage, Work};
    HarnessJob {
        format: HARNESS_FORMAT,
        id: "j".into(),
        task: task(SIG, GOOD).spec,
        reference: JobReference::Kernel(KernelImage {
            path: "r".into(),
            symbols: vec![],
            launch: None,
            plan: None,
        }),
        candidate: KernelImage {
            path: "c".into(),
            symbols: vec![],
            launch: None,
            plan: None,
        },
        record: PathBuf::new(),
        launch_timeout_s: 1.0,
        work: Work::Check(CheckWork {
            sizes: vec![0],
            seeds: vec![1],
        }),
    }
}

// The scripts find their spool after `--spool` and write ready.json there.
const READY_TEMPLATE: &str = r#"while [ "$1" != "--spool" ]; do shift; done; SPOOL="$2"
echo '{"pid": 1, "device": {"index": 0, "backend": "fake", "name": "n", "uuid": "u", "driver": "d", "cuda_driver_api": 0, "compute_capability": [9,0], "sm_count": 1, "l2_bytes": 1, "persisting_l2_max_bytes": 0, "total_mem_bytes": 1, "max_threads_per_block": 1024, "max_block": [1024,1024,64], "max_grid": [1,1,1], "max_shared_optin": 0}, "start_s": 0.0, "build": "BUILD"}' > "$SPOOL/r.tmp"; mv "$SPOOL/r.tmp" "$SPOOL/ready.json""#;

/// The stand-in harness's start: a ready file naming this build.
fn ready() -> String {
    READY_TEMPLATE.replace("\"BUILD\"", &format!("{:?}", HARNESS_BUILD))
}

#[test]
fn a_job_past_its_deadline_kills_the_harness() {
    let d = tempfile::tempdir().unwrap();
    let e = script_env(
        d.path(),
        &format!("{}\nwhile read line; do sleep 100; done", ready()),
    );
    let mut job = dummy_job();
    let start = std::time::Instant::now();
    let r = e
        .pool()
        .run(&e, lease(&e), &mut job, std::time::Duration::from_millis(300));
    assert!(matches!(r, Err(PoolError::Timeout(_))), "{r:?}");
    assert!(start.elapsed().as_secs_f64() < 5.0);
    assert_eq!(e.pool().stats().replaced, 1);
    // The lease comes back once the killed process is gone.
    assert!(
        e.leases()
            .unwrap()
            .acquire(std::time::Duration::from_secs(5))
            .is_ok()
    );
}

#[test]
fn a_harness_that_dies_is_reported_and_replaced() {
    let d = tempfile::tempdir().unwrap();
    let e = script_env(d.path(), &format!("{}\nread line; exit 9", ready()));
    // Two jobs: the second gets a fresh process, which dies the same way.
    for _ in 0..2 {
        let r = e.pool().run(
            &e,
            lease(&e),
            &mut dummy_job(),
            std::time::Duration::from_secs(10),
        );
        assert!(matches!(r, Err(PoolError::Crashed(_))), "{r:?}");
    }
    assert_eq!(e.pool().stats().started, 2, "a fresh process for the second job");
}

#[test]
fn a_harness_that_cannot_open_its_device_says_why() {
    let d = tempfile::tempdir().unwrap();
    let body = r#"while [ "$1" != "--spool" ]; do shift; done
echo '{"pid": 1, "error": {"code": "no-gpu", "detail": "no driver"}, "start_s": 0.0}' > "$2/r.tmp"; mv "$2/r.tmp" "$2/ready.json"; exit 2"#;
    let e = script_env(d.path(), body);
    let r = e.pool().run(
        &e,
        lease(&e),
        &mut dummy_job(),
        std::time::Duration::from_secs(10),
    );
    assert_eq!(r, Err(PoolError::Start("no-gpu".into(), "no driver".into())));
}

#[test]
fn fake_sizes_shrink_until_buffers_are_small() {
    let mut t = task(SIG, GOOD).spec;
    t.sizes = vec![
        [("n".to_string(), 1 << 24)].into_iter().collect(),
        [("n".to_string(), 1001)].into_iter().collect(),
    ];
    let s = shrink_for_fake(&t);
    assert!(s.sizes[0]["n"] <= 1 << 14 && s.sizes[0]["n"] > 1 << 12);
    assert_eq!(s.sizes[1]["n"], 1001);
}

#[test]
fn kernel_task_kind_is_required() {
    // A task of another lane (its body is not a kernel task).
    let t = Task::new("qa", "q".into(), "h".into(), "a question".to_string());
    assert!(KernelTaskDef::of(&t).is_none());
    let env = aorlta_check::Env::default();
    let input = aorlta_check::LegInput {
        leg: "compile",
        params: &serde_json::Value::Null,
        task: &t,
        completion: "",
        extracted: Some(GOOD),
        env: &env,
    };
    let out = aorlta_check::Adapter::run(&KernelCompile, &input);
    assert_eq!(out.reasons[0].code, "wrong-task-kind");
}

#[test]
fn a_long_running_environment_keeps_bounded_seed_counters_that_never_repeat_a_seed() {
    use crate::env::DRAWS_PER_GENERATION;
    let dir = tempfile::tempdir().unwrap();
    let env = script_env(dir.path(), "exit 0");
    let first = env.next_seed("t/h/check");
    for i in 0..DRAWS_PER_GENERATION * 2 + 10 {
        env.next_seed(&format!("p{i}"));
    }
    assert!(env.draws_len() <= 2 * DRAWS_PER_GENERATION);
    // The purpose's counter was dropped: drawn again, it starts at a later epoch.
    assert_ne!(env.next_seed("t/h/check"), first);
}

#[test]
fn a_job_has_enough_seeds_to_draw_every_input_family_on_every_size() {
    // One f32 input over [-1, 1]: seven families (no special value declared).
    let mut t = task("void k(float* x, int n)", "r");
    t.spec.buffers[0].init = aorlta_record::Init::Uniform { lo: -1.0, hi: 1.0 };
    assert_eq!(crate::run::seeds_for(&t, 3), 7);
    assert_eq!(crate::run::seeds_for(&t, 1), 7);
    assert_eq!(crate::run::seeds_for(&t, 9), 9);
    // Declaring NaN legal adds the eighth.
    t.spec.buffers[0].special = vec![aorlta_record::Special::Nan];
    assert_eq!(crate::run::seeds_for(&t, 1), 8);
    // A size's cases are consecutive turns of the rotation: each size draws every family.
    let allowed = aorlta_record::allowed_families(&t.spec.buffers[0]);
    let seeds = crate::run::seeds_for(&t, 3);
    for size_pos in 0..3 {
        let drawn: std::collections::BTreeSet<_> = (0..seeds)
            .map(|j| aorlta_record::family_for_case(&allowed, size_pos * seeds + j, 0xD1CE, 0))
            .collect();
        assert_eq!(drawn.len(), allowed.len(), "size {size_pos}: {drawn:?}");
    }
}

#[test]
fn a_result_found_under_other_limits_is_a_miss() {
    // A `compile-timeout` reached at 3 s is no verdict under 120 s: the compile limits are in
    // every kernel leg's identity, the job deadline in the harness legs'.
    let dir = tempfile::tempdir().unwrap();
    let task = Task::new(LANE, "t".into(), "h".into(), task(SIG, GOOD));
    let identities = |edit: &dyn Fn(&mut KernelConfig)| -> Vec<String> {
        let kernel = TestEnv::new(dir.path().join("work"))
            .fake_gpu()
            .compile_timeout_s(3.0)
            .with(edit)
            .build();
        let env = env_of(dir.path().to_path_buf(), Some(kernel));
        let adapters: [&dyn aorlta_check::Adapter; 3] = [&KernelCompile, &KernelRun, &KernelTime];
        adapters
            .iter()
            .map(|a| a.identity(&task, &serde_json::Value::Null, &env))
            .collect()
    };
    let base = identities(&|_| {});
    assert_eq!(base, identities(&|_| {}), "the same limits, the same identities");
    let raised = identities(&|c| c.compile_timeout_s = 120.0);
    let more_memory = identities(&|c| c.compile_memory_mb = 16384);
    for (what, other) in [
        ("compile-timeout-s", &raised),
        ("compile-memory-mb", &more_memory),
    ] {
        for (leg, (a, b)) in ["compile", "run", "time"].iter().zip(base.iter().zip(other)) {
            assert_ne!(a, b, "{leg}: {what}");
        }
    }
    let deadline = identities(&|c| c.job_timeout_s = Some(30.0));
    assert_eq!(base[0], deadline[0], "the compile has no job deadline");
    assert_ne!(base[1], deadline[1], "run: job-timeout-s");
    assert_ne!(base[2], deadline[2], "time: job-timeout-s");
    // How sources behave on the fake device decides its results too: a changed `fakes` is a miss.
    let source = dir.path().join("k.cu");
    std::fs::write(&source, GOOD).unwrap();
    let faked = |speed: f64| {
        identities(&|c| {
            c.fakes = vec![FakeSource {
                source: source.clone(),
                fake: FakeSpec {
                    speed,
                    ..FakeSpec::default()
                },
            }]
        })
    };
    let (half, third) = (faked(0.5), faked(0.3));
    for (leg, ((a, b), c)) in ["compile", "run", "time"]
        .iter()
        .zip(base.iter().zip(&half).zip(&third))
    {
        assert_ne!(a, b, "{leg}: fakes");
        assert_ne!(b, c, "{leg}: a fake's speed");
    }
    assert_eq!(half, faked(0.5));
}

#[test]
fn auto_compiles_cuda_with_nvcc_even_where_nvrtc_is_found() {
    // A toolkit's layout: nvcc in `bin`, NVRTC in `lib`, headers in `include`.
    let d = tempfile::tempdir().unwrap();
    for dir in ["bin", "lib", "include"] {
        std::fs::create_dir_all(d.path().join(dir)).unwrap();
    }
    let nvcc = d.path().join("bin/nvcc");
    std::fs::write(&nvcc, "").unwrap();
    std::fs::write(d.path().join("lib/libnvrtc.so"), "").unwrap();
    assert!(
        crate::compiler::nvrtc::NvrtcInstall::find(Some(&nvcc)).is_some(),
        "NVRTC is found"
    );
    let built = |compiler| {
        TestEnv::new(d.path().join("work"))
            .nvcc(&nvcc)
            .compiler(compiler)
            .build()
    };
    assert_eq!(KernelConfig::default().compiler, CompilerChoice::Auto);
    let auto = built(CompilerChoice::Auto);
    assert_eq!(auto.config().compiler, CompilerChoice::Nvcc);
    assert!(crate::compiler::CompileEnv::nvrtc(&auto).is_none());
    let named = built(CompilerChoice::Nvrtc);
    assert_eq!(named.config().compiler, CompilerChoice::Nvrtc);
    assert!(crate::compiler::CompileEnv::nvrtc(&named).is_some());
}
