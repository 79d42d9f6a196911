//! The shared store: a PostgreSQL database named by a URL (`postgres://user@host:port/db`), for
//! several processes or nodes scoring against one cache. `tokio-postgres` with a `deadpool`
//! pool, on a small runtime of the store's own, so the engine's threads call it like the
//! SQLite store: a read is one `WHERE key = ANY($1)` query for all its keys; puts go through the
//! [`Writer`] thread, one transaction per batch of `INSERT … SELECT * FROM UNNEST(…) ON CONFLICT
//! (key) DO NOTHING` (the first value stored under a key stays; a key's results are the same
//! whoever computes them), its keys sorted so that two writers sharing keys take their locks in
//! one order, retried on a deadlock, a serialisation failure or a lost connection; a row that
//! replaces one that failed its check is an `ON CONFLICT (key) DO UPDATE`. Every row carries
//! its checksum (`check.rs`), checked on every read. Errors name the URL without its password.
//! No TLS: reach the server by a unix socket or a private network.

use crate::cache::{Cache, CacheStats, CachedLeg, EntryCheck, storable_entry, storable_leg};
use crate::check::{Counters, checked, entry_sum, leg_of_text, leg_sum, verify};
use crate::schema::{self, key_bytes};
use crate::stored::StoredEntry;
use crate::writer::{Commit, Row, Table, Value, Writer};
use aorlta_check::{CoreError, Result};
use aorlta_record::RewardEntry;
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod, Runtime};
use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;
use tokio_postgres::NoTls;

/// How long connecting may take.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// Attempts at committing one batch.
const ATTEMPTS: usize = 3;
/// The advisory lock the schema's migrations hold (any fixed number; one migration at a time).
pub(crate) const MIGRATION_LOCK: i64 = 0x616f_726c_7461;

/// `url` without its password: what messages show. Both ways of naming a PostgreSQL database
/// are understood: in a URL (`postgres://user:secret@host/db?password=secret`), `user:secret@`
/// becomes `user@` and a `password=` parameter is blanked; in a key=value conninfo
/// (`host=/run/pg password='sec ret' dbname=db`), the `password` value is blanked, quoted or
/// not. Where the text is ambiguous (a `:` and an `@` that a password may hold), more is taken
/// out rather than less.
pub fn redact_url(url: &str) -> String {
    let scheme_end = url.find("://").filter(|&i| {
        i > 0
            && url[..i]
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b"+-.".contains(&b))
    });
    let Some(scheme_end) = scheme_end else {
        return redact_conninfo(url);
    };
    let (scheme, rest) = url.split_at(scheme_end + 3);
    // The user information runs to the last `@` (a password may hold `/`, `?` or `@`).
    let rest = match rest.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _)) => format!("{user}@{host}"),
            None => rest.to_string(),
        },
        None => rest.to_string(),
    };
    let rest = match rest.split_once('?') {
        Some((path, query)) => {
            let params: Vec<String> = query
                .split('&')
                .map(|p| match p.split_once('=') {
                    Some((k, _)) if k.eq_ignore_ascii_case("password") => format!("{k}=…"),
                    _ => p.to_string(),
                })
                .collect();
            format!("{path}?{}", params.join("&"))
        }
        None => rest,
    };
    format!("{scheme}{rest}")
}

/// A key=value conninfo with its `password` value blanked: pairs `key = value`, white space
/// around `=` allowed, a value bare (a backslash escapes the next character) or in single
/// quotes (with `\'` and `\\` inside). An unterminated quote runs to the end.
fn redact_conninfo(text: &str) -> String {
    let b = text.as_bytes();
    let space = |i: usize| i < b.len() && b[i].is_ascii_whitespace();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let from = i;
        while space(i) {
            i += 1;
        }
        while i < b.len() && b[i] != b'=' && !space(i) {
            i += 1;
        }
        let key = text[from..i].trim_start();
        let mut eq = i;
        while space(eq) {
            eq += 1;
        }
        if eq >= b.len() || b[eq] != b'=' {
            out.push_str(&text[from..i]);
            continue;
        }
        i = eq + 1;
        while space(i) {
            i += 1;
        }
        out.push_str(&text[from..i]);
        let value = i;
        if i < b.len() && b[i] == b'\'' {
            i += 1;
            while i < b.len() && b[i] != b'\'' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
        } else {
            while i < b.len() && !b[i].is_ascii_whitespace() {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
        }
        // A step past an escape may overshoot the end; every other stop is at an ASCII byte.
        i = i.min(b.len());
        while !text.is_char_boundary(i) {
            i += 1;
        }
        if key.eq_ignore_ascii_case("password") {
            out.push('…');
        } else {
            out.push_str(&text[value..i]);
        }
    }
    out
}

