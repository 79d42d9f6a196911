//! What a kernel task must hold beyond its schema, checked when it loads: it has an output, and
//! every output at least one element on every size (a task that computes nothing would pass
//! every candidate); the signature's parameters are its buffers and scalars, one each, with the
//! buffer's element type and a writable pointer for what the kernel writes; every length, row,
//! scalar and launch expression evaluates on every size; every input's domain is a real
//! interval, special values are declared only where they can be drawn, and the tolerance means
//! the precision the task asks for ([`aorlta_record::rtol_fits`]). Errors name
//! the field and, where the task came from a file, its line.

use aorlta_record::{BufferSpec, Dtype, Init, KernelLanguage, KernelTask, Role, Tolerance};
use aorlta_record::{ParamKind, signature_parameters};
use aorlta_record::{Precision, is_float, rtol_fits};
use aorlta_record::{eval_count, eval_expr};

/// A rule a task breaks: the field, the buffer it is in (if any) and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Broken {
    /// The field (`buffers`, `signature`, `dtype`, `role`, `scalars`, `len`, `row`, `grid`,
    /// `block`, `shared_bytes`, `tolerance`, `special`, `init`, `precision` …).
    pub(crate) field: &'static str,
    /// The buffer the field belongs to.
    pub(crate) buffer: Option<String>,
    /// What is wrong.
    pub(crate) message: String,
}

impl Broken {
    /// The message with its field: "buffer `in`: field `special`: ...".
    pub(crate) fn describe(&self) -> String {
        match &self.buffer {
            Some(b) => format!("buffer `{b}`: field `{}`: {}", self.field, self.message),
            None => format!("field `{}`: {}", self.field, self.message),
        }
    }

    /// The 1-based line of the field in the task file's text (of the buffer's entry for a
    /// buffer's field); 0 when it is not written there (a default).
    pub(crate) fn line(&self, text: &str) -> usize {
        let lines: Vec<&str> = text.lines().collect();
        let key = format!("{}:", self.field);
        let from = match &self.buffer {
            Some(b) => {
                let name = [
                    format!("name: {b}"),
                    format!("name: \"{b}\""),
                    format!("name: '{b}'"),
                ];
                match lines
                    .iter()
                    .position(|l| name.iter().any(|n| l.contains(n.as_str())))
                {
                    Some(at) => at,
                    None => return 0,
                }
            }
            None => 0,
        };
        let found = lines[from..].iter().position(|l| {
            let t = l.trim_start().trim_start_matches("- ").trim_start_matches('{');
            t.starts_with(&key) || l.contains(&format!(" {key}")) || l.contains(&format!("{{{key}"))
        });
        match (found, &self.buffer) {
            (Some(at), _) => from + at + 1,
            (None, Some(_)) => from + 1,
            (None, None) => 0,
        }
    }
}

fn broken(field: &'static str, buffer: Option<&str>, message: String) -> Broken {
    Broken {
        field,
        buffer: buffer.map(str::to_string),
        message,
    }
}

/// The precision a task asks for: its own, else that of its coarsest float output; `None`
/// when no output is a float.
pub(crate) fn precision_of(spec: &KernelTask) -> Option<Precision> {
    if spec.precision.is_some() {
        return spec.precision;
    }
    spec.buffers
        .iter()
        .filter(|b| b.role != Role::In)
        .filter_map(|b| Precision::of(b.dtype))
        .max_by(|a, b| a.unit_roundoff().total_cmp(&b.unit_roundoff()))
}

