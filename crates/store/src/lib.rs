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
//! Three stores: [`SqliteCache`] (one file under the run's folder, the embedded default),
//! [`PgCache`] (PostgreSQL, shared by several processes and nodes, chosen by a URL) and
//! [`MemoryCache`] (bounded, for a service that needs no persistence). [`CacheSpec`] says which
//! one a run or the service opens: a config's `cache:` value, overridden by the
//! [`CACHE_URL_VAR`] environment variable.

mod check;
pub mod episodes;
mod memory;
mod postgres;
mod schema;
mod sqlite;
mod stored;
mod writer;

pub use memory::MemoryCache;
pub use postgres::{PgCache, redact_url};
pub use sqlite::SqliteCache;
pub use stored::{Facts, LegFacts, StoredEntry, served};
pub use writer::{MAX_BATCH_ROWS, MAX_UNCOMMITTED_ROWS};

pub(crate) use check::Counters;
use writer::Table;

use aorlta_check::{CoreError, Result};
use aorlta_record::{LegState, Reason, RewardEntry};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The environment variable that names a PostgreSQL store for `aorlta score` and `aorlta serve`;
/// when set (and not empty) it overrides the config's `cache:`.
pub const CACHE_URL_VAR: &str = "AORLTA_CACHE_URL";

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

/// Hit, miss and rejection counts since the cache was opened.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct CacheStats {
    /// Entry lookups that found a result fit for use.
    pub hits: u64,
    /// Entry lookups that found none (a rejected row included).
    pub misses: u64,
    /// Rows found that failed their check (a checksum that does not match, a text that is not
    /// a result, an entry that breaks the reward contract or belongs elsewhere), entries and
    /// leg results alike: each one was used as a miss and computed again.
    pub rejected: u64,
}

impl CacheStats {
    /// hits / (hits + misses), 0 when nothing was looked up.
    pub fn hit_rate(&self) -> f64 {
        let n = self.hits + self.misses;
        if n == 0 { 0.0 } else { self.hits as f64 / n as f64 }
    }
}

/// What a reader checks of each entry found before it is used: given the index of its key in
/// the lookup and the entry, `Err` says why it is unfit ([`Cache::get_entries_checked`]).
pub type EntryCheck<'a> = dyn FnMut(usize, &StoredEntry) -> std::result::Result<(), String> + 'a;

/// A result store. Reads take many keys at once; puts return at once and may be committed
/// later (see [`Cache::flush`]). Failures to store are logged by the implementation and never
/// fail a leg: a result that was not stored is computed again.
///
/// Every row read back is checked before it is given out: a persistent store's rows against
/// their checksums, leg results for a state that is stored, entries by the caller's check. A
/// row that fails is answered as missing, counted in [`CacheStats::rejected`], warned about on
/// standard error (once per row), and replaced by the next put under its key (a put otherwise
/// keeps the first value stored).
pub trait Cache: Send + Sync {
    /// Leg results by key, one answer per key, in order.
    fn get_legs(&self, keys: &[&str]) -> Vec<Option<CachedLeg>>;
    /// Stores a leg result (ignored when unsettled).
    fn put_leg(&self, key: &str, leg: &CachedLeg);
    /// Reward entries by key, in their stored form ([`StoredEntry`]), one answer per key, in
    /// order, each one found passed through `check` first (one that fails is a miss, and
    /// rejected); each lookup counts in [`Cache::stats`].
    fn get_entries_checked(&self, keys: &[&str], check: &mut EntryCheck<'_>) -> Vec<Option<StoredEntry>>;
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

    /// [`Cache::get_entries_checked`] with the check an entry alone allows: the reward
    /// contract and the stored form ([`StoredEntry::check`]).
    fn get_entries(&self, keys: &[&str]) -> Vec<Option<StoredEntry>> {
        self.get_entries_checked(keys, &mut |_, s| s.check().map(drop))
    }

    /// One reward entry by key, in its stored form, checked as [`Cache::get_entries`] does.
    fn get_entry(&self, key: &str) -> Option<StoredEntry> {
        self.get_entries(&[key]).pop().flatten()
    }
}

/// Which persistent store to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CacheSpec {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database, by its URL (`postgres://user@host:port/db`).
    Postgres(String),
}

impl CacheSpec {
    /// True when `value` is a PostgreSQL URL (`postgres://…` or `postgresql://…`).
    pub fn is_url(value: &str) -> bool {
        value.starts_with("postgres://") || value.starts_with("postgresql://")
    }

    /// A config's `cache:` value: a PostgreSQL URL, or a SQLite file resolved against `base`.
    pub fn from_config_value(value: &str, base: &Path) -> Self {
        if Self::is_url(value) {
            CacheSpec::Postgres(value.to_string())
        } else {
            let p = Path::new(value);
            CacheSpec::Sqlite(if p.is_absolute() {
                p.to_path_buf()
            } else {
                base.join(p)
            })
        }
    }

    /// The store [`CACHE_URL_VAR`] names, if it is set and not empty; an error when it holds
    /// something other than a PostgreSQL URL.
    pub fn from_env() -> Result<Option<Self>> {
        match std::env::var(CACHE_URL_VAR) {
            Ok(v) if v.trim().is_empty() => Ok(None),
            Ok(v) if Self::is_url(v.trim()) => Ok(Some(CacheSpec::Postgres(v.trim().to_string()))),
            Ok(v) => Err(CoreError::Invalid {
                path: PathBuf::from(format!("${CACHE_URL_VAR}")),
                message: format!(
                    "`{}` is not a PostgreSQL URL (postgres://user@host:port/db)",
                    redact_url(&v)
                ),
            }),
            Err(_) => Ok(None),
        }
    }

    /// `self`, unless [`CACHE_URL_VAR`] names a store: the rule both `aorlta score` and
    /// `aorlta serve` follow.
    pub fn or_env(self) -> Result<Self> {
        Ok(Self::from_env()?.unwrap_or(self))
    }

    /// Opens the store (creating or migrating its schema). `readers` is how many threads may
    /// read at once.
    pub fn open(&self, readers: usize) -> Result<Arc<dyn Cache>> {
        Ok(match self {
            CacheSpec::Sqlite(p) => Arc::new(SqliteCache::open_with(p, readers)?),
            CacheSpec::Postgres(u) => Arc::new(PgCache::connect(u, readers)?),
        })
    }
}

impl std::fmt::Display for CacheSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CacheSpec::Sqlite(p) => write!(f, "{}", p.display()),
            CacheSpec::Postgres(u) => f.write_str(&redact_url(u)),
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

/// A key as the persistent stores keep it: the 32 bytes of a key of 64 hex digits (what the
/// engine makes), any other key's own bytes after a zero byte (so the two never meet).
pub(crate) fn key_bytes(key: &str) -> Vec<u8> {
    fn digit(c: u8) -> Option<u8> {
        match c {
            b'0'..=b'9' => Some(c - b'0'),
            b'a'..=b'f' => Some(c - b'a' + 10),
            b'A'..=b'F' => Some(c - b'A' + 10),
            _ => None,
        }
    }
    let hex = key.as_bytes();
    if hex.len() == 64 {
        let mut out = Vec::with_capacity(32);
        for p in hex.chunks_exact(2) {
            match (digit(p[0]), digit(p[1])) {
                (Some(h), Some(l)) => out.push(h << 4 | l),
                _ => break,
            }
        }
        if out.len() == 32 {
            return out;
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
