//! What an imported task allows of plans (docs/PLANS.md): from level 2 on, where a problem is a
//! chain of operators, at most one step per operator and one more, scratch up to twice the
//! largest tensor the forward computes, and the library steps of the menu that compute one of its
//! operators (`gemm` for a linear layer or a product by a matrix); and the example plan of the
//! task's prompt.

use super::{ProbeResult, ProbeSize};
use crate::torch::prompt;
use aorlta_record::{BufferSpec, Dtype, LibraryKind, PlanLimits};
use std::collections::BTreeMap;

/// What an imported task allows of plans, and which of the module's operators the library
/// steps compute.
#[derive(Debug, Clone, PartialEq)]
pub struct PlanSummary {
    /// The task's `plans` field.
    pub limits: PlanLimits,
    /// The operators (as PyTorch calls them) a library step of the task's menu computes, with
    /// the step (`linear` by `gemm`).
    pub by_library: Vec<(String, LibraryKind)>,
    /// The heavy operators no step of the menu computes yet (a convolution, a batched product).
    pub without_step: Vec<String>,
}

impl PlanSummary {
    /// The summary in words, for the report: the limits and the library steps.
    pub fn text(&self) -> String {
        let library = if self.limits.library.is_empty() {
            "no library step".to_string()
        } else {
            let by: Vec<String> = self
                .by_library
                .iter()
                .map(|(op, k)| format!("{op} by `{}`", k.as_str()))
                .collect();
            let kinds: Vec<String> = self
                .limits
                .library
                .iter()
                .map(|k| format!("`{}`", k.as_str()))
                .collect();
            format!("library steps {} ({})", kinds.join(", "), by.join(", "))
        };
        let missing = if self.without_step.is_empty() {
            String::new()
        } else {
            format!("; none yet for {}", self.without_step.join(", "))
        };
        format!(
            "a plan task: at most {} steps, scratch at most `{}` bytes, {library}{missing}",
            self.limits.max_steps, self.limits.max_scratch_bytes
        )
    }
}

/// What a task of a chain of operators allows of plans: one step per operator and one more (4
/// to 16), scratch up to twice the bytes of the largest tensor the forward computes (an
/// expression of the size variables that is at least that on every size), and the library steps
/// that compute one of its operators.
pub(super) fn plans_of(
    p: &ProbeResult,
    sizes: &[&ProbeSize],
    vars: &[BTreeMap<String, i64>],
    used: &[String],
    buffers: &[BufferSpec],
) -> Result<PlanSummary, String> {
    let max_steps = (p.ops.len() + 1).clamp(4, PlanLimits::MAX_STEPS);
    // The largest tensor at the timed size, found again by its place among the computed
    // tensors at every size (the forward computes the same tensors at every size).
    let bytes = |(shape, size): &(Vec<i64>, i64)| shape.iter().product::<i64>().saturating_mul(*size);
    let largest = sizes[0]
        .values
        .iter()
        .enumerate()
        .max_by_key(|(_, v)| bytes(v))
        .filter(|(j, (shape, size))| {
            sizes.iter().all(|s| {
                s.values
                    .get(*j)
                    .is_some_and(|(sh, e)| sh.len() == shape.len() && e == size)
            })
        });
    let max_scratch_bytes = match largest {
        Some((j, (_, size))) => {
            let shapes: Vec<&Vec<i64>> = sizes.iter().map(|s| &s.values[j].0).collect();
            bytes_expr(2 * size, &shapes, vars, used)?
        }
        // No tensor recorded: twice the largest buffer.
        None => {
            let b = buffers
                .iter()
                .max_by_key(|b| {
                    vars.first()
                        .and_then(|v| aorlta_record::eval_expr(&b.len, v).ok())
                        .unwrap_or(0)
                        .saturating_mul(crate::plan::elem_bytes(b.dtype))
                })
                .ok_or("the task has no buffer")?;
            format!("{} * {}", 2 * crate::plan::elem_bytes(b.dtype), b.len)
        }
    };
    let mut by_library: Vec<(String, LibraryKind)> = Vec::new();
    let mut without_step: Vec<String> = Vec::new();
    for x in &p.products {
        if x.gemm {
            if !by_library.iter().any(|(op, _)| op == &x.op) {
                by_library.push((x.op.clone(), LibraryKind::Gemm));
            }
        } else {
            let what = format!("{} (a batched or higher-rank product)", x.op);
            if !without_step.contains(&what) {
                without_step.push(what);
            }
        }
    }
    for op in p.ops.iter().filter(|o| o.starts_with("conv")) {
        let what = format!("{op} (a convolution)");
        if !without_step.contains(&what) {
            without_step.push(what);
        }
    }
    let mut library: Vec<LibraryKind> = by_library.iter().map(|(_, k)| *k).collect();
    library.dedup();
    Ok(PlanSummary {
        limits: PlanLimits {
            max_steps,
            max_scratch_bytes,
            library,
        },
        by_library,
        without_step,
    })
}

