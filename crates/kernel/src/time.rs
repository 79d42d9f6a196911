//! `kernel-time` (leg `ref.speedup`): the candidate timed against the reference on one leased
//! GPU by the per-launch protocol of docs/VALIDATION.md (the harness's timing plan), then judged
//! by the timing judge (docs/JUDGE.md). The state and the reason code are the verdict's; a mismatch in any
//! timed launch is broke `timed-launch-mismatch`, never a speedup.
//!
//! The leg's detail is the judge's measurement record (top-level `s` and `ratio`, which the
//! speedup reward reads) with the harness's facts beside it: order and input seeds, budget and
//! budget used, device name and UUID, driver and compiler versions, clocks at start and end,
//! the geometry, the harness's overhead per launch; the raw pairs only with `keep-samples`.
//!
//! Parameters: the judge's (`ratio`, `min-floor`, `max-noise`, `min-samples`, `confidence`,
//! `resamples`, `seed`, `keep-samples`) and the harness's: `pairs` (30), `budget-s` (0.3: the
//! kernel time, measured by the events, that both kernels together may spend; host-side work
//! such as restoring inputs is not counted), `size` (one size to time; unset, the task's
//! `timed_sizes`, each judged and the verdict on their geometric mean: docs/JUDGE.md), `launch-timeout-s`
//! (10), `looks` ([10, 16, 24, 30]: the pair counts at which the judge looks and the timing stops
//! once the verdict is settled, with the error split across the looks; see
//! [`aorlta_judge::sequential`]). A candidate that cannot finish `min-samples` pairs inside the
//! budget is `too-slow-to-measure`; a task whose reference takes milliseconds needs a larger
//! budget.

use super::exec::{RefBuilt, compile_both, findings_outcome, inputs, run_job};
use crate::env::KernelTools;
use crate::reason::KernelReason;
use aorlta_check::Task;
use aorlta_check::{Adapter, Env, LegInput, LegOutput};
use aorlta_judge::{
    DEFAULT_LOOKS, JUDGE_VERSION, JudgeParams, Looked, Measurement, Pair, RunFacts, SizeRun, TooSlow,
    judge_looks, judge_sizes, looks_for, per_look,
};
use aorlta_record::Reason;
use aorlta_record::{TimeReport, TimeWork, Work};
use serde_json::{Map, Value, json};

/// Bumped whenever the timing leg's results can change.
pub(crate) const VERSION: &str = "2";

/// The harness's part of the parameters.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct TimeParams {
    /// Pairs to take when the budget allows.
    pub pairs: usize,
    /// Kernel seconds both kernels may spend together.
    pub budget_s: f64,
    /// The one size index to time (`size`); unset, the task's timed sizes.
    pub size: Option<usize>,
    /// A launch still running after this many seconds is `hung`.
    pub launch_timeout_s: f64,
    /// Pair counts at which the judge looks and the timing may stop (the last look is `pairs`).
    pub looks: Vec<usize>,
    /// The judge's parameters.
    pub judge: JudgeParams,
    /// Both sides of each pair under the same conditions ([`TimeWork::symmetric`]).
    pub symmetric: bool,
    /// What the candidate is timed against.
    pub baseline: Baseline,
}

/// What a candidate is timed against (`baseline`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Baseline {
    /// The task's reference as written: its kernel, or its PyTorch module run eagerly
    /// (`reference`, or `torch-eager`).
    Reference,
    /// The task's PyTorch module compiled by `torch.compile` in the reference process (its
    /// compile time never counted); only for a task whose reference is a module.
    TorchCompile,
}

impl Default for TimeParams {
    fn default() -> Self {
        TimeParams {
            pairs: 30,
            budget_s: 0.3,
            size: None,
            launch_timeout_s: 10.0,
            looks: DEFAULT_LOOKS.to_vec(),
            judge: JudgeParams::default(),
            // Both sides alike unless a profile turns it off: the A/A runs of 2026-12-05 on an
            // H100 measured the candidate's side 1.8-2.3% slower at 2^20 without it and within
            // 0.2% with it (docs/runs/2026-12-05-sides-h100.md).
            symmetric: true,
            baseline: Baseline::Reference,
        }
    }
}

