//! Running a kernel leg straight on a kernel source, without a completion or a `parse` leg: what
//! `aorlta timecheck` and `aorlta bench kernels` do with candidate files (`aorlta validate` runs
//! whole profiles through the engine instead: `aorlta_core::run::validation`).

use aorlta_check::Task;
use aorlta_check::{Adapter, Env, LegInput};
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
