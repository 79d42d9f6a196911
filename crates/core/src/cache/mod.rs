//! The result store (docs/ARCHITECTURE.md, "Cache identity"): leg results keyed by task,
//! candidate, parameters and the leg's version identity; reward entries keyed by the profile's
//! hash and their legs' keys. Unsettled results and unscored entries are never stored, so a
//! resumed run retries them.
//!
//! One trait, [`Cache`], with batch reads (many keys in one query) and puts that return at once:
//! the persistent stores hand rows to a writer thread (`writer.rs`) that commits many per
//! transaction, keeps them readable until they are committed, and commits what is left on
//! [`Cache::flush`] and on drop. So a killed run loses at most the rows not yet committed
//! (bounded by [`MAX_UNCOMMITTED_ROWS`]), and a resumed run recomputes only those.
//!
//! Two stores: [`SqliteCache`] (one file under the run's folder, the embedded default) and
//! [`MemoryCache`] (bounded, for a service that needs no persistence).

mod memory;
mod schema;
mod sqlite;
mod stored;
mod writer;

pub use memory::MemoryCache;
pub use sqlite::SqliteCache;
pub use stored::{Facts, LegFacts, StoredEntry, served};
pub use writer::{MAX_BATCH_ROWS, MAX_UNCOMMITTED_ROWS};

use crate::error::Result;
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

/// A result store. Reads take many keys at once; puts return at once and may be committed
/// later (see [`Cache::flush`]). Failures to store are logged by the implementation and never
/// fail a leg: a result that was not stored is computed again.
pub trait Cache: Send + Sync {
    /// Leg results by key, one answer per key, in order.
    fn get_legs(&self, keys: &[&str]) -> Vec<Option<CachedLeg>>;
    /// Stores a leg result (ignored when unsettled).
    fn put_leg(&self, key: &str, leg: &CachedLeg);
    /// Reward entries by key, in their stored form ([`StoredEntry`]), one answer per key, in
    /// order; each lookup counts in [`Cache::stats`].
    fn get_entries(&self, keys: &[&str]) -> Vec<Option<StoredEntry>>;
    /// Stores a reward entry (ignored when unscored or when a leg is unsettled).
    fn put_entry(&self, key: &str, entry: &RewardEntry);
    /// Waits until every put made so far is committed; an error says what could not be
    /// stored (the results themselves are unaffected).
    fn flush(&self) -> Result<()>;
    /// Entry lookups so far.
    fn stats(&self) -> CacheStats;
    /// The store, for messages: a file, or a URL without its password.
    fn describe(&self) -> String;

    /// One leg result by key.
    fn get_leg(&self, key: &str) -> Option<CachedLeg> {
        self.get_legs(&[key]).pop().flatten()
    }

    /// One reward entry by key, in its stored form.
    fn get_entry(&self, key: &str) -> Option<StoredEntry> {
        self.get_entries(&[key]).pop().flatten()
    }
}

/// Hit/miss counters shared by the implementations.
#[derive(Debug, Default)]
pub(crate) struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
}

impl Counters {
    pub(crate) fn record<T>(&self, found: &[Option<T>]) {
        let hits = found.iter().filter(|f| f.is_some()).count() as u64;
        self.hits.fetch_add(hits, Ordering::Relaxed);
        self.misses
            .fetch_add(found.len() as u64 - hits, Ordering::Relaxed);
    }

    pub(crate) fn stats(&self) -> CacheStats {
        CacheStats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
        }
    }
}

/// A key as the persistent stores keep it: the 32 bytes of a key of 64 hex digits (what the
/// engine makes), any other key's own bytes after a zero byte (so the two never meet).
pub(crate) fn key_bytes(key: &str) -> Vec<u8> {
    let hex = key.as_bytes();
    let digit = |c: u8| (c as char).to_digit(16).map(|d| d as u8);
    if hex.len() == 64 {
        let decoded: Option<Vec<u8>> = hex
            .chunks(2)
            .map(|p| Some(digit(p[0])? << 4 | digit(p[1])?))
            .collect();
        if let Some(d) = decoded {
            return d;
        }
    }
    let mut raw = Vec::with_capacity(hex.len() + 1);
    raw.push(0);
    raw.extend_from_slice(hex);
    raw
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
pub(crate) mod tests;
