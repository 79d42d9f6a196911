//! The prompt of an imported PyTorch task: the problem's module as its author wrote it, then the
//! kernel's contract in this project's words (the signature, the shapes, the input laws, the
//! tolerance, the launch geometry, the sizes checked and timed) and, for a task that allows
//! plans, the plan's format, its limits and the library steps the task allows (docs/PLANS.md).

use aorlta_record::{
    BufferSpec, Dtype, Init, LibraryKind, ParamKind, PlanLimits, Role, Tolerance, TritonSpec,
};
use std::collections::BTreeMap;

/// What a prompt is made from.
pub(super) struct Prompt<'a> {
    /// The problem file's text.
    pub source: &'a str,
    /// The module's class.
    pub class: &'a str,
    /// The values it is built with.
    pub init: &'a [serde_json::Value],
    /// The kernel's declaration.
    pub signature: &'a str,
    /// The buffers, in the signature's order.
    pub buffers: &'a [BufferSpec],
    /// Each buffer's dimensions as expressions, by buffer.
    pub shapes: &'a [(String, Vec<String>)],
    /// Parameter buffers: the buffer's name to the module's name for it.
    pub state: &'a BTreeMap<String, String>,
    /// The sizes, the timed one first.
    pub sizes: &'a [BTreeMap<String, i64>],
    /// The default grid.
    pub grid: &'a [String; 3],
    /// The KernelBench level the problem is from.
    pub level: u32,
    /// What the task allows of plans; `None`: one kernel.
    pub plan: Option<PlanPrompt<'a>>,
    /// A Triton task's compile settings; `None`: a CUDA task.
    pub triton: Option<&'a TritonSpec>,
    /// The task's tolerance; `None`: the default of the output's element type.
    pub tolerance: Option<Tolerance>,
}

/// What the prompt of a task that allows plans says of them.
pub(super) struct PlanPrompt<'a> {
    /// The task's `plans` field.
    pub limits: &'a PlanLimits,
    /// `limits.max_scratch_bytes` at the timed size.
    pub scratch_at_timed: i64,
    /// A matrix product of the forward that one `gemm` step computes over the task's buffers,
    /// for the example.
    pub gemm: Option<GemmExample>,
    /// The heavy operators no library step computes yet.
    pub without_step: &'a [String],
    /// The size variables (the task's integer parameters).
    pub vars: &'a [String],
}

/// A `gemm` step over two of the task's buffers, its sizes as expressions.
pub(super) struct GemmExample {
    /// The left matrix's buffer.
    pub a: String,
    /// The right matrix's buffer.
    pub b: String,
    /// Rows of the product.
    pub m: String,
    /// Columns of the product.
    pub n: String,
    /// The inner dimension.
    pub k: String,
    /// `b` is read transposed.
    pub trans_b: bool,
    /// The element type of both.
    pub dtype: Dtype,
}

/// A YAML flow list of expressions.
fn list(items: &[String]) -> String {
    let quoted: Vec<String> = items.iter().map(|i| format!("\"{i}\"")).collect();
    format!("[{}]", quoted.join(", "))
}

fn law(init: &Init) -> String {
    match *init {
        Init::Uniform { lo, hi } => format!("uniform in [{lo}, {hi}]"),
        Init::Normal { mean, std } => format!("normal with mean {mean} and standard deviation {std}"),
    }
}

fn size_text(s: &BTreeMap<String, i64>) -> String {
    s.iter()
        .map(|(k, v)| format!("{k} = {v}"))
        .collect::<Vec<_>>()
        .join(", ")
}

