//! Kernel plans: several kernels and library calls as data (docs/PLANS.md). A task may allow a
//! candidate to answer with a plan beside its kernels ([`PlanLimits`], the task's `plans`): an
//! ordered list of steps, each a launch of one of its kernels or a call from a fixed menu of
//! vendor-library operations ([`PlanStep`]), over the task's buffers and scalar values and the
//! scratch buffers the plan declares. The plan is read as data; nothing of the candidate runs on
//! the host. The checks live in `aorlta-kernel` (when the completion is parsed) and the harness
//! runs the whole plan as the candidate.

use super::Dtype;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A library operation a plan step may call, as a task names it in `plans.library`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LibraryKind {
    /// A dense matrix product ([`GemmStep`]).
    Gemm,
}

impl LibraryKind {
    /// The name as a task and a plan write it.
    pub fn as_str(self) -> &'static str {
        match self {
            LibraryKind::Gemm => "gemm",
        }
    }
}

/// What a task allows of plans (its `plans` field; absent: a candidate answers with one kernel).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanLimits {
    /// Most steps in a plan (1 to [`PlanLimits::MAX_STEPS`]).
    #[serde(default = "default_max_steps")]
    pub max_steps: usize,
    /// Most bytes of scratch, all buffers together, an expression of the size variables
    /// (evaluated at every size); none by default.
    #[serde(default = "zero_expr", deserialize_with = "expr_text::one")]
    pub max_scratch_bytes: String,
    /// The library operations a step may call; none by default.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub library: Vec<LibraryKind>,
}

impl PlanLimits {
    /// The largest `max_steps` a task may allow.
    pub const MAX_STEPS: usize = 16;
}

fn default_max_steps() -> usize {
    4
}

fn zero_expr() -> String {
    "0".to_string()
}

/// A plan: its scratch buffers and its steps, in order.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Plan {
    /// Device buffers the plan uses between its steps: allocated, guarded and filled with the
    /// sentinel by the harness before every run of the plan, like every other buffer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub scratch: Vec<ScratchSpec>,
    /// The steps, run in order on one stream.
    pub steps: Vec<PlanStep>,
}

/// One scratch buffer of a plan.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScratchSpec {
    /// The name steps pass it by (distinct from the task's buffers and scalars).
    pub name: String,
    /// Element type.
    pub dtype: Dtype,
    /// Elements, an expression of the size variables.
    #[serde(deserialize_with = "expr_text::one")]
    pub len: String,
}

/// One step of a plan: a launch of one of the candidate's kernels, or a library operation from
/// the menu. Written as a one-key map (`- launch: {...}`, `- gemm: {...}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum PlanStep {
    /// A launch of one of the candidate's kernels.
    Launch(LaunchStep),
    /// A dense matrix product by the vendor library.
    Gemm(GemmStep),
}

impl PlanStep {
    /// The step's kind as a plan writes it (`launch`, `gemm`).
    pub fn kind(&self) -> &'static str {
        match self {
            PlanStep::Launch(_) => "launch",
            PlanStep::Gemm(_) => LibraryKind::Gemm.as_str(),
        }
    }

    /// The library operation the step calls (`None` for a launch).
    pub fn library(&self) -> Option<LibraryKind> {
        match self {
            PlanStep::Launch(_) => None,
            PlanStep::Gemm(_) => Some(LibraryKind::Gemm),
        }
    }
}

/// A launch step: a kernel of the candidate's source by name, its geometry as expressions of
/// the size variables, and its arguments in the order of the kernel's parameters.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchStep {
    /// The `__global__` function's name in the candidate's source.
    pub kernel: String,
    /// Grid (x, y, z) as expressions.
    #[serde(deserialize_with = "expr_text::three")]
    pub grid: [String; 3],
    /// Block (x, y, z) as expressions.
    #[serde(deserialize_with = "expr_text::three")]
    pub block: [String; 3],
    /// Dynamic shared memory bytes, an expression.
    #[serde(default = "zero_expr", deserialize_with = "expr_text::one")]
    pub shared_bytes: String,
    /// One per parameter: a task buffer or a scratch buffer by name for a pointer, a task
    /// scalar by name or an expression of the size variables for a scalar.
    #[serde(deserialize_with = "expr_text::many")]
    pub args: Vec<String>,
}

