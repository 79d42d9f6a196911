//! A generated set's pool (`DIR/pool.jsonl`): for each kept task whose operators are all
//! element-wise, CUDA kernels written from the operators' steps, right and wrong in the ways the
//! validation suites know, so that a generated set can be scored end to end (`aorlta score`, the
//! service) with outcomes known in advance.
//!
//! Each kernel computes in `float` and rounds to the task's element type after every step, as
//! PyTorch does between the module's operators. The cases, with what they must come to:
//!
//! | case | what it does | `kernel-run` |
//! |---|---|---|
//! | `plain` | one thread per element, the task's default launch | clean |
//! | `grid-stride` | its own launch (1056 blocks of 256) and a grid-stride loop | clean |
//! | `slow` | one warp walks every element | clean (timed slower than the module) |
//! | `wrong-scale` | the result times 1.25 plus 1/16 | broke `output-mismatch` |
//! | `zeros` | writes zeros | broke `output-mismatch` |
//! | `tail-skip` | never writes the last element | broke `output-mismatch` |
//! | `input-mutation` | also writes its result over the input | broke `input-mutated` |
//! | `oob-write` | also writes one element past the output's end | broke `guard-overwritten` |

use aorlta_record::{Dtype, KernelTask, Role};
use std::path::Path;

/// One candidate: its case and its source.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    /// The case (`plain`, `zeros`, …: [`CASES`]).
    pub case: &'static str,
    /// The CUDA source.
    pub source: String,
}

/// Every case, in the order of the table above.
pub const CASES: [&str; 8] = [
    "plain",
    "grid-stride",
    "slow",
    "wrong-scale",
    "zeros",
    "tail-skip",
    "input-mutation",
    "oob-write",
];

/// The fields of an element-wise task the kernels need: the signature, the input's name, the
/// output's name, length and element type.
struct Shape {
    signature: String,
    input: String,
    output: String,
    len: String,
    dtype: Dtype,
}

fn shape_of(task_file: &Path) -> Result<Shape, String> {
    let place = |e: &dyn std::fmt::Display| format!("{}: {e}", task_file.display());
    let text = std::fs::read_to_string(task_file).map_err(|e| place(&e))?;
    let task: KernelTask = serde_norway::from_str(&text).map_err(|e| place(&e))?;
    let of_role = |role: Role| task.buffers.iter().filter(move |b| b.role == role);
    let (ins, outs): (Vec<_>, Vec<_>) = (of_role(Role::In).collect(), of_role(Role::Out).collect());
    let [input] = ins.as_slice() else {
        return Err(place(&"not one input buffer"));
    };
    let [output] = outs.as_slice() else {
        return Err(place(&"not one output buffer"));
    };
    Ok(Shape {
        signature: task.signature.clone(),
        input: input.name.clone(),
        output: output.name.clone(),
        len: output.len.clone(),
        dtype: output.dtype,
    })
}

/// The element type's header, C name, load and store; `None` for a type no generated module
/// has.
fn element(dtype: Dtype) -> Option<(&'static str, &'static str, &'static str, &'static str)> {
    match dtype {
        Dtype::F32 => Some(("", "float", "p[i]", "v")),
        Dtype::F16 => Some((
            "#include <cuda_fp16.h>\n\n",
            "__half",
            "__half2float(p[i])",
            "__float2half(v)",
        )),
        Dtype::Bf16 => Some((
            "#include <cuda_bf16.h>\n\n",
            "__nv_bfloat16",
            "__bfloat162float(p[i])",
            "__float2bfloat16(v)",
        )),
        _ => None,
    }
}

