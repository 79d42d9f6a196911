//! The engine: runs a profile's legs over one candidate, with gating, caching and the reward.
//!
//! Keys (docs/ARCHITECTURE.md, "Cache identity"): a leg's key hashes the task's content hash,
//! the completion's hash, the identity of the sources its adapter's results depend on
//! ([`crate::sources`]), the adapter's name and version, the leg's parameters and the adapter's
//! world identity (compiler, reference, judge, host). An entry's key hashes the sources of the
//! reward functions and profiles, the profile's hash, the task, the completion and every leg's
//! identity, so any change that can change a result changes the key.

use crate::cache::{Cache, CachedLeg};
use crate::checks::{Adapter, Env, LegInput, LegOutput, Registry};
use crate::hash::{hash_parts, hash_str};
use crate::profile::{LegSpec, LoadedProfile};
use crate::reward::{RewardInput, RewardOutcome, RewardRegistry, apply};
use crate::task::{Task, TaskSet};
use aorlta_record::{Candidate, FORMAT_VERSION, LegResult, LegState, Reason, RewardEntry, VersionIdentity};
use std::collections::{BTreeMap, HashMap};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Most memoised leg identities kept before the memo starts over.
const IDENTITY_MEMO_MAX: usize = 100_000;

/// What an engine is made of besides its profile and tasks.
#[derive(Clone)]
pub struct EngineParts {
    /// Adapters by name.
    pub adapters: Registry,
    /// Reward functions by name.
    pub rewards: RewardRegistry,
    /// The result store, if any.
    pub cache: Option<Arc<dyn Cache>>,
    /// Tools and resources.
    pub env: Arc<Env>,
}

impl Default for EngineParts {
    fn default() -> Self {
        EngineParts {
            adapters: Registry::builtin(),
            rewards: RewardRegistry::builtin(),
            cache: None,
            env: Arc::new(Env::default()),
        }
    }
}

/// Runs one profile over candidates. `Send + Sync`; share it in an `Arc`.
pub struct Engine {
    profile: LoadedProfile,
    tasks: Arc<TaskSet>,
    parts: EngineParts,
    /// Adapter per leg, in profile order (resolved once).
    legs: Vec<Arc<dyn Adapter>>,
    /// Memoised leg identities per (task hash, leg index).
    identities: Mutex<HashMap<(String, usize), String>>,
}

impl Engine {
    /// An engine for a checked profile. Panics if the profile names an adapter the registry
    /// lacks (a [`LoadedProfile`] is checked against the same registry).
    pub fn new(profile: LoadedProfile, tasks: Arc<TaskSet>, parts: EngineParts) -> Self {
        let legs = profile
            .profile
            .legs
            .iter()
            .map(|l| {
                parts
                    .adapters
                    .get(&l.adapter)
                    .cloned()
                    .expect("profile checked against registry")
            })
            .collect();
        Engine {
            profile,
            tasks,
            parts,
            legs,
            identities: Mutex::default(),
        }
    }

    /// The profile.
    pub fn profile(&self) -> &LoadedProfile {
        &self.profile
    }

    /// The tasks.
    pub fn tasks(&self) -> &TaskSet {
        &self.tasks
    }

    /// The cache, if any.
    pub fn cache(&self) -> Option<&Arc<dyn Cache>> {
        self.parts.cache.as_ref()
    }

    /// Scores a candidate whose task is in the engine's task set; an unknown task gives an
    /// unscored entry with reason `unknown-task`.
    pub fn score(&self, cand: &Candidate) -> RewardEntry {
        match self.tasks.get(&cand.task) {
            Some(task) => self.score_task(task, cand),
            None => RewardEntry::error(
                &cand.id,
                &cand.task,
                &self.profile.profile.name,
                Reason::new("unknown-task", format!("no task with id `{}`", cand.task)),
            ),
        }
    }