impl Prompt<'_> {
    /// The prompt.
    pub(super) fn text(&self) -> String {
        let init = serde_json::to_string(self.init).unwrap_or_default();
        let mut parts = vec![match self.plan {
            None if self.triton.is_some() => format!(
                "Write a Triton kernel that computes the forward pass of this PyTorch module \
                 (KernelBench level {}), built as `{}(*{init})`:",
                self.level, self.class
            ),
            None => format!(
                "Write a CUDA kernel that computes the forward pass of this PyTorch module \
                 (KernelBench level {}), built as `{}(*{init})`:",
                self.level, self.class
            ),
            Some(_) => format!(
                "Write CUDA code that computes the forward pass of this PyTorch module \
                 (KernelBench level {}), built as `{}(*{init})`, as one kernel or as a plan of \
                 several kernels and library steps (both are described below):",
                self.level, self.class
            ),
        }];
        parts.push(format!("```python\n{}\n```", self.source.trim_end()));
        if !self.state.is_empty() {
            let names: Vec<String> = self.state.iter().map(|(b, m)| format!("`{b}` (`{m}`)")).collect();
            parts.push(format!(
                "The module's parameters are inputs of your kernel: {}. They are drawn anew for every \
                 check, like the other inputs; do not assume the values the module is built with.",
                names.join(", ")
            ));
        }
        if let Some(triton) = self.triton {
            parts.extend(self.triton_definition(triton));
        } else {
            parts.extend(self.cuda_definition());
        }
        if let Some(plan) = &self.plan {
            parts.extend(self.plan_text(plan));
        }
        let checked: Vec<String> = self.sizes.iter().skip(1).map(size_text).collect();
        let timed = self.sizes.first().map(size_text).unwrap_or_default();
        let answer = if self.triton.is_some() {
            "Answer with one ```python code block holding the complete module."
        } else {
            "Answer with one ```cuda code block holding the complete source."
        };
        parts.push(match self.plan {
            None => format!(
                "The kernel is checked against the module on several sizes ({}; and the timed one) and timed \
                 against it at {timed}. {answer}",
                checked.join("; ")
            ),
            Some(_) => format!(
                "The kernel, or the whole plan, is checked against the module on several sizes ({}; and the \
                 timed one) and timed against it at {timed}. Answer with one ```cuda code block holding the \
                 complete source and, for a plan, one ```yaml block holding the plan.",
                checked.join("; ")
            ),
        });
        parts.join("\n\n") + "\n"
    }

    /// The shapes, the input laws and the tolerance: the same in every language.
    fn contract(&self) -> Vec<String> {
        let mut parts = Vec::new();
        let shapes: Vec<String> = self
            .shapes
            .iter()
            .map(|(n, d)| {
                if d.is_empty() {
                    format!("`{n}` one element")
                } else {
                    format!("`{n}` [{}]", d.join(", "))
                }
            })
            .collect();
        let outs: Vec<String> = self
            .buffers
            .iter()
            .filter(|b| b.role != Role::In)
            .map(|b| format!("{}[0..{})", b.name, b.len))
            .collect();
        parts.push(format!(
            "Every tensor is contiguous in row-major order, with these shapes: {}. Inputs must not be \
             modified; write nothing outside {}{}.",
            shapes.join("; "),
            outs.join(", "),
            if self.plan.is_some() {
                " (and, in a plan, your scratch buffers)"
            } else {
                ""
            }
        ));
        let drawn: Vec<String> = self
            .buffers
            .iter()
            .filter(|b| b.role == Role::In)
            .map(|b| format!("`{}` {}", b.name, law(&b.init)))
            .collect();
        parts.push(format!(
            "Inputs: {}. Checked launches also draw every input from the corners of that domain: values \
             all near its top or its bottom, rows confined to narrow windows, runs of one value, sign \
             patterns, magnitudes spread over many binary orders. The kernel must be right on all of \
             them, not only on the typical draw.",
            drawn.join("; ")
        ));
        if let Some(out) = self.buffers.iter().find(|b| b.role != Role::In) {
            let t = self
                .tolerance
                .unwrap_or_else(|| Tolerance::default_for(out.dtype));
            parts.push(tolerance_sentence(t));
        }
        parts
    }

    /// A Triton task's kernel: its Python parameters, the contract, how it is compiled and how a
    /// module chooses its launch.
    fn triton_definition(&self, triton: &TritonSpec) -> Vec<String> {
        let mut parts = vec![
            "Define exactly this Triton kernel, decorated with `@triton.jit`, at the top level of the module:"
                .to_string(),
        ];
        // The import wrote the signature, so it reads; an unreadable one names nothing.
        let sig = aorlta_record::Signature::parse(self.signature).ok();
        let params = sig.as_ref().map_or(&[][..], |s| s.params());
        let mut names: Vec<String> = params.iter().map(|p| p.name.clone()).collect();
        let constexprs: Vec<String> = triton
            .constexprs
            .keys()
            .map(|c| format!("{c}: tl.constexpr"))
            .collect();
        names.extend(constexprs);
        let name = sig.as_ref().map_or("", |s| s.name());
        parts.push(format!("      def {name}({})", names.join(", ")));
        let pointers: Vec<String> = self
            .buffers
            .iter()
            .map(|b| {
                let what = if b.role == Role::In { "input" } else { "output" };
                format!(
                    "`{}` a pointer to the {what}'s {} elements",
                    b.name,
                    b.dtype.name()
                )
            })
            .collect();
        let ints: Vec<String> = params
            .iter()
            .filter(|p| p.kind != ParamKind::Pointer)
            .map(|p| match p.kind {
                ParamKind::Scalar("x" | "l") => format!("`{}` an int64", p.name),
                _ => format!("`{}` an int32", p.name),
            })
            .collect();
        parts.push(format!(
            "The parameters before the constexprs are the task's, in this order and with these names: {}{}.",
            pointers.join(", "),
            if ints.is_empty() {
                String::new()
            } else {
                format!("; {}", ints.join(", "))
            }
        ));
        parts.extend(self.contract());
        parts.push(
            "Your module is imported and the kernel compiled ahead of time with Triton 3.6 for sm_90, in a \
             sandbox with no GPU, no network and no files besides the toolkit; nothing your Python does at \
             import reaches the GPU, and no Python runs at launch or timing. Do not write launch code."
                .to_string(),
        );
        let allowed = |v: &[u32]| v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ");
        let binds: Vec<String> = triton
            .constexprs
            .iter()
            .map(|(c, v)| {
                let all: Vec<String> = v.iter().map(i64::to_string).collect();
                format!("{c} = {} (allowed: {})", v[0], all.join(", "))
            })
            .collect();
        parts.push(format!(
            "Launch: num_warps x 32 threads per program, num_warps = {} by default (allowed: {}), num_stages = \
             {} by default (allowed: {}); constexprs {}; grid ({}) over the sizes and the constexprs: by \
             default one program per BLOCK output elements. To choose, define at the top level of the \
             module a dict of plain values, for example",
            triton.num_warps[0],
            allowed(&triton.num_warps),
            triton.num_stages[0],
            allowed(&triton.num_stages),
            binds.join(", "),
            self.grid.join(", ")
        ));
        parts.push(
            "      aorlta_launch = {\"num_warps\": 8, \"grid\": [\"ceil_div(...)\", 1, 1]}".to_string(),
        );
        parts.push(
            "with any of \"num_warps\", \"num_stages\", the constexprs, and \"grid\" (three expressions: \
             integers, the size variables, + - * / %, ceil_div, min, max). It is used for every problem \
             size, so a kernel must handle any size (mask its loads and stores). Pointers are 16-byte \
             aligned; sizes need not be multiples of anything."
                .to_string(),
        );
        parts
    }

    /// A CUDA task's kernel: its declaration, the contract, how it is compiled and how a source
    /// chooses its launch geometry.
    fn cuda_definition(&self) -> Vec<String> {
        let mut parts = Vec::new();
        parts.push(
            match self.plan {
                None => "Define exactly this kernel, with C++ linkage (not extern \"C\") and these parameter types:",
                Some(_) => {
                    "To answer with one kernel, define exactly this kernel, with C++ linkage (not extern \"C\") \
                     and these parameter types:"
                }
            }
            .to_string(),
        );
        parts.push(format!("      __global__ {}", self.signature));
        parts.extend(self.contract());
        parts.push(
            "Your source is compiled alone with `nvcc --cubin` for the GPU; no host code you write is ever \
             compiled into anything that runs, so do not write a main() or launch code. Use only device \
             code and the CUDA headers."
                .to_string(),
        );
        parts.push(format!(
            "Launch geometry: by default the kernel is launched with grid ({}) and block (256, 1, 1), no \
             dynamic shared memory: one thread per output element. To choose your own, define in the \
             same source",
            self.grid.join(", ")
        ));
        parts.push(
            "      __device__ unsigned int aorlta_launch[7] = {grid_x, grid_y, grid_z, block_x, block_y, block_z, dynamic_shared_bytes};"
                .to_string(),
        );
        parts.push(
            "It is read as data and used for every problem size, so a kernel that sets it must handle any \
             size (for example with a grid-stride loop). At most 1024 threads per block and 48 KiB of \
             dynamic shared memory. Do not assume the pointers are aligned to more than 4 bytes."
                .to_string(),
        );
        parts
    }

    /// The paragraphs on plans: the format with an example, the steps, the library steps this
    /// task allows, the scratch limit, and how the harness runs a plan.
    fn plan_text(&self, plan: &PlanPrompt<'_>) -> Vec<String> {
        let mut parts = vec![
            "Or answer with a plan. A plan is data: the harness reads it, without running anything of yours \
             on the host, and runs its steps in order on one stream: launches of kernels from your source \
             and library steps the task allows. Beside the ```cuda block that defines your kernels (any \
             names and parameters: the signature above binds a one-kernel answer only), write a ```yaml \
             block whose top key is `plan:`. For example:"
                .to_string(),
        ];
        parts.push(format!("```yaml\n{}```", self.plan_example(plan)));
        let vars: Vec<String> = plan.vars.iter().map(|v| format!("`{v}`")).collect();
        let names: Vec<String> = self.buffers.iter().map(|b| format!("`{}`", b.name)).collect();
        let mut items = vec![format!(
            "- `steps`: at most {}, run in order, at least one of them a `launch`.",
            plan.limits.max_steps
        )];
        items.push(format!(
            "- `launch`: `kernel` names a `__global__` function of your source; `grid`, `block` and \
             `shared_bytes` (optional, 0 by default) are expressions of the sizes {} (with integers, \
             `+ - * / %`, `ceil_div(a, b)`, `min`, `max`), at most 1024 threads per block and 48 KiB of \
             dynamic shared memory; `args` gives one value per parameter of the kernel, in order: a pointer takes a buffer \
             of the task ({}) or a scratch buffer by name, an input only through a `const` pointer; an \
             integer or float parameter takes a size by name or an expression of the sizes.",
            if vars.is_empty() {
                "(none: numbers only)".to_string()
            } else {
                vars.join(", ")
            },
            names.join(", ")
        ));
        let library = if plan.limits.library.contains(&LibraryKind::Gemm) {
            "- Library steps this task allows: `gemm` only. `gemm: {a, b, c, m, n, k, trans_a, trans_b, alpha, \
             beta, dtype}` computes c = alpha * op(a) * op(b) + beta * c by the vendor's library (cuBLAS), \
             every matrix row-major and packed: op(a) is m x k (`a` holds k x m when `trans_a`), op(b) is \
             k x n (`b` holds n x k when `trans_b`), c is m x n; `alpha` 1 and `beta` 0 by default; `dtype` \
             f32, f16 or bf16, the type of all three. `a`, `b` and `c` name task or scratch buffers of that \
             type and at least that many elements; `c` is no input and neither operand. An nn.Linear's \
             weight holds out_features x in_features, so `x @ weight.T` is a `gemm` with `b: weight`, \
             `trans_b: true`."
                .to_string()
        } else {
            "- This task allows no library step: a plan here launches only kernels of your own.".to_string()
        };
        let missing = if plan.without_step.is_empty() {
            String::new()
        } else {
            format!(
                " No library step computes {} yet: write it as kernels of your own.",
                plan.without_step.join(", ")
            )
        };
        items.push(library + &missing);
        items.push(format!(
            "- `scratch` (optional): buffers of your own between steps, each a `name` (not a name of the \
             task's), a `dtype` (f32, f16, bf16, i32, u32, i64) and a `len` (elements, an expression of the \
             sizes); at most `{}` bytes in all ({} at the timed size). The harness allocates them with guard \
             bands and fills them with NaN before every run of the plan: a step that reads scratch no \
             earlier step of that run wrote reads NaN, and a step that writes outside its buffers is caught.\n\
             - The whole plan is the candidate: it is checked like one kernel on every size, and timed whole \
             (the L2 made cold before its first step, the times of its steps summed), every timed run's \
             outputs verified.",
            plan.limits.max_scratch_bytes, plan.scratch_at_timed
        ));
        parts.push(items.join("\n"));
        parts
    }

    /// An example plan in the task's names: the library's product and a kernel for the rest
    /// where a `gemm` computes one of the forward's products, else two launches through a
    /// scratch buffer.
    fn plan_example(&self, plan: &PlanPrompt<'_>) -> String {
        let vars = plan.vars.to_vec();
        let ins: Vec<String> = self
            .buffers
            .iter()
            .filter(|b| b.role == Role::In)
            .map(|b| b.name.clone())
            .collect();
        let outs: Vec<String> = self
            .buffers
            .iter()
            .filter(|b| b.role != Role::In)
            .map(|b| b.name.clone())
            .collect();
        let one_d = |len: &str| {
            (
                [format!("ceil_div({len}, 256)"), "1".to_string(), "1".to_string()],
                ["256".to_string(), "1".to_string(), "1".to_string()],
            )
        };
        let launch = |kernel: &str, len: &str, args: Vec<String>| {
            let (grid, block) = one_d(len);
            format!(
                "    - launch:\n        kernel: {kernel}\n        grid: {}\n        block: {}\n        args: [{}]\n",
                list(&grid),
                list(&block),
                args.join(", ")
            )
        };
        match (&plan.gemm, plan.limits.library.contains(&LibraryKind::Gemm)) {
            (Some(g), true) => {
                let len = format!("{} * {}", g.m, g.n);
                let mut args = vec!["tmp".to_string()];
                args.extend(ins.iter().filter(|n| **n != g.a && **n != g.b).cloned());
                args.extend(outs.iter().cloned());
                args.extend(vars.iter().cloned());
                format!(
                    "plan:\n  scratch:\n    - {{name: tmp, dtype: {d}, len: \"{len}\"}}\n  steps:\n    \
                     - gemm: {{a: {a}, b: {b}, c: tmp, m: \"{m}\", n: \"{n}\", k: \"{k}\"{t}, dtype: {d}}}\n{}",
                    launch("epilogue", &len, args),
                    d = g.dtype.name(),
                    a = g.a,
                    b = g.b,
                    m = g.m,
                    n = g.n,
                    k = g.k,
                    t = if g.trans_b { ", trans_b: true" } else { "" },
                )
            }
            _ => {
                let out = self.buffers.iter().find(|b| b.role != Role::In);
                let (len, d) = out
                    .map(|b| (b.len.clone(), b.dtype.name()))
                    .unwrap_or(("1".into(), "f32"));
                let mut first: Vec<String> = ins.clone();
                first.push("tmp".into());
                first.extend(vars.iter().cloned());
                let mut second = vec!["tmp".to_string()];
                second.extend(outs.iter().cloned());
                second.extend(vars.iter().cloned());
                format!(
                    "plan:\n  scratch:\n    - {{name: tmp, dtype: {d}, len: \"{len}\"}}\n  steps:\n{}{}",
                    launch("first", &len, first),
                    launch("second", &len, second)
                )
            }
        }
    }
}

/// The prompt's sentence stating the tolerance outputs are compared with.
pub(crate) fn tolerance_sentence(t: Tolerance) -> String {
    format!(
        "Outputs are compared with the module's: |got - expected| <= atol + rtol * |expected| with \
         atol = {}, rtol = {}.",
        t.atol, t.rtol
    )
}