/// A PostgreSQL-backed cache.
pub struct PgCache {
    url: String,
    writer: Option<Writer>,
    pool: Pool,
    rt: Option<tokio::runtime::Runtime>,
    counters: Counters,
}

impl std::fmt::Debug for PgCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PgCache")
            .field("url", &self.url)
            .finish_non_exhaustive()
    }
}

/// Runs `fut` on the store's runtime and waits for it from this thread (which may be any
/// thread, a runtime's own included).
fn wait<T: Send + 'static>(rt: &tokio::runtime::Handle, fut: impl Future<Output = T> + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    rt.spawn(async move {
        let _ = tx.send(fut.await);
    });
    rx.recv()
        .expect("the store's runtime runs until the store is dropped")
}

/// One error's text with its causes (`tokio-postgres` keeps the server's message in a cause).
pub(crate) fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut source = e.source();
    while let Some(c) = source {
        let text = c.to_string();
        if !s.contains(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        source = c.source();
    }
    s
}

/// Creates the schema or brings it up to this build's version, one process at a time.
async fn migrate(pool: Pool) -> std::result::Result<(), String> {
    let mut client = pool.get().await.map_err(|e| chain(&e))?;
    let tx = client.transaction().await.map_err(|e| chain(&e))?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await
        .map_err(|e| chain(&e))?;
    tx.batch_execute("CREATE TABLE IF NOT EXISTS aorlta_schema_version (version INTEGER NOT NULL)")
        .await
        .map_err(|e| chain(&e))?;
    let found: Option<i32> = tx
        .query_one("SELECT max(version) FROM aorlta_schema_version", &[])
        .await
        .map_err(|e| chain(&e))?
        .get(0);
    let steps = schema::plan(i64::from(found.unwrap_or(0)), schema::POSTGRES.len())?;
    if !steps.is_empty() {
        for (i, sql) in schema::POSTGRES.iter().enumerate().skip(steps.start) {
            tx.batch_execute(sql)
                .await
                .map_err(|e| format!("migrating the schema to version {}: {}", i + 1, chain(&e)))?;
        }
        let v = schema::POSTGRES.len() as i32;
        tx.execute("DELETE FROM aorlta_schema_version", &[])
            .await
            .map_err(|e| chain(&e))?;
        tx.execute("INSERT INTO aorlta_schema_version (version) VALUES ($1)", &[&v])
            .await
            .map_err(|e| chain(&e))?;
    }
    tx.commit().await.map_err(|e| chain(&e))
}

/// Commits batches through the pool, from the writer thread.
struct PgCommit {
    pool: Pool,
    rt: tokio::runtime::Handle,
}

/// One batch's rows of one table, as the columns of an `UNNEST`.
#[derive(Default)]
struct Columns {
    keys: Vec<Vec<u8>>,
    values: Vec<String>,
    rewards: Vec<Option<f64>>,
    facts: Vec<String>,
    sums: Vec<Vec<u8>>,
}

/// One batch's rows by table, and by whether they replace the stored row, each sorted by key
/// with repeats left out (a key put to replace its row replaces it).
struct Batch {
    legs: [Columns; 2],
    entries: [Columns; 2],
}