/// Reads the parameters: the harness's keys, the rest the judge's (unknown keys are errors).
pub(crate) fn parse_params(value: &Value) -> Result<TimeParams, String> {
    let mut map: Map<String, Value> = match value {
        Value::Null => Map::new(),
        Value::Object(m) => m.clone(),
        _ => return Err("parameters must be a mapping".into()),
    };
    let mut p = TimeParams::default();
    let num = |v: Value, key: &str| v.as_f64().ok_or_else(|| format!("`{key}` must be a number"));
    let count = |v: Value, key: &str| {
        v.as_u64()
            .map(|n| n as usize)
            .ok_or_else(|| format!("`{key}` must be a whole number"))
    };
    if let Some(v) = map.remove("pairs") {
        p.pairs = count(v, "pairs")?;
    }
    if let Some(v) = map.remove("budget-s") {
        p.budget_s = num(v, "budget-s")?;
    }
    if let Some(v) = map.remove("size") {
        p.size = Some(count(v, "size")?);
    }
    if let Some(v) = map.remove("launch-timeout-s") {
        p.launch_timeout_s = num(v, "launch-timeout-s")?;
    }
    if let Some(v) = map.remove("symmetric") {
        p.symmetric = v.as_bool().ok_or("`symmetric` must be true or false")?;
    }
    if let Some(v) = map.remove("baseline") {
        p.baseline = match v.as_str() {
            Some("reference" | "torch-eager") => Baseline::Reference,
            Some("torch-compile") => Baseline::TorchCompile,
            _ => return Err("`baseline` must be `reference`, `torch-eager` or `torch-compile`".into()),
        };
    }
    if let Some(v) = map.remove("looks") {
        p.looks = serde_json::from_value(v).map_err(|_| "`looks` must be a list of whole numbers")?;
        if p.looks.windows(2).any(|w| w[0] >= w[1]) {
            return Err("`looks` must increase".into());
        }
    }
    p.judge = serde_json::from_value(Value::Object(map)).map_err(|e| e.to_string())?;
    p.judge.validate().map_err(|e| e.to_string())?;
    if p.pairs < p.judge.min_samples {
        return Err(format!(
            "`pairs` ({}) is below `min-samples` ({})",
            p.pairs, p.judge.min_samples
        ));
    }
    if !(p.budget_s > 0.0 && p.launch_timeout_s > 0.0) {
        return Err("`budget-s` and `launch-timeout-s` must be positive".into());
    }
    Ok(p)
}

/// `kernel-time`.
pub struct KernelTime;

impl Adapter for KernelTime {
    fn sources(&self) -> Option<String> {
        Some(crate::identity::with_harness())
    }
    fn name(&self) -> &'static str {
        "kernel-time"
    }
    fn version(&self) -> &'static str {
        VERSION
    }
    fn check_params(&self, p: &Value) -> Result<(), String> {
        parse_params(p).map(|_| ())
    }
    fn identity(&self, task: &Task, _params: &Value, env: &Env) -> String {
        let host = env.kernel().map(|k| k.host_fingerprint()).unwrap_or_default();
        format!(
            "{};judge={JUDGE_VERSION};{host}",
            super::run::harness_identity(task, env)
        )
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        crate::exec::labelled(input, time_leg(input))
    }
}

