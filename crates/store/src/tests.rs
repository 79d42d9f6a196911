//! The store contract, run against every store: what is stored and what never is, batch reads,
//! persistence, bit-identical rewards, the schema's versions, two writers at once, and rows
//! that fail their check (damaged, edited, or breaking the reward contract) used as misses and
//! replaced.

use crate::cache::{Cache, CachedLeg};
use crate::check;
use crate::memory::MemoryCache;
use crate::postgres::PgCache;
use crate::schema::{self, key_bytes};
use crate::spec::CacheSpec;
use crate::sqlite::SqliteCache;
use crate::stored::StoredEntry;
use aorlta_record::{FORMAT_VERSION, LegResult, LegState, Parts, Reason, RewardEntry, VersionIdentity};
use std::path::Path;

pub(crate) fn entry(scored: bool) -> RewardEntry {
    RewardEntry {
        format: FORMAT_VERSION,
        id: "c1".into(),
        task: "t1".into(),
        reward: scored.then_some(1.0),
        scored,
        parts: scored.then_some(Parts {
            base: 1.0,
            broke_healthy: 0.0,
            length: 0.0,
        }),
        reasons: vec![],
        legs: vec![LegResult::clean("parse", "parse")],
        profile: "p".into(),
        reward_fn: "rewardfn.base".into(),
        version: VersionIdentity::default(),
        elapsed_s: 0.1,
        feedback: None,
    }
}

fn leg(state: LegState) -> CachedLeg {
    CachedLeg {
        state,
        reasons: vec![Reason::new("x", "y")],
        detail: Some(serde_json::json!({"n": 1})),
        extracted: Some("s".into()),
    }
}

/// What every store must do. `cache` is empty when called.
pub(crate) fn exercise(cache: &dyn Cache) {
    assert!(cache.get_entry("k").is_none());
    cache.put_entry("k", &entry(true));
    assert_eq!(reward(cache.get_entry("k")), Some(1.0), "a put is found at once");
    cache.put_entry("u", &entry(false));
    assert!(cache.get_entry("u").is_none(), "unscored entries are not stored");
    let mut unsettled_leg_entry = entry(true);
    unsettled_leg_entry.legs[0].state = LegState::Unsettled;
    cache.put_entry("ul", &unsettled_leg_entry);
    cache.put_leg("l", &leg(LegState::Broke));
    assert_eq!(cache.get_leg("l"), Some(leg(LegState::Broke)));
    cache.put_leg("l2", &leg(LegState::Unsettled));
    cache.flush().unwrap();
    assert!(
        cache.get_entry("ul").is_none(),
        "entries with an unsettled leg are not stored"
    );
    assert!(cache.get_leg("l2").is_none(), "unsettled legs are not stored");
    let s = cache.stats();
    assert_eq!((s.hits, s.misses), (1, 3));
    // Batch reads: one answer per key, in order, repeats and misses included.
    for i in 0..300 {
        cache.put_leg(&format!("b{i}"), &leg(LegState::Clean));
    }
    cache.flush().unwrap();
    let keys: Vec<String> = (0..300)
        .rev()
        .map(|i| format!("b{i}"))
        .chain(["none".into(), "b7".into()])
        .collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    let got = cache.get_legs(&refs);
    assert_eq!(got.len(), 302);
    assert!(
        got[..300]
            .iter()
            .all(|l| l.as_ref() == Some(&leg(LegState::Clean)))
    );
    assert!(got[300].is_none() && got[301].is_some());
    let entries = cache.get_entries(&["k", "nope", "k"]);
    assert_eq!(
        entries.iter().map(Option::is_some).collect::<Vec<_>>(),
        [true, false, true]
    );
    assert_eq!(cache.stats().hits, 3);
    // The first value stored under a key stays.
    let mut other = entry(true);
    other.reward = Some(0.5);
    other.parts.as_mut().unwrap().base = 0.5;
    cache.put_entry("k", &other);
    cache.flush().unwrap();
    assert_eq!(reward(cache.get_entry("k")), Some(1.0));
}