/// Checks a task; the first rule it breaks.
pub(crate) fn check(spec: &KernelTask) -> Result<(), Broken> {
    if !spec.buffers.iter().any(|b| b.role != Role::In) {
        return Err(broken(
            "buffers",
            None,
            "no output buffer (role `out` or `inout`): the task computes nothing to compare, so \
             every candidate would pass"
                .into(),
        ));
    }
    check_signature(spec)?;
    check_expressions(spec)?;
    aorlta_record::check_traffic(spec).map_err(|(field, m)| broken(field, None, m))?;
    for b in &spec.buffers {
        let name = Some(b.name.as_str());
        if b.role != Role::Out {
            match b.init {
                Init::Uniform { lo, hi } if !(lo.is_finite() && hi.is_finite() && lo <= hi) => {
                    return Err(broken(
                        "init",
                        name,
                        format!("uniform needs finite lo <= hi (got lo {lo}, hi {hi})"),
                    ));
                }
                Init::Normal { mean, std } if !(mean.is_finite() && std.is_finite() && std >= 0.0) => {
                    return Err(broken(
                        "init",
                        name,
                        format!("normal needs a finite mean and std >= 0 (got mean {mean}, std {std})"),
                    ));
                }
                _ => {}
            }
        }
        if !b.special.is_empty() {
            if b.role == Role::Out {
                return Err(broken(
                    "special",
                    name,
                    "an output draws no inputs; declare special values on inputs".into(),
                ));
            }
            if !is_float(b.dtype) {
                return Err(broken(
                    "special",
                    name,
                    format!("special values need a float buffer (this one is {:?})", b.dtype),
                ));
            }
        }
        // A row the task does not write is the last factor of `len`: its fault is `len`'s.
        let field = if b.row.is_some() { "row" } else { "len" };
        for (i, size) in spec.sizes.iter().enumerate() {
            // An output of no element computes nothing to compare: every candidate would pass.
            let least = if b.role == Role::In { 0 } else { 1 };
            match eval_expr(&b.len, size) {
                Ok(n) if n >= least => {}
                Ok(n) => {
                    return Err(broken(
                        "len",
                        name,
                        format!(
                            "`{}` is {n} at size {i}; {}",
                            b.len,
                            if b.role == Role::In {
                                "a length is never negative"
                            } else {
                                "an output holds at least one element, or the task computes nothing to compare"
                            }
                        ),
                    ));
                }
                Err(e) => return Err(broken("len", name, format!("at size {i}: {e}"))),
            }
            match eval_expr(&b.row_expr(), size) {
                Ok(r) if r >= 1 => {}
                Ok(r) => {
                    return Err(broken(
                        field,
                        name,
                        format!(
                            "the row length `{}` is {r} at size {i}; a row holds at least one element",
                            b.row_expr()
                        ),
                    ));
                }
                Err(e) => return Err(broken(field, name, format!("at size {i}: {e}"))),
            }
        }
    }
    check_timed_sizes(spec)?;
    check_language(spec)?;
    check_plans(spec)?;
    check_tolerance(spec)
}

/// `plans` (docs/PLANS.md): a CUDA or HIP task's, with 1 to 16 steps, a scratch limit that
/// evaluates to a byte count on every size, and each library operation named once.
fn check_plans(spec: &KernelTask) -> Result<(), Broken> {
    let Some(p) = &spec.plans else {
        return Ok(());
    };
    if spec.language == KernelLanguage::Triton {
        return Err(broken(
            "plans",
            None,
            "a Triton task allows no plan (a plan launches CUDA or HIP kernels)".into(),
        ));
    }
    let most = aorlta_record::PlanLimits::MAX_STEPS;
    if !(1..=most).contains(&p.max_steps) {
        return Err(broken(
            "max_steps",
            None,
            format!("plans.max_steps is {}; it is 1 to {most}", p.max_steps),
        ));
    }
    for (i, size) in spec.sizes.iter().enumerate() {
        match eval_expr(&p.max_scratch_bytes, size) {
            Ok(n) if n >= 0 => {}
            Ok(n) => {
                return Err(broken(
                    "max_scratch_bytes",
                    None,
                    format!(
                        "`{}` is {n} at size {i}; a byte count is never negative",
                        p.max_scratch_bytes
                    ),
                ));
            }
            Err(e) => return Err(broken("max_scratch_bytes", None, format!("at size {i}: {e}"))),
        }
    }
    for (i, l) in p.library.iter().enumerate() {
        if p.library[..i].contains(l) {
            return Err(broken(
                "library",
                None,
                format!("plans.library names `{}` twice", l.as_str()),
            ));
        }
    }
    Ok(())
}