fn time_leg(input: &LegInput<'_>) -> LegOutput {
    let p = match parse_params(input.params) {
        Ok(p) => p,
        Err(e) => return LegOutput::unsettled(KernelReason::BadParams, e),
    };
    let i = match inputs(input) {
        Ok(i) => i,
        Err(o) => return o,
    };
    // A profile's `size` times that size alone; else the task's timed sizes.
    let sizes = p.size.map_or_else(|| i.task.spec.timed(), |s| vec![s]);
    if let Some(&bad) = sizes.iter().find(|&&s| s >= i.task.spec.sizes.len()) {
        return LegOutput::unsettled(
            KernelReason::BadParams,
            format!("size {bad}: the task has {}", i.task.spec.sizes.len()),
        );
    }
    let (mut reference, candidate) = match compile_both(&i) {
        Ok(c) => c,
        Err(o) => return o,
    };
    if p.baseline == Baseline::TorchCompile {
        match &mut reference {
            RefBuilt::Torch(t) => t.compile = true,
            RefBuilt::Kernel(_) => {
                return LegOutput::unsettled(
                    KernelReason::BadParams,
                    "`baseline: torch-compile` needs a task whose reference is a PyTorch module",
                );
            }
        }
    }
    let purpose = format!("{}/{}/time", i.task.spec.id, aorlta_check::hash_str(i.source));
    let looks = looks_for(&p.looks, p.judge.min_samples, p.pairs);
    let launch_timeout = if i.env.is_fake() {
        p.launch_timeout_s.min(0.3)
    } else {
        p.launch_timeout_s
    };
    let deadline = 60.0 + 3.0 * p.budget_s + 2.0 * launch_timeout + p.pairs as f64 * 0.5;
    let facts = json!({
        "pairs_asked": p.pairs,
        "compiler": i.env.compiler_version().unwrap_or("none"),
        "target": super::compile::target_label(i.task, i.env),
        "baseline": match (&reference, p.baseline) {
            (RefBuilt::Kernel(_), _) => "reference-kernel",
            (RefBuilt::Torch(_), Baseline::Reference) => "torch-eager",
            (RefBuilt::Torch(_), Baseline::TorchCompile) => "torch-compile",
        },
    });
    let mut timed = Vec::with_capacity(sizes.len());
    for &size in &sizes {
        let work = TimeWork {
            size,
            pairs: p.pairs,
            min_pairs: p.judge.min_samples,
            budget_s: p.budget_s,
            order_seed: i.env.next_seed(&purpose),
            input_seed: i.env.next_seed(&purpose),
            keep_launches: p.judge.keep_samples,
            looks: looks.clone(),
            judge: serde_json::to_value(&p.judge).unwrap_or_default(),
            symmetric: p.symmetric,
        };
        let rec = match run_job(
            &i,
            &reference,
            Some(&candidate),
            Work::Time(work.clone()),
            launch_timeout,
            deadline,
        ) {
            Ok(r) => r,
            Err(o) => return o,
        };
        let run_facts = json!({
            "order_seed": work.order_seed,
            "input_seed": work.input_seed,
            "device": rec.device.as_ref().map(|d| json!({"name": d.name, "uuid": d.uuid, "driver": d.driver, "cuda_driver_api": d.cuda_driver_api})),
            "harness_s": rec.elapsed_s,
        });
        let stopped = |mut d: Value| {
            extend(&mut d, run_facts.clone());
            if sizes.len() > 1 {
                d["size"] = json!(size);
            }
            d
        };
        if let Some(o) = findings_outcome(&rec) {
            let mut d = stopped(facts);
            if let Some(t) = &rec.time {
                d["timed_pairs_before_stop"] = json!(t.pairs.len());
            }
            return o.with_detail(d);
        }
        let Some(t) = rec.time else {
            return LegOutput::unsettled(
                KernelReason::HarnessIncomplete,
                "the harness returned no timing and no finding",
            )
            .with_detail(stopped(facts));
        };
        timed.push((t, run_facts));
    }
    let mut runs = Vec::with_capacity(timed.len());
    let mut per_size = Vec::with_capacity(timed.len());
    for (t, run_facts) in &timed {
        let pairs: Vec<Pair> = t
            .pairs
            .iter()
            .map(|q| Pair::new(q.candidate_s, q.reference_s))
            .collect();
        let facts_of_run = RunFacts {
            throttled: t.throttled,
            too_slow: t.budget_stop.map(|b| TooSlow {
                candidate_lower_bound_s: b.candidate_lower_bound_s,
                reference_median_s: b.reference_median_s,
                launches_done: b.launches_done,
                budget_s: t.budget_s,
            }),
        };
        let looked = judge_looks(&pairs, &facts_of_run, &p.judge, &looks);
        let mut record = as_map(&looked.measurement);
        record.extend(harness_facts(t, &looked, p.judge.keep_samples));
        if let Value::Object(f) = run_facts {
            record.extend(f.clone());
        }
        per_size.push(record);
        runs.push(SizeRun {
            size: t.size,
            pairs,
            measurement: looked.measurement,
        });
    }
    // One size: its own measurement (judge_sizes answers it unchanged) and its record, as it
    // always was. Several: the geometric mean's, at the per-look parameters every look used.
    let each = per_look(&p.judge, looks.len());
    let m = judge_sizes(&runs, &each);
    let mut detail = match <[_; 1]>::try_from(per_size) {
        Ok([record]) => record,
        Err(per_size) => {
            let mut record = as_map(&m);
            record.insert("looks".into(), json!(looks));
            record.insert("confidence_per_look".into(), json!(each.confidence));
            record.insert("timed_sizes".into(), json!(sizes));
            record.insert(
                "sizes".into(),
                Value::Array(per_size.into_iter().map(Value::Object).collect()),
            );
            record
        }
    };
    if let Value::Object(f) = facts {
        for (k, v) in f {
            detail.entry(k).or_insert(v);
        }
    }
    LegOutput {
        state: m.verdict.state(),
        reasons: vec![Reason::new(m.verdict.code(), m.detail.clone())],
        detail: Some(Value::Object(detail)),
        extracted: None,
    }
}

