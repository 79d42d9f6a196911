//! Episodes in the result store (docs/API.md, "Episodes"): one row per episode (its id, when it
//! expires, its settings and turns as JSON), in memory, in the SQLite file of the results or in
//! their PostgreSQL database, in a table of its own (`aorlta_episodes`) that the results' schema
//! versions do not cover. Bounded in number (an episode is refused when the store holds
//! `max-episodes` that have not expired) and in size (a turn that would make its episode's JSON
//! longer than `max-episode-bytes` is refused); an expired episode is gone (deleted when next
//! met, and before each new one is counted). Every change of an episode is one transaction that
//! holds the episode's row, so two turns of one episode never both take its next place and a
//! retried turn id finds the turn its first request stored.

use aorlta_record::{Episode, EpisodeHead, Turn};
use std::collections::HashMap;
use std::path::Path;
use std::sync::Mutex;
use std::time::Duration;

/// How many episodes, and how large, a store keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EpisodeLimits {
    /// Most episodes not yet expired.
    pub max_episodes: usize,
    /// Longest episode, in bytes of its JSON.
    pub max_bytes: usize,
}

/// Why an episode operation failed.
#[derive(Debug, Clone, PartialEq)]
pub enum EpisodeError {
    /// The store holds its most episodes.
    Full(String),
    /// The episode would pass its size limit.
    TooLarge(String),
    /// No such episode (never opened, or expired).
    NotFound,
    /// The update's own refusal (the episode is done, say), passed through.
    Refused(String),
    /// The store failed.
    Store(String),
}

impl std::fmt::Display for EpisodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EpisodeError::Full(m)
            | EpisodeError::TooLarge(m)
            | EpisodeError::Refused(m)
            | EpisodeError::Store(m) => f.write_str(m),
            EpisodeError::NotFound => f.write_str("no such episode (never opened, or expired)"),
        }
    }
}

/// What an update does to an episode: a turn it added, or one it found.
pub type Update<'a> = &'a mut (dyn FnMut(&mut Episode) -> Result<Turn, EpisodeError> + Send);

/// Where episodes are kept.
pub trait EpisodeStore: Send + Sync {
    /// Stores a new episode; `Full` when the store holds its most.
    fn create(&self, head: &EpisodeHead, now_s: u64) -> Result<(), EpisodeError>;
    /// The episode, unless it is unknown or expired.
    fn get(&self, id: &str, now_s: u64) -> Result<Option<Episode>, EpisodeError>;
    /// Runs `f` on the episode as stored and stores what it leaves, in one transaction;
    /// answers `f`'s turn.
    fn update(&self, id: &str, now_s: u64, f: Update<'_>) -> Result<Turn, EpisodeError>;
}

fn to_text(e: &Episode, limits: &EpisodeLimits) -> Result<String, EpisodeError> {
    let text = serde_json::to_string(e).map_err(|x| EpisodeError::Store(x.to_string()))?;
    if text.len() > limits.max_bytes {
        return Err(EpisodeError::TooLarge(format!(
            "the episode would be {} bytes; the limit is {} (`episodes.max-episode-bytes`)",
            text.len(),
            limits.max_bytes
        )));
    }
    Ok(text)
}

/// The stored text of an episode just opened (no turn yet).
fn opened_text(head: &EpisodeHead, limits: &EpisodeLimits) -> Result<String, EpisodeError> {
    to_text(
        &Episode {
            head: head.clone(),
            turns: Vec::new(),
        },
        limits,
    )
}

fn of_text(text: &str) -> Result<Episode, EpisodeError> {
    serde_json::from_str(text).map_err(|e| EpisodeError::Store(format!("a stored episode is not one: {e}")))
}

fn full(max: usize) -> EpisodeError {
    EpisodeError::Full(format!(
        "the store holds {max} open episodes, its limit (`episodes.max-episodes`); retry when some expire"
    ))
}

/// Episodes in memory (a service without a persistent store): lost at restart.
pub struct MemoryEpisodes {
    limits: EpisodeLimits,
    rows: Mutex<HashMap<String, (u64, String)>>,
}

impl MemoryEpisodes {
    /// An empty store.
    pub fn new(limits: EpisodeLimits) -> Self {
        MemoryEpisodes {
            limits,
            rows: Mutex::default(),
        }
    }
}

impl EpisodeStore for MemoryEpisodes {
    fn create(&self, head: &EpisodeHead, now_s: u64) -> Result<(), EpisodeError> {
        let text = opened_text(head, &self.limits)?;
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        rows.retain(|_, (exp, _)| *exp > now_s);
        if rows.len() >= self.limits.max_episodes {
            return Err(full(self.limits.max_episodes));
        }
        rows.insert(head.id.clone(), (head.expires_s, text));
        Ok(())
    }
    fn get(&self, id: &str, now_s: u64) -> Result<Option<Episode>, EpisodeError> {
        let rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        match rows.get(id) {
            Some((exp, text)) if *exp > now_s => of_text(text).map(Some),
            _ => Ok(None),
        }
    }
    fn update(&self, id: &str, now_s: u64, f: Update<'_>) -> Result<Turn, EpisodeError> {
        let mut rows = self.rows.lock().unwrap_or_else(|e| e.into_inner());
        let Some((exp, text)) = rows.get(id).filter(|(exp, _)| *exp > now_s) else {
            return Err(EpisodeError::NotFound);
        };
        let exp = *exp;
        let mut ep = of_text(text)?;
        let turn = f(&mut ep)?;
        let text = to_text(&ep, &self.limits)?;
        rows.insert(id.to_string(), (exp, text));
        Ok(turn)
    }
}

const CREATE_TABLE: &str = "CREATE TABLE IF NOT EXISTS aorlta_episodes (id TEXT PRIMARY KEY, expires_s BIGINT NOT NULL, body TEXT NOT NULL)";

/// Episodes in a SQLite file (the results' file), through a connection of their own.
pub struct SqliteEpisodes {
    limits: EpisodeLimits,
    conn: Mutex<rusqlite::Connection>,
    shown: String,
}

impl SqliteEpisodes {
    /// Opens (and, the first time, makes) the episodes' table in the file at `path`.
    pub fn open(path: &Path, limits: EpisodeLimits) -> Result<Self, EpisodeError> {
        let shown = path.display().to_string();
        let err = |e: rusqlite::Error| EpisodeError::Store(format!("{shown}: episodes: {e}"));
        let conn = rusqlite::Connection::open(path).map_err(err)?;
        conn.busy_timeout(Duration::from_secs(30)).map_err(err)?;
        conn.execute(CREATE_TABLE, []).map_err(err)?;
        Ok(SqliteEpisodes {
            limits,
            conn: Mutex::new(conn),
            shown,
        })
    }

