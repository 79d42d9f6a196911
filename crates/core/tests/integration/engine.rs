//! The engine: gating, skipped legs, caching of legs and entries, identities, failures, and
//! stored entries that are not what the engine would make, computed again.

use aorlta_check::TaskSet;
use aorlta_check::{Adapter, LegInput, LegOutput, Registry};
use aorlta_core::LoadedProfile;
use aorlta_core::RewardRegistry;
use aorlta_core::{Engine, EngineParts};
use aorlta_record::{Candidate, LegState, QaTask, RewardEntry};
use aorlta_store::{Cache, CacheStats, CachedLeg, EntryCheck, MemoryCache, StoredEntry};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

aorlta_check::reason_codes! {
    /// The test adapters' reason codes.
    enum TestReason {
        /// `ok` was not there.
        NotOk => "not-ok",
        /// The flaky adapter could not decide.
        Flaky => "flaky",
        /// What `parse` extracted was not what the test expects.
        BadExtract => "bad-extract",
    }
}

/// Clean when the completion contains "ok", broke otherwise; counts its runs; cacheable.
struct Counting(Arc<AtomicUsize>);

impl Adapter for Counting {
    fn name(&self) -> &'static str {
        "counting"
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn check_params(&self, _: &serde_json::Value) -> Result<(), String> {
        Ok(())
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        self.0.fetch_add(1, Ordering::SeqCst);
        if input.completion.contains("ok") {
            LegOutput::clean().with_extracted("from-counting".into())
        } else {
            LegOutput::broke(TestReason::NotOk, "no ok")
        }
    }
}

/// Always panics.
struct Panicking;

impl Adapter for Panicking {
    fn name(&self) -> &'static str {
        "panicking"
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn check_params(&self, _: &serde_json::Value) -> Result<(), String> {
        Ok(())
    }
    fn run(&self, _: &LegInput<'_>) -> LegOutput {
        panic!("boom")
    }
}

/// Unsettled when the completion contains "flaky", clean otherwise; sees the extracted text.
struct Extracted;

impl Adapter for Extracted {
    fn name(&self) -> &'static str {
        "extracted"
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn check_params(&self, _: &serde_json::Value) -> Result<(), String> {
        Ok(())
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        if input.completion.contains("flaky") {
            return LegOutput::unsettled(TestReason::Flaky, "could not decide");
        }
        match input.extracted {
            Some("from-counting") => LegOutput::clean(),
            other => LegOutput::broke(TestReason::BadExtract, format!("{other:?}")),
        }
    }
}

fn registry(counter: Arc<AtomicUsize>) -> Registry {
    let mut r = aorlta_core::adapters();
    r.add(Arc::new(Counting(counter)));
    r.add(Arc::new(Panicking));
    r.add(Arc::new(Extracted));
    r
}

const PROFILE: &str = "name: t
legs:
  - {name: first, adapter: counting, on-broke: -1.0}
  - {name: second, adapter: extracted, needs: [first], on-broke: -0.5}
  - {name: info, adapter: panicking, informational: true}
";

fn engine(profile: &str, counter: Arc<AtomicUsize>, cache: Arc<dyn Cache>) -> Engine {
    let reg = registry(counter);
    let p = LoadedProfile::from_yaml(profile, Path::new("t.yaml"), &reg, &RewardRegistry::builtin()).unwrap();
    let mut tasks = TaskSet::default();
    tasks.add(aorlta_answer::qa_task(QaTask {
        id: "t1".into(),
        prompt: "p".into(),
        answer: "1".into(),
    }));
    let parts = EngineParts {
        adapters: reg,
        cache: Some(cache),
        ..EngineParts::default()
    };
    Engine::new(p, Arc::new(tasks), parts)
}

fn cand(id: &str, completion: &str) -> Candidate {
    Candidate {
        id: id.into(),
        task: "t1".into(),
        completion: completion.into(),
    }
}

#[test]
fn gating_skips_and_says_why_and_the_ladder_uses_the_first_broken_leg() {
    let e = engine(PROFILE, Arc::default(), Arc::new(MemoryCache::new(100)));
    let bad = e.score(&cand("a", "nope"));
    assert_eq!(bad.legs[0].state, LegState::Broke);
    assert_eq!(bad.legs[1].state, LegState::Skipped);
    assert_eq!(bad.legs[1].first_code(), Some("needs-not-clean"));
    assert!(bad.legs[1].reasons[0].detail.contains("`first` (broke)"));
    assert_eq!(bad.reward, Some(-1.0));
    let good = e.score(&cand("b", "ok"));
    assert_eq!(good.legs[1].state, LegState::Clean, "{:?}", good.legs[1]);
    assert_eq!(good.reward, Some(1.0));
    // The informational leg panicked: unsettled, reported, not rewarded.
    assert_eq!(good.legs[2].state, LegState::Unsettled);
    assert_eq!(good.legs[2].first_code(), Some("internal-error"));
    assert!(good.legs[2].reasons[0].detail.contains("boom"));
    assert!(good.scored);
}

