//! Kernel plans as data (docs/PLANS.md): a candidate's plan read from its completion, checked
//! against the task, and carried to the later legs. Every error names the step (its number, from
//! 1, and kind) or the scratch buffer, and the field.
//!
//! The `parse` leg hands the later legs the kernel source with the plan appended as one comment
//! line ([`PLAN_MARKER`] and the plan as JSON): the plan is part of what is compiled, cached and
//! identified, and nothing but the checked plan reaches the harness. A source that holds the
//! marker itself is refused at `parse`.

use aorlta_record::{
    Dtype, GemmStep, ImagePlan, KernelTask, LaunchStep, Plan, PlanKernel, PlanStep, Role, ScratchSpec,
};
use aorlta_record::{ParamKind, mangle, signature_parameters};
use aorlta_record::{eval_count, eval_expr};
use std::collections::BTreeMap;

/// The line that carries a checked plan after the kernel source, from `parse` to the later legs.
pub(crate) const PLAN_MARKER: &str = "// aorlta-plan: ";

/// What is wrong with a plan: where (a step, a scratch buffer or the plan), the field, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PlanError {
    /// `step 2 (launch)`, `scratch `tmp``, or `plan`.
    pub(crate) at: String,
    /// The field (`steps`, `kernel`, `args`, `grid`, `a`, `len` …).
    pub(crate) field: String,
    /// Why.
    pub(crate) message: String,
}

impl PlanError {
    /// "plan step 2 (launch): field `args`: …".
    pub(crate) fn describe(&self) -> String {
        let at = if self.at == "plan" {
            "plan".to_string()
        } else {
            format!("plan {}", self.at)
        };
        format!("{at}: field `{}`: {}", self.field, self.message)
    }
}

pub(crate) fn err(at: impl Into<String>, field: &str, message: impl Into<String>) -> PlanError {
    PlanError {
        at: at.into(),
        field: field.to_string(),
        message: message.into(),
    }
}

/// Where a step is, as errors name it: `step 2 (launch)` (numbered from 1).
pub(crate) fn step_at(i: usize, kind: &str) -> String {
    format!("step {} ({kind})", i + 1)
}

/// The kernel source with its checked plan appended on one comment line.
pub(crate) fn attach(source: &str, plan: &Plan) -> String {
    let json = serde_json::to_string(plan).expect("a plan serialises");
    let mut s = source.to_string();
    if !s.ends_with('\n') {
        s.push('\n');
    }
    format!("{s}{PLAN_MARKER}{json}\n")
}

/// An extracted text's kernel source and the plan appended to it, when there is one.
pub(crate) fn split(extracted: &str) -> (&str, Option<&str>) {
    match extracted.rfind(&format!("\n{PLAN_MARKER}")) {
        Some(at) => (
            &extracted[..at + 1],
            Some(extracted[at + 1 + PLAN_MARKER.len()..].trim_end()),
        ),
        None => (extracted, None),
    }
}

/// Checks a plan against a task; `declaration` gives the declaration (`void name(params)`) of a
/// kernel the source defines. Answers the plan as the harness runs it.
pub(crate) fn check(
    plan: &Plan,
    task: &KernelTask,
    declaration: &dyn Fn(&str) -> Option<String>,
) -> Result<ImagePlan, PlanError> {
    let Some(limits) = &task.plans else {
        return Err(err(
            "plan",
            "plans",
            format!(
                "task `{}` allows no plan (it has no `plans` field): answer with one kernel",
                task.id
            ),
        ));
    };
    if plan.steps.is_empty() {
        return Err(err("plan", "steps", "a plan has at least one step"));
    }
    if plan.steps.len() > limits.max_steps {
        return Err(err(
            "plan",
            "steps",
            format!(
                "{} steps, over the task's `plans.max_steps` of {}",
                plan.steps.len(),
                limits.max_steps
            ),
        ));
    }
    if !plan.steps.iter().any(|s| matches!(s, PlanStep::Launch(_))) {
        return Err(err(
            "plan",
            "steps",
            "a plan launches at least one of its own kernels",
        ));
    }
    check_scratch(plan, task, &limits.max_scratch_bytes)?;
    let names = Names::of(task, &plan.scratch);
    let mut kernels = BTreeMap::new();
    for (i, step) in plan.steps.iter().enumerate() {
        let at = step_at(i, step.kind());
        if let Some(lib) = step.library()
            && !limits.library.contains(&lib)
        {
            let allowed: Vec<&str> = limits.library.iter().map(|l| l.as_str()).collect();
            return Err(err(
                at,
                "kind",
                format!(
                    "the task allows no `{}` step (its `plans.library` is [{}])",
                    lib.as_str(),
                    allowed.join(", ")
                ),
            ));
        }
        match step {
            PlanStep::Launch(l) => {
                let k = check_launch(l, task, &names, declaration).map_err(|(f, m)| err(&at, f, m))?;
                kernels.insert(l.kernel.clone(), k);
            }
            PlanStep::Gemm(g) => check_gemm(g, task, &names).map_err(|(f, m)| err(&at, f, m))?,
        }
    }
    Ok(ImagePlan {
        plan: plan.clone(),
        kernels,
    })
}