/// Entries that break the reward contract although the store holds them as they were put (a
/// checksum that matches): each one is a miss, counted as rejected, and the entry put in its
/// place replaces it (a put otherwise keeps the first value). `cache` is empty when called.
pub(crate) fn contract_rejects(cache: &dyn Cache) {
    let mut seven = entry(true);
    seven.reward = Some(7.0);
    let mut not_the_sum = entry(true);
    not_the_sum.reward = Some(0.6);
    not_the_sum.parts = Some(aorlta_record::Parts {
        base: 0.5,
        broke_healthy: 0.0,
        length: 0.0,
    });
    let mut no_reason = entry(true);
    no_reason.legs[0].state = LegState::Broke;
    let mut nan = entry(true);
    nan.reward = Some(f64::NAN);
    let bad = [
        ("r7", seven),
        ("r6", not_the_sum),
        ("nr", no_reason),
        ("nan", nan),
    ];
    for (k, e) in &bad {
        cache.put_entry(k, e);
    }
    cache.flush().unwrap();
    let keys: Vec<&str> = bad.iter().map(|(k, _)| *k).collect();
    for when in ["put", "read again"] {
        let found = cache.get_entries(&keys);
        assert!(found.iter().all(Option::is_none), "{when}: {found:?}");
    }
    let s = cache.stats();
    assert_eq!((s.hits, s.misses, s.rejected), (0, 8, 8), "every lookup counts");
    for k in &keys {
        cache.put_entry(k, &entry(true));
    }
    cache.flush().unwrap();
    for k in &keys {
        assert_eq!(reward(cache.get_entry(k)), Some(1.0), "{k} is replaced");
    }
    // A caller's own check rejects too, and counts.
    let found = cache.get_entries_checked(&keys, &mut |i, _| if i == 0 { Err("no".into()) } else { Ok(()) });
    assert!(found[0].is_none() && found[1].is_some());
    let s = cache.stats();
    assert_eq!((s.hits, s.misses, s.rejected), (7, 9, 9));
}

/// The reward of a stored entry, served.
fn reward(s: Option<StoredEntry>) -> Option<f64> {
    s.and_then(|s| s.entry("any")).and_then(|e| e.reward)
}

/// Rewards as the length penalty makes them: sums of awkward binary fractions. A store must
/// give back the very same bits, or a rerun's rewards differ from the first run's. Checked
/// both before the rows are committed and after, for the served entry and its spliced line.
pub(crate) fn bits_survive(cache: &dyn Cache) {
    let mut made = Vec::new();
    for k in 0..2000u32 {
        let length = -0.05 * f64::from(k) / 1999.0;
        let parts = Parts {
            base: 1.0 - f64::from(k % 7) / 7.0,
            broke_healthy: 0.0,
            length,
        };
        let mut e = entry(true);
        e.reward = Some(parts.sum());
        e.parts = Some(parts);
        e.legs[0].elapsed_s = f64::from(k) * 1.1e-7;
        cache.put_entry(&format!("bits{k}"), &e);
        made.push(e);
    }
    let bits = |e: &RewardEntry| {
        let p = e.parts.unwrap();
        (e.reward.unwrap().to_bits(), p.base.to_bits(), p.length.to_bits())
    };
    let keys: Vec<String> = (0..2000).map(|k| format!("bits{k}")).collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    for when in ["pending", "committed"] {
        if when == "committed" {
            cache.flush().unwrap();
        }
        let back = cache.get_entries(&refs);
        let differ: Vec<usize> = (0..2000)
            .filter(|&k| {
                let served = back[k].as_ref().and_then(|s| s.entry("x"));
                let line = back[k].as_ref().and_then(|s| s.line("x"));
                let from_line = line.and_then(|l| serde_json::from_str::<RewardEntry>(&l).ok());
                served.as_ref().map(bits) != Some(bits(&made[k])) || from_line != served
            })
            .collect();
        assert!(
            differ.is_empty(),
            "{when}: {} of 2000 rewards changed in the store: {:?}",
            differ.len(),
            &differ[..differ.len().min(10)]
        );
    }
}

