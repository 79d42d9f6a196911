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

mod cache;
mod check;
mod episodes;
mod memory;
mod postgres;
mod schema;
mod spec;
mod sqlite;
mod stored;
mod writer;

pub use crate::cache::{Cache, CacheStats, CachedLeg, EntryCheck};
pub use crate::episodes::{
    EpisodeError, EpisodeLimits, EpisodeStore, MemoryEpisodes, PgEpisodes, SqliteEpisodes, Update,
};
pub use crate::memory::MemoryCache;
pub use crate::postgres::{PgCache, redact_url};
pub use crate::spec::{CACHE_URL_VAR, CacheSpec};
pub use crate::sqlite::SqliteCache;
pub use crate::stored::{Facts, LegFacts, StoredEntry, served};
pub use crate::writer::{MAX_BATCH_ROWS, MAX_UNCOMMITTED_ROWS};

#[cfg(test)]
mod tests;
