//! The embedded default store: one SQLite file (WAL mode) under the run's folder. Reads use a
//! few read-only connections (WAL lets them read while the writer commits), each read one query
//! for all its keys; writes go through the [`Writer`] thread on a connection of its own,
//! `INSERT OR IGNORE` in one `BEGIN IMMEDIATE` transaction per batch, so several processes can
//! share a file (SQLite's locks take turns, `busy_timeout` waits) and the first value stored
//! under a key stays (unless it failed its check when read: then the value computed in its
//! place replaces it). Every row carries its checksum (`check.rs`), checked on every read.

use crate::cache::{Cache, CacheStats, CachedLeg, EntryCheck, storable_entry, storable_leg};
use crate::check::{Counters, checked, entry_sum, leg_of_text, leg_sum, verify};
use crate::schema::{self, key_bytes};
use crate::stored::StoredEntry;
use crate::writer::{Commit, Row, Table, Value, Writer};
use aorlta_check::{CoreError, Result};
use aorlta_record::RewardEntry;
use rusqlite::{Connection, TransactionBehavior, params};
use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::path::{Path, PathBuf};
use std::rc::Rc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// How long a connection waits for another process's lock before giving up.
const BUSY_TIMEOUT: Duration = Duration::from_secs(30);

/// A SQLite-backed cache.
#[derive(Debug)]
pub struct SqliteCache {
    path: PathBuf,
    writer: Writer,
    readers: Vec<Mutex<Connection>>,
    next: AtomicUsize,
    counters: Counters,
}

fn connect(path: &Path) -> rusqlite::Result<Connection> {
    let conn = Connection::open(path)?;
    conn.busy_timeout(BUSY_TIMEOUT)?;
    // 16 KiB pages for a new file (an existing one keeps its own): a chunk's entries, stored
    // together, are read in a quarter of the page fetches, and the key index is a level
    // shallower.
    conn.execute_batch("PRAGMA page_size=16384;")?;
    wal(&conn)?;
    conn.execute_batch("PRAGMA synchronous=NORMAL;")?;
    // `rarray(?)`: a list of keys bound as one parameter.
    rusqlite::vtab::array::load_module(&conn)?;
    Ok(conn)
}

/// Puts the file in WAL mode. Switching a new file takes an exclusive lock, and SQLite answers
/// "database is locked" at once, without waiting, to the second of two connections switching
/// together (workers starting side by side on one shared file), so this waits and tries again
/// for up to [`BUSY_TIMEOUT`]; once the file is in WAL mode, the pragma takes no lock.
fn wal(conn: &Connection) -> rusqlite::Result<()> {
    let start = std::time::Instant::now();
    loop {
        match conn.query_row("PRAGMA journal_mode=WAL", [], |_| Ok(())) {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy && start.elapsed() < BUSY_TIMEOUT =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            done => return done,
        }
    }
}

/// Step 1: the layout every build before versioning wrote.
const V1: &str = "CREATE TABLE IF NOT EXISTS legs (key TEXT PRIMARY KEY, value TEXT NOT NULL);
     CREATE TABLE IF NOT EXISTS entries (key TEXT PRIMARY KEY, value TEXT NOT NULL);";

/// Step 2's tables (schema.rs says why this layout).
const V2: &str = "CREATE TABLE legs_v2 (key BLOB PRIMARY KEY, value TEXT NOT NULL);
     CREATE TABLE entries_v2 (k8 INTEGER NOT NULL, key BLOB NOT NULL, value TEXT NOT NULL,
         reward REAL, facts TEXT);
     CREATE INDEX entries_k8 ON entries_v2 (k8);";

/// The first 8 bytes of a stored key, as the integer `entries.k8` holds.
fn k8(key: &[u8]) -> i64 {
    let mut b = [0u8; 8];
    let n = key.len().min(8);
    b[..n].copy_from_slice(&key[..n]);
    i64::from_le_bytes(b)
}

/// Step 2: version 1's rows copied into the new tables with their keys decoded.
fn to_v2(tx: &rusqlite::Transaction<'_>) -> rusqlite::Result<()> {
    tx.execute_batch(V2)?;
    for (old, new) in [("legs", "legs_v2"), ("entries", "entries_v2")] {
        let rows: Vec<(String, String)> = tx
            .prepare(&format!("SELECT key, value FROM {old}"))?
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))?
            .collect::<rusqlite::Result<_>>()?;
        for (key, value) in rows {
            let key = key_bytes(&key);
            if new == "legs_v2" {
                tx.execute(
                    "INSERT OR IGNORE INTO legs_v2 (key, value) VALUES (?1, ?2)",
                    params![key, value],
                )?;
            } else {
                tx.execute(
                    INSERT_ENTRY_V2,
                    params![k8(&key), key, value, None::<f64>, None::<String>],
                )?;
            }
        }
        tx.execute_batch(&format!("DROP TABLE {old}; ALTER TABLE {new} RENAME TO {old};"))?;
    }
    Ok(())
}