impl Batch {
    fn of(rows: &[Row]) -> Self {
        let mut legs: Vec<(Vec<u8>, bool, &str)> = Vec::new();
        let mut entries: Vec<(Vec<u8>, bool, &StoredEntry)> = Vec::new();
        for r in rows {
            match &r.value {
                Value::Leg(v) => legs.push((key_bytes(&r.key), r.replace, v)),
                Value::Entry(e) => entries.push((key_bytes(&r.key), r.replace, e)),
            }
        }
        // Replacing rows first among a key's rows, so the one kept replaces.
        legs.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        legs.dedup_by(|a, b| a.0 == b.0);
        entries.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
        entries.dedup_by(|a, b| a.0 == b.0);
        let mut b = Batch {
            legs: Default::default(),
            entries: Default::default(),
        };
        for (k, replace, v) in legs {
            let c = &mut b.legs[usize::from(replace)];
            c.sums.push(leg_sum(&k, v).to_vec());
            c.keys.push(k);
            c.values.push(v.to_string());
        }
        for (k, replace, e) in entries {
            let c = &mut b.entries[usize::from(replace)];
            c.sums
                .push(entry_sum(&k, e.json(), e.reward(), e.facts_json()).to_vec());
            c.keys.push(k);
            c.values.push(e.json().to_string());
            c.rewards.push(e.reward());
            c.facts.push(e.facts_json().to_string());
        }
        b
    }
}

/// Whether a failed commit is worth another try: a deadlock, a serialisation failure, or a
/// connection that broke.
fn retryable(e: &tokio_postgres::Error) -> bool {
    use tokio_postgres::error::SqlState;
    match e.code() {
        Some(c) => *c == SqlState::T_R_DEADLOCK_DETECTED || *c == SqlState::T_R_SERIALIZATION_FAILURE,
        None => e.is_closed() || e.as_db_error().is_none(),
    }
}

async fn commit_batch(pool: &Pool, b: &Batch) -> std::result::Result<(), (bool, String)> {
    let pg = |e: tokio_postgres::Error| (retryable(&e), chain(&e));
    let mut client = pool.get().await.map_err(|e| (true, chain(&e)))?;
    let tx = client.transaction().await.map_err(pg)?;
    for (c, conflict) in b.legs.iter().zip([
        "DO NOTHING",
        "DO UPDATE SET value = EXCLUDED.value, sum = EXCLUDED.sum",
    ]) {
        if c.keys.is_empty() {
            continue;
        }
        let sql = format!(
            "INSERT INTO aorlta_legs (key, value, sum) \
             SELECT * FROM UNNEST($1::bytea[], $2::text[], $3::bytea[]) ON CONFLICT (key) {conflict}"
        );
        let stmt = tx.prepare_cached(&sql).await.map_err(pg)?;
        tx.execute(&stmt, &[&c.keys, &c.values, &c.sums])
            .await
            .map_err(pg)?;
    }
    for (c, conflict) in b.entries.iter().zip([
        "DO NOTHING",
        "DO UPDATE SET value = EXCLUDED.value, reward = EXCLUDED.reward, facts = EXCLUDED.facts, \
         sum = EXCLUDED.sum",
    ]) {
        if c.keys.is_empty() {
            continue;
        }
        let sql = format!(
            "INSERT INTO aorlta_entries (key, value, reward, facts, sum) \
             SELECT * FROM UNNEST($1::bytea[], $2::text[], $3::float8[], $4::text[], $5::bytea[]) \
             ON CONFLICT (key) {conflict}"
        );
        let stmt = tx.prepare_cached(&sql).await.map_err(pg)?;
        tx.execute(&stmt, &[&c.keys, &c.values, &c.rewards, &c.facts, &c.sums])
            .await
            .map_err(pg)?;
    }
    tx.commit().await.map_err(pg)
}

impl Commit for PgCommit {
    fn commit(&mut self, rows: &[Row]) -> std::result::Result<(), String> {
        let batch = Batch::of(rows);
        let mut attempt = 0;
        loop {
            attempt += 1;
            match self.rt.block_on(commit_batch(&self.pool, &batch)) {
                Ok(()) => return Ok(()),
                Err((true, _)) if attempt < ATTEMPTS => {
                    std::thread::sleep(Duration::from_millis(100 << attempt));
                }
                Err((_, e)) => return Err(e),
            }
        }
    }
}