/// The kernels of every case for the task in `task_file`, whose module applies `steps` (each
/// operator's CUDA steps over the float `v`) to its one input, in its output's element type.
pub fn candidates(task_file: &Path, steps: &[Vec<String>]) -> Result<Vec<Candidate>, String> {
    let shape = shape_of(task_file)?;
    let (include, ty, load, store) = element(shape.dtype)
        .ok_or_else(|| format!("{}: element type {:?}", task_file.display(), shape.dtype))?;
    let mut chain = String::new();
    for step in steps.iter().flatten() {
        chain.push_str(&format!("    v = round_to_type({step});\n"));
    }
    let head = format!(
        "{include}__device__ __forceinline__ float load_element(const {ty}* p, long long i) {{ return {load}; }}\n\
         __device__ __forceinline__ {ty} store_element(float v) {{ return {store}; }}\n\
         // The module rounds to its element type after each operator.\n\
         __device__ __forceinline__ float round_to_type(float v) {{ {ty} r = store_element(v); return load_element(&r, 0); }}\n\n\
         __device__ __forceinline__ float chain(float v) {{\n{chain}    return v;\n}}\n\n"
    );
    let (x, out, len) = (&shape.input, &shape.output, &shape.len);
    let one_thread = "    long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;\n";
    let stride = "    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; \
                  i += (long long)gridDim.x * blockDim.x) {\n";
    let body = |case: &str| -> String {
        let n = format!("    const long long n = 1LL * {len};\n");
        match case {
            "plain" => format!(
                "{n}{one_thread}    if (i < n) {out}[i] = store_element(chain(load_element({x}, i)));\n"
            ),
            "grid-stride" | "slow" => {
                format!("{n}{stride}        {out}[i] = store_element(chain(load_element({x}, i)));\n    }}\n")
            }
            "wrong-scale" => format!(
                "{n}{one_thread}    if (i < n) {out}[i] = store_element(chain(load_element({x}, i)) * 1.25f + 0.0625f);\n"
            ),
            "zeros" => format!("{n}{one_thread}    if (i < n) {out}[i] = store_element(0.f);\n"),
            "tail-skip" => format!(
                "{n}{one_thread}    if (i < n - 1) {out}[i] = store_element(chain(load_element({x}, i)));\n"
            ),
            "input-mutation" => format!(
                "{n}{one_thread}    if (i < n) {{\n        {ty} r = store_element(chain(load_element({x}, i)));\n        \
                 const_cast<{ty}*>({x})[i] = r;\n        {out}[i] = r;\n    }}\n"
            ),
            _ => format!(
                "{n}{one_thread}    if (i < n) {{\n        {ty} r = store_element(chain(load_element({x}, i)));\n        \
                 {out}[i] = r;\n        if (i == n - 1) {out}[n] = r;\n    }}\n"
            ),
        }
    };
    let launch = |case: &str| match case {
        "grid-stride" => "__device__ unsigned int aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0};\n\n",
        "slow" => "__device__ unsigned int aorlta_launch[7] = {1, 1, 1, 32, 1, 1, 0};\n\n",
        _ => "",
    };
    Ok(CASES
        .iter()
        .map(|case| Candidate {
            case,
            source: format!(
                "{head}{}__global__ {} {{\n{}}}\n",
                launch(case),
                shape.signature,
                body(case)
            ),
        })
        .collect())
}

