//! The compile leg on HIP sources with the real compilers: hipcc for gfx90a (`AORLTA_HIPCC`),
//! the clang-19 stand-in for gfx942 (`AORLTA_HIPCC_GFX942`), nvcc through the portability
//! header (`AORLTA_NVCC`). Each test is skipped with a message where its compiler's variable is
//! unset, and fails in CI; the test command installs all three.

use super::target::Target;
use super::{Who, compile};
use crate::env::KernelEnv;
use crate::task::KernelTaskDef;
use crate::test_env::TestEnv;
use crate::tests::{SIG, code_of, task, tool};
use aorlta_record::KernelLanguage;
use aorlta_record::LegState;
use std::path::Path;

const GOOD: &str = "#include <hip/hip_runtime.h>\n\
    __global__ void scale(float* x, int n) {\n\
      int i = hipBlockIdx_x * hipBlockDim_x + hipThreadIdx_x;\n\
      float v = i < n ? x[i] : 0.0f;\n\
      v += __shfl_down(v, 1);\n\
      if (i < n) x[i] = 2.0f * x[i] + 0.0f * v;\n\
    }\n";

fn hip_task() -> KernelTaskDef {
    let mut t = task(SIG, GOOD);
    t.spec.language = KernelLanguage::Hip;
    t
}

fn amd_env(hipcc: &Path, archs: &[&str], dir: &Path) -> KernelEnv {
    TestEnv::new(dir)
        .amd(hipcc, archs)
        .compile_timeout_s(60.0)
        .build()
}

fn outcome(e: &KernelEnv, t: &KernelTaskDef, src: &str) -> (LegState, String) {
    code_of(compile(e, t, src, Who::Candidate))
}

/// What every compiler must agree on, whatever the platform: the good source and its
/// `extern "C"` twin compile and are found, a wrong signature is `kernel-not-found`, a device
/// printf is refused, a compile error names `k.hip` and not the temporary folder.
fn common_outcomes(e: &KernelEnv, dir: &Path, magic: &[u8]) {
    let t = hip_task();
    let ok = compile(e, &t, GOOD, Who::Candidate).unwrap();
    assert_eq!(ok.symbols[0], "_Z5scalePfi");
    let bytes = std::fs::read(&ok.cubin).unwrap();
    assert!(bytes.starts_with(magic), "code object starts {:?}", &bytes[..8]);
    assert!(compile(e, &t, GOOD, Who::Candidate).unwrap().cached);
    let plain =
        "#include <hip/hip_runtime.h>\nextern \"C\" __global__ void scale(float* x, int n) { x[0] = n; }\n";
    assert_eq!(compile(e, &t, plain, Who::Candidate).unwrap().symbols[0], "scale");
    let wrong = "#include <hip/hip_runtime.h>\n__global__ void scale(double* x, int n) { x[0] = n; }\n";
    assert_eq!(
        outcome(e, &t, wrong),
        (LegState::Broke, "kernel-not-found".into())
    );
    let printf = "#include <hip/hip_runtime.h>\n#include <cstdio>\n\
        __global__ void scale(float* x, int n) { printf(\"%d\\n\", n); x[0] = n; }\n";
    assert_eq!(outcome(e, &t, printf), (LegState::Broke, "device-printf".into()));
    let err = compile(
        e,
        &t,
        "#include <hip/hip_runtime.h>\n__global__ void scale(float* x, int n) { x[0] = y; }\n",
        Who::Candidate,
    )
    .unwrap_err();
    assert_eq!((err.state, err.code.as_str()), (LegState::Broke, "compile-error"));
    assert!(err.detail.contains("k.hip"), "{}", err.detail);
    assert!(!err.detail.contains(&dir.display().to_string()), "{}", err.detail);
}

#[test]
fn a_cuda_task_cannot_run_on_amd_and_says_so() {
    let dir = tempfile::tempdir().unwrap();
    let e = amd_env(Path::new("/nonexistent/hipcc"), &["gfx90a"], dir.path());
    let t = task(SIG, "__global__ void scale(float* x, int n) {}\n");
    let f = compile(
        &e,
        &t,
        "__global__ void scale(float* x, int n) {}\n",
        Who::Candidate,
    )
    .unwrap_err();
    assert_eq!(
        (f.state, f.code.as_str()),
        (LegState::Unsettled, "unsupported-language")
    );
    assert!(f.detail.contains("language: hip"), "{}", f.detail);
    assert_eq!(Target::of(&e, &hip_task()), Ok(Target::HipOnAmd));
    // A HIP task with no hipcc is unsettled, never the candidate's fault.
    assert_eq!(outcome(&e, &hip_task(), GOOD).0, LegState::Unsettled);
}

#[test]
fn hip_sources_compile_for_gfx90a_with_hipcc_and_their_metadata_is_checked() {
    let Some(hipcc) = tool("AORLTA_HIPCC") else { return };
    let dir = tempfile::tempdir().unwrap();
    let e = amd_env(&hipcc, &["gfx90a"], dir.path());
    common_outcomes(&e, dir.path(), b"__CLANG_OFFLOAD_BUNDLE__");
    // The kernel's parameter layout must be the task's: a kernel found under the plain name
    // whose parameters differ is refused by its metadata, not launched.
    let t = hip_task();
    let long_n =
        "#include <hip/hip_runtime.h>\nextern \"C\" __global__ void scale(float* x, long n) { x[0] = n; }\n";
    assert_eq!(
        outcome(&e, &t, long_n),
        (LegState::Broke, "signature-mismatch".into())
    );
}

#[test]
fn hip_sources_compile_for_gfx942_and_gfx90a_in_one_bundle() {
    let Some(wrapper) = tool("AORLTA_HIPCC_GFX942") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let e = amd_env(&wrapper, &["gfx90a", "gfx942"], dir.path());
    common_outcomes(&e, dir.path(), b"__CLANG_OFFLOAD_BUNDLE__");
    let ok = compile(&e, &hip_task(), GOOD, Who::Candidate).unwrap();
    let objects = super::super::amdgpu::code_objects(&std::fs::read(&ok.cubin).unwrap()).unwrap();
    let mut targets: Vec<&str> = objects.iter().map(|o| o.target.as_str()).collect();
    targets.sort();
    assert_eq!(targets, ["gfx90a", "gfx942"]);
}

#[test]
fn hip_sources_compile_for_nvidia_through_the_portability_header() {
    let Some(nvcc) = tool("AORLTA_NVCC") else { return };
    let dir = tempfile::tempdir().unwrap();
    let e = TestEnv::new(dir.path())
        .nvcc(nvcc)
        .compiler(crate::config::CompilerChoice::Nvcc)
        .compile_timeout_s(60.0)
        .build();
    assert_eq!(Target::of(&e, &hip_task()), Ok(Target::HipOnNvidia));
    common_outcomes(&e, dir.path(), b"\x7fELF");
    // What only AMD has does not compile here.
    let amd_only = "#include <hip/hip_runtime.h>\n\
        __global__ void scale(float* x, int n) { x[0] = __builtin_amdgcn_readfirstlane(n); }\n";
    assert_eq!(
        outcome(&e, &hip_task(), amd_only),
        (LegState::Broke, "compile-error".into())
    );
}