/// `factor` times the elements of a tensor whose shape at each size is `shapes[i]`, as an
/// expression of the size variables `used` (values `vars[i]`) that is at least that at every
/// size: a dimension that follows a variable is the variable, one that never changes a number,
/// any other its largest value.
fn bytes_expr(
    factor: i64,
    shapes: &[&Vec<i64>],
    vars: &[BTreeMap<String, i64>],
    used: &[String],
) -> Result<String, String> {
    let mut constant = factor;
    let mut names = Vec::new();
    for d in 0..shapes[0].len() {
        let values: Vec<i64> = shapes.iter().map(|s| s[d]).collect();
        let follows = used
            .iter()
            .find(|n| vars.iter().zip(&values).all(|(v, x)| v.get(*n) == Some(x)));
        match follows {
            Some(n) => names.push(n.clone()),
            None => {
                let most = values.iter().copied().max().unwrap_or(0);
                constant = constant
                    .checked_mul(most)
                    .ok_or("the largest tensor's bytes do not fit 64 bits")?;
            }
        }
    }
    let mut expr = constant.to_string();
    for n in names {
        expr.push_str(" * ");
        expr.push_str(&n);
    }
    Ok(expr)
}

/// The prompt's example of a plan around the forward's first matrix product that one `gemm`
/// step computes over two of the task's buffers (an input by a parameter, most often), with
/// the product's sizes as the buffers' dimensions.
pub(super) fn gemm_example(
    p: &ProbeResult,
    buffers: &[BufferSpec],
    shapes: &[(String, Vec<String>)],
) -> Option<prompt::GemmExample> {
    let x = p
        .products
        .iter()
        .find(|x| x.gemm && x.a.is_some() && x.b.is_some())?;
    let (a, b) = (x.a.clone()?, x.b.clone()?);
    let dims = |n: &str| shapes.iter().find(|(b, _)| b == n).map(|(_, d)| d.clone());
    let (a_dims, b_dims) = (dims(&a)?, dims(&b)?);
    let dtype = buffers.iter().find(|x| x.name == a)?.dtype;
    if b_dims.len() != 2
        || a_dims.is_empty()
        || buffers.iter().find(|x| x.name == b)?.dtype != dtype
        || !matches!(dtype, Dtype::F32 | Dtype::F16 | Dtype::Bf16)
    {
        return None;
    }
    let k = a_dims.last()?.clone();
    let (n, k_of_b) = if x.trans_b {
        (b_dims[0].clone(), &b_dims[1])
    } else {
        (b_dims[1].clone(), &b_dims[0])
    };
    if *k_of_b != k {
        return None;
    }
    let m = if a_dims.len() == 1 {
        "1".to_string()
    } else {
        a_dims[..a_dims.len() - 1].join(" * ")
    };
    Some(prompt::GemmExample {
        a,
        b,
        m,
        n,
        k,
        trans_b: x.trans_b,
        dtype,
    })
}