impl PgCache {
    /// Connects to the database at `url`, creates or migrates the schema, and starts the
    /// writer; `readers` is how many threads may read at once (the pool holds that many
    /// connections and one for the writer).
    pub fn connect(url: &str, readers: usize) -> Result<Self> {
        let shown = redact_url(url);
        let err = |message: String| CoreError::Cache {
            store: shown.clone(),
            message,
        };
        let mut config: tokio_postgres::Config = url
            .parse()
            .map_err(|e: tokio_postgres::Error| err(format!("not a PostgreSQL URL: {}", chain(&e))))?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        if config.get_application_name().is_none() {
            config.application_name("aorlta");
        }
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .thread_name("aorlta-pg")
            .enable_all()
            .build()
            .map_err(|e| err(format!("starting the store's runtime: {e}")))?;
        let manager = Manager::from_config(
            config,
            NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(readers.max(1) + 1)
            .runtime(Runtime::Tokio1)
            .create_timeout(Some(CONNECT_TIMEOUT))
            .wait_timeout(Some(Duration::from_secs(60)))
            .build()
            .map_err(|e| err(e.to_string()))?;
        wait(rt.handle(), migrate(pool.clone())).map_err(err)?;
        let writer = Writer::start(
            shown.clone(),
            PgCommit {
                pool: pool.clone(),
                rt: rt.handle().clone(),
            },
        )
        .map_err(|e| err(format!("starting the writer thread: {e}")))?;
        Ok(PgCache {
            url: shown,
            writer: Some(writer),
            pool,
            rt: Some(rt),
            counters: Counters::default(),
        })
    }

    fn writer(&self) -> &Writer {
        self.writer
            .as_ref()
            .expect("the writer lives as long as the store")
    }

    fn handle(&self) -> &tokio::runtime::Handle {
        self.rt
            .as_ref()
            .expect("the runtime lives as long as the store")
            .handle()
    }

    /// The rows of `keys` not pending in the writer, one query; each made by `row` from its
    /// stored key and its columns; a row for which `row` says why it is unfit is rejected, and
    /// missing.
    fn get<T: Clone + Send + 'static>(
        &self,
        table: Table,
        keys: &[&str],
        pending: impl Fn(Value) -> Option<T>,
        row: fn(&[u8], &tokio_postgres::Row) -> std::result::Result<T, String>,
    ) -> Vec<Option<T>> {
        let mut out: Vec<Option<T>> = keys
            .iter()
            .map(|k| self.writer().pending(table, k).and_then(&pending))
            .collect();
        let mut wanted: HashMap<Vec<u8>, Vec<usize>> = HashMap::new();
        for (i, k) in keys.iter().enumerate() {
            if out[i].is_none() {
                wanted.entry(key_bytes(k)).or_default().push(i);
            }
        }
        if wanted.is_empty() {
            return out;
        }
        let list: Vec<Vec<u8>> = wanted.keys().cloned().collect();
        let pool = self.pool.clone();
        let sql = match table {
            Table::Legs => "SELECT key, value, sum FROM aorlta_legs WHERE key = ANY($1)",
            Table::Entries => "SELECT key, value, reward, facts, sum FROM aorlta_entries WHERE key = ANY($1)",
        };
        let found = wait(self.handle(), async move {
            let client = pool.get().await.map_err(|e| chain(&e))?;
            let stmt = client.prepare_cached(sql).await.map_err(|e| chain(&e))?;
            let rows = client.query(&stmt, &[&list]).await.map_err(|e| chain(&e))?;
            Ok::<_, String>(
                rows.iter()
                    .filter_map(|r| {
                        let key = r.try_get::<_, Vec<u8>>(0).ok()?;
                        let v = row(&key, r);
                        Some((key, v))
                    })
                    .collect::<Vec<_>>(),
            )
        });
        match found {
            Ok(rows) => {
                for (k, v) in rows {
                    if let Some(idx) = wanted.get(&k) {
                        match v {
                            Ok(v) => {
                                for &i in idx {
                                    out[i] = Some(v.clone());
                                }
                            }
                            Err(why) => self.counters.reject(&self.url, table, keys[idx[0]], &why),
                        }
                    }
                }
            }
            Err(e) => eprintln!("warning: cache {}: read failed: {e}", self.url),
        }
        out
    }
}

impl Drop for PgCache {
    /// Commits what is queued, then stops the runtime (from any thread, a runtime's own
    /// included).
    fn drop(&mut self) {
        drop(self.writer.take());
        if let Some(rt) = self.rt.take() {
            rt.shutdown_background();
        }
    }
}

/// A column of a row read back, or why it cannot be read.
fn column<'r, T: tokio_postgres::types::FromSql<'r>>(
    r: &'r tokio_postgres::Row,
    i: usize,
) -> std::result::Result<T, String> {
    r.try_get(i)
        .map_err(|e| format!("its column {i} cannot be read: {}", chain(&e)))
}

