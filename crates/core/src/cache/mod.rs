//! The result cache (docs/ARCHITECTURE.md, "Cache identity"): leg results keyed by task, candidate, parameters and the leg's
//! version identity; reward entries keyed by the profile's hash and their legs' keys. Unsettled
//! results are never stored, so a resumed run retries them.
//!
//! Two stores: [`SqliteCache`] (one file under the run's folder, the embedded default) and
//! [`MemoryCache`] (bounded, for a service that needs no persistence).

mod memory;
mod sqlite;

pub use memory::MemoryCache;
pub use sqlite::SqliteCache;

use aorlta_record::{LegState, Reason, RewardEntry};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicU64, Ordering};

/// A stored leg result (everything a later leg or the reward needs).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct CachedLeg {
    /// The state (never `unsettled`).
    pub state: LegState,
    /// The reasons.
    pub reasons: Vec<Reason>,
    /// The detail value.
    pub detail: Option<serde_json::Value>,
    /// Text handed to later legs.
    pub extracted: Option<String>,
}

/// Hit and miss counts since the cache was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct CacheStats {
    /// Lookups that found a result.
    pub hits: u64,
    /// Lookups that found none.
    pub misses: u64,
}

impl CacheStats {
    /// hits / (hits + misses), 0 when nothing was looked up.
    pub fn hit_rate(&self) -> f64 {
        let n = self.hits + self.misses;
        if n == 0 { 0.0 } else { self.hits as f64 / n as f64 }
    }
}

/// A result store. Failures to store are logged by the implementation and never fail a leg.
pub trait Cache: Send + Sync {
    /// A leg result by key.
    fn get_leg(&self, key: &str) -> Option<CachedLeg>;
    /// Stores a leg result (ignored when unsettled).
    fn put_leg(&self, key: &str, leg: &CachedLeg);
    /// A reward entry by key.
    fn get_entry(&self, key: &str) -> Option<RewardEntry>;
    /// Stores a reward entry (ignored when unscored).
    fn put_entry(&self, key: &str, entry: &RewardEntry);
    /// Entry lookups so far.
    fn stats(&self) -> CacheStats;
}

/// Hit/miss counters shared by the implementations.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
}

impl Counters {
    pub(crate) fn record<T>(&self, found: Option<T>) -> Option<T> {
        let c = if found.is_some() { &self.hits } else { &self.misses };
        c.fetch_add(1, Ordering::Relaxed);
        found
    }

    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }
}

/// True when a leg result may be stored as final.
pub(crate) fn storable_leg(leg: &CachedLeg) -> bool {
    leg.state != LegState::Unsettled
}

/// True when an entry may be stored as final.
pub(crate) fn storable_entry(e: &RewardEntry) -> bool {
    e.scored && e.legs.iter().all(|l| l.state != LegState::Unsettled)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::{FORMAT_VERSION, LegResult, Parts, VersionIdentity};

    pub(crate) fn entry(scored: bool) -> RewardEntry {
        RewardEntry {
            format: FORMAT_VERSION,
            id: "c1".into(),
            task: "t1".into(),
            reward: scored.then_some(1.0),
            scored,
            parts: scored.then_some(Parts {
                base: 1.0,
                broke_healthy: 0.0,
                length: 0.0,
            }),
            reasons: vec![],
            legs: vec![LegResult::clean("parse", "parse")],
            profile: "p".into(),
            reward_fn: "rewardfn.base".into(),
            version: VersionIdentity::default(),
            elapsed_s: 0.1,
        }
    }

    fn exercise(cache: &dyn Cache) {
        assert!(cache.get_entry("k").is_none());
        cache.put_entry("k", &entry(true));
        assert_eq!(cache.get_entry("k").unwrap().reward, Some(1.0));
        cache.put_entry("u", &entry(false));
        assert!(cache.get_entry("u").is_none(), "unscored entries are not stored");
        let leg = CachedLeg {
            state: LegState::Broke,
            reasons: vec![Reason::new("x", "y")],
            detail: None,
            extracted: Some("s".into()),
        };
        cache.put_leg("l", &leg);
        assert_eq!(cache.get_leg("l"), Some(leg.clone()));
        cache.put_leg(
            "l2",
            &CachedLeg {
                state: LegState::Unsettled,
                ..leg
            },
        );
        assert!(cache.get_leg("l2").is_none(), "unsettled legs are not stored");
        let s = cache.stats();
        assert_eq!((s.hits, s.misses), (1, 2));
    }

    #[test]
    fn a_cached_reward_is_bit_identical_to_the_fresh_one() {
        // Rewards as the length penalty makes them: sums of awkward binary fractions. A cache
        // must give back the very same bits, or a rerun's rewards differ from the first run's.
        let dir = tempfile::tempdir().unwrap();
        let cache = SqliteCache::open(&dir.path().join("c.sqlite")).unwrap();
        let mut differ = Vec::new();
        for k in 0..2000u32 {
            let length = -0.05 * f64::from(k) / 1999.0;
            let parts = Parts {
                base: 1.0 - f64::from(k % 7) / 7.0,
                broke_healthy: 0.0,
                length,
            };
            let mut e = entry(true);
            e.reward = Some(parts.sum());
            e.parts = Some(parts);
            e.legs[0].elapsed_s = f64::from(k) * 1.1e-7;
            let key = format!("k{k}");
            cache.put_entry(&key, &e);
            let back = cache.get_entry(&key).unwrap();
            let bits = |e: &RewardEntry| {
                let p = e.parts.unwrap();
                (
                    e.reward.unwrap().to_bits(),
                    p.base.to_bits(),
                    p.length.to_bits(),
                    e.legs[0].elapsed_s.to_bits(),
                )
            };
            if bits(&back) != bits(&e) {
                differ.push(k);
            }
        }
        assert!(
            differ.is_empty(),
            "{} of 2000 rewards changed in the cache: {:?}",
            differ.len(),
            &differ[..differ.len().min(10)]
        );
    }

    #[test]
    fn memory_cache_contract() {
        exercise(&MemoryCache::new(100));
    }

    #[test]
    fn sqlite_cache_contract_and_persistence() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c.sqlite");
        exercise(&SqliteCache::open(&path).unwrap());
        let again = SqliteCache::open(&path).unwrap();
        assert_eq!(again.get_entry("k").unwrap().id, "c1");
    }
}