/// Step 2's insert: an entry unless one with its key is there.
const INSERT_ENTRY_V2: &str = "INSERT INTO entries_v2 (k8, key, value, reward, facts)
     SELECT ?1, ?2, ?3, ?4, ?5 WHERE NOT EXISTS (SELECT 1 FROM entries_v2 WHERE k8 = ?1 AND key = ?2)";

/// Step 3: every row with a checksum. The rows stored before have none, so they could not be
/// told from a damaged or edited row: they are dropped (schema.rs), and computed again when
/// asked for.
const V3: &str = "DROP TABLE legs; DROP TABLE entries;
     CREATE TABLE legs (key BLOB PRIMARY KEY, value TEXT NOT NULL, sum BLOB NOT NULL);
     CREATE TABLE entries (k8 INTEGER NOT NULL, key BLOB NOT NULL, value TEXT NOT NULL,
         reward REAL, facts TEXT NOT NULL, sum BLOB NOT NULL);
     CREATE INDEX entries_k8 ON entries (k8);";

/// Stores an entry unless one with its key is there (the first value stays; the writer holds
/// the file's write lock, so no other process inserts between the check and the insert).
const INSERT_ENTRY: &str = "INSERT INTO entries (k8, key, value, reward, facts, sum)
     SELECT ?1, ?2, ?3, ?4, ?5, ?6 WHERE NOT EXISTS (SELECT 1 FROM entries WHERE k8 = ?1 AND key = ?2)";

/// Removes the rows of a key, for an entry that replaces them.
const DELETE_ENTRY: &str = "DELETE FROM entries WHERE k8 = ?1 AND key = ?2";

/// Creates the schema or brings it up to this build's version.
fn migrate(conn: &mut Connection) -> std::result::Result<(), String> {
    let tx = conn
        .transaction_with_behavior(TransactionBehavior::Immediate)
        .map_err(|e| e.to_string())?;
    tx.execute_batch("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL);")
        .map_err(|e| e.to_string())?;
    let found: Option<i64> = tx
        .query_row("SELECT max(version) FROM schema_version", [], |r| r.get(0))
        .map_err(|e| e.to_string())?;
    let steps = schema::plan(found.unwrap_or(0), schema::SQLITE_VERSION)?;
    if !steps.is_empty() {
        for step in steps {
            match step {
                0 => tx.execute_batch(V1),
                1 => to_v2(&tx),
                2 => tx.execute_batch(V3),
                _ => unreachable!("schema::SQLITE_VERSION steps"),
            }
            .map_err(|e| format!("migrating the schema to version {}: {e}", step + 1))?;
        }
        tx.execute("DELETE FROM schema_version", [])
            .and_then(|_| {
                tx.execute(
                    "INSERT INTO schema_version (version) VALUES (?1)",
                    params![schema::SQLITE_VERSION as i64],
                )
            })
            .map_err(|e| e.to_string())?;
    }
    tx.commit().map_err(|e| e.to_string())
}

/// Commits batches on the writer's own connection.
struct SqliteCommit(Connection);

impl Commit for SqliteCommit {
    fn commit(&mut self, rows: &[Row]) -> std::result::Result<(), String> {
        let tx = self
            .0
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(|e| e.to_string())?;
        {
            let mut legs = tx
                .prepare_cached("INSERT OR IGNORE INTO legs (key, value, sum) VALUES (?1, ?2, ?3)")
                .map_err(|e| e.to_string())?;
            let mut legs_replacing = tx
                .prepare_cached("INSERT OR REPLACE INTO legs (key, value, sum) VALUES (?1, ?2, ?3)")
                .map_err(|e| e.to_string())?;
            let mut entries = tx.prepare_cached(INSERT_ENTRY).map_err(|e| e.to_string())?;
            let mut delete = tx.prepare_cached(DELETE_ENTRY).map_err(|e| e.to_string())?;
            for r in rows {
                let key = key_bytes(&r.key);
                match &r.value {
                    Value::Leg(v) => {
                        let sum = leg_sum(&key, v);
                        let stmt = if r.replace { &mut legs_replacing } else { &mut legs };
                        stmt.execute(params![key, &**v, sum])
                    }
                    Value::Entry(e) => {
                        let sum = entry_sum(&key, e.json(), e.reward(), e.facts_json());
                        let k8 = k8(&key);
                        if r.replace {
                            delete.execute(params![k8, key]).map_err(|e| e.to_string())?;
                        }
                        entries.execute(params![k8, key, e.json(), e.reward(), e.facts_json(), sum])
                    }
                }
                .map_err(|e| e.to_string())?;
            }
        }
        tx.commit().map_err(|e| e.to_string())
    }
}