/// Two stores on the same data writing the same keys at once, each with its own values and
/// with unsettled legs among them: every key ends up with one writer's whole value, and no
/// unsettled leg or unscored entry is stored.
pub(crate) fn two_writers(a: &dyn Cache, b: &dyn Cache) {
    let n = 3000;
    std::thread::scope(|s| {
        for (cache, tag) in [(a, 0.25), (b, 0.75)] {
            s.spawn(move || {
                for i in 0..n {
                    let mut e = entry(i % 5 != 0);
                    if e.scored {
                        e.reward = Some(tag);
                        e.parts.as_mut().unwrap().base = tag;
                    }
                    cache.put_entry(&format!("w{i}"), &e);
                    let state = if i % 3 == 0 {
                        LegState::Unsettled
                    } else {
                        LegState::Clean
                    };
                    let mut l = leg(state);
                    l.extracted = Some(format!("{tag}"));
                    cache.put_leg(&format!("w{i}"), &l);
                }
                cache.flush().unwrap();
            });
        }
    });
    let keys: Vec<String> = (0..n).map(|i| format!("w{i}")).collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    for reader in [a, b] {
        let entries = reader.get_entries(&refs);
        let legs = reader.get_legs(&refs);
        for i in 0..n {
            let e = &entries[i];
            if i % 5 == 0 {
                assert!(e.is_none(), "unscored entry {i} was stored");
            } else {
                let r = reward(e.clone());
                assert!(matches!(r, Some(0.25) | Some(0.75)), "entry {i}: {r:?}");
            }
            if i % 3 == 0 {
                assert!(legs[i].is_none(), "unsettled leg {i} was stored");
            } else {
                let x = legs[i].as_ref().and_then(|l| l.extracted.as_deref());
                assert!(matches!(x, Some("0.25") | Some("0.75")), "leg {i}: {x:?}");
                assert_eq!(legs[i].as_ref().map(|l| l.state), Some(LegState::Clean));
            }
        }
    }
}

#[test]
fn keys_are_stored_as_their_bytes_and_other_keys_never_meet_them() {
    assert_eq!(key_bytes(OLD), [0, 255].repeat(16));
    assert_eq!(key_bytes("k1"), b"\0k1");
    let not_hex = "z".repeat(64);
    assert_eq!(key_bytes(&not_hex).len(), 65);
}

#[test]
fn memory_cache_contract() {
    exercise(&MemoryCache::new(1000));
    contract_rejects(&MemoryCache::new(1000));
}

#[test]
fn sqlite_entries_that_break_the_contract_are_misses_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    contract_rejects(&SqliteCache::open(&path).unwrap());
    let again = SqliteCache::open(&path).unwrap();
    assert_eq!(
        reward(again.get_entry("r7")),
        Some(1.0),
        "the replacement was stored"
    );
    assert_eq!(again.stats().rejected, 0);
}

/// The stored key of `k` as an SQL blob literal (SQLite's and PostgreSQL's).
fn blob(k: &str) -> String {
    let hex: String = key_bytes(k).iter().map(|b| format!("{b:02x}")).collect();
    format!("X'{hex}'")
}