/// A dense matrix product `c = alpha * op(a) * op(b) + beta * c`, every matrix row-major and
/// packed: `op(a)` is `m` x `k` (`a` holds `k` x `m` when `trans_a`), `op(b)` is `k` x `n`
/// (`b` holds `n` x `k` when `trans_b`), `c` is `m` x `n`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GemmStep {
    /// The left matrix: a task buffer or a scratch buffer.
    pub a: String,
    /// The right matrix.
    pub b: String,
    /// The result (written; read too when `beta` is not zero).
    pub c: String,
    /// Rows of `op(a)` and `c`, an expression.
    #[serde(deserialize_with = "expr_text::one")]
    pub m: String,
    /// Columns of `op(b)` and `c`, an expression.
    #[serde(deserialize_with = "expr_text::one")]
    pub n: String,
    /// The inner dimension, an expression.
    #[serde(deserialize_with = "expr_text::one")]
    pub k: String,
    /// `a` is stored transposed.
    #[serde(default)]
    pub trans_a: bool,
    /// `b` is stored transposed.
    #[serde(default)]
    pub trans_b: bool,
    /// Scale of the product.
    #[serde(default = "one")]
    pub alpha: f64,
    /// Scale of `c`'s previous contents.
    #[serde(default)]
    pub beta: f64,
    /// Element type of all three matrices (and of the arithmetic).
    pub dtype: Dtype,
}

fn one() -> f64 {
    1.0
}

/// Expressions as a plan writes them: a string, or an integer (`block: [256, 1, 1]`) read as
/// its decimal text.
mod expr_text {
    use serde::{Deserialize, Deserializer};

    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Text {
        Str(String),
        Int(i64),
    }

    impl Text {
        fn text(self) -> String {
            match self {
                Text::Str(s) => s,
                Text::Int(i) => i.to_string(),
            }
        }
    }

    pub(super) fn one<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        Ok(Text::deserialize(d)?.text())
    }

    pub(super) fn three<'de, D: Deserializer<'de>>(d: D) -> Result<[String; 3], D::Error> {
        let [x, y, z] = <[Text; 3]>::deserialize(d)?;
        Ok([x.text(), y.text(), z.text()])
    }

    pub(super) fn many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
        Ok(Vec::<Text>::deserialize(d)?.into_iter().map(Text::text).collect())
    }
}

/// A candidate's plan as the harness runs it: the plan, checked, and each kernel it launches
/// with its declaration (read from the candidate's source) and the symbols to look it up by.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImagePlan {
    /// The plan.
    pub plan: Plan,
    /// Each launched kernel, by its name in the plan.
    pub kernels: BTreeMap<String, PlanKernel>,
}

/// A kernel a plan launches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PlanKernel {
    /// Its declaration as the source writes it, reduced to `void name(params)`: the harness
    /// types the step's arguments by it.
    pub declaration: String,
    /// The symbols it may have, tried in order (the mangled declaration, then the plain name).
    pub symbols: Vec<String>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plan_reads_expressions_as_text_or_integers_and_steps_as_one_key_maps() {
        let p: Plan = serde_json::from_value(serde_json::json!({
            "scratch": [{"name": "t", "dtype": "f32", "len": 64}],
            "steps": [
                {"launch": {"kernel": "k", "grid": ["ceil_div(n, 256)", 1, 1], "block": [256, 1, 1], "args": ["a", "t", 7]}},
                {"gemm": {"a": "a", "b": "t", "c": "c", "m": "n", "n": 1, "k": 1, "trans_b": true, "dtype": "f16"}}
            ]
        }))
        .unwrap();
        assert_eq!(p.scratch[0].len, "64");
        let PlanStep::Launch(l) = &p.steps[0] else {
            panic!("a launch")
        };
        assert_eq!(
            (l.grid[1].as_str(), l.block[0].as_str(), l.shared_bytes.as_str()),
            ("1", "256", "0")
        );
        assert_eq!(l.args, ["a", "t", "7"]);
        let PlanStep::Gemm(g) = &p.steps[1] else {
            panic!("a gemm")
        };
        assert_eq!((g.alpha, g.beta, g.trans_a, g.trans_b), (1.0, 0.0, false, true));
        assert_eq!((p.steps[0].kind(), p.steps[1].kind()), ("launch", "gemm"));
        assert_eq!(
            (p.steps[0].library(), p.steps[1].library()),
            (None, Some(LibraryKind::Gemm))
        );
        // The plan goes through JSON unchanged (the form it travels in to the later legs).
        let back: Plan = serde_json::from_str(&serde_json::to_string(&p).unwrap()).unwrap();
        assert_eq!(back, p);
        let bad = serde_json::from_value::<PlanStep>(serde_json::json!({"conv": {}})).unwrap_err();
        assert!(bad.to_string().contains("unknown variant `conv`"), "{bad}");
        let limits: PlanLimits =
            serde_json::from_value(serde_json::json!({"max_scratch_bytes": 4096})).unwrap();
        assert_eq!((limits.max_steps, limits.max_scratch_bytes.as_str()), (4, "4096"));
    }
}