impl SqliteCache {
    /// Opens (creating if needed) the cache file, with four readers.
    pub fn open(path: &Path) -> Result<Self> {
        Self::open_with(path, 4)
    }

    /// Opens (creating if needed) the cache file, with `readers` read connections (at least
    /// one): as many threads as that read at once.
    pub fn open_with(path: &Path, readers: usize) -> Result<Self> {
        let err = |message: String| CoreError::Cache {
            store: path.display().to_string(),
            message,
        };
        if let Some(dir) = path.parent()
            && !dir.as_os_str().is_empty()
        {
            std::fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
        }
        let mut conn = connect(path).map_err(|e| err(e.to_string()))?;
        migrate(&mut conn).map_err(err)?;
        // The writer's connection: a page cache that holds the key index of a large store, and
        // a checkpoint every 1000 WAL pages of 16 KiB rather than 1000 of 4 KiB (a page changed
        // by several batches is copied into the file once).
        conn.execute_batch("PRAGMA cache_size=-16384; PRAGMA wal_autocheckpoint=1000;")
            .map_err(|e| err(e.to_string()))?;
        let readers = (0..readers.max(1))
            .map(|_| {
                connect(path).and_then(|c| {
                    // Room for the key index of a large store, read at random.
                    c.execute_batch("PRAGMA cache_size=-8192;")?;
                    Ok(Mutex::new(c))
                })
            })
            .collect::<rusqlite::Result<Vec<_>>>()
            .map_err(|e| err(e.to_string()))?;
        let writer = Writer::start(path.display().to_string(), SqliteCommit(conn))
            .map_err(|e| err(format!("starting the writer thread: {e}")))?;
        Ok(SqliteCache {
            path: path.to_path_buf(),
            writer,
            readers,
            next: AtomicUsize::new(0),
            counters: Counters::default(),
        })
    }

    /// The file.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A free read connection (or, when every one is busy, the next in turn).
    fn reader(&self) -> std::sync::MutexGuard<'_, Connection> {
        let n = self.readers.len();
        let start = self.next.fetch_add(1, Ordering::Relaxed) % n;
        for i in 0..n {
            if let Ok(g) = self.readers[(start + i) % n].try_lock() {
                return g;
            }
        }
        self.readers[start].lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The rows of `keys` (pending rows first, then one query for the rest), each made by
    /// `row` from its stored key and the query's columns; a row for which `row` says why it is
    /// unfit is rejected, and missing.
    fn get<T>(
        &self,
        table: Table,
        keys: &[&str],
        pending: impl Fn(Value) -> Option<T>,
        mut row: impl FnMut(&[u8], &rusqlite::Row<'_>) -> std::result::Result<T, String>,
    ) -> Vec<Option<T>>
    where
        T: Clone,
    {
        let mut out: Vec<Option<T>> = self
            .writer
            .pending_many(table, keys)
            .into_iter()
            .map(|v| v.and_then(&pending))
            .collect();
        let bytes: Vec<Vec<u8>> = keys.iter().map(|k| key_bytes(k)).collect();
        // Each key asked for once; a repeat takes its first's answer.
        let mut first: HashMap<&[u8], usize> = HashMap::with_capacity(keys.len());
        let mut repeats: Vec<(usize, usize)> = Vec::new();
        for (i, b) in bytes.iter().enumerate() {
            if out[i].is_none() {
                match first.entry(b.as_slice()) {
                    Entry::Occupied(f) => repeats.push((*f.get(), i)),
                    Entry::Vacant(v) => {
                        v.insert(i);
                    }
                }
            }
        }
        if first.is_empty() {
            return out;
        }
        let list: Rc<Vec<rusqlite::types::Value>> = Rc::new(match table {
            Table::Legs => first
                .keys()
                .map(|k| rusqlite::types::Value::Blob(k.to_vec()))
                .collect(),
            Table::Entries => first
                .keys()
                .map(|k| rusqlite::types::Value::Integer(k8(k)))
                .collect(),
        });
        // The list drives the join, one index search per key; an entry is found by its key's
        // first 8 bytes and its whole key is checked below.
        let sql = match table {
            Table::Legs => {
                "SELECT l.key, l.value, l.sum FROM rarray(?1) AS r CROSS JOIN legs AS l ON l.key = r.value"
            }
            Table::Entries => {
                "SELECT e.key, e.value, e.reward, e.facts, e.sum FROM rarray(?1) AS r \
                 CROSS JOIN entries AS e ON e.k8 = r.value"
            }
        };
        let mut rejected: Vec<(usize, String)> = Vec::new();
        let conn = self.reader();
        let result = conn.prepare_cached(sql).and_then(|mut stmt| {
            let mut rows = stmt.query(params![list])?;
            while let Some(r) = rows.next()? {
                // A key that is not a blob is no key asked for.
                let Ok(key) = r.get_ref(0)?.as_blob() else {
                    continue;
                };
                if let Some(&i) = first.get(key)
                    && out[i].is_none()
                {
                    match row(key, r) {
                        Ok(v) => out[i] = Some(v),
                        Err(why) => rejected.push((i, why)),
                    }
                }
            }
            Ok(())
        });
        drop(conn);
        if let Err(e) = result {
            eprintln!("warning: cache {}: read failed: {e}", self.path.display());
        }
        let store = self.path.display().to_string();
        for (i, why) in rejected {
            if out[i].is_none() {
                self.counters.reject(&store, table, keys[i], &why);
            }
        }
        for (f, i) in repeats {
            out[i] = out[f].clone();
        }
        out
    }
}

/// A text column of a row read back; `Err` when it is not text.
fn text<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> std::result::Result<&'r str, String> {
    r.get_ref(i)
        .and_then(|v| v.as_str().map_err(Into::into))
        .map_err(|e| format!("its text cannot be read: {e}"))
}

