//! Kernel extraction: labelled and unlabelled blocks, the block that wins, the declarations
//! that count, missing blocks, and that no completion makes it panic.

use super::extract_kernel;
use proptest::prelude::*;

const KERNEL: &str = "__global__ void vector_add(const float* a, const float* b, float* c, int n) {\n  int i = \
                      blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) c[i] = a[i] + b[i];\n}\n";

#[test]
fn kernels_in_labelled_blocks() {
    for label in [
        "cuda",
        "cpp",
        "c++",
        "cu",
        "hip",
        "c",
        "CUDA",
        "cuda title=\"k.cu\"",
    ] {
        let s = format!("Here:\n```{label}\n{KERNEL}```\nDone.");
        assert_eq!(extract_kernel(&s, "vector_add").as_deref(), Ok(KERNEL), "{label}");
    }
    let s = format!("~~~cuda\n{KERNEL}~~~\n");
    assert_eq!(extract_kernel(&s, "vector_add").as_deref(), Ok(KERNEL));
}

#[test]
fn kernels_in_unlabelled_blocks() {
    let s = format!("```\n#include <cuda.h>\n{KERNEL}```");
    assert!(extract_kernel(&s, "vector_add").unwrap().contains("vector_add("));
    let s = "```\nprint('hi')\n```";
    assert_eq!(extract_kernel(s, "vector_add").unwrap_err().code, "no-code-block");
}

#[test]
fn the_last_defining_block_wins() {
    let v1 = KERNEL.replace("a[i] + b[i]", "a[i]");
    let s = format!("```cuda\n{v1}```\n```cuda\n{KERNEL}```\n```cuda\n__device__ int helper();\n```\n");
    assert_eq!(extract_kernel(&s, "vector_add").as_deref(), Ok(KERNEL));
}

#[test]
fn declarations_that_count() {
    let k = |src: &str| format!("```cuda\n{src}\n```");
    assert!(extract_kernel(&k("extern \"C\" __global__ void k(int* x) {}"), "k").is_ok());
    assert!(
        extract_kernel(
            &k("template <int N>\n__global__ void __launch_bounds__(256) k (int* x) {}"),
            "k"
        )
        .is_ok()
    );
    assert!(extract_kernel(&k("__global__ void\nk(\nint* x) {}"), "k").is_ok());
    let r = extract_kernel(&k("__global__ void k2(int* x) {}\nvoid k(int* x) {}"), "k").unwrap_err();
    assert_eq!(r.code, "kernel-not-found");
    assert_eq!(
        extract_kernel(&k("__global__ void kk(int* x) {}"), "k")
            .unwrap_err()
            .code,
        "kernel-not-found"
    );
    assert_eq!(
        extract_kernel(&k("__global__ void k(int);"), "")
            .unwrap_err()
            .code,
        "kernel-not-found"
    );
}

#[test]
fn missing_blocks() {
    assert_eq!(
        extract_kernel(KERNEL, "vector_add").unwrap_err().code,
        "no-code-block"
    );
    assert_eq!(
        extract_kernel("```python\nx = 1\n```", "k").unwrap_err().code,
        "no-code-block"
    );
    let s = format!("```cuda\n{KERNEL}");
    assert_eq!(
        extract_kernel(&s, "vector_add").as_deref(),
        Ok(KERNEL),
        "an unclosed fence runs to the end"
    );
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn extraction_never_panics_and_slices_the_input(s in any::<String>()) {
        if let Ok(src) = extract_kernel(&s, "k") {
            prop_assert!(s.contains(&src));
        }
    }

    #[test]
    fn extraction_never_panics_on_markup(
        v in prop::collection::vec(
            prop::sample::select(vec![
                "{", "}", "\\", "\n", "\n\n", "```", "```cuda\n", "```python\n", "__global__", " k(",
                ";", "~~~", "def k(", "@triton.jit", "é",
            ]),
            0..80,
        )
    ) {
        let s = v.concat();
        if let Ok(src) = extract_kernel(&s, "k") {
            prop_assert!(s.contains(&src));
        }
    }
}
