//! The kernel task spec (a task file, YAML), shared by the service and the harness.
//!
//! Sizes, buffer lengths, scalar values and launch geometry are integer *expressions* over a
//! problem size's variables: integers, variables, `+ - * / %` (integer division), parentheses,
//! and the functions `ceil_div(a, b)`, `min(a, b)`, `max(a, b)`.
//!
//! The harness job and record types (what the service asks the harness and what it writes back)
//! live in [`harness`]; the expression evaluator in [`expr`]; the kernel's symbol (Itanium
//! mangling of its signature) in [`mangle`]; the fake code objects of the CI backend in [`fake`];
//! a candidate's plan of several kernels and library calls in [`plan`].

pub(crate) mod expr;
pub(crate) mod fake;
pub(crate) mod harness;
pub(crate) mod inputs;
pub(crate) mod mangle;
pub(crate) mod plan;
pub(crate) mod traffic;

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Element type of a buffer or scalar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Dtype {
    /// 32-bit float.
    F32,
    /// 16-bit IEEE float.
    F16,
    /// bfloat16.
    Bf16,
    /// 32-bit signed integer.
    I32,
    /// 32-bit unsigned integer.
    U32,
    /// 64-bit signed integer.
    I64,
}

impl Dtype {
    /// The name tasks and plans write (`f32`, `bf16` …), as serialised.
    pub fn name(self) -> &'static str {
        match self {
            Dtype::F32 => "f32",
            Dtype::F16 => "f16",
            Dtype::Bf16 => "bf16",
            Dtype::I32 => "i32",
            Dtype::U32 => "u32",
            Dtype::I64 => "i64",
        }
    }
}

/// The source language of a kernel task.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum KernelLanguage {
    /// CUDA C++ (`.cu`), compiled by nvcc.
    #[default]
    Cuda,
    /// HIP C++ (`.hip`), compiled by hipcc, or by nvcc through the portability header.
    Hip,
    /// A Triton kernel (`.py`): one `@triton.jit` function, compiled ahead of time, in the
    /// compile sandbox, to a code object and its launch metadata ([`TritonSpec`]).
    Triton,
}

impl KernelLanguage {
    /// The name as a task file writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            KernelLanguage::Cuda => "cuda",
            KernelLanguage::Hip => "hip",
            KernelLanguage::Triton => "triton",
        }
    }

    /// The file extension of a source in this language.
    pub fn extension(self) -> &'static str {
        match self {
            KernelLanguage::Cuda => "cu",
            KernelLanguage::Hip => "hip",
            KernelLanguage::Triton => "py",
        }
    }
}

/// What a Triton task binds at compile time: the values its kernel's `tl.constexpr`
/// parameters, `num_warps` and `num_stages` may take. The first value of each list is the
/// default; a candidate picks others by data (`aorlta_launch = {"BLOCK": 512, "num_warps": 8}`
/// in its module). The chosen constexprs and `num_warps` are variables of the grid expressions
/// besides the size's; the block is `num_warps` × 32 threads.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TritonSpec {
    /// `tl.constexpr` parameters by name: the integer values each may take, the default first.
    #[serde(default)]
    pub constexprs: BTreeMap<String, Vec<i64>>,
    /// The warps per program a kernel may ask for, the default first.
    #[serde(default = "default_num_warps")]
    pub num_warps: Vec<u32>,
    /// The software-pipelining stages a kernel may ask for, the default first.
    #[serde(default = "default_num_stages")]
    pub num_stages: Vec<u32>,
}

fn default_num_warps() -> Vec<u32> {
    vec![4, 1, 2, 8, 16]
}

fn default_num_stages() -> Vec<u32> {
    vec![3, 1, 2, 4]
}

impl Default for TritonSpec {
    fn default() -> Self {
        TritonSpec {
            constexprs: BTreeMap::new(),
            num_warps: default_num_warps(),
            num_stages: default_num_stages(),
        }
    }
}

/// How a buffer is used by the kernel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// Read only: must be unchanged after every launch.
    In,
    /// Written: compared with the reference's output; starts filled with a sentinel.
    Out,
    /// Read and written: starts with generated data, compared as an output.
    Inout,
}

/// How a buffer's initial contents are generated from a seed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Init {
    /// Uniform in `[lo, hi)` (floats) or `[lo, hi]` (integers).
    Uniform {
        /// Lower bound.
        lo: f64,
        /// Upper bound.
        hi: f64,
    },
    /// Normal with the given mean and standard deviation (floats only).
    Normal {
        /// Mean.
        mean: f64,
        /// Standard deviation.
        std: f64,
    },
}

