//! The store contract, run against every store: what is stored and what never is, batch reads,
//! persistence, bit-identical rewards, the schema's versions, and two writers at once.

use super::*;
use aorlta_record::{FORMAT_VERSION, LegResult, Parts, VersionIdentity};
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
    cache.put_entry("k", &other);
    cache.flush().unwrap();
    assert_eq!(reward(cache.get_entry("k")), Some(1.0));
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
    assert_eq!(reward(c.get_entry(OLD)), Some(1.0), "its results are kept");
    assert_eq!(c.get_leg(OLD), Some(leg(LegState::Broke)));
    drop(c);
    assert_eq!(sqlite_version(&path), schema::SQLITE_VERSION as i64);
    rusqlite::Connection::open(&path)
        .unwrap()
        .execute("UPDATE schema_version SET version = 99", [])
        .unwrap();
    let err = SqliteCache::open(&path).unwrap_err().to_string();
    assert!(err.contains(&path.display().to_string()), "names the file: {err}");
    assert!(err.contains("version 99, newer than this build's 2"), "{err}");
}

/// The PostgreSQL store's half of the contract, on a throwaway server (skipped, saying why,
/// where there are no server binaries and `CI` is unset).
#[test]
fn postgres_cache_contract_persistence_bits_and_two_writers() {
    let Some(server) = pg_server::TempServer::for_tests() else {
        return;
    };
    let url = server.create_db("contract").unwrap();
    exercise(&PgCache::connect(&url, 2).unwrap());
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
    let Some(server) = pg_server::TempServer::for_tests() else {
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
        err.contains("version 99, newer than this build's 1") && err.contains(&url),
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