/// `timed_sizes`: indices of `sizes`, each named once.
fn check_timed_sizes(spec: &KernelTask) -> Result<(), Broken> {
    let mut seen = std::collections::BTreeSet::new();
    for &i in &spec.timed_sizes {
        if i >= spec.sizes.len() {
            return Err(broken(
                "timed_sizes",
                None,
                format!(
                    "size {i} is not among the task's {} sizes (indices start at 0)",
                    spec.sizes.len()
                ),
            ));
        }
        if !seen.insert(i) {
            return Err(broken(
                "timed_sizes",
                None,
                format!("size {i} is named twice: each timed size is judged once"),
            ));
        }
    }
    Ok(())
}

/// The element types a pointer to a buffer of `dtype` may name, in their Itanium form, and as
/// C++ writes the first.
pub(crate) fn element_types(dtype: Dtype) -> (&'static [&'static str], &'static str) {
    match dtype {
        Dtype::F32 => (&["f"], "float"),
        Dtype::F16 => (&["6__half", "6_Float16"], "__half"),
        Dtype::Bf16 => (
            &["13__nv_bfloat16", "12hip_bfloat16", "14__hip_bfloat16"],
            "__nv_bfloat16",
        ),
        Dtype::I32 => (&["i"], "int"),
        Dtype::U32 => (&["j"], "unsigned int"),
        Dtype::I64 => (&["l", "x"], "long"),
    }
}

/// The signature's parameters are the task's buffers and scalars, each named once: a buffer is
/// a pointer to its element type, `const` only when the kernel only reads it; a scalar is a
/// builtin integer or float.
fn check_signature(spec: &KernelTask) -> Result<(), Broken> {
    let params = signature_parameters(&spec.signature).map_err(|e| broken("signature", None, e.message))?;
    for (i, p) in params.iter().enumerate() {
        if p.name.is_empty() {
            return Err(broken(
                "signature",
                None,
                format!(
                    "parameter {} has no name; name it after its buffer or scalar",
                    i + 1
                ),
            ));
        }
        if params[..i].iter().any(|q| q.name == p.name) {
            return Err(broken(
                "signature",
                None,
                format!("parameter `{}` is named twice", p.name),
            ));
        }
        if let Some(b) = spec.buffers.iter().find(|b| b.name == p.name) {
            check_buffer_param(b, p.kind, p.pointee.as_ref())?;
        } else if spec.scalars.contains_key(&p.name) {
            let supported = matches!(
                p.kind,
                ParamKind::Scalar("i" | "j" | "l" | "x" | "m" | "y" | "f" | "d")
            );
            if !supported {
                return Err(broken(
                    "scalars",
                    None,
                    format!(
                        "scalar `{}`: its parameter must be an int, unsigned, long, float or double (the signature says otherwise)",
                        p.name
                    ),
                ));
            }
        } else {
            return Err(broken(
                "signature",
                None,
                format!(
                    "parameter `{}` is neither a buffer nor a scalar of the task",
                    p.name
                ),
            ));
        }
    }
    // Every parameter is a buffer or a scalar, once: what is left over names no parameter.
    let counts = format!(
        "the signature has {} parameters, the task {} buffers and {} scalars",
        params.len(),
        spec.buffers.len(),
        spec.scalars.len()
    );
    if let Some(s) = spec
        .scalars
        .keys()
        .find(|s| !params.iter().any(|p| &p.name == *s))
    {
        return Err(broken(
            "scalars",
            None,
            format!("scalar `{s}` is not a parameter of the signature ({counts})"),
        ));
    }
    if let Some(b) = spec
        .buffers
        .iter()
        .find(|b| !params.iter().any(|p| p.name == b.name))
    {
        return Err(broken(
            "name",
            Some(&b.name),
            format!(
                "buffer `{}` is not a parameter of the signature ({counts})",
                b.name
            ),
        ));
    }
    Ok(())
}

fn check_buffer_param(
    b: &BufferSpec,
    kind: ParamKind,
    pointee: Option<&aorlta_record::Pointee>,
) -> Result<(), Broken> {
    let name = Some(b.name.as_str());
    let Some(e) = pointee.filter(|_| kind == ParamKind::Pointer) else {
        return Err(broken(
            "name",
            name,
            format!(
                "buffer `{}`: its parameter in the signature is not a pointer",
                b.name
            ),
        ));
    };
    let (codes, c_name) = element_types(b.dtype);
    if !codes.contains(&e.code.as_str()) {
        return Err(broken(
            "dtype",
            name,
            format!(
                "{:?} against `{}*` in the signature; a {:?} buffer is a `{c_name}*`",
                b.dtype,
                e.c_name(),
                b.dtype
            ),
        ));
    }
    if e.konst && b.role != Role::In {
        let role = if b.role == Role::Out { "out" } else { "inout" };
        return Err(broken(
            "role",
            name,
            format!(
                "`{role}`, but the signature's `const {}*` cannot be written; make the parameter non-const or the buffer `in`",
                e.c_name()
            ),
        ));
    }
    Ok(())
}

