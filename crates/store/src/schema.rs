//! The persistent stores' schemas, versioned. Each store keeps its version in a one-row table;
//! opening a store runs, in one transaction, the migrations from its version up to this build's
//! (the steps below, in order, never edited once released), and refuses a store whose version
//! is newer than this build knows, since this build could misread it.
//!
//! Changelog:
//! - SQLite 1: `legs` and `entries`, each `key TEXT PRIMARY KEY, value TEXT NOT NULL` (the value
//!   is the JSON of a [`crate::cache::CachedLeg`] or a reward entry). Files written before the store was
//!   versioned have exactly these tables and no version table: they are read as version 0 and
//!   step 1 (`IF NOT EXISTS`) adopts them as they are.
//! - SQLite 2: keys are `BLOB`s (the 32 bytes of the 64 hex digits the engine makes), and
//!   `entries` is `(k8 INTEGER, key BLOB, value TEXT, reward REAL, facts TEXT)` with an index on
//!   `k8`, the key's first 8 bytes: an index a third the size of one on the whole key, searched
//!   by integer, and the whole key checked on every row it finds (see `sqlite.rs`); `reward` and
//!   `facts` are [`crate::stored::StoredEntry`]'s. Version 1's rows are copied over with their keys
//!   decoded, and no reward or facts (their facts are then read from their value).
//! - SQLite 3: every row carries its checksum (`check.rs`), a `sum BLOB NOT NULL` column in
//!   both tables, checked on every read; `entries.facts` is `NOT NULL`. The rows of version 2
//!   have no checksum, so a damaged or edited one could not be told from a sound one: they are
//!   dropped, not copied, and computed again when next asked for (a first run after the upgrade
//!   scores everything; timing legs measure again). A build of version 2 refuses the file.
//! - PostgreSQL 1: `aorlta_legs (key BYTEA, value TEXT)` and `aorlta_entries (key BYTEA,
//!   value TEXT, reward DOUBLE PRECISION, facts TEXT)`, as SQLite 2.
//! - PostgreSQL 2: as SQLite 3: a `sum BYTEA NOT NULL` column in both tables, whose rows are
//!   emptied first (`TRUNCATE`). A process of an older build still running on the database
//!   cannot store into it any more (its inserts lack the checksum), and says so.

use std::ops::Range;

/// How many steps SQLite's schema has (`sqlite.rs` holds them).
pub(crate) const SQLITE_VERSION: usize = 3;

/// PostgreSQL's steps (its tables carry an `aorlta_` prefix, since the database may be shared).
pub(crate) const POSTGRES: &[&str] = &[
    "CREATE TABLE IF NOT EXISTS aorlta_legs (key BYTEA PRIMARY KEY, value TEXT NOT NULL);
     CREATE TABLE IF NOT EXISTS aorlta_entries (key BYTEA PRIMARY KEY, value TEXT NOT NULL,
         reward DOUBLE PRECISION, facts TEXT NOT NULL);",
    "TRUNCATE aorlta_legs, aorlta_entries;
     ALTER TABLE aorlta_legs ADD COLUMN sum BYTEA NOT NULL;
     ALTER TABLE aorlta_entries ADD COLUMN sum BYTEA NOT NULL;",
];

/// The steps to run on a store at `found` (0 when it has no version yet) for a build that
/// knows `steps` of them, or the error that refuses a newer store.
pub(crate) fn plan(found: i64, steps: usize) -> Result<Range<usize>, String> {
    let known = steps as i64;
    if found > known {
        return Err(format!(
            "its schema is version {found}, newer than this build's {known}: it was written by a newer \
             aorlta; use that one, or another cache"
        ));
    }
    if found < 0 {
        return Err(format!(
            "its schema version table says {found}, which no build writes"
        ));
    }
    Ok(found as usize..steps)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_run_the_missing_steps_and_refuse_newer_stores() {
        assert_eq!(plan(0, 3), Ok(0..3));
        assert_eq!(plan(2, 3), Ok(2..3));
        assert_eq!(plan(3, 3), Ok(3..3));
        let err = plan(4, 3).unwrap_err();
        assert!(err.contains("version 4, newer than this build's 3"), "{err}");
        assert!(plan(-1, 3).is_err());
        assert_eq!((SQLITE_VERSION, POSTGRES.len()), (3, 2));
    }
}