    /// The version identity of leg `i` for a task (memoised).
    fn identity(&self, task: &Task, i: usize) -> String {
        let key = (task.hash.clone(), i);
        if let Some(v) = self
            .identities
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
        {
            return v.clone();
        }
        let spec = &self.profile.profile.legs[i];
        let adapter = &self.legs[i];
        let params = serde_json::to_string(&spec.params).unwrap_or_default();
        let world = adapter.identity(task, &spec.params, &self.parts.env);
        let sources = adapter.sources();
        let id = hash_parts([
            sources.as_bytes(),
            adapter.name().as_bytes(),
            adapter.version().as_bytes(),
            params.as_bytes(),
            world.as_bytes(),
        ]);
        let mut memo = self.identities.lock().unwrap_or_else(|e| e.into_inner());
        if memo.len() >= IDENTITY_MEMO_MAX {
            // Inline tasks can be endless: start over rather than grow without bound.
            memo.clear();
        }
        memo.insert(key, id.clone());
        id
    }

    /// The cache key of an entry for this task and completion (identical items share it).
    pub fn entry_key(&self, task: &Task, completion: &str) -> String {
        self.entry_key_of(task, &hash_str(completion))
    }

    fn entry_key_of(&self, task: &Task, completion_hash: &str) -> String {
        let ids: Vec<String> = (0..self.legs.len()).map(|i| self.identity(task, i)).collect();
        let sources = crate::sources::entry();
        let mut parts: Vec<&[u8]> = vec![
            b"entry",
            sources.as_bytes(),
            self.profile.hash.as_bytes(),
            task.hash.as_bytes(),
            completion_hash.as_bytes(),
        ];
        parts.extend(ids.iter().map(|s| s.as_bytes()));
        hash_parts(parts)
    }

    fn version_identity(&self, task: &Task) -> VersionIdentity {
        let legs: BTreeMap<String, String> = self
            .profile
            .profile
            .legs
            .iter()
            .enumerate()
            .map(|(i, l)| (l.name.clone(), self.identity(task, i)))
            .collect();
        VersionIdentity {
            aorlta: crate::AORLTA_VERSION.to_string(),
            profile: self.profile.hash.clone(),
            legs,
        }
    }

    /// Scores a candidate against a given task (an inline task, or one from the set).
    pub fn score_task(&self, task: &Task, cand: &Candidate) -> RewardEntry {
        let completion_hash = hash_str(&cand.completion);
        let key = self.entry_key_of(task, &completion_hash);
        if let Some(cache) = &self.parts.cache
            && let Some(mut hit) = cache.get_entry(&key)
        {
            hit.id = cand.id.clone();
            hit.elapsed_s = 0.0;
            for leg in &mut hit.legs {
                leg.cached = true;
                leg.elapsed_s = 0.0;
            }
            return hit;
        }
        let start = Instant::now();
        let mut results: Vec<LegResult> = Vec::with_capacity(self.legs.len());
        let mut extracted: Option<String> = None;
        for (i, spec) in self.profile.profile.legs.iter().enumerate() {
            let result = match blocked_by(spec, &results) {
                Some(reason) => LegResult {
                    informational: spec.informational,
                    ..LegResult::with_state(&spec.name, &spec.adapter, LegState::Skipped, reason)
                },
                None => {
                    let (result, text) = self.run_leg(i, task, cand, &completion_hash, extracted.as_deref());
                    if result.state == LegState::Clean && text.is_some() {
                        extracted = text;
                    }
                    result
                }
            };
            results.push(result);
        }
        let input = RewardInput {
            profile: &self.profile.profile,
            legs: &results,
            completion_len: cand.completion.len(),
        };
        let reward_fn = self
            .parts
            .rewards
            .get(&self.profile.profile.reward_fn)
            .expect("profile checked against reward registry");
        let (reward, parts, reasons) = match apply(reward_fn.as_ref(), &input) {
            RewardOutcome::Scored(p) => (Some(p.sum()), Some(p), Vec::new()),
            RewardOutcome::Unscored(r) => (None, None, r),
        };
        let entry = RewardEntry {
            format: FORMAT_VERSION,
            id: cand.id.clone(),
            task: task.id.clone(),
            reward,
            scored: reward.is_some(),
            parts,
            reasons,
            legs: results,
            profile: self.profile.profile.name.clone(),
            reward_fn: reward_fn.name().to_string(),
            version: self.version_identity(task),
            elapsed_s: start.elapsed().as_secs_f64(),
        };
        if let Some(cache) = &self.parts.cache {
            cache.put_entry(&key, &entry);
        }
        entry
    }