    fn err(&self, e: rusqlite::Error) -> EpisodeError {
        EpisodeError::Store(format!("{}: episodes: {e}", self.shown))
    }
}

impl EpisodeStore for SqliteEpisodes {
    fn create(&self, head: &EpisodeHead, now_s: u64) -> Result<(), EpisodeError> {
        let text = opened_text(head, &self.limits)?;
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        tx.execute(
            "DELETE FROM aorlta_episodes WHERE expires_s <= ?1",
            [now_s as i64],
        )
        .map_err(|e| self.err(e))?;
        let n: i64 = tx
            .query_row("SELECT COUNT(*) FROM aorlta_episodes", [], |r| r.get(0))
            .map_err(|e| self.err(e))?;
        if n as usize >= self.limits.max_episodes {
            return Err(full(self.limits.max_episodes));
        }
        tx.execute(
            "INSERT INTO aorlta_episodes (id, expires_s, body) VALUES (?1, ?2, ?3)",
            rusqlite::params![head.id, head.expires_s as i64, text],
        )
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))
    }
    fn get(&self, id: &str, now_s: u64) -> Result<Option<Episode>, EpisodeError> {
        let conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let row: Option<String> = conn
            .query_row(
                "SELECT body FROM aorlta_episodes WHERE id = ?1 AND expires_s > ?2",
                rusqlite::params![id, now_s as i64],
                |r| r.get(0),
            )
            .map(Some)
            .or_else(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => Ok(None),
                e => Err(self.err(e)),
            })?;
        row.as_deref().map(of_text).transpose()
    }
    fn update(&self, id: &str, now_s: u64, f: Update<'_>) -> Result<Turn, EpisodeError> {
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let tx = conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| self.err(e))?;
        let text: String = tx
            .query_row(
                "SELECT body FROM aorlta_episodes WHERE id = ?1 AND expires_s > ?2",
                rusqlite::params![id, now_s as i64],
                |r| r.get(0),
            )
            .map_err(|e| match e {
                rusqlite::Error::QueryReturnedNoRows => EpisodeError::NotFound,
                e => self.err(e),
            })?;
        let mut ep = of_text(&text)?;
        let turn = f(&mut ep)?;
        let text = to_text(&ep, &self.limits)?;
        tx.execute(
            "UPDATE aorlta_episodes SET body = ?2 WHERE id = ?1",
            rusqlite::params![id, text],
        )
        .map_err(|e| self.err(e))?;
        tx.commit().map_err(|e| self.err(e))?;
        Ok(turn)
    }
}

/// Episodes in a PostgreSQL database (the results'), through a connection of their own on a
/// runtime of their own: call it from a thread that may block.
pub struct PgEpisodes {
    limits: EpisodeLimits,
    client: Mutex<tokio_postgres::Client>,
    rt: Rt,
    shown: String,
}

/// The runtime, shut down without waiting when dropped (a drop on an async thread must not
/// block).
struct Rt(Option<tokio::runtime::Runtime>);

impl Rt {
    /// Runs `f` on the store's runtime, from another thread when this one drives a runtime
    /// already (one may not block there).
    fn block_on<F: std::future::Future + Send>(&self, f: F) -> F::Output
    where
        F::Output: Send,
    {
        let rt = self.0.as_ref().expect("the runtime lives as long as the store");
        if tokio::runtime::Handle::try_current().is_ok() {
            std::thread::scope(|s| {
                s.spawn(|| rt.block_on(f))
                    .join()
                    .unwrap_or_else(|p| std::panic::resume_unwind(p))
            })
        } else {
            rt.block_on(f)
        }
    }
}

