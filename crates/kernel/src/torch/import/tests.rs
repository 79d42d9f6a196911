use super::*;

fn probed(json: &str) -> ProbeResult {
    serde_json::from_str(json).unwrap()
}

const SOFTMAX: &str = r#"{"class": "Model", "init": [], "forward": ["x"], "variables": {"batch_size": 4096, "dim": 393216},
    "inputs": [{"name": "x", "kind": "buffer", "dtype": "f32", "shape": [4096, 393216], "init": {"kind": "uniform", "lo": 0.0, "hi": 1.0}}],
    "state": [], "outputs": [{"name": "out", "dtype": "f32"}],
    "sizes": [{"vars": {"batch_size": 512, "dim": 384}, "inputs": {"x": [512, 384]}, "outputs": [[512, 384]], "timed": false},
              {"vars": {"batch_size": 4096, "dim": 393216}, "inputs": {"x": [4096, 393216]}, "outputs": [[4096, 393216]], "timed": true}]}"#;

const CONV: &str = r#"{"class": "Model", "init": [1000], "forward": ["x"], "variables": {"batch_size": 256},
    "inputs": [{"name": "x", "kind": "buffer", "dtype": "f32", "shape": [256, 3, 224, 224], "init": {"kind": "uniform", "lo": 0.0, "hi": 1.0}}],
    "state": [{"name": "conv1_weight", "module_name": "conv1.weight", "dtype": "f32", "shape": [96, 3, 11, 11], "init": {"kind": "uniform", "lo": -0.05, "hi": 0.05}}],
    "outputs": [{"name": "out", "dtype": "f32"}],
    "sizes": [{"vars": {"batch_size": 1}, "inputs": {"x": [1, 3, 224, 224]}, "outputs": [[1, 96, 55, 55]], "timed": false},
              {"vars": {"batch_size": 256}, "inputs": {"x": [256, 3, 224, 224]}, "outputs": [[256, 96, 55, 55]], "timed": true}]}"#;

fn task(json: &str, file: &str) -> KernelTask {
    let dir = tempfile::tempdir().unwrap();
    let problem = dir.path().join("problems").join(file);
    std::fs::create_dir_all(problem.parent().unwrap()).unwrap();
    std::fs::write(&problem, "class Model: pass\n").unwrap();
    let out = dir.path().join("tasks");
    task_of(&probed(json), &problem, "t", ImportAs::cuda(1), &out)
        .unwrap()
        .0
}

#[test]
fn a_problem_becomes_a_task_with_the_timed_size_first_and_lengths_from_its_variables() {
    let t = task(SOFTMAX, "23_Softmax.py");
    assert_eq!(
        t.signature,
        "void softmax(const float* x, float* out, int batch_size, int dim)"
    );
    assert_eq!(t.buffers[0].len, "batch_size * dim");
    assert_eq!(t.buffers[1].role, Role::Out);
    assert_eq!(t.sizes[0]["batch_size"], 4096);
    assert_eq!(t.sizes[1]["dim"], 384);
    assert_eq!(t.grid[0], "ceil_div(batch_size * dim, 256)");
    let Reference::Torch(r) = &t.reference else {
        panic!("{:?}", t.reference)
    };
    assert_eq!(r.torch, "../problems/23_Softmax.py:Model");
    assert!(
        t.prompt.contains("torch.nn.Module") || t.prompt.contains("PyTorch"),
        "{}",
        t.prompt
    );
}

#[test]
fn parameters_are_input_buffers_and_a_dimension_that_follows_no_variable_is_one() {
    let t = task(CONV, "50_conv_standard_2D.py");
    assert_eq!(
        t.signature,
        "void conv_standard_2d(const float* x, const float* conv1_weight, float* out, int batch_size)"
    );
    assert_eq!(t.buffers[0].len, "batch_size * 3 * 224 * 224");
    assert_eq!(t.buffers[1].len, "96 * 3 * 11 * 11");
    // 55 x 55 at both sizes: constants, not variables.
    assert_eq!(t.buffers[2].len, "batch_size * 96 * 55 * 55");
    let Reference::Torch(r) = &t.reference else {
        panic!()
    };
    assert_eq!(r.state["conv1_weight"], "conv1.weight");
    assert_eq!(r.init, vec![serde_json::json!(1000)]);
}

