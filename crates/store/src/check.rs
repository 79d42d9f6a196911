//! What a stored row must pass before it is used. A row of a persistent store carries a
//! checksum: XXH3-128 over its table, its key and every column it is served from (each part
//! length-prefixed), so a row damaged on disk, edited by hand or copied under another key is
//! told from the row this build wrote, even when it still reads as a fine entry (a reward of
//! 0.5 edited to 0.6). It is a checksum, not a seal: whoever can write the store can write a
//! matching sum with any hash that has no secret, blake3 as much as XXH3, which is why every
//! row is also checked against the reward contract and its profile below; XXH3 costs a cached
//! rerun a small fraction of what blake3 did on these short texts. Then its text is parsed and checked: a leg result here
//! ([`check_leg`]), an entry against the reward contract ([`crate::stored::StoredEntry::check`], and by
//! the engine against its profile, task and candidate). A row that fails is a miss: counted as
//! rejected, warned about once, and replaced by the result computed in its place
//! ([`Counters`]).

use crate::cache::{CacheStats, CachedLeg, EntryCheck};
use crate::stored::StoredEntry;
use crate::writer::Table;
use aorlta_check::Generations;
use aorlta_record::LegState;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

/// Bytes of a row's checksum: a damaged row passes by chance one time in 2^128.
pub(crate) const SUM_LEN: usize = 16;

/// Rejected rows remembered (for one warning each, and so that the next put replaces them)
/// per generation: a store with more damaged rows than that in flight warns about some twice.
const REMEMBERED: usize = 16_384;

/// XXH3-128 of `parts`, each prefixed by its length.
fn sum(parts: &[&[u8]]) -> [u8; SUM_LEN] {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    for part in parts {
        h.update(&(part.len() as u64).to_le_bytes());
        h.update(part);
    }
    h.digest128().to_le_bytes()
}

/// The checksum of a leg row: its key (as stored) and its value.
pub(crate) fn leg_sum(key: &[u8], value: &str) -> [u8; SUM_LEN] {
    sum(&[b"aorlta leg row", key, value.as_bytes()])
}

/// The checksum of an entry row: its key (as stored), its text, its reward's bits (an empty
/// part for none) and its facts' text.
pub(crate) fn entry_sum(key: &[u8], value: &str, reward: Option<f64>, facts: &str) -> [u8; SUM_LEN] {
    let bits = reward.map(|r| r.to_bits().to_le_bytes());
    sum(&[
        b"aorlta entry row",
        key,
        value.as_bytes(),
        bits.as_ref().map_or(&[][..], |b| &b[..]),
        facts.as_bytes(),
    ])
}

/// `Err` unless `found` is the checksum `want` (a missing one fails: no row this build writes
/// lacks it).
pub(crate) fn verify(found: Option<&[u8]>, want: [u8; SUM_LEN]) -> Result<(), String> {
    match found {
        Some(s) if s == want => Ok(()),
        Some(_) => Err("its checksum does not match its contents (damaged or edited)".into()),
        None => Err("it has no checksum".into()),
    }
}

/// A persistent store's leg text, parsed and checked ([`check_leg`]); `Err` says what is wrong.
pub(crate) fn leg_of_text(value: &str) -> Result<CachedLeg, String> {
    let leg =
        serde_json::from_str::<CachedLeg>(value).map_err(|e| format!("its text is not a leg result: {e}"))?;
    check_leg(&leg)?;
    Ok(leg)
}

/// `Err` unless a stored leg result is one that may have been stored: settled and run (clean
/// or broke, never unsettled or skipped), with a reason when broke.
pub(crate) fn check_leg(leg: &CachedLeg) -> Result<(), String> {
    match leg.state {
        LegState::Clean => Ok(()),
        LegState::Broke if leg.reasons.is_empty() => Err("a broke leg result without a reason".into()),
        LegState::Broke => Ok(()),
        s => Err(format!("a leg result in state `{s}`, which is never stored")),
    }
}

