//! The one door a leg runs through: the engine runs a profile's legs with [`run_leg`], and the
//! commands that run an adapter straight on a source (`aorlta task check`, `aorlta timecheck`,
//! `aorlta bench kernels`) run theirs through [`Legs`], which calls the same function. Either
//! way a leg found in the store is served as it was stored, an adapter that panics gives an
//! unsettled `internal-error` naming it, a non-clean output without a reason gets `no-reason`,
//! and what may be stored is stored.

use crate::reason::EngineReason;
use aorlta_check::{Adapter, Env, LegInput, LegOutput, LegRunner, Registry, Task};
use aorlta_record::{LegResult, LegState, Reason};
use aorlta_store::{Cache, CachedLeg};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::Instant;

/// A leg as a profile (or a command) names it.
pub struct Leg<'a> {
    /// The leg's name (`compile`, `ref.speedup`).
    pub name: &'a str,
    /// Its adapter.
    pub adapter: &'a dyn Adapter,
    /// Its parameters (`null` for the adapter's defaults).
    pub params: &'a serde_json::Value,
    /// Whether the leg is informational (reported, never rewarded).
    pub informational: bool,
}

/// Where a leg's result is looked up and stored: the store, the leg's key, and what a batched
/// read already found under it (the engine reads the store once for a batch).
pub struct LegStore<'a> {
    /// The store.
    pub cache: &'a dyn Cache,
    /// The leg's key.
    pub key: &'a str,
    /// The result found under the key, if any: served instead of running the leg.
    pub found: Option<CachedLeg>,
}

/// Runs `leg` on a completion (and what `parse` extracted from it): served from `store` when
/// it holds the result, else run with its panic caught and its reasons checked, and stored
/// there when one is given. Without a store (`None`) nothing is read or written: the caller
/// says so here, as the commands that measure do. Returns the result and the text the leg
/// extracted.
pub fn run_leg(
    leg: &Leg<'_>,
    task: &Task,
    completion: &str,
    extracted: Option<&str>,
    env: &Env,
    mut store: Option<LegStore<'_>>,
) -> (LegResult, Option<String>) {
    let adapter = leg.adapter;
    if let Some(hit) = store.as_mut().and_then(|s| s.found.take()) {
        let result = LegResult {
            name: leg.name.to_string(),
            adapter: adapter.name().to_string(),
            state: hit.state,
            reasons: hit.reasons,
            informational: leg.informational,
            detail: hit.detail,
            elapsed_s: 0.0,
            cached: true,
        };
        return (result, hit.extracted);
    }
    let start = Instant::now();
    let input = LegInput {
        leg: leg.name,
        params: leg.params,
        task,
        completion,
        extracted,
        env,
    };
    let out = catch_unwind(AssertUnwindSafe(|| adapter.run(&input))).unwrap_or_else(|panic| {
        let what = panic
            .downcast_ref::<String>()
            .map(String::as_str)
            .or_else(|| panic.downcast_ref::<&str>().copied())
            .unwrap_or("unknown panic");
        LegOutput::unsettled(
            EngineReason::InternalError,
            format!("adapter `{}` panicked: {what}", adapter.name()),
        )
    });
    let out = ensure_reason(out, adapter.name());
    if let Some(s) = &store {
        s.cache.put_leg(
            s.key,
            &CachedLeg {
                state: out.state,
                reasons: out.reasons.clone(),
                detail: out.detail.clone(),
                extracted: out.extracted.clone(),
            },
        );
    }
    let result = LegResult {
        name: leg.name.to_string(),
        adapter: adapter.name().to_string(),
        state: out.state,
        reasons: out.reasons,
        informational: leg.informational,
        detail: out.detail,
        elapsed_s: start.elapsed().as_secs_f64(),
        cached: false,
    };
    (result, out.extracted)
}

/// Every non-clean state has a reason: an adapter that gives none gets one naming it.
fn ensure_reason(mut out: LegOutput, adapter: &str) -> LegOutput {
    if out.state != LegState::Clean && out.reasons.is_empty() {
        out.reasons.push(Reason::new(
            EngineReason::NoReason.as_str(),
            format!("adapter `{adapter}` gave no reason"),
        ));
    }
    out
}

/// Runs legs straight on sources through [`run_leg`], with the adapters of a registry: what
/// `aorlta task check`, `aorlta timecheck` and `aorlta bench kernels` run their legs with. Those
/// commands measure, so they pass no store: a result served from an earlier run would not be a
/// measurement of this one.
#[derive(Clone)]
pub struct Legs {
    adapters: Registry,
}

impl Legs {
    /// Legs of the adapters in `adapters`.
    pub fn new(adapters: Registry) -> Self {
        Legs { adapters }
    }

    /// Legs of every adapter AORLTA ships ([`crate::lanes::adapters`]).
    pub fn builtin() -> Self {
        Legs::new(crate::lanes::adapters())
    }
}

impl LegRunner for Legs {
    fn run_on_source(
        &self,
        leg: &str,
        adapter: &str,
        task: &Task,
        source: &str,
        params: &serde_json::Value,
        env: &Env,
    ) -> LegResult {
        let Some(found) = self.adapters.get(adapter) else {
            return LegResult::with_state(
                leg,
                adapter,
                LegState::Unsettled,
                Reason::new(
                    EngineReason::InternalError.as_str(),
                    format!("no adapter `{adapter}` is registered"),
                ),
            );
        };
        let leg = Leg {
            name: leg,
            adapter: found.as_ref(),
            params,
            informational: false,
        };
        run_leg(&leg, task, source, Some(source), env, None).0
    }
}
