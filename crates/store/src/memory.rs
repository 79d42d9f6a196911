//! A bounded in-memory cache for a service that needs no persistence. Keys are spread over
//! shards; each shard keeps two generations ([`Generations`]), and when the young one is full
//! the old one is emptied and becomes the young one, its values freed after the lock is
//! released. So memory stays bounded, recently used results survive a turnover, and no lookup
//! waits for the values of a generation to be freed. What it gives back is checked as every
//! store's is (its values never leave the process, so they carry no checksum).

use crate::cache::{Cache, CacheStats, CachedLeg, EntryCheck, storable_entry, storable_leg};
use crate::check::{Counters, check_leg, checked};
use crate::stored::StoredEntry;
use crate::writer::Table;
use aorlta_check::Generations;
use aorlta_check::Result;
use aorlta_record::RewardEntry;
use std::hash::BuildHasher;
use std::sync::RwLock;

const SHARDS: usize = 16;

/// A sharded, two-generation map.
#[derive(Debug)]
struct Store<V> {
    shards: Vec<RwLock<Generations<String, V>>>,
    hasher: std::collections::hash_map::RandomState,
}

impl<V: Clone> Store<V> {
    fn new(max: usize) -> Self {
        Store {
            shards: (0..SHARDS)
                .map(|_| RwLock::new(Generations::new(max / SHARDS / 2)))
                .collect(),
            hasher: Default::default(),
        }
    }

    fn shard(&self, key: &str) -> &RwLock<Generations<String, V>> {
        &self.shards[self.hasher.hash_one(key) as usize % SHARDS]
    }

    fn get(&self, key: &str) -> Option<V> {
        let g = self.shard(key).read().unwrap_or_else(|e| e.into_inner());
        g.get(key).cloned()
    }

    /// Inserts a value unless the key has one (the first value stored under a key stays; one
    /// found in the old generation moves to the young one).
    fn insert(&self, key: &str, value: V) {
        let retired = {
            let mut g = self.shard(key).write().unwrap_or_else(|e| e.into_inner());
            g.get_or_insert_with(key, || value).1
        };
        drop(retired); // freed after the lock is released
    }

    /// Puts a value in place of the key's one, if any.
    fn replace(&self, key: &str, value: V) {
        self.shard(key)
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .remove(key);
        self.insert(key, value);
    }

    fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.read().unwrap_or_else(|e| e.into_inner()).len())
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
        keys.iter()
            .map(|k| {
                let leg = self.legs.get(k)?;
                match check_leg(&leg) {
                    Ok(()) => Some(leg),
                    Err(why) => {
                        self.counters.reject("memory", Table::Legs, k, &why);
                        None
                    }
                }
            })
            .collect()
    }

    fn put_leg(&self, key: &str, leg: &CachedLeg) {
        if storable_leg(leg) {
            if self.counters.replaces(Table::Legs, key) {
                self.legs.replace(key, leg.clone());
            } else {
                self.legs.insert(key, leg.clone());
            }
        }
    }

    fn get_entries_checked(&self, keys: &[&str], check: &mut EntryCheck<'_>) -> Vec<Option<StoredEntry>> {
        let found: Vec<Option<StoredEntry>> = keys.iter().map(|k| self.entries.get(k)).collect();
        checked("memory", &self.counters, keys, found, check)
    }

    fn put_entry(&self, key: &str, entry: &RewardEntry) {
        if storable_entry(entry) {
            let stored = StoredEntry::of(entry);
            if self.counters.replaces(Table::Entries, key) {
                self.entries.replace(key, stored);
            } else {
                self.entries.insert(key, stored);
            }
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
        let e = crate::tests::entry(true);
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