/// Rows edited or damaged on disk: each is a miss (the other keys of the same read are
/// answered), counted as rejected, and replaced by the result put in its place.
#[test]
fn sqlite_rows_damaged_or_edited_on_disk_are_misses_and_replaced() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    let half = |mut e: RewardEntry| {
        e.reward = Some(0.5);
        e.parts.as_mut().unwrap().base = 0.5;
        e
    };
    let keys = [
        "seven",
        "six",
        "flip",
        "unparsable",
        "moved",
        "column",
        "sum",
        "good",
    ];
    {
        let c = SqliteCache::open(&path).unwrap();
        for k in keys {
            c.put_entry(k, &entry(true));
        }
        c.put_entry("six", &half(entry(true)));
        c.put_entry("donor", &half(entry(true)));
        c.put_leg("leg", &leg(LegState::Broke));
        c.put_leg("leg-good", &leg(LegState::Broke));
    }
    let db = rusqlite::Connection::open(&path).unwrap();
    let sql = |q: String| {
        assert_eq!(db.execute(&q, []).unwrap(), 1, "{q}");
    };
    // An edited reward, out of range; an edit within it (text and column alike).
    sql(format!(
        "UPDATE entries SET value = replace(value, '\"reward\":1.0', '\"reward\":7.0') WHERE key = {}",
        blob("seven")
    ));
    sql(format!(
        "UPDATE entries SET value = replace(value, '\"reward\":0.5', '\"reward\":0.6'), reward = 0.6 \
         WHERE key = {}",
        blob("six")
    ));
    // A flipped bit: the text is no longer UTF-8.
    let value: Vec<u8> = db
        .query_row(
            &format!(
                "SELECT CAST(value AS BLOB) FROM entries WHERE key = {}",
                blob("flip")
            ),
            [],
            |r| r.get(0),
        )
        .unwrap();
    let mut flipped = value.clone();
    flipped[40] ^= 0x80;
    db.execute(
        &format!(
            "UPDATE entries SET value = CAST(?1 AS TEXT) WHERE key = {}",
            blob("flip")
        ),
        [flipped],
    )
    .unwrap();
    // A text cut short under a checksum made for it: only reading it as an entry fails.
    let (cut, column, facts): (String, Option<f64>, String) = db
        .query_row(
            &format!(
                "SELECT substr(value, 1, 60), reward, facts FROM entries WHERE key = {}",
                blob("unparsable")
            ),
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    let sum = check::entry_sum(&key_bytes("unparsable"), &cut, column, &facts);
    db.execute(
        &format!(
            "UPDATE entries SET value = ?1, sum = ?2 WHERE key = {}",
            blob("unparsable")
        ),
        rusqlite::params![cut, sum.to_vec()],
    )
    .unwrap();
    // Another key's row, whole (its checksum too).
    sql(format!(
        "UPDATE entries SET (value, reward, facts, sum) = (SELECT value, reward, facts, sum FROM entries \
         WHERE key = {}) WHERE key = {}",
        blob("donor"),
        blob("moved")
    ));
    // A reward column that is no longer a number; a checksum cut short.
    sql(format!(
        "UPDATE entries SET reward = 'x' WHERE key = {}",
        blob("column")
    ));
    sql(format!(
        "UPDATE entries SET sum = substr(sum, 1, 8) WHERE key = {}",
        blob("sum")
    ));
    // A leg result edited from broke to clean.
    sql(format!(
        "UPDATE legs SET value = replace(value, '\"broke\"', '\"clean\"') WHERE key = {}",
        blob("leg")
    ));
    drop(db);
    let c = SqliteCache::open(&path).unwrap();
    let found = c.get_entries(&keys);
    assert_eq!(answered(&keys, &found), ["good"], "only the sound row is used");
    assert!(c.get_leg("leg").is_none());
    assert_eq!(c.get_leg("leg-good"), Some(leg(LegState::Broke)));
    let s = c.stats();
    assert_eq!((s.hits, s.misses, s.rejected), (1, 7, 8));
    // The results computed in their place replace them.
    for k in keys {
        c.put_entry(
            k,
            &if k == "six" {
                half(entry(true))
            } else {
                entry(true)
            },
        );
    }
    c.put_leg("leg", &leg(LegState::Broke));
    drop(c);
    let c = SqliteCache::open(&path).unwrap();
    let found = c.get_entries(&keys);
    assert!(found.iter().all(Option::is_some), "{found:?}");
    assert_eq!(reward(c.get_entry("six")), Some(0.5));
    assert_eq!(c.get_leg("leg"), Some(leg(LegState::Broke)));
    assert_eq!(c.stats().rejected, 0);
}

#[test]
fn sqlite_cache_contract_and_persistence() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    exercise(&SqliteCache::open(&path).unwrap());
    let again = SqliteCache::open(&path).unwrap();
    assert_eq!(again.get_entry("k").unwrap().entry("c9").unwrap().id, "c9");
    assert_eq!(again.describe(), path.display().to_string());
}