/// The checksum column of a row read back (`None` when it is not a blob).
fn sum<'r>(r: &'r rusqlite::Row<'_>, i: usize) -> Option<&'r [u8]> {
    r.get_ref(i).ok()?.as_blob().ok()
}

impl Cache for SqliteCache {
    fn get_legs(&self, keys: &[&str]) -> Vec<Option<CachedLeg>> {
        let parse = |v: &str| serde_json::from_str::<CachedLeg>(v).ok();
        self.get(
            Table::Legs,
            keys,
            |v| match v {
                Value::Leg(v) => parse(&v),
                Value::Entry(_) => None,
            },
            |key, r| {
                let value = text(r, 1)?;
                verify(sum(r, 2), leg_sum(key, value))?;
                leg_of_text(value)
            },
        )
    }

    fn put_leg(&self, key: &str, leg: &CachedLeg) {
        if storable_leg(leg)
            && let Ok(v) = serde_json::to_string(leg)
        {
            let replace = self.counters.replaces(Table::Legs, key);
            self.writer.put(key, Value::Leg(v.into()), replace);
        }
    }

    fn get_entries_checked(&self, keys: &[&str], check: &mut EntryCheck<'_>) -> Vec<Option<StoredEntry>> {
        let mut seen: Vec<Arc<str>> = Vec::new();
        let found = self.get(
            Table::Entries,
            keys,
            |v| match v {
                Value::Entry(e) => Some(e),
                Value::Leg(_) => None,
            },
            |key, r| {
                let value = text(r, 1)?;
                let reward: Option<f64> = r.get(2).map_err(|e| format!("its reward cannot be read: {e}"))?;
                let facts = text(r, 3)?;
                verify(sum(r, 4), entry_sum(key, value, reward, facts))?;
                // Most entries' facts are the same few texts: each is kept once.
                let facts = match seen.iter().find(|s| &***s == facts) {
                    Some(s) => Arc::clone(s),
                    None => {
                        let s: Arc<str> = facts.into();
                        seen.push(Arc::clone(&s));
                        s
                    }
                };
                StoredEntry::from_parts(value, reward, Some(facts))
                    .ok_or_else(|| "its text is not an entry".into())
            },
        );
        checked(
            &self.path.display().to_string(),
            &self.counters,
            keys,
            found,
            check,
        )
    }

    fn put_entry(&self, key: &str, entry: &RewardEntry) {
        if storable_entry(entry) {
            let replace = self.counters.replaces(Table::Entries, key);
            self.writer
                .put(key, Value::Entry(StoredEntry::of(entry)), replace);
        }
    }

    fn flush(&self) -> Result<()> {
        self.writer.flush().map_err(|message| CoreError::Cache {
            store: self.path.display().to_string(),
            message,
        })
    }

    fn stats(&self) -> CacheStats {
        self.counters.stats()
    }

    fn describe(&self) -> String {
        self.path.display().to_string()
    }
}