#[test]
fn an_unsettled_rewarded_leg_leaves_the_entry_unscored_and_uncached() {
    let counter = Arc::new(AtomicUsize::new(0));
    let cache: Arc<dyn Cache> = Arc::new(MemoryCache::new(100));
    let e = engine(PROFILE, counter.clone(), cache.clone());
    let entry = e.score(&cand("a", "ok flaky"));
    assert!(!entry.scored);
    assert_eq!(entry.reward, None);
    assert_eq!(entry.parts, None);
    assert_eq!(entry.reasons[0].code, "flaky");
    let again = e.score(&cand("a", "ok flaky"));
    assert!(
        !again.legs.iter().any(|l| l.cached && l.name == "second"),
        "unsettled is retried"
    );
}

#[test]
fn entries_are_served_from_the_cache_and_keys_follow_the_profile() {
    let counter = Arc::new(AtomicUsize::new(0));
    let cache: Arc<dyn Cache> = Arc::new(MemoryCache::new(100));
    // Without the panicking leg: an entry with any unsettled leg is never cached.
    let profile = PROFILE.lines().take(4).collect::<Vec<_>>().join("\n") + "\n";
    let e = engine(&profile, counter.clone(), cache.clone());
    let first = e.score(&cand("a", "ok"));
    assert_eq!(counter.load(Ordering::SeqCst), 1);
    let second = e.score(&cand("renamed", "ok"));
    assert_eq!(counter.load(Ordering::SeqCst), 1, "served from the entry cache");
    assert_eq!(second.id, "renamed");
    assert!(second.legs.iter().all(|l| l.cached));
    assert_eq!(first.reward, second.reward);
    // A changed profile is a new key: the entry is recomputed, but the leg cache still serves
    // the unchanged cacheable leg.
    let e2 = engine(&profile.replace("-0.5", "-0.4"), counter.clone(), cache.clone());
    let task = e.tasks().get("t1").unwrap().clone();
    assert_ne!(e.entry_key(&task, "ok"), e2.entry_key(&task, "ok"));
    let third = e2.score(&cand("a", "ok"));
    assert_eq!(counter.load(Ordering::SeqCst), 1, "leg served from the leg cache");
    assert!(third.legs[0].cached && !third.legs[1].cached);
    assert_eq!(e.entry_key(&task, "ok"), e.entry_key(&task, "ok"));
    assert_ne!(e.entry_key(&task, "ok"), e.entry_key(&task, "ok "));
}

#[test]
fn unknown_tasks_get_an_error_entry() {
    let e = engine(PROFILE, Arc::default(), Arc::new(MemoryCache::new(100)));
    let entry = e.score(&Candidate {
        id: "x".into(),
        task: "nope".into(),
        completion: "ok".into(),
    });
    assert!(!entry.scored);
    assert_eq!(entry.reasons[0].code, "unknown-task");
    assert!(entry.legs.is_empty());
}

#[test]
fn a_completion_over_the_services_limit_is_unscored_offline_too_saying_why() {
    let counter = Arc::new(AtomicUsize::new(0));
    let e = engine(PROFILE, Arc::clone(&counter), Arc::new(MemoryCache::new(100)));
    assert_eq!(aorlta_core::MAX_COMPLETION_BYTES, 256 << 10);
    let long = "x".repeat(aorlta_core::MAX_COMPLETION_BYTES + 1);
    let entry = e.score(&cand("long", &long));
    assert!(!entry.scored && entry.reward.is_none());
    assert_eq!(entry.reasons[0].code, "completion-too-long");
    assert!(
        entry.reasons[0].detail.contains("the limit is 262144"),
        "{:?}",
        entry.reasons
    );
    assert!(entry.legs.is_empty());
    assert_eq!(counter.load(Ordering::SeqCst), 0, "no leg runs on it");
    let at_limit = "x".repeat(aorlta_core::MAX_COMPLETION_BYTES);
    let entry = e.score(&cand("at", &at_limit));
    assert_ne!(
        entry.reasons.first().map(|r| r.code.as_str()),
        Some("completion-too-long")
    );
    assert_eq!(counter.load(Ordering::SeqCst), 1);
}