#[test]
fn a_dimension_that_moves_on_its_own_gets_a_variable_with_its_value_at_each_size() {
    let json = SOFTMAX
        .replace(r#""outputs": [[512, 384]]"#, r#""outputs": [[512, 383]]"#)
        .replace(r#""outputs": [[4096, 393216]]"#, r#""outputs": [[4096, 393215]]"#);
    let t = task(&json, "23_Softmax.py");
    assert_eq!(t.buffers[1].len, "batch_size * out_d1");
    assert_eq!(t.sizes[0]["out_d1"], 393215);
    assert_eq!(t.sizes[1]["out_d1"], 383);
    assert!(
        t.signature.ends_with("int batch_size, int dim, int out_d1)"),
        "{}",
        t.signature
    );
}

#[test]
fn ids_and_kernel_names_are_identifiers() {
    assert_eq!(
        task_id(
            Path::new("a/1_Square_matrix_multiplication_.py"),
            ImportAs::cuda(1)
        ),
        "kernelbench_l1_1_square_matrix_multiplication"
    );
    assert_eq!(
        kernel_name(Path::new("1_Square_matrix_multiplication_.py")),
        "square_matrix_multiplication"
    );
    assert_eq!(kernel_name(Path::new("99.py")), "k_99");
    assert_eq!(
        relative(Path::new("/a/b/c.py"), Path::new("/a/d")),
        PathBuf::from("../b/c.py")
    );
}

/// A linear layer, a bias and a ReLU as the probe reads them at level 2: the product's
/// operands are the input `x` and the weight `fc_weight`, read transposed.
const LINEAR: &str = r#"{"class": "Model", "init": [128, 64], "forward": ["x"], "variables": {"batch": 1024},
    "inputs": [{"name": "x", "kind": "buffer", "dtype": "f32", "shape": [1024, 128], "init": {"kind": "uniform", "lo": 0.0, "hi": 1.0}}],
    "state": [{"name": "fc_weight", "module_name": "fc.weight", "dtype": "f32", "shape": [64, 128], "init": {"kind": "uniform", "lo": -0.1, "hi": 0.1}},
              {"name": "fc_bias", "module_name": "fc.bias", "dtype": "f32", "shape": [64], "init": {"kind": "uniform", "lo": -0.1, "hi": 0.1}}],
    "outputs": [{"name": "out", "dtype": "f32"}],
    "ops": ["linear", "add", "relu"],
    "products": [{"op": "linear", "gemm": true, "a": "x", "b": "fc_weight", "trans_b": true}],
    "sizes": [{"vars": {"batch": 1024}, "inputs": {"x": [1024, 128]}, "outputs": [[1024, 64]], "timed": true,
               "values": [[[1024, 64], 4], [[1024, 64], 4], [[1024, 64], 4]]},
              {"vars": {"batch": 33}, "inputs": {"x": [33, 128]}, "outputs": [[33, 64]], "timed": false,
               "values": [[[33, 64], 4], [[33, 64], 4], [[33, 64], 4]]}]}"#;

fn task_at(json: &str, file: &str, level: u32) -> (KernelTask, Option<PlanSummary>) {
    let dir = tempfile::tempdir().unwrap();
    let problem = dir.path().join("problems").join(file);
    std::fs::create_dir_all(problem.parent().unwrap()).unwrap();
    std::fs::write(&problem, "class Model: pass\n").unwrap();
    task_of(
        &probed(json),
        &problem,
        "t",
        ImportAs::cuda(level),
        &dir.path().join("tasks"),
    )
    .unwrap()
}

/// The prompt's ```yaml block.
fn example_plan(prompt: &str) -> String {
    let at = prompt.find("```yaml\n").expect("a yaml block") + "```yaml\n".len();
    prompt[at..at + prompt[at..].find("```").unwrap()].to_string()
}

#[test]
fn a_level_2_problem_with_a_linear_layer_allows_plans_with_the_librarys_gemm() {
    let (t, summary) = task_at(LINEAR, "1_Gemm_Add_ReLU.py", 2);
    let limits = t.plans.clone().expect("a level-2 task allows plans");
    // Three operators and one more step, at least 4; twice the largest tensor's bytes, as an
    // expression of the sizes.
    assert_eq!(limits.max_steps, 4);
    assert_eq!(limits.max_scratch_bytes, "512 * batch");
    assert_eq!(limits.library, vec![LibraryKind::Gemm]);
    let summary = summary.unwrap();
    assert_eq!(
        summary.by_library,
        vec![("linear".to_string(), LibraryKind::Gemm)]
    );
    assert!(
        summary.text().contains("library steps `gemm` (linear by `gemm`)"),
        "{}",
        summary.text()
    );
    // The prompt says a plan may answer, its format, the library step and the scratch limit
    // (and its value at the timed size).
    for needle in [
        "as one kernel or as a plan",
        "top key is `plan:`",
        "Library steps this task allows: `gemm` only",
        "at most `512 * batch` bytes in all (524288 at the timed size)",
        "`steps`: at most 4",
        "without running anything of yours on the host",
        "gemm: {a: x, b: fc_weight, c: tmp, m: \"batch\", n: \"64\", k: \"128\", trans_b: true, dtype: f32}",
    ] {
        assert!(t.prompt.contains(needle), "{needle:?} not in:\n{}", t.prompt);
    }
    // The example is a plan the task accepts, with an epilogue taking what its `args` give.
    let completion = format!(
        "```cuda\n__global__ void epilogue(const float* tmp, const float* fc_bias, float* out, int batch) {{}}\n```\n\n```yaml\n{}```\n",
        example_plan(&t.prompt)
    );
    let src = crate::extract::cpp_source(&completion, &t, &t.id);
    assert!(src.is_ok(), "{src:?}\n{completion}");
}

#[test]
fn level_1_stays_one_kernel_and_its_prompt_says_nothing_of_plans() {
    let (t, summary) = task_at(LINEAR, "1_Gemm_Add_ReLU.py", 1);
    assert_eq!(t.plans, None);
    assert_eq!(summary, None);
    assert!(
        t.prompt.starts_with("Write a CUDA kernel that computes"),
        "{}",
        t.prompt
    );
    for absent in ["plan", "`gemm`", "yaml", "scratch", "library"] {
        assert!(!t.prompt.contains(absent), "{absent:?} in:\n{}", t.prompt);
    }
}

#[test]
fn a_batched_product_or_a_convolution_allows_plans_of_launches_only() {
    let bmm = LINEAR
        .replace(r#""ops": ["linear", "add", "relu"]"#, r#""ops": ["bmm", "relu"]"#)
        .replace(
            r#"{"op": "linear", "gemm": true, "a": "x", "b": "fc_weight", "trans_b": true}"#,
            r#"{"op": "bmm", "gemm": false, "a": null, "b": null, "trans_b": false}"#,
        );
    let (t, summary) = task_at(&bmm, "3_Bmm_ReLU.py", 2);
    let limits = t.plans.clone().unwrap();
    assert!(limits.library.is_empty(), "{limits:?}");
    assert_eq!(
        summary.unwrap().without_step,
        vec!["bmm (a batched or higher-rank product)".to_string()]
    );
    assert!(
        t.prompt.contains("This task allows no library step"),
        "{}",
        t.prompt
    );
    assert!(t.prompt.contains("No library step computes bmm"), "{}", t.prompt);
    assert!(!t.prompt.contains("- gemm:"), "{}", t.prompt);
    // Its example launches two kernels through a scratch buffer, and the task accepts it.
    let completion = format!(
        "```cuda\n__global__ void first(const float* x, const float* fc_weight, const float* fc_bias, float* tmp, int batch) {{}}\n\
         __global__ void second(const float* tmp, float* out, int batch) {{}}\n```\n\n```yaml\n{}```\n",
        example_plan(&t.prompt)
    );
    let src = crate::extract::cpp_source(&completion, &t, &t.id);
    assert!(src.is_ok(), "{src:?}\n{completion}");

    let conv = LINEAR
        .replace(
            r#""ops": ["linear", "add", "relu"]"#,
            r#""ops": ["conv2d", "tanh"]"#,
        )
        .replace(
            r#"[{"op": "linear", "gemm": true, "a": "x", "b": "fc_weight", "trans_b": true}]"#,
            "[]",
        );
    let (t, summary) = task_at(&conv, "2_Conv2d_Tanh.py", 2);
    assert!(t.plans.unwrap().library.is_empty());
    assert_eq!(
        summary.unwrap().without_step,
        vec!["conv2d (a convolution)".to_string()]
    );
}

#[test]
fn the_scratch_limit_covers_twice_the_largest_tensor_on_every_size() {
    // The largest tensor (the second) has a dimension that follows no size variable: its
    // largest value bounds it.
    let json = LINEAR
        .replace(
            r#""values": [[[1024, 64], 4], [[1024, 64], 4], [[1024, 64], 4]]"#,
            r#""values": [[[1024, 64], 4], [[1024, 300, 2], 2], [[1024, 64], 4]]"#,
        )
        .replace(
            r#""values": [[[33, 64], 4], [[33, 64], 4], [[33, 64], 4]]"#,
            r#""values": [[[33, 64], 4], [[33, 17, 2], 2], [[33, 64], 4]]"#,
        );
    let (t, _) = task_at(&json, "1_Gemm_Add_ReLU.py", 2);
    let limits = t.plans.unwrap();
    assert_eq!(limits.max_scratch_bytes, "2400 * batch");
    for (size, bytes) in t.sizes.iter().zip([1024 * 300 * 2 * 2, 33 * 17 * 2 * 2]) {
        let cap = aorlta_record::eval_expr(&limits.max_scratch_bytes, size).unwrap();
        assert!(cap >= 2 * bytes, "{cap} < 2 x {bytes} at {size:?}");
    }
    // Many operators: one step each and one more, at most 16.
    let long = LINEAR.replace(
        r#""ops": ["linear", "add", "relu"]"#,
        r#""ops": ["linear", "add", "relu", "mul", "sub", "tanh", "sigmoid"]"#,
    );
    assert_eq!(
        task_at(&long, "1_Gemm_Add_ReLU.py", 2).0.plans.unwrap().max_steps,
        8
    );
}

#[test]
fn the_report_says_per_problem_whether_it_is_a_plan_task_and_with_which_library_steps() {
    let (_, gemm) = task_at(LINEAR, "1_Gemm_Add_ReLU.py", 2);
    let row = |n: &str, plans| ImportRow {
        problem: PathBuf::from(n),
        id: n.trim_end_matches(".py").to_string(),
        outcome: Ok(PathBuf::from(format!("{n}.yaml"))),
        plans,
    };
    let report = ImportReport {
        rows: vec![
            row("1_Gemm.py", gemm),
            row("2_Relu.py", None),
            ImportRow {
                outcome: Err("input `a` is a bool".into()),
                ..row("3_Bad.py", None)
            },
        ],
    };
    assert_eq!((report.imported(), report.plan_tasks()), (2, 1));
    assert_eq!(report.with_library(LibraryKind::Gemm), 1);
    let md = report.markdown();
    assert!(
        md.contains("2 of 3 problems imported as tasks. 1 of them allow plans, 1 with the library's `gemm`."),
        "{md}"
    );
    let line = md.lines().find(|l| l.starts_with("| 1_Gemm.py")).unwrap();
    assert!(
        line.contains("a plan task: at most 4 steps, scratch at most `512 * batch` bytes, library steps `gemm` (linear by `gemm`)"),
        "{line}"
    );
    let line = md.lines().find(|l| l.starts_with("| 2_Relu.py")).unwrap();
    assert!(!line.contains("plan"), "{line}");
}

#[test]
fn the_tasks_written_parse_back_as_kernel_tasks() {
    let t = task(CONV, "50_conv.py");
    let yaml = serde_norway::to_string(&t).unwrap();
    let back: KernelTask = serde_norway::from_str(&yaml).unwrap();
    assert_eq!(back, t);
}

#[test]
fn a_triton_import_binds_a_block_and_asks_for_a_jit_function_with_the_tasks_parameters() {
    let dir = tempfile::tempdir().unwrap();
    let problem = dir.path().join("problems").join("23_Softmax.py");
    std::fs::create_dir_all(problem.parent().unwrap()).unwrap();
    std::fs::write(&problem, "class Model: pass\n").unwrap();
    let triton = ImportAs {
        level: 1,
        language: KernelLanguage::Triton,
    };
    assert_eq!(task_id(&problem, triton), "kernelbench_l1_23_softmax_triton");
    assert_eq!(task_id(&problem, ImportAs::cuda(1)), "kernelbench_l1_23_softmax");
    let (t, _) = task_of(&probed(SOFTMAX), &problem, "t", triton, &dir.path().join("tasks")).unwrap();
    assert_eq!(t.language, KernelLanguage::Triton);
    assert_eq!(t.triton_spec().constexprs["BLOCK"], TRITON_BLOCKS.to_vec());
    assert_eq!(t.grid[0], "ceil_div(batch_size * dim, BLOCK)");
    assert!(t.block.iter().all(String::is_empty), "{:?}", t.block);
    // The signature keeps the C types the compile reads the Triton types from.
    assert_eq!(
        t.signature,
        "void softmax(const float* x, float* out, int batch_size, int dim)"
    );
    for present in [
        "Write a Triton kernel that computes",
        "      def softmax(x, out, batch_size, dim, BLOCK: tl.constexpr)",
        "`batch_size` an int32",
        "BLOCK = 1024 (allowed: 1024, 256, 512, 2048, 4096)",
        "grid (ceil_div(batch_size * dim, BLOCK), 1, 1)",
        "one ```python code block",
    ] {
        assert!(t.prompt.contains(present), "{present:?} not in:\n{}", t.prompt);
    }
    for absent in ["__global__", "nvcc", "```cuda"] {
        assert!(!t.prompt.contains(absent), "{absent:?} in:\n{}", t.prompt);
    }
    // The task passes the rules every loaded task passes (a Triton task has no block).
    crate::rules::check(&t).unwrap();
    let cuda = task(SOFTMAX, "23_Softmax.py");
    crate::rules::check(&cuda).unwrap();
}

#[test]
fn a_triton_import_of_plan_tasks_is_refused_with_why() {
    let (json, file) = (LINEAR, "1_Gemm_Add_ReLU.py");
    let dir = tempfile::tempdir().unwrap();
    let problem = dir.path().join("problems").join(file);
    std::fs::create_dir_all(problem.parent().unwrap()).unwrap();
    std::fs::write(&problem, "class Model: pass\n").unwrap();
    let as_ = ImportAs {
        level: 2,
        language: KernelLanguage::Triton,
    };
    let why = task_of(&probed(json), &problem, "t", as_, &dir.path().join("tasks")).unwrap_err();
    assert!(why.contains("Triton tasks are imported from level 1"), "{why}");
    let hip = ImportAs {
        level: 1,
        language: KernelLanguage::Hip,
    };
    assert!(hip.check().unwrap_err().contains("`hip`"), "{:?}", hip.check());
}

#[test]
fn small_outputs_lower_the_absolute_tolerance_to_a_share_of_their_scale() {
    // No scale known (an import without real sizes): the default.
    assert_eq!(task(SOFTMAX, "23_Softmax.py").tolerance, None);
    // The correctness size's outputs are near 1/384 and the timed size's near 1/393216 (computed
    // on a GPU): the smallest sets atol, rounded down to two digits; the prompt states it.
    let scaled = SOFTMAX
        .replace(r#""timed": false}"#, r#""timed": false, "scales": [0.0026]}"#)
        .replace(r#""timed": true}"#, r#""timed": true, "scales": [2.6e-6]}"#);
    let t = task(&scaled, "23_Softmax.py");
    let tol = t.tolerance.expect("a lowered tolerance");
    assert_eq!((tol.atol, tol.rtol), (2.6e-8, 1e-4));
    assert!(
        t.prompt.contains("atol = 0.000000026, rtol = 0.0001"),
        "{}",
        t.prompt
    );
    // Outputs of ordinary scale keep the default; an unknown (null) or zero scale is skipped.
    let ordinary = SOFTMAX
        .replace(r#""timed": false}"#, r#""timed": false, "scales": [0.5]}"#)
        .replace(r#""timed": true}"#, r#""timed": true, "scales": [null]}"#);
    assert_eq!(task(&ordinary, "23_Softmax.py").tolerance, None);
    let zero = SOFTMAX.replace(r#""timed": false}"#, r#""timed": false, "scales": [0.0]}"#);
    assert_eq!(task(&zero, "23_Softmax.py").tolerance, None);
    // An integer output keeps exact comparison: no tolerance is written for it.
    let ints = scaled.replace(
        r#""outputs": [{"name": "out", "dtype": "f32"}]"#,
        r#""outputs": [{"name": "out", "dtype": "i64"}]"#,
    );
    assert_eq!(task(&ints, "23_Softmax.py").tolerance, None);
}
