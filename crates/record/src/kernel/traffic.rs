//! What one launch of a task moves and computes: the bytes to and from device memory and the
//! floating-point operations, at a problem size. Both may be declared by the task (`bytes`,
//! `flops`, expressions of the size variables); without a declaration the bytes are those of
//! its buffers (every input read once, every output written once, an `inout` buffer both) and
//! the operations are unknown. The timing feedback divides them by the measured time to give
//! the achieved bandwidth and FLOP/s.

use super::expr::{ExprError, eval_count};
use super::{Dtype, KernelTask, Role};
use std::collections::BTreeMap;

/// Bytes of one element of a dtype.
pub(crate) fn dtype_bytes(d: Dtype) -> u64 {
    match d {
        Dtype::F16 | Dtype::Bf16 => 2,
        Dtype::F32 | Dtype::I32 | Dtype::U32 => 4,
        Dtype::I64 => 8,
    }
}

/// Bytes one launch moves at a size: the task's `bytes`, else its buffers' (each input read
/// once, each output written once, an `inout` buffer read and written).
pub fn traffic_bytes(spec: &KernelTask, vars: &BTreeMap<String, i64>) -> Result<u64, ExprError> {
    if let Some(e) = &spec.bytes {
        return eval_count(e, vars);
    }
    let mut total: u64 = 0;
    for b in &spec.buffers {
        let n = eval_count(&b.len, vars)?.saturating_mul(dtype_bytes(b.dtype));
        let times = if b.role == Role::Inout { 2 } else { 1 };
        total = total.saturating_add(n.saturating_mul(times));
    }
    Ok(total)
}

/// Floating-point operations one launch does at a size, when the task declares them.
pub fn traffic_flops(spec: &KernelTask, vars: &BTreeMap<String, i64>) -> Option<Result<u64, ExprError>> {
    spec.flops.as_ref().map(|e| eval_count(e, vars))
}

/// Checks the declarations on every size: the field (`bytes` or `flops`) and why, for the first
/// that does not evaluate to a count.
pub fn check_traffic(spec: &KernelTask) -> Result<(), (&'static str, String)> {
    for (i, size) in spec.sizes.iter().enumerate() {
        for (field, e) in [("bytes", &spec.bytes), ("flops", &spec.flops)] {
            if let Some(e) = e
                && let Err(err) = eval_count(e, size)
            {
                return Err((field, format!("at size {i}: {err}")));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn task(extra: serde_json::Value) -> KernelTask {
        let mut v = serde_json::json!({
            "id": "axpy", "prompt": "p", "reference": "r.cu",
            "signature": "void axpy(const float* x, float* y, int n)",
            "buffers": [
                {"name": "x", "dtype": "f32", "len": "n", "role": "in"},
                {"name": "y", "dtype": "f16", "len": "n", "role": "inout"}
            ],
            "scalars": {"n": "n"}, "sizes": [{"n": 1000}],
            "grid": ["ceil_div(n, 256)", "1", "1"], "block": ["256", "1", "1"]
        });
        for (k, x) in extra.as_object().unwrap() {
            v[k] = x.clone();
        }
        serde_json::from_value(v).unwrap()
    }

    #[test]
    fn bytes_default_to_the_buffers_and_a_declaration_wins() {
        let t = task(serde_json::json!({}));
        let size = &t.sizes[0];
        // x read (4 000) + y read and written (2 × 2 000).
        assert_eq!(traffic_bytes(&t, size).unwrap(), 8_000);
        assert!(traffic_flops(&t, size).is_none());
        let t = task(serde_json::json!({"bytes": "3 * n", "flops": "2 * n"}));
        assert_eq!(traffic_bytes(&t, &t.sizes[0]).unwrap(), 3_000);
        assert_eq!(traffic_flops(&t, &t.sizes[0]).unwrap().unwrap(), 2_000);
        assert!(check_traffic(&t).is_ok());
        let t = task(serde_json::json!({"flops": "2 * m"}));
        let (field, why) = check_traffic(&t).unwrap_err();
        assert_eq!(field, "flops");
        assert!(why.contains("at size 0"), "{why}");
    }
}