/// Clean always; says which sources it was built from; counts its runs; cacheable.
struct Sourced(&'static str, Arc<AtomicUsize>);

impl Adapter for Sourced {
    fn name(&self) -> &'static str {
        "sourced"
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn check_params(&self, _: &serde_json::Value) -> Result<(), String> {
        Ok(())
    }
    fn sources(&self) -> Option<String> {
        Some(self.0.to_string())
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn run(&self, _: &LegInput<'_>) -> LegOutput {
        self.1.fetch_add(1, Ordering::SeqCst);
        LegOutput::clean()
    }
}

#[test]
fn a_leg_whose_sources_changed_is_recomputed_and_the_others_are_served() {
    let runs = Arc::new(AtomicUsize::new(0));
    let counted = Arc::new(AtomicUsize::new(0));
    let cache: Arc<dyn Cache> = Arc::new(MemoryCache::new(100));
    let build = |sources: &'static str| {
        let mut reg = registry(counted.clone());
        reg.add(Arc::new(Sourced(sources, runs.clone())));
        let profile =
            "name: t\nlegs:\n  - {name: first, adapter: counting}\n  - {name: s, adapter: sourced}\n";
        let p =
            LoadedProfile::from_yaml(profile, Path::new("t.yaml"), &reg, &RewardRegistry::builtin()).unwrap();
        let mut tasks = TaskSet::default();
        tasks.add(aorlta_answer::qa_task(QaTask {
            id: "t1".into(),
            prompt: "p".into(),
            answer: "1".into(),
        }));
        let parts = EngineParts {
            adapters: reg,
            cache: Some(cache.clone()),
            ..EngineParts::default()
        };
        Engine::new(p, Arc::new(tasks), parts)
    };
    let old = build("rules-v1").score(&cand("a", "ok"));
    let same = build("rules-v1").score(&cand("a", "ok"));
    assert_eq!(
        runs.load(Ordering::SeqCst),
        1,
        "unchanged sources: served from the cache"
    );
    assert!(same.legs.iter().all(|l| l.cached));
    let new = build("rules-v2").score(&cand("a", "ok"));
    assert_eq!(
        runs.load(Ordering::SeqCst),
        2,
        "changed sources: never served the old result"
    );
    assert_ne!(old.version.legs["s"], new.version.legs["s"]);
    assert_eq!(old.version.legs["first"], new.version.legs["first"]);
    assert!(new.legs[0].cached && !new.legs[1].cached);
    assert_eq!(
        counted.load(Ordering::SeqCst),
        1,
        "the other leg was served from the leg cache"
    );
}

/// An edit of a stored entry.
type Edit = Box<dyn FnOnce(&mut RewardEntry) + Send>;

/// A store that edits the first entry put, as a row edited on disk whose checksum was made
/// again would read (the entry still keeps the contract on its own), and keeps why the
/// engine's check refused what it found.
struct Editing {
    inner: MemoryCache,
    edit: std::sync::Mutex<Option<Edit>>,
    refused: std::sync::Mutex<Vec<String>>,
}

impl Cache for Editing {
    fn get_legs(&self, keys: &[&str]) -> Vec<Option<CachedLeg>> {
        self.inner.get_legs(keys)
    }
    fn put_leg(&self, key: &str, leg: &CachedLeg) {
        self.inner.put_leg(key, leg)
    }
    fn get_entries_checked(&self, keys: &[&str], check: &mut EntryCheck<'_>) -> Vec<Option<StoredEntry>> {
        self.inner.get_entries_checked(keys, &mut |i, s| {
            let verdict = check(i, s);
            if let Err(why) = &verdict {
                self.refused.lock().unwrap().push(why.clone());
            }
            verdict
        })
    }
    fn put_entry(&self, key: &str, entry: &RewardEntry) {
        let mut entry = entry.clone();
        if let Some(edit) = self.edit.lock().unwrap().take() {
            edit(&mut entry);
        }
        self.inner.put_entry(key, &entry)
    }
    fn flush(&self) -> aorlta_check::Result<()> {
        self.inner.flush()
    }
    fn stats(&self) -> CacheStats {
        self.inner.stats()
    }
    fn describe(&self) -> String {
        "editing".into()
    }
}

#[test]
fn a_stored_entry_that_is_not_what_its_legs_task_and_profile_give_is_computed_again() {
    let profile = PROFILE.lines().take(4).collect::<Vec<_>>().join("\n") + "\n";
    let edits: Vec<(&str, &str, Edit)> = vec![
        (
            "a reward its legs do not give",
            "not the ones its legs give",
            Box::new(|e| {
                e.reward = Some(1.0);
                e.parts.as_mut().unwrap().base = 1.0;
            }),
        ),
        (
            "another task's entry",
            "task `t2`",
            Box::new(|e| e.task = "t2".into()),
        ),
        (
            "a leg run though the leg it needs broke",
            "though a leg it needs is not clean",
            Box::new(|e| {
                e.legs[1].state = LegState::Broke;
                e.legs[1].reasons[0].code = "bad-extract".into();
            }),
        ),
        (
            "legs out of order",
            "not the profile's",
            Box::new(|e| e.legs.swap(0, 1)),
        ),
        (
            "another profile's entry",
            "profile `u`",
            Box::new(|e| e.profile = "u".into()),
        ),
    ];
    for (what, says, edit) in edits {
        let counter = Arc::new(AtomicUsize::new(0));
        let cache = Arc::new(Editing {
            inner: MemoryCache::new(100),
            edit: std::sync::Mutex::new(Some(edit)),
            refused: Default::default(),
        });
        let e = engine(&profile, counter.clone(), cache.clone());
        let first = e.score(&cand("a", "nope"));
        assert_eq!(first.reward, Some(-1.0), "{what}");
        let again = e.score(&cand("b", "nope"));
        assert_eq!(again.reward, Some(-1.0), "{what}: the true reward");
        assert!(!again.legs.iter().all(|l| l.cached), "{what}: computed again");
        assert_eq!(cache.stats().rejected, 1, "{what}");
        // The entry computed in its place replaced it.
        let third = e.score(&cand("c", "nope"));
        assert!(third.legs.iter().all(|l| l.cached), "{what}: served");
        assert_eq!(third.reward, Some(-1.0));
        assert_eq!(
            (cache.stats().hits, cache.stats().misses, cache.stats().rejected),
            (1, 2, 1),
            "{what}"
        );
        let refused = cache.refused.lock().unwrap().clone();
        assert!(
            refused.len() == 1 && refused[0].contains(says),
            "{what}: {refused:?}"
        );
    }
}

/// How a row read back is forged: the row as stored in, the row served out.
type Forge = Box<dyn Fn(&StoredEntry) -> StoredEntry + Send>;

/// A store that serves each entry it holds through `forge` when one is set, as a row whose
/// checksum was made again after an edit would read.
struct Forging {
    inner: MemoryCache,
    forge: std::sync::Mutex<Option<Forge>>,
}

impl Cache for Forging {
    fn get_legs(&self, keys: &[&str]) -> Vec<Option<CachedLeg>> {
        self.inner.get_legs(keys)
    }
    fn put_leg(&self, key: &str, leg: &CachedLeg) {
        self.inner.put_leg(key, leg)
    }
    fn get_entries_checked(&self, keys: &[&str], check: &mut EntryCheck<'_>) -> Vec<Option<StoredEntry>> {
        let forge = self.forge.lock().unwrap();
        self.inner
            .get_entries_checked(keys, &mut |i, s| match forge.as_ref() {
                Some(f) => check(i, &f(s)),
                None => check(i, s),
            })
    }
    fn put_entry(&self, key: &str, entry: &RewardEntry) {
        self.inner.put_entry(key, entry)
    }
    fn flush(&self) -> aorlta_check::Result<()> {
        self.inner.flush()
    }
    fn stats(&self) -> CacheStats {
        self.inner.stats()
    }
    fn describe(&self) -> String {
        "forging".into()
    }
}

#[test]
fn a_stored_text_checked_once_passes_again_only_byte_for_byte_with_its_reward() {
    // The engine parses and checks a stored text once and remembers it; a row that differs
    // from it in its reward column, or in one byte of its text, is still refused.
    let profile = PROFILE.lines().take(4).collect::<Vec<_>>().join("\n") + "\n";
    let cache = Arc::new(Forging {
        inner: MemoryCache::new(100),
        forge: std::sync::Mutex::new(None),
    });
    let e = engine(&profile, Arc::default(), cache.clone());
    let truth = e.score(&cand("a", "nope"));
    assert_eq!(truth.reward, Some(-1.0));
    for id in ["b", "c"] {
        assert!(
            e.score(&cand(id, "nope")).legs.iter().all(|l| l.cached),
            "{id}: served"
        );
    }
    let forges: Vec<(&str, Forge)> = vec![
        (
            "the reward column",
            Box::new(|s: &StoredEntry| {
                StoredEntry::from_parts(s.json(), Some(-0.5), Some(s.facts_json().into())).unwrap()
            }),
        ),
        (
            "a byte of the text",
            Box::new(|s: &StoredEntry| {
                let text = s.json().replacen("\"reward\":-1.0", "\"reward\":-0.5", 1);
                assert_ne!(text, s.json());
                StoredEntry::from_parts(&text, Some(-0.5), Some(s.facts_json().into())).unwrap()
            }),
        ),
    ];
    for (n, (what, forge)) in forges.into_iter().enumerate() {
        *cache.forge.lock().unwrap() = Some(forge);
        let again = e.score(&cand("d", "nope"));
        assert_eq!(again.reward, Some(-1.0), "{what}: the true reward");
        assert!(!again.legs.iter().all(|l| l.cached), "{what}: computed again");
        assert_eq!(cache.stats().rejected, n as u64 + 1, "{what}");
        *cache.forge.lock().unwrap() = None;
        assert!(
            e.score(&cand("e", "nope")).legs.iter().all(|l| l.cached),
            "{what}: the true row"
        );
    }
}
