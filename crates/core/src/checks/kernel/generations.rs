//! A map bounded by generations, for the kernel environment's per-candidate seed-draw
//! counters in a long-running service: entries go into the young generation; when it is full,
//! the old generation is dropped whole (and handed back) and the young one becomes old. An
//! entry found in the old generation moves back to the young one, so what is in use survives;
//! at most twice the cap is kept.
//! Cheaper than a true LRU (no per-access bookkeeping) and as good for a memo.

use std::collections::HashMap;
use std::hash::Hash;

/// A map holding at most `2 * cap` entries.
#[derive(Debug)]
pub struct Generations<K, V> {
    young: HashMap<K, V>,
    old: HashMap<K, V>,
    cap: usize,
    turns: u64,
}

impl<K: Hash + Eq, V> Generations<K, V> {
    /// An empty map whose young generation holds `cap` entries (at least one).
    pub fn new(cap: usize) -> Self {
        Generations {
            young: HashMap::new(),
            old: HashMap::new(),
            cap: cap.max(1),
            turns: 0,
        }
    }

    /// The entry for `k`, moved to the young generation; `None` when absent. Returns also the
    /// generation dropped to make room for the move, if any.
    pub fn get_mut(&mut self, k: &K) -> (Option<&mut V>, Vec<V>)
    where
        K: Clone,
    {
        if self.young.contains_key(k) {
            return (self.young.get_mut(k), Vec::new());
        }
        match self.old.remove(k) {
            Some(v) => {
                let dropped = self.insert(k.clone(), v);
                (self.young.get_mut(k), dropped)
            }
            None => (None, Vec::new()),
        }
    }

    /// Inserts (or replaces) an entry; returns the values of the generation dropped to make
    /// room (empty when none was).
    pub fn insert(&mut self, k: K, v: V) -> Vec<V> {
        let mut dropped = Vec::new();
        if !self.young.contains_key(&k) && self.young.len() >= self.cap {
            let old = std::mem::replace(&mut self.old, std::mem::take(&mut self.young));
            dropped = old.into_values().collect();
            self.turns += 1;
        }
        self.old.remove(&k);
        self.young.insert(k, v);
        dropped
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    /// How many generations were dropped so far.
    pub fn turns(&self) -> u64 {
        self.turns
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stays_bounded_and_keeps_what_is_used() {
        let mut g = Generations::new(100);
        let mut dropped = 0;
        for i in 0..10_000u32 {
            dropped += g.insert(i, i).len();
            // Key 7 is used all the time: it is never dropped.
            if i >= 7 {
                assert_eq!(g.get_mut(&7).0.copied(), Some(7), "at {i}");
            }
            assert!(g.len() <= 200);
        }
        assert_eq!(dropped + g.len(), 10_000);
        assert!(g.turns() > 90);
        assert!(g.get_mut(&0).0.is_none(), "an unused old entry is gone");
    }
}
