//! Which store a run or the service opens ([`CacheSpec`]): a config's `cache:` value (a SQLite
//! file or a PostgreSQL URL), overridden by the [`CACHE_URL_VAR`] environment variable.

use crate::cache::Cache;
use crate::postgres::{PgCache, redact_url};
use crate::sqlite::SqliteCache;
use aorlta_check::{CoreError, Result};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The environment variable that names a PostgreSQL store for `aorlta score` and `aorlta serve`;
/// when set (and not empty) it overrides the config's `cache:`.
pub const CACHE_URL_VAR: &str = "AORLTA_CACHE_URL";

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