#[test]
fn a_cached_reward_is_bit_identical_to_the_fresh_one() {
    let dir = tempfile::tempdir().unwrap();
    bits_survive(&SqliteCache::open(&dir.path().join("c.sqlite")).unwrap());
    bits_survive(&MemoryCache::new(10_000));
}

#[test]
fn dropping_a_sqlite_store_commits_what_was_put() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    {
        let c = SqliteCache::open(&path).unwrap();
        for i in 0..1500 {
            c.put_leg(&format!("d{i}"), &leg(LegState::Clean));
        }
    }
    let c = SqliteCache::open(&path).unwrap();
    let keys: Vec<String> = (0..1500).map(|i| format!("d{i}")).collect();
    let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
    assert!(c.get_legs(&refs).iter().all(Option::is_some));
}

#[test]
fn two_sqlite_stores_on_one_file_write_the_same_keys_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.sqlite");
    let (a, b) = (
        SqliteCache::open(&path).unwrap(),
        SqliteCache::open(&path).unwrap(),
    );
    two_writers(&a, &b);
}

#[test]
fn sqlite_stores_opened_at_once_on_a_new_file_all_open() {
    // Workers of one cluster start together on a shared file: none may find it locked.
    for round in 0..20 {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("cache.sqlite");
        let opened: Vec<std::result::Result<(), String>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..6)
                .map(|_| s.spawn(|| SqliteCache::open(&path).map(drop).map_err(|e| e.to_string())))
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for r in opened {
            assert_eq!(r, Ok(()), "round {round}");
        }
    }
}

fn sqlite_version(path: &Path) -> i64 {
    let c = rusqlite::Connection::open(path).unwrap();
    c.query_row("SELECT version FROM schema_version", [], |r| r.get(0))
        .unwrap()
}

/// A key as the engine makes them.
const OLD: &str = "00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff00ff";

#[test]
fn a_sqlite_file_from_before_versioning_is_adopted_and_a_newer_one_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("old.sqlite");
    {
        // The layout every build before the schema was versioned wrote.
        let c = rusqlite::Connection::open(&path).unwrap();
        c.execute_batch(
            "CREATE TABLE legs (key TEXT PRIMARY KEY, value TEXT NOT NULL);
             CREATE TABLE entries (key TEXT PRIMARY KEY, value TEXT NOT NULL);",
        )
        .unwrap();
        let v = serde_json::to_string(&entry(true)).unwrap();
        c.execute("INSERT INTO entries VALUES (?1, ?2)", [OLD, &v])
            .unwrap();
        c.execute(
            "INSERT INTO legs VALUES (?1, ?2)",
            [OLD, &serde_json::to_string(&leg(LegState::Broke)).unwrap()],
        )
        .unwrap();
    }
    let c = SqliteCache::open(&path).unwrap();
    // Rows from before version 3 carry no checksum: they are dropped, and computed again.
    assert!(c.get_entry(OLD).is_none(), "its entries are dropped");
    assert!(c.get_leg(OLD).is_none(), "its leg results are dropped");
    assert_eq!(c.stats().rejected, 0, "missing, not rejected");
    c.put_entry(OLD, &entry(true));
    c.put_leg(OLD, &leg(LegState::Broke));
    drop(c);
    let c = SqliteCache::open(&path).unwrap();
    assert_eq!(reward(c.get_entry(OLD)), Some(1.0), "new results are kept");
    assert_eq!(c.get_leg(OLD), Some(leg(LegState::Broke)));
    drop(c);
    assert_eq!(sqlite_version(&path), schema::SQLITE_VERSION as i64);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE schema_version SET version = 99", [])
        .unwrap();
    let err = SqliteCache::open(&path).unwrap_err().to_string();
    assert!(err.contains(&path.display().to_string()), "names the file: {err}");
    assert!(err.contains("version 99, newer than this build's 3"), "{err}");
}