impl Cache for PgCache {
    fn get_legs(&self, keys: &[&str]) -> Vec<Option<CachedLeg>> {
        self.get(
            Table::Legs,
            keys,
            |v| match v {
                Value::Leg(v) => serde_json::from_str(&v).ok(),
                Value::Entry(_) => None,
            },
            |key, r| {
                let value: &str = column(r, 1)?;
                verify(column::<Option<&[u8]>>(r, 2)?, leg_sum(key, value))?;
                leg_of_text(value)
            },
        )
    }

    fn put_leg(&self, key: &str, leg: &CachedLeg) {
        if storable_leg(leg)
            && let Ok(v) = serde_json::to_string(leg)
        {
            let replace = self.counters.replaces(Table::Legs, key);
            self.writer().put(key, Value::Leg(v.into()), replace);
        }
    }

    fn get_entries_checked(&self, keys: &[&str], check: &mut EntryCheck<'_>) -> Vec<Option<StoredEntry>> {
        let found = self.get(
            Table::Entries,
            keys,
            |v| match v {
                Value::Entry(e) => Some(e),
                Value::Leg(_) => None,
            },
            |key, r| {
                let value: &str = column(r, 1)?;
                let reward: Option<f64> = column(r, 2)?;
                let facts: &str = column(r, 3)?;
                verify(
                    column::<Option<&[u8]>>(r, 4)?,
                    entry_sum(key, value, reward, facts),
                )?;
                StoredEntry::from_parts(value, reward, Some(Arc::from(facts)))
                    .ok_or_else(|| "its text is not an entry".into())
            },
        );
        checked(&self.url, &self.counters, keys, found, check)
    }

    fn put_entry(&self, key: &str, entry: &RewardEntry) {
        if storable_entry(entry) {
            let replace = self.counters.replaces(Table::Entries, key);
            self.writer()
                .put(key, Value::Entry(StoredEntry::of(entry)), replace);
        }
    }

    fn flush(&self) -> Result<()> {
        self.writer().flush().map_err(|message| CoreError::Cache {
            store: self.url.clone(),
            message,
        })
    }

    fn stats(&self) -> CacheStats {
        self.counters.stats()
    }

    fn describe(&self) -> String {
        self.url.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_shown_without_their_password() {
        assert_eq!(
            redact_url("postgres://u:s3cret@db.example:5432/aorlta"),
            "postgres://u@db.example:5432/aorlta"
        );
        assert_eq!(
            redact_url("postgresql://u@/db?host=/tmp/x&password=s3cret&port=5"),
            "postgresql://u@/db?host=/tmp/x&password=…&port=5"
        );
        assert_eq!(
            redact_url("postgres://db.example/aorlta"),
            "postgres://db.example/aorlta"
        );
        assert_eq!(redact_url("postgres://u:p@h"), "postgres://u@h");
    }

    #[test]
    fn a_password_is_taken_out_of_every_form_of_conninfo() {
        for (given, shown) in [
            (
                "host=/run/pg dbname=db password=s3cret user=u",
                "host=/run/pg dbname=db password=… user=u",
            ),
            ("password = 's3 cr\\'et' port=5", "password = … port=5"),
            ("PASSWORD='s3cret", "PASSWORD=…"),
            ("host=h password=s3\\ cret", "host=h password=…"),
            ("  host = h   password=s3cret  ", "  host = h   password=…  "),
            ("host=h password=s3://cret@x", "host=h password=…"),
            ("host=h password=", "host=h password=…"),
            ("password=é€s3cret host=h", "password=… host=h"),
            ("postgres://u:pa/ss?w@rd@h:5/db", "postgres://u@h:5/db"),
            (
                "postgresql:///db?password=s3cret&user=a@b",
                "postgresql:///db?password=…&user=a@b",
            ),
        ] {
            let got = redact_url(given);
            assert_eq!(got, shown, "{given}");
            assert!(!got.contains("s3"), "{given} shows its password: {got}");
        }
        let err = match PgCache::connect("host=/nowhere password=s3cret connect_timeout=x", 1) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("a bad conninfo connects"),
        };
        assert!(!err.contains("s3cret"), "{err}");
        assert!(err.contains("password=…"), "{err}");
    }
}