/// Hit, miss and rejection counts since the store was opened, and the rows rejected and not
/// replaced yet.
#[derive(Debug)]
pub(crate) struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    rejected: AtomicU64,
    rows: Mutex<Generations<(Table, Box<str>), ()>>,
}

impl Default for Counters {
    fn default() -> Self {
        Counters {
            hits: AtomicU64::new(0),
            misses: AtomicU64::new(0),
            rejected: AtomicU64::new(0),
            rows: Mutex::new(Generations::new(REMEMBERED)),
        }
    }
}

impl Counters {
    /// Counts entry lookups: a hit for each one found, a miss for each one not.
    pub(crate) fn record<T>(&self, found: &[Option<T>]) {
        let hits = found.iter().filter(|f| f.is_some()).count() as u64;
        self.hits.fetch_add(hits, Ordering::Relaxed);
        self.misses
            .fetch_add(found.len() as u64 - hits, Ordering::Relaxed);
    }

    /// Counts a row found that failed its check (`why`), warns about it (once per row while it
    /// stays), and marks it to be replaced by the next put under its key.
    pub(crate) fn reject(&self, store: &str, table: Table, key: &str, why: &str) {
        self.rejected.fetch_add(1, Ordering::Relaxed);
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        let mut new = false;
        let (_, retired) = rows.get_or_insert_with(&(table, key.into()), || new = true);
        drop(rows);
        drop(retired);
        if new {
            let what = match table {
                Table::Legs => "leg result",
                Table::Entries => "entry",
            };
            eprintln!("warning: cache {store}: {what} {key} not used: {why}; it is computed again");
        }
    }

    /// True when the row under `key` was rejected and not replaced yet: the put now replaces
    /// it (and forgets it).
    pub(crate) fn replaces(&self, table: Table, key: &str) -> bool {
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        if rows.is_empty() {
            return false;
        }
        let k = (table, Box::<str>::from(key));
        let found = rows.get(&k).is_some();
        if found {
            rows.remove(&k);
        }
        found
    }

    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            rejected: self.rejected.load(Ordering::Relaxed),
        }
    }
}

/// The entries a store found, each passed through `check` (a failure rejected, and answered
/// as missing), then counted.
pub(crate) fn checked(
    store: &str,
    counters: &Counters,
    keys: &[&str],
    mut found: Vec<Option<StoredEntry>>,
    check: &mut EntryCheck<'_>,
) -> Vec<Option<StoredEntry>> {
    for (i, f) in found.iter_mut().enumerate() {
        if let Some(s) = f
            && let Err(why) = check(i, s)
        {
            counters.reject(store, Table::Entries, keys[i], &why);
            *f = None;
        }
    }
    counters.record(&found);
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checksum_changes_with_every_column_and_with_the_key() {
        let s = entry_sum(b"k", "{}", Some(0.5), "f");
        assert_ne!(s, entry_sum(b"j", "{}", Some(0.5), "f"), "the key");
        assert_ne!(s, entry_sum(b"k", "{ }", Some(0.5), "f"), "the text");
        assert_ne!(s, entry_sum(b"k", "{}", Some(0.6), "f"), "the reward");
        assert_ne!(s, entry_sum(b"k", "{}", None, "f"), "no reward");
        assert_ne!(s, entry_sum(b"k", "{}", Some(0.5), "g"), "the facts");
        assert_ne!(leg_sum(b"k", "{}"), leg_sum(b"k", "{}x"));
        assert!(verify(Some(&s), s).is_ok());
        assert!(verify(Some(&s[1..]), s).is_err());
        assert!(verify(None, s).is_err());
    }

    #[test]
    fn a_rejected_row_is_counted_each_time_and_replaced_once() {
        let c = Counters::default();
        assert!(!c.replaces(Table::Entries, "k"));
        c.reject("s", Table::Entries, "k", "bad");
        c.reject("s", Table::Entries, "k", "bad");
        assert_eq!(c.stats().rejected, 2);
        assert!(!c.replaces(Table::Legs, "k"), "tables are apart");
        assert!(c.replaces(Table::Entries, "k"));
        assert!(!c.replaces(Table::Entries, "k"), "replaced once");
    }
}