fn extend(facts: &mut Value, more: Value) {
    if let (Value::Object(f), Value::Object(m)) = (facts, more) {
        f.extend(m);
    }
}

fn as_map(m: &Measurement) -> Map<String, Value> {
    match serde_json::to_value(m) {
        Ok(Value::Object(o)) => o,
        _ => Map::new(),
    }
}

/// What the harness saw while timing one size, beside the judge's record of it.
fn harness_facts(t: &TimeReport, looked: &Looked, keep_samples: bool) -> Map<String, Value> {
    let mut h = Map::new();
    let facts = json!({
        "looks": looked.looks,
        "settled_at": looked.settled_at,
        "confidence_per_look": looked.confidence_per_look,
        "cut": t.cut,
        "budget_s": t.budget_s,
        "budget_used_s": t.budget_used_s,
        "clocks_start": t.clocks_start,
        "clocks_end": t.clocks_end,
        "verified_launches": t.verified_launches,
        "l2_flush_bytes": t.l2_flush_bytes,
        "candidate_geometry": t.candidate_geometry,
        "reference_geometry": t.reference_geometry,
        "overhead": t.overhead,
        "size": t.size,
    });
    if let Value::Object(f) = facts {
        h.extend(f);
    }
    if keep_samples {
        h.insert("timed_pairs".into(), json!(t.pairs));
        h.insert("launches".into(), json!(t.launches));
    }
    h
}

#[cfg(test)]
mod params_tests {
    use super::parse_params;
    use serde_json::json;

    #[test]
    fn symmetric_is_on_unless_turned_off_and_must_be_a_boolean() {
        assert!(parse_params(&json!({})).unwrap().symmetric);
        assert!(!parse_params(&json!({"symmetric": false})).unwrap().symmetric);
        assert!(parse_params(&json!({"symmetric": true})).unwrap().symmetric);
        let e = parse_params(&json!({"symmetric": "yes"})).unwrap_err();
        assert!(e.contains("`symmetric`"), "{e}");
    }

    #[test]
    fn the_baseline_is_the_reference_as_written_unless_torch_compile_is_named() {
        use super::Baseline;
        assert_eq!(parse_params(&json!({})).unwrap().baseline, Baseline::Reference);
        for (v, want) in [
            ("reference", Baseline::Reference),
            ("torch-eager", Baseline::Reference),
            ("torch-compile", Baseline::TorchCompile),
        ] {
            assert_eq!(
                parse_params(&json!({"baseline": v})).unwrap().baseline,
                want,
                "{v}"
            );
        }
        let e = parse_params(&json!({"baseline": "cudnn"})).unwrap_err();
        assert!(e.contains("`baseline`"), "{e}");
    }
}
