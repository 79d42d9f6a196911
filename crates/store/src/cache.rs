//! The result store's interface: the [`Cache`] trait every store implements, the leg result it
//! keeps ([`CachedLeg`]), its counts ([`CacheStats`]), and which results may be stored as final
//! (never an unsettled leg or an unscored entry, so a resumed run retries them).

use crate::stored::StoredEntry;
use aorlta_check::Result;
use aorlta_record::{LegState, Reason, RewardEntry};
use serde::{Deserialize, Serialize};

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

/// True when a leg result may be stored as final.
pub(crate) fn storable_leg(leg: &CachedLeg) -> bool {
    leg.state != LegState::Unsettled
}

/// True when an entry may be stored as final.
pub(crate) fn storable_entry(e: &RewardEntry) -> bool {
    e.scored && e.legs.iter().all(|l| l.state != LegState::Unsettled)
}
