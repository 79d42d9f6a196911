//! The engine: runs a profile's legs over one candidate, with gating, caching and the reward.
//!
//! Keys (docs/ARCHITECTURE.md, "Cache identity"): a leg's key hashes the task's content hash,
//! the completion's hash, the identity of the sources its adapter's results depend on
//! ([`crate::sources`]), the adapter's name and version, the leg's parameters and the adapter's
//! world identity (compiler, reference, judge, host). An entry's key hashes the sources of the
//! reward functions and profiles, the profile's hash, the task, every leg's identity and the
//! completion itself, so any change that can change a result changes the key; all of it but the
//! completion is the same for every candidate of a task, so that part is hashed once per task.
//!
//! An entry found in the store is served only once it passes [`Engine`]'s check (`vet.rs`);
//! one that fails is computed again.

pub(crate) mod leg;
mod vet;

use leg::{Leg, LegStore, run_leg};

use crate::profile::{LegSpec, LoadedProfile};
use crate::reason::EngineReason;
use crate::reward::{RewardInput, RewardOutcome, RewardRegistry, apply};
use aorlta_check::{Adapter, Env, Registry};
use aorlta_check::{Task, TaskSet};
use aorlta_check::{feed, hash_parts, hash_str};
use aorlta_record::{Candidate, FORMAT_VERSION, LegResult, LegState, Reason, RewardEntry, VersionIdentity};
use aorlta_store::{Cache, CachedLeg, StoredEntry, served};
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Most memoised leg identities kept before the memo starts over.
const IDENTITY_MEMO_MAX: usize = 100_000;

/// The longest completion scored by default, in bytes (256 KiB): the service's
/// `limits.max-completion-bytes` default and the limit of `aorlta score`, so one completion gets
/// the same answer from both. A longer one gets an unscored entry, `completion-too-long`.
pub const MAX_COMPLETION_BYTES: usize = 256 << 10;

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
    /// The longest completion scored, in bytes ([`MAX_COMPLETION_BYTES`] by default); a longer
    /// one gets an unscored entry with reason `completion-too-long`.
    pub max_completion_bytes: usize,
}