/// The PostgreSQL store's half of the contract, on a throwaway server (skipped, saying why,
/// where there are no server binaries and `CI` is unset).
#[test]
fn postgres_cache_contract_persistence_bits_and_two_writers() {
    let Some(server) = aorlta_pg_server::TempServer::for_tests() else {
        return;
    };
    let url = server.create_db("contract").unwrap();
    exercise(&PgCache::connect(&url, 2).unwrap());
    contract_rejects(&PgCache::connect(&url, 2).unwrap());
    let again = PgCache::connect(&url, 2).unwrap();
    assert_eq!(
        again.get_entry("k").unwrap().entry("c9").unwrap().id,
        "c9",
        "it persists"
    );
    assert_eq!(again.describe(), url);
    bits_survive(&again);
    drop(again);
    // Two stores, as two processes would have, writing the same keys at once.
    let url = server.create_db("writers").unwrap();
    let (a, b) = (
        PgCache::connect(&url, 2).unwrap(),
        PgCache::connect(&url, 2).unwrap(),
    );
    two_writers(&a, &b);
}

#[test]
fn postgres_schema_versions_and_errors_that_name_the_url_without_its_password() {
    let Some(server) = aorlta_pg_server::TempServer::for_tests() else {
        return;
    };
    let url = server.create_db("schema").unwrap();
    drop(PgCache::connect(&url, 1).unwrap());
    {
        // A newer build's store is refused, naming it.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async {
            let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
                .await
                .unwrap();
            tokio::spawn(conn);
            let v: i32 = client
                .query_one("SELECT version FROM aorlta_schema_version", &[])
                .await
                .unwrap()
                .get(0);
            assert_eq!(v, schema::POSTGRES.len() as i32);
            client
                .execute("UPDATE aorlta_schema_version SET version = 99", &[])
                .await
                .unwrap();
        });
    }
    let err = PgCache::connect(&url, 1).unwrap_err().to_string();
    assert!(
        err.contains("version 99, newer than this build's 2") && err.contains(&url),
        "{err}"
    );
    // A server that is not there: the error names the URL, never the password.
    let gone = url
        .replace("/schema?", "/nowhere?")
        .replace("aorlta@", "aorlta:s3cret@")
        + "x";
    let err = PgCache::connect(&gone, 1).unwrap_err().to_string();
    assert!(
        !err.contains("s3cret") && err.contains("aorlta@/nowhere"),
        "{err}"
    );
    let err = CacheSpec::Postgres("postgres://u:s3cret@h:notaport/db".into())
        .open(1)
        .err()
        .unwrap()
        .to_string();
    assert!(
        !err.contains("s3cret") && err.contains("postgres://u@h:notaport/db"),
        "{err}"
    );
}

/// Runs SQL statements on a PostgreSQL database, each expected to change `rows` rows.
fn pg_exec(url: &str, statements: &[(&str, u64)]) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(url, tokio_postgres::NoTls).await.unwrap();
        tokio::spawn(conn);
        for (sql, rows) in statements {
            assert_eq!(client.execute(*sql, &[]).await.unwrap(), *rows, "{sql}");
        }
    });
}

