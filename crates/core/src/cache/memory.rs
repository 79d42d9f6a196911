//! A bounded in-memory cache for a service that needs no persistence. Keys are spread over
//! shards; each shard keeps two generations, and when the young one is full it becomes the old
//! one and the old one is dropped, outside the lock. So memory stays bounded, recently used
//! results survive a turnover, and no lookup ever waits for a large map to be freed.

use super::{Cache, CacheStats, CachedLeg, Counters, StoredEntry, storable_entry, storable_leg};
use crate::error::Result;
use aorlta_record::RewardEntry;
use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::RwLock;

const SHARDS: usize = 16;

/// Two generations of one shard.
#[derive(Debug)]
struct Generations<V> {
    young: HashMap<String, V>,
    old: HashMap<String, V>,
}

impl<V> Default for Generations<V> {
    fn default() -> Self {
        Generations {
            young: HashMap::new(),
            old: HashMap::new(),
        }
    }
}

/// A sharded, two-generation map.
#[derive(Debug)]
struct Store<V> {
    shards: Vec<RwLock<Generations<V>>>,
    per_generation: usize,
    hasher: std::collections::hash_map::RandomState,
}

impl<V: Clone> Store<V> {
    fn new(max: usize) -> Self {
        Store {
            shards: (0..SHARDS).map(|_| RwLock::default()).collect(),
            per_generation: (max / SHARDS / 2).max(1),
            hasher: Default::default(),
        }
    }

    fn shard(&self, key: &str) -> &RwLock<Generations<V>> {
        &self.shards[self.hasher.hash_one(key) as usize % SHARDS]
    }

    fn get(&self, key: &str) -> Option<V> {
        let g = self.shard(key).read().unwrap_or_else(|e| e.into_inner());
        g.young.get(key).or_else(|| g.old.get(key)).cloned()
    }

    /// Inserts a value unless the key has one (the first value stored under a key stays; one
    /// found in the old generation moves to the young one).
    fn insert(&self, key: &str, value: V) {
        let retired = {
            let mut g = self.shard(key).write().unwrap_or_else(|e| e.into_inner());
            if g.young.contains_key(key) {
                return;
            }
            let value = g.old.remove(key).unwrap_or(value);
            let retired = if g.young.len() >= self.per_generation {
                let young = std::mem::take(&mut g.young);
                Some(std::mem::replace(&mut g.old, young))
            } else {
                None
            };
            g.young.insert(key.to_string(), value);
            retired
        };
        drop(retired); // freed after the lock is released
    }

    fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| {
                let g = s.read().unwrap_or_else(|e| e.into_inner());
                g.young.len() + g.old.len()
            })
            .sum()
    }
}

/// A bounded in-memory cache.
#[derive(Debug)]
pub struct MemoryCache {
    legs: Store<CachedLeg>,
    entries: Store<StoredEntry>,
    counters: Counters,
}

impl MemoryCache {
    /// A cache holding about `max_entries` legs and as many entries (never more).
    pub fn new(max_entries: usize) -> Self {
        MemoryCache {
            legs: Store::new(max_entries),
            entries: Store::new(max_entries),
            counters: Counters::default(),
        }
    }

    /// Entries held now.
    pub fn entries_held(&self) -> usize {
        self.entries.len()
    }
}

impl Cache for MemoryCache {
    fn get_legs(&self, keys: &[&str]) -> Vec<Option<CachedLeg>> {
        keys.iter().map(|k| self.legs.get(k)).collect()
    }

    fn put_leg(&self, key: &str, leg: &CachedLeg) {
        if storable_leg(leg) {
            self.legs.insert(key, leg.clone());
        }
    }

    fn get_entries(&self, keys: &[&str]) -> Vec<Option<StoredEntry>> {
        let found: Vec<Option<StoredEntry>> = keys.iter().map(|k| self.entries.get(k)).collect();
        self.counters.record(&found);
        found
    }

    fn put_entry(&self, key: &str, entry: &RewardEntry) {
        if storable_entry(entry) {
            self.entries.insert(key, StoredEntry::of(entry));
        }
    }

    fn flush(&self) -> Result<()> {
        Ok(())
    }

    fn stats(&self) -> CacheStats {
        self.counters.stats()
    }

    fn describe(&self) -> String {
        "memory".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_bounded_and_keeps_recent_results() {
        let cache = MemoryCache::new(320);
        let e = super::super::tests::entry(true);
        for i in 0..10_000 {
            cache.put_entry(&format!("k{i}"), &e);
            assert!(cache.entries_held() <= 320, "bounded at {i}");
        }
        // The most recent insertions are still there.
        let recent = (9_990..10_000)
            .filter(|i| cache.get_entry(&format!("k{i}")).is_some())
            .count();
        assert_eq!(recent, 10);
        assert!(cache.get_entry("k0").is_none());
    }
}
