//! A bounded in-memory cache: when full, it is cleared (simple and O(1); a service that needs
//! more keeps a SQLite cache).

use super::{Cache, CacheStats, CachedLeg, Counters, storable_entry, storable_leg};
use aorlta_record::RewardEntry;
use std::collections::HashMap;
use std::sync::RwLock;

/// A bounded in-memory cache.
#[derive(Debug)]
pub struct MemoryCache {
    max_entries: usize,
    legs: RwLock<HashMap<String, CachedLeg>>,
    entries: RwLock<HashMap<String, RewardEntry>>,
    counters: Counters,
}

impl MemoryCache {
    /// A cache holding at most `max_entries` legs and as many entries.
    pub fn new(max_entries: usize) -> Self {
        MemoryCache {
            max_entries: max_entries.max(1),
            legs: RwLock::default(),
            entries: RwLock::default(),
            counters: Counters::default(),
        }
    }
}

fn insert<V>(map: &RwLock<HashMap<String, V>>, max: usize, key: &str, value: V) {
    let mut m = map.write().unwrap_or_else(|e| e.into_inner());
    if m.len() >= max {
        m.clear();
    }
    m.insert(key.to_string(), value);
}

impl Cache for MemoryCache {
    fn get_leg(&self, key: &str) -> Option<CachedLeg> {
        self.legs
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned()
    }

    fn put_leg(&self, key: &str, leg: &CachedLeg) {
        if storable_leg(leg) {
            insert(&self.legs, self.max_entries, key, leg.clone());
        }
    }

    fn get_entry(&self, key: &str) -> Option<RewardEntry> {
        let found = self
            .entries
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .cloned();
        self.counters.record(found)
    }

    fn put_entry(&self, key: &str, entry: &RewardEntry) {
        if storable_entry(entry) {
            insert(&self.entries, self.max_entries, key, entry.clone());
        }
    }

    fn stats(&self) -> CacheStats {
        self.counters.stats()
    }
}