impl Default for EngineParts {
    fn default() -> Self {
        EngineParts {
            adapters: crate::lanes::adapters(),
            rewards: RewardRegistry::builtin(),
            cache: None,
            env: Arc::new(Env::default()),
            max_completion_bytes: MAX_COMPLETION_BYTES,
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
    /// Memoised entry-key hashers per task hash ([`Engine::entry_prefix`]).
    prefixes: Mutex<HashMap<String, blake3::Hasher>>,
    /// Entry texts found in the store that passed the checks an entry alone allows.
    checked: Mutex<vet::Checked>,
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
            prefixes: Mutex::default(),
            checked: Mutex::default(),
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

    /// The tools and resources the legs run with.
    pub fn env(&self) -> &Arc<Env> {
        &self.parts.env
    }

    /// The cache, if any.
    pub fn cache(&self) -> Option<&Arc<dyn Cache>> {
        self.parts.cache.as_ref()
    }

    /// Scores a candidate whose task is in the engine's task set; an unknown task gives an
    /// unscored entry with reason `unknown-task`.
    pub fn score(&self, cand: &Candidate) -> RewardEntry {
        self.score_batch(std::slice::from_ref(cand))
            .pop()
            .expect("one entry per candidate")
    }

    /// Scores candidates whose tasks are in the engine's task set, each exactly as [`Engine::score`]
    /// would, with the store read in batches (see [`Engine::score_tasks`]). Entries in input order.
    pub fn score_batch(&self, cands: &[Candidate]) -> Vec<RewardEntry> {
        whole(self.score_items(&self.with_tasks(cands), false))
    }

    /// [`Engine::score_batch`], with the entries found in the store left in their stored form
    /// (served under the candidate's id: [`StoredEntry::line`], [`StoredEntry::entry`]), so
    /// a caller that only writes them out never builds them.
    pub fn score_batch_stored(&self, cands: &[Candidate]) -> Vec<Scored> {
        self.score_items(&self.with_tasks(cands), true)
    }

    /// Each candidate with its task from the set (none when the set lacks it).
    fn with_tasks<'a>(&'a self, cands: &'a [Candidate]) -> Vec<(Option<&'a Task>, &'a Candidate)> {
        cands
            .iter()
            .map(|c| (self.tasks.get(&c.task).map(|t| t.as_ref()), c))
            .collect()
    }

    /// Scores candidates against given tasks (inline tasks, or ones from the set), each exactly
    /// as [`Engine::score_task`] would. The store is read in batches: one read for every entry,
    /// one for the leg results of the entries not found, then the missing entries are computed
    /// in turn; a candidate identical to an earlier one of the batch is looked up again after
    /// it, so it is served from what the earlier one stored, as one after the other would be.
    pub fn score_tasks(&self, items: &[(&Task, &Candidate)]) -> Vec<RewardEntry> {
        let items: Vec<(Option<&Task>, &Candidate)> = items.iter().map(|&(t, c)| (Some(t), c)).collect();
        whole(self.score_items(&items, false))
    }

    fn score_items(&self, items: &[(Option<&Task>, &Candidate)], stored: bool) -> Vec<Scored> {
        let limit = self.parts.max_completion_bytes;
        let keyed: Vec<Option<Keyed<'_>>> = items
            .iter()
            .map(|&(task, cand)| {
                task.filter(|_| cand.completion.len() <= limit).map(|task| Keyed {
                    key: self.entry_key(task, &cand.completion),
                    task,
                    cand,
                })
            })
            .collect();
        let mut out: Vec<Option<Scored>> = items
            .iter()
            .zip(&keyed)
            .map(|(&(_, cand), k)| {
                k.is_none().then(|| {
                    let reason = if cand.completion.len() > limit {
                        Reason::new(
                            EngineReason::CompletionTooLong.as_str(),
                            format!(
                                "the completion has {} bytes; the limit is {limit}",
                                cand.completion.len()
                            ),
                        )
                    } else {
                        Reason::new(
                            EngineReason::UnknownTask.as_str(),
                            format!("no task with id `{}`", cand.task),
                        )
                    };
                    Scored::Entry(RewardEntry::error(
                        &cand.id,
                        &cand.task,
                        &self.profile.profile.name,
                        reason,
                    ))
                })
            })
            .collect();
        // First occurrences of each key, then the repeats (served from what the first stored).
        let mut seen = std::collections::HashSet::new();
        let (firsts, repeats): (Vec<usize>, Vec<usize>) = (0..items.len())
            .filter(|&i| keyed[i].is_some())
            .partition(|&i| seen.insert(keyed[i].as_ref().map(|k| k.key.as_str())));
        for round in [firsts, repeats] {
            self.score_round(&round, &keyed, &mut out, stored);
        }
        out.into_iter().map(|e| e.expect("every item scored")).collect()
    }

    /// Looks up and computes the entries of `round` (indices into `keyed`); entries found are
    /// left in their stored form when `stored`.
    fn score_round(
        &self,
        round: &[usize],
        keyed: &[Option<Keyed<'_>>],
        out: &mut [Option<Scored>],
        stored: bool,
    ) {
        if round.is_empty() {
            return;
        }
        let k = |i: usize| keyed[i].as_ref().expect("only known tasks are looked up");
        let Some(cache) = &self.parts.cache else {
            for &i in round {
                out[i] = Some(Scored::Entry(self.compute(k(i), &mut HashMap::new())));
            }
            return;
        };
        let keys: Vec<&str> = round.iter().map(|&i| k(i).key.as_str()).collect();
        // Each entry found is checked (and so parsed) before it is used: kept when it is to be
        // served whole.
        let mut parsed: Vec<Option<Arc<RewardEntry>>> = Vec::new();
        if !stored {
            parsed.resize_with(round.len(), || None);
        }
        let found = cache.get_entries_checked(&keys, &mut |j, s| {
            let e = self.vet(k(round[j]), s)?;
            if let Some(slot) = parsed.get_mut(j) {
                *slot = Some(e);
            }
            Ok(())
        });
        let mut missing = Vec::new();
        for (j, (&i, hit)) in round.iter().zip(found).enumerate() {
            out[i] = match hit {
                Some(hit) if stored => Some(Scored::Stored(hit)),
                Some(_) => parsed[j]
                    .take()
                    .map(|e| Scored::Entry(served(Arc::unwrap_or_clone(e), &k(i).cand.id))),
                None => None,
            };
            if out[i].is_none() {
                missing.push(i);
            }
        }
        let cached_legs: Vec<usize> = (0..self.legs.len())
            .filter(|&l| self.legs[l].cacheable())
            .collect();
        let leg_keys: Vec<String> = if cached_legs.is_empty() {
            Vec::new()
        } else {
            missing
                .iter()
                .flat_map(|&i| {
                    let hash = hash_str(&k(i).cand.completion);
                    cached_legs
                        .iter()
                        .filter_map(|&l| self.leg_key(k(i).task, &hash, l))
                        .collect::<Vec<_>>()
                })
                .collect()
        };
        let mut legs: HashMap<String, CachedLeg> = if leg_keys.is_empty() {
            HashMap::new()
        } else {
            let refs: Vec<&str> = leg_keys.iter().map(String::as_str).collect();
            let got = cache.get_legs(&refs);
            leg_keys
                .into_iter()
                .zip(got)
                .filter_map(|(key, leg)| leg.map(|l| (key, l)))
                .collect()
        };
        for i in missing {
            out[i] = Some(Scored::Entry(self.compute(k(i), &mut legs)));
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
        let sources = crate::sources::of_adapter(adapter.as_ref());
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
        let mut h = self.entry_prefix(task);
        feed(&mut h, completion.as_bytes());
        h.finalize().to_hex().to_string()
    }

    /// The hasher of an entry key fed with everything but the completion (memoised per task):
    /// the parts of [`hash_parts`], length-prefixed.
    fn entry_prefix(&self, task: &Task) -> blake3::Hasher {
        if let Some(h) = self
            .prefixes
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&task.hash)
        {
            return h.clone();
        }
        let ids: Vec<String> = (0..self.legs.len()).map(|i| self.identity(task, i)).collect();
        let sources = crate::sources::entry();
        let mut parts: Vec<&[u8]> = vec![
            b"entry",
            sources.as_bytes(),
            self.profile.hash.as_bytes(),
            task.hash.as_bytes(),
        ];
        parts.extend(ids.iter().map(|s| s.as_bytes()));
        let mut h = blake3::Hasher::new();
        for p in parts {
            feed(&mut h, p);
        }
        let mut memo = self.prefixes.lock().unwrap_or_else(|e| e.into_inner());
        if memo.len() >= IDENTITY_MEMO_MAX {
            memo.clear();
        }
        memo.insert(task.hash.clone(), h.clone());
        h
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
            aorlta: crate::sources::AORLTA_VERSION.to_string(),
            profile: self.profile.hash.clone(),
            legs,
        }
    }

    /// Scores a candidate against a given task (an inline task, or one from the set).
    pub fn score_task(&self, task: &Task, cand: &Candidate) -> RewardEntry {
        self.score_tasks(&[(task, cand)])
            .pop()
            .expect("one entry per candidate")
    }

    /// The cache key of leg `i`'s result for a task and completion, when its adapter's results
    /// are cached.
    fn leg_key(&self, task: &Task, completion_hash: &str, i: usize) -> Option<String> {
        self.legs[i].cacheable().then(|| {
            let id = self.identity(task, i);
            hash_parts([
                b"leg".as_slice(),
                task.hash.as_bytes(),
                completion_hash.as_bytes(),
                id.as_bytes(),
            ])
        })
    }

    /// Runs the legs of an entry the store did not hold, with the leg results found for it in
    /// `found` (taken out as used), and stores what may be stored.
    fn compute(&self, k: &Keyed<'_>, found: &mut HashMap<String, CachedLeg>) -> RewardEntry {
        let (task, cand) = (k.task, k.cand);
        let start = Instant::now();
        // Only leg keys use the completion's own hash.
        let completion_hash = if self.legs.iter().any(|a| a.cacheable()) {
            hash_str(&cand.completion)
        } else {
            String::new()
        };
        let mut results: Vec<LegResult> = Vec::with_capacity(self.legs.len());
        let mut extracted: Option<String> = None;
        for (i, spec) in self.profile.profile.legs.iter().enumerate() {
            let result = match blocked_by(spec, &results) {
                Some(reason) => LegResult {
                    informational: spec.informational,
                    ..LegResult::with_state(&spec.name, &spec.adapter, LegState::Skipped, reason)
                },
                None => {
                    let (result, text) =
                        self.run_leg(i, task, cand, &completion_hash, extracted.as_deref(), found);
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
        let mut entry = RewardEntry {
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
            feedback: None,
        };
        entry.feedback = Some(crate::reward::feedback::render(
            &self.profile.profile,
            task,
            &entry,
        ));
        if let Some(cache) = &self.parts.cache {
            cache.put_entry(&k.key, &entry);
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
        found: &mut HashMap<String, CachedLeg>,
    ) -> (LegResult, Option<String>) {
        let spec = &self.profile.profile.legs[i];
        let leg = Leg {
            name: &spec.name,
            adapter: self.legs[i].as_ref(),
            params: &spec.params,
            informational: spec.informational,
        };
        let leg_key = self.leg_key(task, completion_hash, i);
        let store = match (&self.parts.cache, &leg_key) {
            (Some(cache), Some(key)) => Some(LegStore {
                cache: cache.as_ref(),
                key,
                found: found.remove(key),
            }),
            _ => None,
        };
        run_leg(&leg, task, &cand.completion, extracted, &self.parts.env, store)
    }
}

/// A candidate with its task and keys, ready to be looked up.
struct Keyed<'a> {
    task: &'a Task,
    cand: &'a Candidate,
    key: String,
}

/// The entries of a batch scored with `stored: false` (every one built whole).
fn whole(scored: Vec<Scored>) -> Vec<RewardEntry> {
    scored
        .into_iter()
        .map(|s| match s {
            Scored::Entry(e) => e,
            Scored::Stored(_) => unreachable!("entries are read back whole"),
        })
        .collect()
}

/// An entry as [`Engine::score_batch_stored`] gives it.
// Moved once per candidate, never stored in bulk: a box would only add an allocation per entry.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone)]
pub enum Scored {
    /// Computed now.
    Entry(RewardEntry),
    /// Found in the store, in its stored form: served under the candidate's id.
    Stored(StoredEntry),
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
            EngineReason::NeedsNotClean.as_str(),
            format!("not run: needs {}", not_clean.join(", ")),
        )
    })
}
