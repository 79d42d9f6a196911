use super::*;
use crate::extract::{cpp_source, plan_of};
use serde_json::json;

fn task(plans: serde_json::Value) -> KernelTask {
    let mut v = json!({
        "id": "add", "prompt": "p", "reference": "r.cu",
        "signature": "void add(const float* a, const float* b, float* c, int n)",
        "buffers": [
            {"name": "a", "dtype": "f32", "len": "n", "role": "in"},
            {"name": "b", "dtype": "f32", "len": "n", "role": "in"},
            {"name": "c", "dtype": "f32", "len": "n", "role": "out"}
        ],
        "scalars": {"n": "n"},
        "sizes": [{"n": 1000}, {"n": 7}],
        "grid": ["ceil_div(n, 256)", "1", "1"], "block": ["256", "1", "1"]
    });
    if !plans.is_null() {
        v["plans"] = plans;
    }
    serde_json::from_value(v).unwrap()
}

fn allowed() -> KernelTask {
    task(json!({"max_steps": 3, "max_scratch_bytes": "4 * n"}))
}

const KERNELS: &str = "```cuda
__global__ void __launch_bounds__(256) add_into(const float* __restrict__ a, const float* b, float* t, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) t[i] = a[i] + b[i];
}
__global__ void epilogue(const float* t, float* c, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = t[i];
}
```
";

const GOOD: &str = r#"plan:
  scratch:
    - {name: tmp, dtype: f32, len: n}
  steps:
    - launch: {kernel: add_into, grid: ["ceil_div(n, 256)", "1", "1"], block: ["256", "1", "1"], args: [a, b, tmp, n]}
    - launch: {kernel: epilogue, grid: ["ceil_div(n, 256)", "1", "1"], block: ["256", "1", "1"], args: [tmp, c, "n"]}
"#;

fn completion(plan: &str) -> String {
    format!("Two kernels and a plan.\n\n{KERNELS}\n```yaml\n{plan}```\n")
}

fn source(t: &KernelTask, plan: &str) -> Result<String, aorlta_record::Reason> {
    cpp_source(&completion(plan), t, "add")
}

#[test]
fn a_plan_loads_and_travels_with_its_source_to_the_harness() {
    let s = source(&allowed(), GOOD).unwrap();
    let (src, json) = split(&s);
    assert!(
        src.starts_with("__global__ void __launch_bounds__(256) add_into("),
        "{src}"
    );
    assert!(!src.contains(PLAN_MARKER), "{src}");
    assert!(
        json.unwrap().starts_with("{\"scratch\":[{\"name\":\"tmp\""),
        "{s}"
    );
    let p = plan_of(&s, &allowed()).unwrap().unwrap();
    assert_eq!(p.plan.steps.len(), 2);
    assert_eq!(p.plan.scratch[0].len, "n");
    let k = &p.kernels["add_into"];
    assert_eq!(k.symbols, ["_Z8add_intoPKfS0_Pfi", "add_into"]);
    assert_eq!(
        k.declaration,
        "void add_into(const float* __restrict__ a, const float* b, float* t, int n)"
    );
    assert_eq!(p.kernels["epilogue"].symbols[0], "_Z8epiloguePKfPfi");
    // A source without a plan carries none; a plan the task does not allow fails again later.
    assert_eq!(plan_of(src, &allowed()), Ok(None));
    let e = plan_of(&s, &task(serde_json::Value::Null)).unwrap_err();
    assert_eq!((e.at.as_str(), e.field.as_str()), ("plan", "plans"));
}

#[test]
fn every_plan_error_names_the_step_and_the_field() {
    let gemm_allowed = task(json!({"max_steps": 3, "max_scratch_bytes": "4 * n", "library": ["gemm"]}));
    let sub = |from: &str, to: &str| {
        assert!(GOOD.contains(from), "{from}");
        GOOD.replacen(from, to, 1)
    };
    let extra = "    - launch: {kernel: epilogue, grid: [\"1\", \"1\", \"1\"], block: [\"1\", \"1\", \"1\"], args: [tmp, c, n]}\n";
    let cases: Vec<(KernelTask, String, &str)> = vec![
        (
            allowed(),
            sub("kernel: epilogue", "kernel: epilog"),
            "plan step 2 (launch): field `kernel`: no code block defines every kernel the plan launches",
        ),
        (
            allowed(),
            sub("[tmp, c, \"n\"]", "[tmp, c]"),
            "plan step 2 (launch): field `args`: 2 arguments for the 3 parameters of `epilogue`",
        ),
        (
            allowed(),
            sub("[tmp, c, \"n\"]", "[n, c, n]"),
            "plan step 2 (launch): field `args`: argument 1 (`n`) for the pointer `t`: not a buffer",
        ),
        (
            allowed(),
            sub("[tmp, c, \"n\"]", "[scratch2, c, n]"),
            "plan step 2 (launch): field `args`: argument 1 (`scratch2`) for the pointer `t`",
        ),
        (
            allowed(),
            sub("[tmp, c, \"n\"]", "[tmp, c, q]"),
            "plan step 2 (launch): field `args`: argument 3 (`q`): neither a scalar of the task nor an expression",
        ),
        (
            allowed(),
            sub("[tmp, c, \"n\"]", "[tmp, c, c]"),
            "plan step 2 (launch): field `args`: argument 3 (`c`): a buffer for the scalar `n`",
        ),
        (
            allowed(),
            sub("[a, b, tmp, n]", "[a, b, a, n]"),
            "plan step 1 (launch): field `args`: argument 3 (`a`): the input `a` is passed to the writable `t`",
        ),
        (
            allowed(),
            sub("grid: [\"ceil_div(n, 256)\"", "grid: [\"ceil_div(m, 256)\""),
            "plan step 1 (launch): field `grid`: `ceil_div(m, 256)` at size 0",
        ),
        (
            allowed(),
            sub(
                "block: [\"256\", \"1\", \"1\"], args: [a",
                "block: [\"2048\", \"1\", \"1\"], args: [a",
            ),
            "plan step 1 (launch): field `block`: `(2048) * (1) * (1)` is 2048 at size 0, over the task's caps (1024)",
        ),
        (
            allowed(),
            sub(
                "kernel: add_into,",
                "kernel: add_into, grd: [\"1\", \"1\", \"1\"],",
            ),
            "plan step 1 (launch): field `grd`: unknown field `grd`",
        ),
        (
            allowed(),
            sub("- launch: {kernel: add_into", "- conv: {kernel: add_into"),
            "plan step 1 (conv): field `kind`: unknown variant `conv`",
        ),
        (
            allowed(),
            format!("{GOOD}{extra}{extra}"),
            "plan: field `steps`: 4 steps, over the task's `plans.max_steps` of 3",
        ),
        (
            allowed(),
            sub("len: n}", "len: 2 * n}"),
            "plan: field `scratch`: 8000 bytes of scratch at size 0, over the task's `plans.max_scratch_bytes` of 4000",
        ),
        (
            allowed(),
            sub("len: n}", "len: n - 8}"),
            "plan scratch `tmp`: field `len`: `n - 8` at size 1",
        ),
        (
            allowed(),
            sub("name: tmp,", "name: c,"),
            "plan scratch `c`: field `name`: the task has a buffer or scalar of that name",
        ),
        (
            allowed(),
            GOOD.to_string() + "    - gemm: {a: a, b: b, c: tmp, m: \"1\", n: n, k: \"1\", dtype: f32}\n",
            "plan step 3 (gemm): field `kind`: the task allows no `gemm` step (its `plans.library` is [])",
        ),
        (
            gemm_allowed.clone(),
            GOOD.to_string() + "    - gemm: {a: a, b: b, c: tmp, m: \"n\", n: n, k: \"1\", dtype: f32}\n",
            "plan step 3 (gemm): field `c`: `tmp` holds 1000 elements at size 0; the product uses 1000000",
        ),
        (
            gemm_allowed.clone(),
            GOOD.to_string() + "    - gemm: {a: a, b: b, c: tmp, m: \"1\", n: n, k: \"1\", dtype: f16}\n",
            "plan step 3 (gemm): field `a`: `a` is F32, the step's `dtype` F16",
        ),
        (
            gemm_allowed.clone(),
            GOOD.to_string() + "    - gemm: {a: tmp, b: b, c: a, m: \"1\", n: n, k: \"1\", dtype: f32}\n",
            "plan step 3 (gemm): field `c`: `a` is an input of the task",
        ),
        (
            gemm_allowed,
            GOOD.to_string() + "    - gemm: {a: tmp, b: b, c: tmp, m: \"1\", n: n, k: \"1\", dtype: f32}\n",
            "plan step 3 (gemm): field `c`: `tmp` is also an operand",
        ),
        (
            task(serde_json::Value::Null),
            GOOD.to_string(),
            "plan: field `plans`: task `add` allows no plan (it has no `plans` field)",
        ),
    ];
    for (t, plan, want) in cases {
        let e = source(&t, &plan).unwrap_err();
        assert_eq!(e.code, "plan-invalid", "{plan}\n{}", e.detail);
        assert!(
            e.detail.starts_with(want),
            "want: {want}\ngot:  {}\n{plan}",
            e.detail
        );
    }
}

#[test]
fn a_completion_without_a_plan_keeps_its_one_kernel_and_may_not_forge_one() {
    let one = "```cuda\n__global__ void add(const float* a, const float* b, float* c, int n) {}\n```\n";
    assert!(
        cpp_source(one, &allowed(), "add")
            .unwrap()
            .starts_with("__global__ void add(")
    );
    let forged = format!(
        "```cuda\n__global__ void add(const float* a, const float* b, float* c, int n) {{}}\n{PLAN_MARKER}{{}}\n```\n"
    );
    let e = cpp_source(&forged, &allowed(), "add").unwrap_err();
    assert_eq!(e.code, "plan-invalid");
    assert!(e.detail.contains("reserved"), "{}", e.detail);
    // A YAML block whose top key is not `plan:` is no plan.
    let other = format!("{one}```yaml\nnotes: [1]\n```\n");
    assert!(cpp_source(&other, &allowed(), "add").is_ok());
    // A plan block with no C++ block.
    let e = cpp_source(&format!("```yaml\n{GOOD}```\n"), &allowed(), "add").unwrap_err();
    assert_eq!(e.code, "no-code-block");
}
