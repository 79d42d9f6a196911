use super::*;
use aorlta_record::TurnReward;
use aorlta_record::{Reason, RewardEntry};

const LIMITS: EpisodeLimits = EpisodeLimits {
    max_episodes: 2,
    max_bytes: 4096,
};

fn head(id: &str, expires_s: u64) -> EpisodeHead {
    EpisodeHead {
        id: id.into(),
        task: "t".into(),
        profile: "p".into(),
        max_turns: 3,
        turn_reward: TurnReward::Own,
        discount: 1.0,
        created_s: 0,
        expires_s,
    }
}

/// Adds a turn with `turn_id` unless one with it is stored already (what the service does).
fn turn(
    store: &dyn EpisodeStore,
    id: &str,
    turn_id: &str,
    completion: &str,
    now: u64,
) -> Result<Turn, EpisodeError> {
    store.update(id, now, &mut |ep| {
        if let Some(t) = ep.turn_by_id(turn_id) {
            return Ok(t.clone());
        }
        let mut e = RewardEntry::error("c", "t", "p", Reason::new("x", "y"));
        e.reward = Some(-0.5);
        e.scored = true;
        let t = ep.next_turn(Some(turn_id.into()), completion.into(), e);
        ep.turns.push(t.clone());
        Ok(t)
    })
}

/// What every store keeps: turns in order, a retried turn id answered with its turn, the bound
/// on their number (expired ones freeing their place) and size, expiry.
fn behaves(store: &dyn EpisodeStore) {
    store.create(&head("a", 100), 10).unwrap();
    store.create(&head("b", 50), 10).unwrap();
    assert!(matches!(
        store.create(&head("c", 100), 10),
        Err(EpisodeError::Full(_))
    ));
    let first = turn(store, "a", "t1", "one", 20).unwrap();
    let again = turn(store, "a", "t1", "one, retried", 21).unwrap();
    assert_eq!(first, again);
    let second = turn(store, "a", "t2", "two", 22).unwrap();
    assert_eq!((first.turn, second.turn), (0, 1));
    let ep = store.get("a", 23).unwrap().unwrap();
    assert_eq!(ep.turns.len(), 2);
    assert_eq!(ep.turns[1].completion, "two");
    // Past its time `b` is gone, and its place is free.
    assert_eq!(store.get("b", 60).unwrap(), None);
    assert_eq!(turn(store, "b", "t1", "late", 60), Err(EpisodeError::NotFound));
    store.create(&head("c", 100), 60).unwrap();
    // A turn that would pass the size limit is refused and leaves the episode as it was.
    let big = "x".repeat(5000);
    assert!(matches!(
        turn(store, "c", "t1", &big, 61),
        Err(EpisodeError::TooLarge(_))
    ));
    assert!(store.get("c", 61).unwrap().unwrap().turns.is_empty());
}

#[test]
fn memory_episodes_keep_the_rules() {
    behaves(&MemoryEpisodes::new(LIMITS));
}

#[test]
fn sqlite_episodes_keep_the_rules_and_outlive_their_store() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("cache.sqlite");
    // Beside the results' own tables.
    let cache = crate::sqlite::SqliteCache::open_with(&path, 2).unwrap();
    behaves(&SqliteEpisodes::open(&path, LIMITS).unwrap());
    drop(cache);
    let again = SqliteEpisodes::open(&path, LIMITS).unwrap();
    assert_eq!(again.get("a", 30).unwrap().unwrap().turns.len(), 2);
    // The results' store opens the file with the episodes in it.
    crate::sqlite::SqliteCache::open_with(&path, 2).unwrap();
}

#[test]
fn postgres_episodes_keep_the_rules_and_outlive_their_connection() {
    let Some(server) = aorlta_pg_server::TempServer::for_tests() else {
        return;
    };
    let url = server.create_db("episodes").unwrap();
    behaves(&PgEpisodes::connect(&url, LIMITS).unwrap());
    let again = PgEpisodes::connect(&url, LIMITS).unwrap();
    assert_eq!(again.get("a", 30).unwrap().unwrap().turns.len(), 2);
    crate::postgres::PgCache::connect(&url, 2).unwrap();
}