fn is_ident(s: &str) -> bool {
    let mut c = s.chars();
    matches!(c.next(), Some(f) if f.is_ascii_alphabetic() || f == '_')
        && c.all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// Bytes of one element of `d`.
pub(crate) fn elem_bytes(d: Dtype) -> i64 {
    match d {
        Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
        Dtype::F16 | Dtype::Bf16 => 2,
        Dtype::I64 => 8,
    }
}

fn check_scratch(plan: &Plan, task: &KernelTask, max_bytes: &str) -> Result<(), PlanError> {
    for (j, s) in plan.scratch.iter().enumerate() {
        let at = format!("scratch `{}`", s.name);
        if !is_ident(&s.name) {
            return Err(err(at, "name", "a scratch buffer's name is an identifier"));
        }
        if plan.scratch[..j].iter().any(|o| o.name == s.name) {
            return Err(err(at, "name", "named twice"));
        }
        if task.buffers.iter().any(|b| b.name == s.name) || task.scalars.contains_key(&s.name) {
            return Err(err(at, "name", "the task has a buffer or scalar of that name"));
        }
        for (i, size) in task.sizes.iter().enumerate() {
            eval_count(&s.len, size).map_err(|e| err(&at, "len", format!("`{}` at size {i}: {e}", s.len)))?;
        }
    }
    for (i, size) in task.sizes.iter().enumerate() {
        let max = eval_expr(max_bytes, size).map_err(|e| {
            err(
                "plan",
                "scratch",
                format!("the task's `plans.max_scratch_bytes` at size {i}: {e}"),
            )
        })?;
        let mut total = 0i64;
        for s in &plan.scratch {
            let len = eval_count(&s.len, size).unwrap_or(0) as i64;
            total = total.saturating_add(len.saturating_mul(elem_bytes(s.dtype)));
        }
        if total > max {
            return Err(err(
                "plan",
                "scratch",
                format!(
                    "{total} bytes of scratch at size {i}, over the task's `plans.max_scratch_bytes` of {max}"
                ),
            ));
        }
    }
    Ok(())
}

/// What a step's arguments may name.
struct Names<'t> {
    /// Task buffers and scratch buffers: dtype, length expression, role (scratch: `None`).
    buffers: BTreeMap<&'t str, (Dtype, &'t str, Option<Role>)>,
    scalars: &'t BTreeMap<String, String>,
}

impl<'t> Names<'t> {
    fn of(task: &'t KernelTask, scratch: &'t [ScratchSpec]) -> Self {
        let mut buffers = BTreeMap::new();
        for b in &task.buffers {
            buffers.insert(b.name.as_str(), (b.dtype, b.len.as_str(), Some(b.role)));
        }
        for s in scratch {
            buffers.insert(s.name.as_str(), (s.dtype, s.len.as_str(), None));
        }
        Names {
            buffers,
            scalars: &task.scalars,
        }
    }
}