impl Default for Init {
    fn default() -> Self {
        Init::Uniform { lo: -1.0, hi: 1.0 }
    }
}

/// One device buffer the kernel takes by pointer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BufferSpec {
    /// Parameter name in the signature.
    pub name: String,
    /// Element type.
    pub dtype: Dtype,
    /// Number of elements, an expression of the size variables.
    pub len: String,
    /// In, out or inout.
    pub role: Role,
    /// How inputs are generated (ignored for `out`): the typical law, whose domain the other
    /// input families draw from ([`Family`](inputs::Family)).
    #[serde(default)]
    pub init: Init,
    /// Special values the task's contract allows in this input (floats only): drawn by the
    /// `specials` family, never by the others. None by default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub special: Vec<inputs::Special>,
    /// Elements per row for the per-row input families (an expression of the size variables);
    /// by default the last factor of `len` when it is a product (`rows * cols` gives `cols`),
    /// else blocks of 256 elements.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub row: Option<String>,
}

impl BufferSpec {
    /// The expression of this buffer's row length ([`BufferSpec::row`]).
    pub fn row_expr(&self) -> String {
        if let Some(r) = &self.row {
            return r.clone();
        }
        match expr::last_factor(&self.len) {
            Some(f) => f,
            None => "256".to_string(),
        }
    }
}

/// What the timed launches draw their inputs from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum TimedInputs {
    /// The typical law (the default): speed is measured on representative data.
    #[default]
    Typical,
    /// Every input family in turn, as the correctness cases do.
    Families,
}

fn is_default<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// Comparison tolerance: `|cand - ref| <= atol + rtol * |ref|`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Absolute tolerance.
    pub atol: f64,
    /// Relative tolerance.
    pub rtol: f64,
}

impl Tolerance {
    /// The default for a dtype: fp32 1e-4/1e-4, fp16 1e-3/2e-3, bf16 1e-2/1e-2, integers exact
    /// (each inside its precision's range, [`inputs::Precision::rtol_range`]).
    pub fn default_for(dtype: Dtype) -> Self {
        match dtype {
            Dtype::F32 => Tolerance {
                atol: 1e-4,
                rtol: 1e-4,
            },
            Dtype::F16 => Tolerance {
                atol: 1e-3,
                rtol: 2e-3,
            },
            Dtype::Bf16 => Tolerance {
                atol: 1e-2,
                rtol: 1e-2,
            },
            Dtype::I32 | Dtype::U32 | Dtype::I64 => Tolerance { atol: 0.0, rtol: 0.0 },
        }
    }
}

/// Caps on what a candidate's `aorlta_launch` symbol may ask for (beyond the device limits).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LaunchCaps {
    /// Most blocks in a grid (x*y*z).
    pub max_blocks: u64,
    /// Most threads in a block (x*y*z).
    pub max_threads_per_block: u32,
    /// Most dynamic shared memory bytes.
    pub max_shared_bytes: u32,
}

impl Default for LaunchCaps {
    fn default() -> Self {
        LaunchCaps {
            max_blocks: 1 << 24,
            max_threads_per_block: 1024,
            max_shared_bytes: 48 * 1024,
        }
    }
}

/// What a task's outputs are checked and timed against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Reference {
    /// A kernel source in the task's language, relative to the task file.
    Source(String),
    /// A PyTorch module, run in a trusted reference process (never a candidate's).
    Torch(TorchReference),
}

impl Reference {
    /// The kernel source's path, relative to the task file, when the reference is one.
    pub fn source(&self) -> Option<&str> {
        match self {
            Reference::Source(p) => Some(p),
            Reference::Torch(_) => None,
        }
    }
}

impl From<&str> for Reference {
    fn from(path: &str) -> Self {
        Reference::Source(path.to_string())
    }
}

/// A PyTorch module as a task's reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchReference {
    /// `FILE:CLASS`: a Python file relative to the task file and the `torch.nn.Module` in it.
    pub torch: String,
    /// The values the module is constructed with (`CLASS(*init)`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub init: Vec<serde_json::Value>,
    /// The module's parameters and buffers the harness draws as input buffers, by the buffer's
    /// name: the module's own name for it (`conv1_weight: conv1.weight`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub state: BTreeMap<String, String>,
    /// The forward's arguments in order: input buffers and integer scalars, by the task's names
    /// (default: the input buffers that are not `state`, in the task's order).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub forward: Vec<String>,
    /// Each buffer's shape as expressions over the size's variables (`[rows, cols]`); a buffer
    /// not named is one-dimensional, its `len` long.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub shapes: BTreeMap<String, Vec<String>>,
}

