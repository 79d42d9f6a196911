//! A map bounded by generations, for the memos of a long-running process (the memory cache's
//! shards, a lane's compile outcomes and seed-draw counters): entries go into
//! the young generation; when it is full, the old generation is emptied (its values handed
//! back, to be freed or cleaned up outside any lock) and the two swap, so the emptied one, with
//! its allocation, becomes the new young one. An entry found in the old generation moves back
//! to the young one, so what is in use survives; at most twice the cap is kept.
//!
//! Cheaper than a true LRU (no per-access bookkeeping) and as good for a memo. A map made with
//! [`Generations::preallocated`] allocates both tables once, up front, and never again: its
//! memory is flat from the start, not only once the bound is first reached.

use std::borrow::Borrow;
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
    /// An empty map whose young generation holds `cap` entries (at least one); its tables grow
    /// as entries come, up to the bound.
    pub fn new(cap: usize) -> Self {
        Generations {
            young: HashMap::new(),
            old: HashMap::new(),
            cap: cap.max(1),
            turns: 0,
        }
    }

    /// [`Generations::new`] with both tables allocated for `cap` entries now.
    pub fn preallocated(cap: usize) -> Self {
        let cap = cap.max(1);
        Generations {
            young: HashMap::with_capacity(cap),
            old: HashMap::with_capacity(cap),
            cap,
            turns: 0,
        }
    }

    /// The entry for `k`, wherever it is, without moving it.
    pub fn get<Q>(&self, k: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.young.get(k).or_else(|| self.old.get(k))
    }

    /// The entry for `k`, moved to the young generation (from the old one), or `make()`'s
    /// when there is none; with the values of the generation emptied to make room (none
    /// when no room was needed).
    pub fn get_or_insert_with<Q>(&mut self, k: &Q, make: impl FnOnce() -> V) -> (&mut V, Vec<V>)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ToOwned<Owned = K> + ?Sized,
    {
        let mut dropped = Vec::new();
        if !self.young.contains_key(k) {
            let v = self.old.remove(k).unwrap_or_else(make);
            if self.young.len() >= self.cap {
                dropped = self.turn();
            }
            self.young.insert(k.to_owned(), v);
        }
        (self.young.get_mut(k).expect("just ensured"), dropped)
    }

    /// Forgets the entry for `k`, wherever it is.
    pub fn remove<Q>(&mut self, k: &Q)
    where
        K: Borrow<Q>,
        Q: Hash + Eq + ?Sized,
    {
        self.young.remove(k);
        self.old.remove(k);
    }

    /// Empties the old generation (keeping its allocation) and swaps the two.
    fn turn(&mut self) -> Vec<V> {
        let dropped = self.old.drain().map(|(_, v)| v).collect();
        std::mem::swap(&mut self.young, &mut self.old);
        self.turns += 1;
        dropped
    }

    /// Entries kept.
    pub fn len(&self) -> usize {
        self.young.len() + self.old.len()
    }

    /// Whether no entry is kept.
    pub fn is_empty(&self) -> bool {
        self.young.is_empty() && self.old.is_empty()
    }

    /// Entries a generation holds.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// How many generations were emptied so far.
    pub fn turns(&self) -> u64 {
        self.turns
    }

    /// The tables' capacities, in entries (young, old).
    #[cfg(test)]
    fn capacities(&self) -> (usize, usize) {
        (self.young.capacity(), self.old.capacity())
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
            dropped += g.get_or_insert_with(&i, || i).1.len();
            // Key 7 is used all the time: it is never dropped.
            if i >= 7 {
                assert_eq!(*g.get_or_insert_with(&7, || u32::MAX).0, 7, "at {i}");
            }
            assert!(g.len() <= 200);
        }
        assert_eq!(dropped + g.len(), 10_000);
        assert!(g.turns() > 90);
        assert!(g.get(&0).is_none(), "an unused old entry is gone");
        assert_eq!(g.get(&9_999), Some(&9_999));
    }

    #[test]
    fn an_entry_found_old_keeps_its_value_and_moves_young() {
        let mut g: Generations<String, u32> = Generations::new(2);
        g.get_or_insert_with("a", || 1);
        g.get_or_insert_with("b", || 2);
        // "c" turns the generations: "a" and "b" are old now.
        assert!(g.get_or_insert_with("c", || 3).1.is_empty());
        assert_eq!(
            *g.get_or_insert_with("a", || 99).0,
            1,
            "the old value, not a new one"
        );
        // The next turn empties the old generation, which holds "b" only.
        let (_, dropped) = g.get_or_insert_with("d", || 4);
        assert_eq!(dropped, vec![2]);
        assert_eq!(g.get("b"), None);
        assert_eq!(
            (g.get("a"), g.get("c"), g.get("d")),
            (Some(&1), Some(&3), Some(&4))
        );
        g.remove("a");
        assert_eq!(g.get("a"), None);
        assert_eq!(g.len(), 2);
    }

    #[test]
    fn a_preallocated_map_never_allocates_again() {
        let mut g = Generations::preallocated(1000);
        let before = g.capacities();
        assert!(before.0 >= 1000 && before.1 >= 1000, "{before:?}");
        for i in 0..50_000u64 {
            g.get_or_insert_with(&i, || i);
            assert!(
                g.capacities() == before || g.capacities() == (before.1, before.0),
                "at {i}: {:?}",
                g.capacities()
            );
        }
        assert!(g.turns() >= 49);
    }
}
