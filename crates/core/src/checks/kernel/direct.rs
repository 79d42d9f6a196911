//! Running a kernel leg straight on a kernel source, without a completion or a `parse` leg: what
//! `aorlta timecheck`, `aorlta validate` and `aorlta bench kernels` do with candidate files.

use crate::checks::{Adapter, Env, LegInput};
use crate::task::Task;
use aorlta_record::LegResult;
use std::time::Instant;

/// Runs `adapter` as leg `leg` on `source` for `task`, and returns its result with the time it
/// took.
pub fn run_leg(
    leg: &str,
    adapter: &dyn Adapter,
    task: &Task,
    source: &str,
    params: &serde_json::Value,
    env: &Env,
) -> LegResult {
    let start = Instant::now();
    let input = LegInput {
        leg,
        params,
        task,
        completion: source,
        extracted: Some(source),
        env,
    };
    let out = adapter.run(&input);
    LegResult {
        name: leg.to_string(),
        adapter: adapter.name().to_string(),
        state: out.state,
        reasons: out.reasons,
        informational: false,
        detail: out.detail,
        elapsed_s: start.elapsed().as_secs_f64(),
        cached: false,
    }
}

/// Merges `over` into `base` (both JSON objects; `null` is empty): keys of `over` win.
pub fn merge_params(base: &serde_json::Value, over: &serde_json::Value) -> serde_json::Value {
    let mut out = match base {
        serde_json::Value::Object(m) => m.clone(),
        _ => serde_json::Map::new(),
    };
    if let serde_json::Value::Object(m) = over {
        for (k, v) in m {
            out.insert(k.clone(), v.clone());
        }
    }
    serde_json::Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn merging_overrides_keys() {
        let m = merge_params(&json!({"ratio": 1.1, "pairs": 30}), &json!({"ratio": 1.0}));
        assert_eq!(m, json!({"ratio": 1.0, "pairs": 30}));
        assert_eq!(
            merge_params(&serde_json::Value::Null, &json!({"a": 1})),
            json!({"a": 1})
        );
        assert_eq!(
            merge_params(&json!({"a": 1}), &serde_json::Value::Null),
            json!({"a": 1})
        );
    }
}