/// The PostgreSQL store's rows edited on the server: each is a miss (the other keys of the
/// same read are answered), counted as rejected, and replaced by the result put in its place.
#[test]
fn postgres_rows_damaged_or_edited_are_misses_and_replaced() {
    let Some(server) = aorlta_pg_server::TempServer::for_tests() else {
        return;
    };
    let url = server.create_db("damaged").unwrap();
    let keys = ["seven", "six", "moved", "sum", "good"];
    let half = || {
        let mut e = entry(true);
        e.reward = Some(0.5);
        e.parts.as_mut().unwrap().base = 0.5;
        e
    };
    {
        let c = PgCache::connect(&url, 1).unwrap();
        for k in keys {
            c.put_entry(k, &if k == "six" { half() } else { entry(true) });
        }
        c.put_entry("donor", &half());
        c.put_leg("leg", &leg(LegState::Broke));
        c.flush().unwrap();
    }
    let at = |k: &str| blob(k).replacen("X'", "'\\x", 1) + "::bytea";
    let seven = format!(
        "UPDATE aorlta_entries SET value = replace(value, '\"reward\":1.0', '\"reward\":7.0') WHERE key = {}",
        at("seven")
    );
    let six = format!(
        "UPDATE aorlta_entries SET value = replace(replace(value, '\"reward\":0.5', '\"reward\":0.6'), \
         '\"base\":0.5', '\"base\":0.6'), reward = 0.6 WHERE key = {}",
        at("six")
    );
    let moved = format!(
        "UPDATE aorlta_entries SET (value, reward, facts, sum) = (SELECT value, reward, facts, sum \
         FROM aorlta_entries WHERE key = {}) WHERE key = {}",
        at("donor"),
        at("moved")
    );
    let sum = format!(
        "UPDATE aorlta_entries SET sum = substring(sum from 1 for 8) WHERE key = {}",
        at("sum")
    );
    let leg_sql = format!(
        "UPDATE aorlta_legs SET value = replace(value, '\"broke\"', '\"clean\"') WHERE key = {}",
        at("leg")
    );
    pg_exec(
        &url,
        &[(&seven, 1), (&six, 1), (&moved, 1), (&sum, 1), (&leg_sql, 1)],
    );
    let c = PgCache::connect(&url, 1).unwrap();
    let found = c.get_entries(&keys);
    assert_eq!(answered(&keys, &found), ["good"], "only the sound row is used");
    assert!(c.get_leg("leg").is_none());
    let s = c.stats();
    assert_eq!((s.hits, s.misses, s.rejected), (1, 4, 5));
    for k in keys {
        c.put_entry(k, &if k == "six" { half() } else { entry(true) });
    }
    c.put_leg("leg", &leg(LegState::Broke));
    c.flush().unwrap();
    drop(c);
    let c = PgCache::connect(&url, 1).unwrap();
    assert!(c.get_entries(&keys).iter().all(Option::is_some));
    assert_eq!(reward(c.get_entry("six")), Some(0.5));
    assert_eq!(c.get_leg("leg"), Some(leg(LegState::Broke)));
    assert_eq!(c.stats().rejected, 0);
}

/// A PostgreSQL database of schema 1 (rows without checksums) is brought to schema 2 with its
/// rows dropped: computed again, never used unchecked.
#[test]
fn postgres_store_of_schema_1_loses_its_unchecked_rows() {
    let Some(server) = aorlta_pg_server::TempServer::for_tests() else {
        return;
    };
    let url = server.create_db("v1").unwrap();
    let create = format!(
        "{} CREATE TABLE aorlta_schema_version (version INTEGER NOT NULL); \
         INSERT INTO aorlta_schema_version VALUES (1);",
        schema::POSTGRES[0]
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let (client, conn) = tokio_postgres::connect(&url, tokio_postgres::NoTls)
            .await
            .unwrap();
        tokio::spawn(conn);
        client.batch_execute(&create).await.unwrap();
    });
    let value = StoredEntry::of(&entry(true));
    let insert = format!(
        "INSERT INTO aorlta_entries (key, value, reward, facts) VALUES ({}, '{}', 1.0, '{}')",
        blob(OLD).replacen("X'", "'\\x", 1) + "::bytea",
        value.json(),
        value.facts_json()
    );
    pg_exec(&url, &[(&insert, 1)]);
    let c = PgCache::connect(&url, 1).unwrap();
    assert!(c.get_entry(OLD).is_none(), "dropped");
    assert_eq!(c.stats().rejected, 0, "missing, not rejected");
    c.put_entry(OLD, &entry(true));
    c.flush().unwrap();
    assert_eq!(
        reward(PgCache::connect(&url, 1).unwrap().get_entry(OLD)),
        Some(1.0)
    );
}

/// The keys of `keys` whose lookup in `found` (in the same order) answered something.
fn answered<'k, T>(keys: &[&'k str], found: &[Option<T>]) -> Vec<&'k str> {
    keys.iter()
        .zip(found)
        .filter(|(_, f)| f.is_some())
        .map(|(k, _)| *k)
        .collect()
}