impl TorchReference {
    /// The file and the class of `torch: FILE:CLASS` (the class defaults to `Model`).
    pub fn file_and_class(&self) -> (&str, &str) {
        match self.torch.rsplit_once(':') {
            Some((f, c)) if !c.is_empty() && !c.contains('/') => (f, c),
            _ => (&self.torch, "Model"),
        }
    }
}

/// A kernel task: one YAML file under `examples/kernels/tasks/` (or a user's folder).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelTask {
    /// Unique task id (`vector_add`).
    pub id: String,
    /// The prompt shown to the model.
    pub prompt: String,
    /// The kernel's C++ declaration, e.g.
    /// `void transpose(const float* in, float* out, int rows, int cols)`. Parameter names match
    /// buffers and scalars.
    pub signature: String,
    /// When true the kernel is looked up by its plain name (`extern "C"`), else by the Itanium
    /// mangling of `signature`. Either form is accepted from a candidate; this says which the
    /// reference uses.
    #[serde(default)]
    pub extern_c: bool,
    /// The language the reference and every candidate are written in: `cuda` (the default),
    /// `hip` or `triton`. A HIP task is compiled by `hipcc` for AMD GPUs, or by `nvcc` through
    /// the HIP portability header for NVIDIA GPUs ("HIP source on NVIDIA"); a Triton task by
    /// Triton, in the compile sandbox, to a cubin ("Triton on NVIDIA").
    #[serde(default)]
    pub language: KernelLanguage,
    /// What a Triton task binds at compile time (`language: triton` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub triton: Option<TritonSpec>,
    /// The reference: a kernel source relative to the task file (`reference: ../reference/x.cu`),
    /// or a PyTorch module (`reference: {torch: problem.py:Model, init: [...]}`).
    pub reference: Reference,
    /// Device buffers, by parameter name.
    pub buffers: Vec<BufferSpec>,
    /// Scalar parameters: name to expression.
    #[serde(default)]
    pub scalars: BTreeMap<String, String>,
    /// Problem sizes: each maps variable names to values. The first is the primary one, timed
    /// unless `timed_sizes` names others; all are used for correctness.
    pub sizes: Vec<BTreeMap<String, i64>>,
    /// The sizes the timing leg times (indices into `sizes`, distinct): each is judged on its
    /// own pairs and the speedup is the geometric mean over them (docs/JUDGE.md, "Several timed
    /// sizes"). Empty (the default): the primary size alone.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub timed_sizes: Vec<usize>,
    /// Default grid (x, y, z) as expressions.
    pub grid: [String; 3],
    /// Default block (x, y, z) as expressions. Not written for a Triton task, whose block is
    /// its compiled `num_warps` × 32 threads.
    #[serde(default, skip_serializing_if = "block_unset")]
    pub block: [String; 3],
    /// Default dynamic shared memory bytes, an expression.
    #[serde(default = "zero_expr")]
    pub shared_bytes: String,
    /// Tolerance for every output; defaults by dtype.
    #[serde(default)]
    pub tolerance: Option<Tolerance>,
    /// Caps on the candidate's own launch geometry.
    #[serde(default)]
    pub caps: LaunchCaps,
    /// The arithmetic precision the task asks for (default: that of its coarsest float
    /// output); the tolerance is checked against it when the task loads.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub precision: Option<inputs::Precision>,
    /// What the timed launches draw: the typical law (default) or every family.
    #[serde(default, skip_serializing_if = "is_default")]
    pub timed_inputs: TimedInputs,
    /// Bytes one launch moves to and from device memory, an expression of the size variables;
    /// by default every input read once and every output written once ([`traffic_bytes`](traffic::traffic_bytes)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<String>,
    /// Floating-point operations one launch does, an expression of the size variables; none
    /// by default (a buffer's length says nothing of the work per element).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flops: Option<String>,
    /// Whether a candidate may answer with a plan of several kernels and library calls, and
    /// within what ([`PlanLimits`](plan::PlanLimits), docs/PLANS.md); absent: one kernel.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plans: Option<plan::PlanLimits>,
}

fn block_unset(block: &[String; 3]) -> bool {
    block.iter().all(String::is_empty)
}

impl KernelTask {
    /// The sizes the timing leg times: `timed_sizes`, or the primary size alone.
    pub fn timed(&self) -> Vec<usize> {
        if self.timed_sizes.is_empty() {
            vec![0]
        } else {
            self.timed_sizes.clone()
        }
    }

    /// The Triton settings of a `language: triton` task (the defaults when none are written).
    pub fn triton_spec(&self) -> TritonSpec {
        self.triton.clone().unwrap_or_default()
    }
}

fn zero_expr() -> String {
    "0".to_string()
}