impl Drop for Rt {
    fn drop(&mut self) {
        if let Some(rt) = self.0.take() {
            rt.shutdown_background();
        }
    }
}

impl PgEpisodes {
    /// Connects to the database at `url` and makes the episodes' table the first time.
    pub fn connect(url: &str, limits: EpisodeLimits) -> Result<Self, EpisodeError> {
        let shown = crate::postgres::redact_url(url);
        let fail = |m: String| EpisodeError::Store(format!("{shown}: episodes: {m}"));
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .thread_name("aorlta-pg-episodes")
            .enable_all()
            .build()
            .map_err(|e| fail(e.to_string()))?;
        let rt = Rt(Some(rt));
        let client = rt.block_on(async {
            let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls)
                .await
                .map_err(|e| fail(e.to_string()))?;
            tokio::spawn(async move {
                let _ = conn.await;
            });
            // One process at a time: services starting together on one database would race
            // on `CREATE TABLE IF NOT EXISTS` (PostgreSQL's catalog refuses the second).
            let mut client = client;
            let pg = |e: tokio_postgres::Error| fail(crate::postgres::chain(&e));
            let tx = client.transaction().await.map_err(pg)?;
            tx.execute(
                "SELECT pg_advisory_xact_lock($1)",
                &[&crate::postgres::MIGRATION_LOCK],
            )
            .await
            .map_err(pg)?;
            tx.batch_execute(CREATE_TABLE).await.map_err(pg)?;
            tx.commit().await.map_err(pg)?;
            Ok::<_, EpisodeError>(client)
        })?;
        Ok(PgEpisodes {
            limits,
            client: Mutex::new(client),
            rt,
            shown,
        })
    }

    fn err(&self, e: tokio_postgres::Error) -> EpisodeError {
        EpisodeError::Store(format!("{}: episodes: {e}", self.shown))
    }
}

impl EpisodeStore for PgEpisodes {
    fn create(&self, head: &EpisodeHead, now_s: u64) -> Result<(), EpisodeError> {
        let text = opened_text(head, &self.limits)?;
        let mut guard = self.client.lock().unwrap_or_else(|e| e.into_inner());
        let client: &mut tokio_postgres::Client = &mut guard;
        self.rt.block_on(async {
            let tx = client.transaction().await.map_err(|e| self.err(e))?;
            // One creator at a time, so that two never both take the last place.
            tx.batch_execute("LOCK TABLE aorlta_episodes IN SHARE ROW EXCLUSIVE MODE")
                .await
                .map_err(|e| self.err(e))?;
            tx.execute(
                "DELETE FROM aorlta_episodes WHERE expires_s <= $1",
                &[&(now_s as i64)],
            )
            .await
            .map_err(|e| self.err(e))?;
            let n: i64 = tx
                .query_one("SELECT COUNT(*) FROM aorlta_episodes", &[])
                .await
                .map_err(|e| self.err(e))?
                .get(0);
            if n as usize >= self.limits.max_episodes {
                return Err(full(self.limits.max_episodes));
            }
            tx.execute(
                "INSERT INTO aorlta_episodes (id, expires_s, body) VALUES ($1, $2, $3)",
                &[&head.id, &(head.expires_s as i64), &text],
            )
            .await
            .map_err(|e| self.err(e))?;
            tx.commit().await.map_err(|e| self.err(e))
        })
    }
    fn get(&self, id: &str, now_s: u64) -> Result<Option<Episode>, EpisodeError> {
        let client = self.client.lock().unwrap_or_else(|e| e.into_inner());
        let row = self
            .rt
            .block_on(client.query_opt(
                "SELECT body FROM aorlta_episodes WHERE id = $1 AND expires_s > $2",
                &[&id, &(now_s as i64)],
            ))
            .map_err(|e| self.err(e))?;
        row.map(|r| of_text(r.get::<_, &str>(0))).transpose()
    }
    fn update(&self, id: &str, now_s: u64, f: Update<'_>) -> Result<Turn, EpisodeError> {
        let mut guard = self.client.lock().unwrap_or_else(|e| e.into_inner());
        let client: &mut tokio_postgres::Client = &mut guard;
        self.rt.block_on(async {
            let tx = client.transaction().await.map_err(|e| self.err(e))?;
            let row = tx
                .query_opt(
                    "SELECT body FROM aorlta_episodes WHERE id = $1 AND expires_s > $2 FOR UPDATE",
                    &[&id, &(now_s as i64)],
                )
                .await
                .map_err(|e| self.err(e))?
                .ok_or(EpisodeError::NotFound)?;
            let mut ep = of_text(row.get::<_, &str>(0))?;
            let turn = f(&mut ep)?;
            let text = to_text(&ep, &self.limits)?;
            tx.execute(
                "UPDATE aorlta_episodes SET body = $2 WHERE id = $1",
                &[&id, &text],
            )
            .await
            .map_err(|e| self.err(e))?;
            tx.commit().await.map_err(|e| self.err(e))?;
            Ok(turn)
        })
    }
}

#[cfg(test)]
mod tests;
