//! The embedded default store: one SQLite file (WAL mode) under the run's folder.

use super::{Cache, CacheStats, CachedLeg, Counters, storable_entry, storable_leg};
use crate::error::{CoreError, Result};
use aorlta_record::RewardEntry;
use rusqlite::{Connection, OptionalExtension, params};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// A SQLite-backed cache.
#[derive(Debug)]
pub struct SqliteCache {
    path: PathBuf,
    conn: Mutex<Connection>,
    counters: Counters,
}

impl SqliteCache {
    /// Opens (creating if needed) the cache file.
    pub fn open(path: &Path) -> Result<Self> {
        let err = |e: rusqlite::Error| CoreError::Cache {
            path: path.to_path_buf(),
            message: e.to_string(),
        };
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
        }
        let conn = Connection::open(path).map_err(err)?;
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(err)?;
        conn.execute_batch(
            "PRAGMA journal_mode=WAL;
             PRAGMA synchronous=NORMAL;
             CREATE TABLE IF NOT EXISTS legs (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
        )
        .map_err(err)?;
        Ok(SqliteCache {
            path: path.to_path_buf(),
            conn: Mutex::new(conn),
            counters: Counters::default(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    fn get(&self, table: &str, key: &str) -> Option<String> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let sql = format!("SELECT value FROM {table} WHERE key = ?1");
        match conn
            .query_row(&sql, params![key], |r| r.get::<_, String>(0))
            .optional()
        {
            Ok(v) => v,
            Err(e) => {
                eprintln!("warning: cache {}: read failed: {e}", self.path.display());
                None
            }
        }
    }

    fn put(&self, table: &str, key: &str, value: &str) {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let sql = format!("INSERT OR REPLACE INTO {table} (key, value) VALUES (?1, ?2)");
        if let Err(e) = conn.execute(&sql, params![key, value]) {
            eprintln!("warning: cache {}: write failed: {e}", self.path.display());
        }
    }
}

impl Cache for SqliteCache {
    fn get_leg(&self, key: &str) -> Option<CachedLeg> {
        self.get("legs", key).and_then(|v| serde_json::from_str(&v).ok())
    }

    fn put_leg(&self, key: &str, leg: &CachedLeg) {
        if storable_leg(leg)
            && let Ok(v) = serde_json::to_string(leg)
        {
            self.put("legs", key, &v);
        }
    }

    fn get_entry(&self, key: &str) -> Option<RewardEntry> {
        let found = self
            .get("entries", key)
            .and_then(|v| serde_json::from_str(&v).ok());
        self.counters.record(found)
    }

    fn put_entry(&self, key: &str, entry: &RewardEntry) {
        if storable_entry(entry)
            && let Ok(v) = serde_json::to_string(entry)
        {
            self.put("entries", key, &v);
        }
    }

    fn stats(&self) -> CacheStats {
        self.counters.stats()
    }
}