/// Every buffer length, scalar and launch expression evaluates on every size (a Triton task's
/// grid is checked with its constexprs in [`check_language`]).
fn check_expressions(spec: &KernelTask) -> Result<(), Broken> {
    for (i, size) in spec.sizes.iter().enumerate() {
        for b in &spec.buffers {
            if let Err(e) = eval_count(&b.len, size) {
                return Err(broken("len", Some(&b.name), format!("at size {i}: {e}")));
            }
        }
        for (name, e) in &spec.scalars {
            if let Err(err) = eval_expr(e, size) {
                return Err(broken(
                    "scalars",
                    None,
                    format!("scalar `{name}` at size {i}: {err}"),
                ));
            }
        }
        if spec.language == KernelLanguage::Triton {
            continue;
        }
        for (field, exprs) in [("grid", &spec.grid), ("block", &spec.block)] {
            // An unwritten axis is `check_language`'s to refuse.
            for (axis, e) in ["x", "y", "z"]
                .iter()
                .zip(exprs.iter())
                .filter(|(_, e)| !e.is_empty())
            {
                match eval_count(e, size) {
                    Ok(v) if v >= 1 => {}
                    Ok(v) => {
                        return Err(broken(
                            field,
                            None,
                            format!("{field} {axis} `{e}` is {v} at size {i}; at least 1"),
                        ));
                    }
                    Err(err) => {
                        return Err(broken(field, None, format!("{field} {axis} at size {i}: {err}")));
                    }
                }
            }
        }
        if let Err(err) = eval_count(&spec.shared_bytes, size) {
            return Err(broken("shared_bytes", None, format!("at size {i}: {err}")));
        }
    }
    Ok(())
}

/// A Triton task binds its compile (`triton:`) and has no block (its kernel's is `num_warps` ×
/// 32); a CUDA or HIP task has a block and no `triton:`. A Triton task's grid evaluates on
/// every size with every default, and its constexprs name nothing else of the task.
fn check_language(spec: &KernelTask) -> Result<(), Broken> {
    let block_set = spec.block.iter().any(|b| !b.is_empty());
    if spec.language != KernelLanguage::Triton {
        if spec.triton.is_some() {
            return Err(broken(
                "triton",
                None,
                format!(
                    "only a `language: triton` task binds a Triton compile (this one is {})",
                    spec.language.as_str()
                ),
            ));
        }
        if spec.block.iter().any(String::is_empty) {
            return Err(broken(
                "block",
                None,
                "a CUDA or HIP task needs its block (x, y, z)".into(),
            ));
        }
        return Ok(());
    }
    if block_set {
        return Err(broken(
            "block",
            None,
            "a Triton kernel's block is its compiled num_warps x 32 threads; write no `block`".into(),
        ));
    }
    let t = spec.triton_spec();
    if t.num_warps.is_empty() || t.num_warps.iter().any(|w| !w.is_power_of_two() || *w > 32) {
        return Err(broken(
            "triton",
            None,
            format!(
                "num_warps {:?}: each a power of two from 1 to 32, at least one",
                t.num_warps
            ),
        ));
    }
    if t.num_stages.is_empty() || t.num_stages.iter().any(|s| !(1..=8).contains(s)) {
        return Err(broken(
            "triton",
            None,
            format!("num_stages {:?}: each from 1 to 8, at least one", t.num_stages),
        ));
    }
    let mut defaults = std::collections::BTreeMap::new();
    defaults.insert("num_warps".to_string(), i64::from(t.num_warps[0]));
    for (name, values) in &t.constexprs {
        let clash = name == "num_warps"
            || name == "num_stages"
            || spec.buffers.iter().any(|b| &b.name == name)
            || spec.scalars.contains_key(name)
            || spec.sizes.iter().any(|s| s.contains_key(name));
        if clash {
            return Err(broken(
                "triton",
                None,
                format!(
                    "constexpr `{name}` has the name of a buffer, scalar, size variable or setting of the task"
                ),
            ));
        }
        let Some(first) = values.first() else {
            return Err(broken(
                "triton",
                None,
                format!("constexpr `{name}` lists no value"),
            ));
        };
        defaults.insert(name.clone(), *first);
    }
    for (i, size) in spec.sizes.iter().enumerate() {
        let mut vars = size.clone();
        vars.extend(defaults.iter().map(|(k, v)| (k.clone(), *v)));
        for (axis, e) in ["x", "y", "z"].iter().zip(&spec.grid) {
            if let Err(err) = eval_expr(e, &vars) {
                return Err(broken(
                    "grid",
                    None,
                    format!("grid {axis} `{e}` at size {i}: {err}"),
                ));
            }
        }
    }
    Ok(())
}