type FieldErr = (&'static str, String);

fn every_size(task: &KernelTask, field: &'static str, expr: &str, cap: Option<u64>) -> Result<(), FieldErr> {
    for (i, size) in task.sizes.iter().enumerate() {
        let v = eval_count(expr, size).map_err(|e| (field, format!("`{expr}` at size {i}: {e}")))?;
        if let Some(cap) = cap
            && v > cap
        {
            return Err((
                field,
                format!("`{expr}` is {v} at size {i}, over the task's caps ({cap})"),
            ));
        }
    }
    Ok(())
}

fn product(task: &KernelTask, field: &'static str, exprs: &[String; 3], cap: u64) -> Result<(), FieldErr> {
    for e in exprs {
        every_size(task, field, e, None)?;
    }
    let joined = format!("({}) * ({}) * ({})", exprs[0], exprs[1], exprs[2]);
    every_size(task, field, &joined, Some(cap))
}

fn check_launch(
    l: &LaunchStep,
    task: &KernelTask,
    names: &Names<'_>,
    declaration: &dyn Fn(&str) -> Option<String>,
) -> Result<PlanKernel, FieldErr> {
    let Some(decl) = declaration(&l.kernel) else {
        return Err((
            "kernel",
            format!("the source defines no `__global__` kernel `{}`", l.kernel),
        ));
    };
    let params = signature_parameters(&decl).map_err(|e| {
        (
            "kernel",
            format!("the declaration of `{}` cannot be read: {}", l.kernel, e.message),
        )
    })?;
    let (_, mangled) = mangle(&decl).map_err(|e| ("kernel", e.message))?;
    product(task, "grid", &l.grid, task.caps.max_blocks)?;
    product(task, "block", &l.block, task.caps.max_threads_per_block.into())?;
    every_size(
        task,
        "shared_bytes",
        &l.shared_bytes,
        Some(task.caps.max_shared_bytes.into()),
    )?;
    if l.args.len() != params.len() {
        return Err((
            "args",
            format!(
                "{} arguments for the {} parameters of `{}`",
                l.args.len(),
                params.len(),
                l.kernel
            ),
        ));
    }
    for (j, (p, a)) in params.iter().zip(&l.args).enumerate() {
        let what = format!("argument {} (`{a}`)", j + 1);
        match p.kind {
            ParamKind::Pointer => {
                let Some(&(dtype, _, role)) = names.buffers.get(a.as_str()) else {
                    return Err((
                        "args",
                        format!(
                            "{what} for the pointer `{}`: not a buffer of the task nor a scratch buffer of the plan",
                            p.name
                        ),
                    ));
                };
                let e = p.pointee.as_ref().map(|e| e.code.as_str()).unwrap_or("");
                let (codes, c_name) = crate::rules::element_types(dtype);
                if !codes.contains(&e) {
                    return Err((
                        "args",
                        format!(
                            "{what}: a {dtype:?} buffer is a `{c_name}*`, the parameter `{}` is not",
                            p.name
                        ),
                    ));
                }
                let konst = p.pointee.as_ref().is_some_and(|e| e.konst);
                if role == Some(Role::In) && !konst {
                    return Err((
                        "args",
                        format!(
                            "{what}: the input `{a}` is passed to the writable `{}`; a kernel reads an input through a `const` pointer",
                            p.name
                        ),
                    ));
                }
            }
            ParamKind::Scalar(code) => {
                if !matches!(code, "i" | "j" | "l" | "x" | "m" | "y" | "f" | "d") {
                    return Err((
                        "args",
                        format!(
                            "{what}: the parameter `{}` has a type a scalar cannot have",
                            p.name
                        ),
                    ));
                }
                if names.buffers.contains_key(a.as_str()) {
                    return Err(("args", format!("{what}: a buffer for the scalar `{}`", p.name)));
                }
                let expr = names.scalars.get(a).map_or(a.as_str(), String::as_str);
                for (i, size) in task.sizes.iter().enumerate() {
                    eval_expr(expr, size).map_err(|e| {
                        (
                            "args",
                            format!("{what}: neither a scalar of the task nor an expression of the sizes (size {i}: {e})"),
                        )
                    })?;
                }
            }
            ParamKind::Other => {
                return Err((
                    "args",
                    format!("{what}: the parameter `{}` is passed by value as a class", p.name),
                ));
            }
        }
    }
    Ok(PlanKernel {
        declaration: decl,
        symbols: vec![mangled, l.kernel.clone()],
    })
}

fn check_gemm(g: &GemmStep, task: &KernelTask, names: &Names<'_>) -> Result<(), FieldErr> {
    if !matches!(g.dtype, Dtype::F32 | Dtype::F16 | Dtype::Bf16) {
        return Err(("dtype", format!("{:?}: a gemm is of f32, f16 or bf16", g.dtype)));
    }
    for (field, e) in [("m", &g.m), ("n", &g.n), ("k", &g.k)] {
        every_size(task, field, e, None)?;
    }
    if !g.alpha.is_finite() || !g.beta.is_finite() {
        return Err(("alpha", "alpha and beta are finite".into()));
    }
    let need = [
        ("a", &g.a, format!("({}) * ({})", g.m, g.k)),
        ("b", &g.b, format!("({}) * ({})", g.k, g.n)),
        ("c", &g.c, format!("({}) * ({})", g.m, g.n)),
    ];
    for (field, name, elems) in &need {
        let field: &'static str = field;
        let Some(&(dtype, len, role)) = names.buffers.get(name.as_str()) else {
            return Err((
                field,
                format!("`{name}` is not a buffer of the task nor a scratch buffer of the plan"),
            ));
        };
        if dtype != g.dtype {
            return Err((
                field,
                format!("`{name}` is {dtype:?}, the step's `dtype` {:?}", g.dtype),
            ));
        }
        if field == "c" && role == Some(Role::In) {
            return Err((
                "c",
                format!("`{name}` is an input of the task; a step writes no input"),
            ));
        }
        for (i, size) in task.sizes.iter().enumerate() {
            let have = eval_count(len, size).unwrap_or(0);
            let want = eval_count(elems, size).map_err(|e| (field, format!("size {i}: {e}")))?;
            if have < want {
                return Err((
                    field,
                    format!("`{name}` holds {have} elements at size {i}; the product uses {want}"),
                ));
            }
        }
    }
    if g.c == g.a || g.c == g.b {
        return Err((
            "c",
            format!("`{}` is also an operand; the result has a buffer of its own", g.c),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests;