    fn run_leg(
        &self,
        i: usize,
        task: &Task,
        cand: &Candidate,
        completion_hash: &str,
        extracted: Option<&str>,
    ) -> (LegResult, Option<String>) {
        let spec = &self.profile.profile.legs[i];
        let adapter = &self.legs[i];
        let leg_key = adapter.cacheable().then(|| {
            let id = self.identity(task, i);
            hash_parts([
                b"leg".as_slice(),
                task.hash.as_bytes(),
                completion_hash.as_bytes(),
                id.as_bytes(),
            ])
        });
        let cache = self.parts.cache.as_ref().filter(|_| leg_key.is_some());
        if let (Some(cache), Some(k)) = (cache, &leg_key)
            && let Some(hit) = cache.get_leg(k)
        {
            let result = LegResult {
                name: spec.name.clone(),
                adapter: spec.adapter.clone(),
                state: hit.state,
                reasons: hit.reasons,
                informational: spec.informational,
                detail: hit.detail,
                elapsed_s: 0.0,
                cached: true,
            };
            return (result, hit.extracted);
        }
        let start = Instant::now();
        let input = LegInput {
            leg: &spec.name,
            params: &spec.params,
            task,
            completion: &cand.completion,
            extracted,
            env: &self.parts.env,
        };
        let out = catch_unwind(AssertUnwindSafe(|| adapter.run(&input))).unwrap_or_else(|panic| {
            let what = panic
                .downcast_ref::<String>()
                .map(String::as_str)
                .or_else(|| panic.downcast_ref::<&str>().copied())
                .unwrap_or("unknown panic");
            LegOutput::unsettled(
                "internal-error",
                format!("adapter `{}` panicked: {what}", adapter.name()),
            )
        });
        let out = ensure_reason(out, adapter.name());
        if let (Some(cache), Some(k)) = (cache, &leg_key) {
            cache.put_leg(
                k,
                &CachedLeg {
                    state: out.state,
                    reasons: out.reasons.clone(),
                    detail: out.detail.clone(),
                    extracted: out.extracted.clone(),
                },
            );
        }
        let result = LegResult {
            name: spec.name.clone(),
            adapter: spec.adapter.clone(),
            state: out.state,
            reasons: out.reasons,
            informational: spec.informational,
            detail: out.detail,
            elapsed_s: start.elapsed().as_secs_f64(),
            cached: false,
        };
        (result, out.extracted)
    }
}

/// Every non-clean state has a reason: an adapter that gives none gets one naming it.
fn ensure_reason(mut out: LegOutput, adapter: &str) -> LegOutput {
    if out.state != LegState::Clean && out.reasons.is_empty() {
        out.reasons.push(Reason::new(
            "no-reason",
            format!("adapter `{adapter}` gave no reason"),
        ));
    }
    out
}

/// `Some(reason)` when a leg this one needs is not clean.
fn blocked_by(spec: &LegSpec, done: &[LegResult]) -> Option<Reason> {
    let not_clean: Vec<String> = spec
        .needs
        .iter()
        .filter_map(|n| done.iter().find(|r| &r.name == n))
        .filter(|r| r.state != LegState::Clean)
        .map(|r| format!("`{}` ({})", r.name, r.state))
        .collect();
    (!not_clean.is_empty()).then(|| {
        Reason::new(
            "needs-not-clean",
            format!("not run: needs {}", not_clean.join(", ")),
        )
    })
}