fn check_tolerance(spec: &KernelTask) -> Result<(), Broken> {
    let float_outputs = spec
        .buffers
        .iter()
        .any(|b| b.role != Role::In && is_float(b.dtype));
    if spec.precision.is_some() && !float_outputs {
        return Err(broken(
            "precision",
            None,
            "the task has no float output for a precision to apply to".into(),
        ));
    }
    let Some(tol) = spec.tolerance else {
        // Each output's default is inside its own precision's range; a declared precision
        // coarser than an output's type needs its tolerance written out.
        if let Some(p) = spec.precision {
            for b in spec
                .buffers
                .iter()
                .filter(|b| b.role != Role::In && is_float(b.dtype))
            {
                if let Some(why) = rtol_fits(p, Tolerance::default_for(b.dtype).rtol) {
                    return Err(broken(
                        "tolerance",
                        None,
                        format!(
                            "the default for `{}` does not fit `precision: {}`: {why}",
                            b.name,
                            p.name()
                        ),
                    ));
                }
            }
        }
        return Ok(());
    };
    if !(tol.atol.is_finite() && tol.rtol.is_finite() && tol.atol >= 0.0 && tol.rtol >= 0.0) {
        return Err(broken(
            "tolerance",
            None,
            format!(
                "atol and rtol must be finite and >= 0 (got {} and {})",
                tol.atol, tol.rtol
            ),
        ));
    }
    // rtol 0 asks for an absolute (or exact) comparison: data movement, integer-valued results.
    match precision_of(spec) {
        Some(p) if float_outputs && tol.rtol > 0.0 => match rtol_fits(p, tol.rtol) {
            Some(why) => Err(broken(
                "tolerance",
                None,
                format!("{why} (precision {})", p.name()),
            )),
            None => Ok(()),
        },
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(extra: serde_json::Value) -> KernelTask {
        let mut v = serde_json::json!({
            "id": "t", "prompt": "p", "reference": "r.cu",
            "signature": "void t(const float* in, float* out, int rows, int cols)",
            "buffers": [
                {"name": "in", "dtype": "f32", "len": "rows * cols", "role": "in"},
                {"name": "out", "dtype": "f32", "len": "rows * cols", "role": "out"}
            ],
            "scalars": {"rows": "rows", "cols": "cols"},
            "sizes": [{"rows": 4, "cols": 8}, {"rows": 1, "cols": 1}],
            "grid": ["1", "1", "1"], "block": ["1", "1", "1"]
        });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn plans_are_a_cuda_or_hip_tasks_with_bounded_steps_and_scratch() {
        use serde_json::json;
        assert_eq!(check(&task(json!({}))).map(|_| ()), Ok(()));
        let ok = task(
            json!({"plans": {"max_steps": 3, "max_scratch_bytes": "4 * rows * cols", "library": ["gemm"]}}),
        );
        assert_eq!(check(&ok), Ok(()));
        let limits = ok.plans.unwrap();
        assert_eq!(limits.library, vec![aorlta_record::LibraryKind::Gemm]);
        // Defaults: four steps, no scratch, no library.
        let d = task(json!({"plans": {}})).plans.unwrap();
        assert_eq!(
            (d.max_steps, d.max_scratch_bytes.as_str(), d.library.len()),
            (4, "0", 0)
        );
        let cases = [
            (json!({"plans": {"max_steps": 0}}), "max_steps", "it is 1 to 16"),
            (json!({"plans": {"max_steps": 17}}), "max_steps", "it is 1 to 16"),
            (
                json!({"plans": {"max_scratch_bytes": "rows - 10"}}),
                "max_scratch_bytes",
                "never negative",
            ),
            (
                json!({"plans": {"max_scratch_bytes": "nope"}}),
                "max_scratch_bytes",
                "at size 0",
            ),
            (
                json!({"plans": {"library": ["gemm", "gemm"]}}),
                "library",
                "twice",
            ),
            (
                json!({"plans": {}, "language": "triton", "block": ["", "", ""]}),
                "plans",
                "Triton",
            ),
        ];
        for (extra, field, says) in cases {
            let e = check(&task(extra.clone())).unwrap_err();
            assert_eq!(e.field, field, "{extra}: {}", e.describe());
            assert!(e.message.contains(says), "{extra}: {}", e.describe());
        }
        let text = "id: t\nplans:\n  max_steps: 0\n";
        let e = check(&task(json!({"plans": {"max_steps": 0}}))).unwrap_err();
        assert_eq!(e.line(text), 3);
    }

    #[test]
    fn timed_sizes_name_each_existing_size_once() {
        assert_eq!(check(&task(serde_json::json!({"timed_sizes": [1, 0]}))), Ok(()));
        assert_eq!(
            task(serde_json::json!({"timed_sizes": [1, 0]})).timed(),
            vec![1, 0]
        );
        assert_eq!(task(serde_json::json!({})).timed(), vec![0]);
        let e = check(&task(serde_json::json!({"timed_sizes": [0, 2]}))).unwrap_err();
        assert_eq!(e.field, "timed_sizes");
        assert!(
            e.message.contains("size 2 is not among the task's 2 sizes"),
            "{}",
            e.message
        );
        let e = check(&task(serde_json::json!({"timed_sizes": [1, 1]}))).unwrap_err();
        assert!(e.message.contains("named twice"), "{}", e.message);
        let text = "id: t\nsizes:\n  - {n: 1}\ntimed_sizes: [0, 2]\n";
        assert_eq!(e.line(text), 4);
    }

    #[test]
    fn a_tolerance_loose_enough_for_a_coarser_precision_is_refused_unless_declared() {
        assert_eq!(check(&task(serde_json::json!({}))), Ok(()));
        let loose = serde_json::json!({"tolerance": {"atol": 1e-5, "rtol": 1e-3}});
        let e = check(&task(loose.clone())).unwrap_err();
        assert_eq!(e.field, "tolerance");
        assert!(e.message.contains("tf32"), "{}", e.message);
        let mut declared = loose;
        declared["precision"] = "tf32".into();
        assert_eq!(check(&task(declared)), Ok(()));
        // Exact comparisons stay legal.
        assert_eq!(
            check(&task(
                serde_json::json!({"tolerance": {"atol": 0.0, "rtol": 0.0}})
            )),
            Ok(())
        );
        let e = check(&task(serde_json::json!({"precision": "bf16"}))).unwrap_err();
        assert!(e.message.contains("default for `out`"), "{}", e.message);
    }

    #[test]
    fn a_triton_task_binds_its_compile_and_writes_no_block() {
        let triton = |extra: serde_json::Value| {
            let mut t = task(extra);
            t.language = KernelLanguage::Triton;
            t.block = Default::default();
            t
        };
        let grid = serde_json::json!({"grid": ["ceil_div(rows * cols, BLOCK)", "1", "1"],
            "triton": {"constexprs": {"BLOCK": [1024, 256]}}});
        assert_eq!(check(&triton(grid.clone())), Ok(()));
        let mut with_block = triton(grid.clone());
        with_block.block = ["128".into(), "1".into(), "1".into()];
        assert_eq!(check(&with_block).unwrap_err().field, "block");
        let e = check(&triton(
            serde_json::json!({"grid": ["ceil_div(rows, BLOCK)", "1", "1"]}),
        ))
        .unwrap_err();
        assert!(e.message.contains("BLOCK"), "{}", e.message);
        for bad in [
            serde_json::json!({"constexprs": {"rows": [1]}}),
            serde_json::json!({"constexprs": {"BLOCK": []}}),
            serde_json::json!({"num_warps": [3]}),
            serde_json::json!({"num_stages": [0]}),
        ] {
            let e = check(&triton(serde_json::json!({"triton": bad}))).unwrap_err();
            assert_eq!(e.field, "triton", "{}", e.message);
        }
        let e = check(&task(serde_json::json!({"triton": {}}))).unwrap_err();
        assert!(e.message.contains("language: triton"), "{}", e.message);
        let mut no_block = task(serde_json::json!({}));
        no_block.block = Default::default();
        assert_eq!(check(&no_block).unwrap_err().field, "block");
    }

    #[test]
    fn specials_rows_and_domains_are_checked_with_their_buffer() {
        let mut t = task(serde_json::json!({}));
        t.buffers[1].special = vec![aorlta_record::Special::Nan];
        let e = check(&t).unwrap_err();
        assert_eq!((e.field, e.buffer.as_deref()), ("special", Some("out")));
        let mut t = task(serde_json::json!({}));
        t.buffers[0].row = Some("cols - 1".into());
        let e = check(&t).unwrap_err();
        assert!(e.message.contains("is 0 at size 1"), "{}", e.message);
        let mut t = task(serde_json::json!({}));
        t.buffers[0].init = Init::Uniform { lo: 2.0, hi: 1.0 };
        assert_eq!(check(&t).unwrap_err().field, "init");
    }

    #[test]
    fn the_signature_must_be_the_buffers_and_scalars() {
        let sig = |s: &str| task(serde_json::json!({"signature": s}));
        let cases: [(KernelTask, &str, Option<&str>, &str); 9] = [
            (
                sig("void t(const float* in, __half* out, int rows, int cols)"),
                "dtype",
                Some("out"),
                "`__half*`",
            ),
            (
                sig("void t(const float* in, float* out, int rows)"),
                "scalars",
                None,
                "3 parameters",
            ),
            (
                sig("void t(const float* in, const float* out, int rows, int cols)"),
                "role",
                Some("out"),
                "const float*",
            ),
            (
                sig("void t(const float* in, float* out, int rows, int n)"),
                "signature",
                None,
                "`n`",
            ),
            (
                sig("void t(const float* in, float out, int rows, int cols)"),
                "name",
                Some("out"),
                "not a pointer",
            ),
            (
                sig("void t(const float* in, float* out, int rows, __half cols)"),
                "scalars",
                None,
                "`cols`",
            ),
            (
                sig("void t(const float* in, float* out, int rows, int rows)"),
                "signature",
                None,
                "twice",
            ),
            (
                sig("void t(const float*, float* out, int rows, int cols)"),
                "signature",
                None,
                "no name",
            ),
            (
                {
                    let mut t = task(serde_json::json!({}));
                    t.buffers[0].role = Role::Inout;
                    t
                },
                "role",
                Some("in"),
                "`inout`",
            ),
        ];
        for (t, field, buffer, says) in cases {
            let e = check(&t).unwrap_err();
            assert_eq!(
                (e.field, e.buffer.as_deref()),
                (field, buffer),
                "{}: {}",
                t.signature,
                e.message
            );
            assert!(e.message.contains(says), "{}: {}", t.signature, e.message);
        }
        // A scalar no parameter names.
        let mut t = sig("void t(const float* in, float* out, int rows, int cols)");
        t.scalars.insert("extra".into(), "rows".into());
        let e = check(&t).unwrap_err();
        assert_eq!(e.field, "scalars", "{}", e.message);
        assert!(e.message.contains("`extra`"), "{}", e.message);
        t.signature = "void t(const float* in, float* out, int rows, int cols, int n)".into();
        let e = check(&t).unwrap_err();
        assert!(e.message.contains("`n`"), "{}", e.message);
        t.signature = "void t(const float* in, float* out, int rows, int cols, int extra)".into();
        assert_eq!(check(&t), Ok(()));
        // What a buffer of each dtype may point to; an input need not be `const`.
        let mut t = sig("void t(float* in, __half* out, int rows, int cols)");
        t.buffers[1].dtype = Dtype::F16;
        t.tolerance = Some(Tolerance {
            atol: 1e-3,
            rtol: 1e-3,
        });
        assert_eq!(check(&t), Ok(()));
        t.buffers[1].dtype = Dtype::Bf16;
        let e = check(&t).unwrap_err();
        assert!(e.message.contains("__nv_bfloat16"), "{}", e.message);
    }

    #[test]
    fn every_expression_evaluates_on_every_size_and_a_bad_len_is_len() {
        let mut t = task(serde_json::json!({}));
        t.buffers[0].len = "rows * ncols".into();
        let e = check(&t).unwrap_err();
        assert_eq!(
            (e.field, e.buffer.as_deref()),
            ("len", Some("in")),
            "{}",
            e.message
        );
        assert!(e.message.contains("ncols"), "{}", e.message);
        let mut t = task(serde_json::json!({}));
        t.buffers[0].len = "rows * (cols - 1)".into();
        let e = check(&t).unwrap_err();
        assert_eq!(e.field, "len", "{}", e.message);
        for (field, edit) in [
            ("grid", serde_json::json!({"grid": ["nrows", "1", "1"]})),
            ("grid", serde_json::json!({"grid": ["rows - 4", "1", "1"]})),
            ("block", serde_json::json!({"block": ["256", "cols / 0", "1"]})),
            ("shared_bytes", serde_json::json!({"shared_bytes": "0 - cols"})),
            (
                "scalars",
                serde_json::json!({"scalars": {"rows": "nrows", "cols": "cols"}}),
            ),
        ] {
            let e = check(&task(edit.clone())).unwrap_err();
            assert_eq!(e.field, field, "{edit}: {}", e.message);
        }
    }

    #[test]
    fn a_task_without_an_output_or_with_an_empty_one_is_refused() {
        let mut t = task(serde_json::json!({}));
        t.buffers[1].role = Role::In;
        let e = check(&t).unwrap_err();
        assert_eq!((e.field, e.buffer.as_deref()), ("buffers", None));
        assert!(e.message.contains("no output buffer"), "{}", e.message);
        let mut t = task(serde_json::json!({}));
        t.buffers.pop();
        assert_eq!(check(&t).unwrap_err().field, "buffers");
        // An output of length 0 on one size (`rows * cols` is 1 on size 1, 0 here).
        for len in ["0", "rows * cols - 1"] {
            let mut t = task(serde_json::json!({}));
            t.buffers[1].len = len.into();
            t.buffers[1].row = Some("1".into());
            let e = check(&t).unwrap_err();
            assert_eq!((e.field, e.buffer.as_deref()), ("len", Some("out")), "{len}");
            assert!(e.message.contains("is 0 at size"), "{len}: {}", e.message);
        }
        // An inout buffer is an output too.
        let mut t = task(serde_json::json!({}));
        t.buffers[1].role = Role::Inout;
        t.buffers[1].len = "0".into();
        t.buffers[1].row = Some("1".into());
        assert_eq!(check(&t).unwrap_err().field, "len");
        // A length that does not evaluate, or is negative, is refused on any buffer.
        let mut t = task(serde_json::json!({}));
        t.buffers[0].len = "rows - 9".into();
        t.buffers[0].row = Some("1".into());
        let e = check(&t).unwrap_err();
        assert_eq!((e.field, e.buffer.as_deref()), ("len", Some("in")));
        let mut t = task(serde_json::json!({}));
        t.buffers[1].len = "depth".into();
        assert_eq!(check(&t).unwrap_err().field, "len");
    }

    #[test]
    fn a_broken_rule_finds_its_line_in_the_file() {
        let text = "id: t\nbuffers:\n  - {name: a, dtype: f32}\n  - name: out\n    dtype: f32\n    special: [nan]\ntolerance: {atol: 1.0, rtol: 0.5}\n";
        let b = broken("special", Some("out"), String::new());
        assert_eq!(b.line(text), 6);
        assert_eq!(broken("tolerance", None, String::new()).line(text), 7);
        assert_eq!(broken("precision", None, String::new()).line(text), 0);
    }
}