/// A pool line of `task`'s candidate (`id` `TASK/CASE`; the completion one ```cuda block).
pub fn pool_line(task: &str, c: &Candidate) -> String {
    serde_json::json!({
        "id": format!("{task}/{}", c.case),
        "task": task,
        "completion": format!("```cuda\n{}```\n", c.source),
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An element-wise task file with `inputs` of the element type `dtype` (`f16`) and one
    /// output, the kernel's parameters of the C type `ty`.
    fn task_file(dir: &Path, ty: &str, dtype: &str, inputs: &[&str]) -> std::path::PathBuf {
        let buffer = |name: &str, role: &str| serde_json::json!({"name": name, "dtype": dtype, "len": "batch_size * 2048", "role": role});
        let mut buffers: Vec<_> = inputs.iter().map(|i| buffer(i, "in")).collect();
        buffers.push(buffer("out", "out"));
        let params: Vec<String> = inputs.iter().map(|i| format!("const {ty}* {i}")).collect();
        let task: KernelTask = serde_json::from_value(serde_json::json!({
            "id": "t", "prompt": "p", "reference": "r.cu",
            "signature": format!("void gelu_scale({}, {ty}* out, int batch_size)", params.join(", ")),
            "buffers": buffers,
            "scalars": {"batch_size": "batch_size"}, "sizes": [{"batch_size": 4}],
            "grid": ["1", "1", "1"], "block": ["4", "1", "1"]
        }))
        .unwrap();
        let f = dir.join("t.yaml");
        std::fs::write(&f, serde_norway::to_string(&task).unwrap()).unwrap();
        f
    }

    #[test]
    fn every_case_is_a_kernel_of_the_tasks_signature_applying_each_step_rounded() {
        let dir = tempfile::tempdir().unwrap();
        let steps = vec![
            vec!["0.5f * v * (1.f + erff(v * 0.70710678118654752f))".to_string()],
            vec!["__fmul_rn(v, 2.0f)".to_string(), "__fadd_rn(v, 0.5f)".to_string()],
        ];
        let cands = candidates(&task_file(dir.path(), "__half", "f16", &["x"]), &steps).unwrap();
        let cases: Vec<&str> = cands.iter().map(|c| c.case).collect();
        assert_eq!(cases, CASES);
        for c in &cands {
            let s = &c.source;
            assert!(s.starts_with("#include <cuda_fp16.h>"), "{s}");
            assert!(
                s.contains("__global__ void gelu_scale(const __half* x, __half* out, int batch_size) {"),
                "{s}"
            );
            assert!(s.contains("const long long n = 1LL * batch_size * 2048;"), "{s}");
            // Three steps, each rounded to the element type, in order.
            let at: Vec<usize> = ["erff(", "__fmul_rn(", "__fadd_rn("]
                .iter()
                .map(|k| s.find(k).unwrap())
                .collect();
            assert!(at.windows(2).all(|w| w[0] < w[1]), "{s}");
            assert_eq!(s.matches("v = round_to_type(").count(), 3, "{s}");
        }
        let by = |case: &str| &cands.iter().find(|c| c.case == case).unwrap().source;
        assert!(by("grid-stride").contains("aorlta_launch[7] = {1056, 1, 1, 256, 1, 1, 0}"));
        assert!(by("slow").contains("aorlta_launch[7] = {1, 1, 1, 32, 1, 1, 0}"));
        assert!(by("zeros").contains("store_element(0.f)"));
        assert!(by("tail-skip").contains("if (i < n - 1)"));
        assert!(by("input-mutation").contains("const_cast<__half*>(x)[i] = r;"));
        assert!(by("oob-write").contains("out[n] = r;"));
        assert!(!by("plain").contains("aorlta_launch"));
        // A pool line: the id names the task and the case, the completion is one ```cuda block.
        let line: serde_json::Value = serde_json::from_str(&pool_line("t", &cands[0])).unwrap();
        assert_eq!(line["id"], "t/plain");
        assert_eq!(line["task"], "t");
        let text = line["completion"].as_str().unwrap();
        assert!(text.starts_with("```cuda\n") && text.ends_with("```\n"), "{text}");
        assert_eq!(text.matches("```").count(), 2);
    }

    #[test]
    fn a_float_kernel_includes_no_header_and_a_task_of_two_inputs_has_no_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let f = task_file(dir.path(), "float", "f32", &["x"]);
        let cands = candidates(&f, &[vec!["fabsf(v)".to_string()]]).unwrap();
        assert!(cands.iter().all(|c| !c.source.contains("#include")));
        let f = task_file(dir.path(), "float", "f32", &["x", "y"]);
        let err = candidates(&f, &[vec!["fabsf(v)".to_string()]]).unwrap_err();
        assert!(err.contains("not one input buffer"), "{err}");
    }
}
