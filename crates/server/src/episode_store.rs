//! The config's `episodes:` section and the episodes' store it opens beside the results'
//! ([`aorlta_store::EpisodeStore`]): the same SQLite file or PostgreSQL database, else memory.

use aorlta_store::{EpisodeLimits, EpisodeStore, MemoryEpisodes, PgEpisodes, SqliteEpisodes};
use serde::{Deserialize, Deserializer};
use std::sync::Arc;
use std::time::Duration;

/// The config's `episodes:` section.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case", default)]
pub struct EpisodesConfig {
    /// Most open (not expired) episodes; opening another is refused (503 `episodes-full`).
    pub max_episodes: usize,
    /// Most turns an episode may ask for (and its default).
    pub max_turns: usize,
    /// Longest episode, in bytes of its stored JSON (its completions and entries; `4 MiB`); a
    /// turn that would pass it is refused (413 `episode-too-large`).
    #[serde(deserialize_with = "de_bytes")]
    pub max_episode_bytes: usize,
    /// How long an episode lives after it is opened (`30m`, `24h`).
    #[serde(deserialize_with = "de_duration")]
    pub ttl: Duration,
}

impl Default for EpisodesConfig {
    fn default() -> Self {
        EpisodesConfig {
            max_episodes: 10_000,
            max_turns: 8,
            max_episode_bytes: 4 << 20,
            ttl: Duration::from_secs(24 * 3600),
        }
    }
}

impl EpisodesConfig {
    /// `Err` names the field and says why.
    pub fn check(&self) -> Result<(), String> {
        if !(1..=1_000_000).contains(&self.max_episodes) {
            return Err("field `episodes.max-episodes`: must be 1 to 1000000".into());
        }
        if !(1..=64).contains(&self.max_turns) {
            return Err("field `episodes.max-turns`: must be 1 to 64".into());
        }
        if !((64 << 10)..=(256 << 20)).contains(&self.max_episode_bytes) {
            return Err(
                "field `episodes.max-episode-bytes`: must be 64 KiB to 256 MiB (65536 to 268435456)".into(),
            );
        }
        if self.ttl < Duration::from_secs(60) || self.ttl > Duration::from_secs(30 * 24 * 3600) {
            return Err("field `episodes.ttl`: must be 1 minute to 30 days".into());
        }
        Ok(())
    }

    fn limits(&self) -> EpisodeLimits {
        EpisodeLimits {
            max_episodes: self.max_episodes,
            max_bytes: self.max_episode_bytes,
        }
    }
}

/// The episodes' store beside the results': the same SQLite file or PostgreSQL database, else
/// memory.
pub(crate) fn open_store(
    results: Option<&aorlta_store::CacheSpec>,
    cfg: &EpisodesConfig,
) -> Result<Arc<dyn EpisodeStore>, String> {
    Ok(match results {
        Some(aorlta_store::CacheSpec::Sqlite(p)) => {
            Arc::new(SqliteEpisodes::open(p, cfg.limits()).map_err(|e| e.to_string())?)
        }
        Some(aorlta_store::CacheSpec::Postgres(url)) => {
            Arc::new(PgEpisodes::connect(url, cfg.limits()).map_err(|e| e.to_string())?)
        }
        None => Arc::new(MemoryEpisodes::new(cfg.limits())),
    })
}

fn de_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    let s = String::deserialize(d)?;
    humantime::parse_duration(s.trim())
        .map_err(|e| serde::de::Error::custom(format!("`{s}` is not a duration like `30m`, `24h`: {e}")))
}

fn de_bytes<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        Number(usize),
        Text(String),
    }
    match Raw::deserialize(d)? {
        Raw::Number(n) => Ok(n),
        Raw::Text(s) => {
            let size: bytesize::ByteSize = s
                .trim()
                .parse()
                .map_err(|e| serde::de::Error::custom(format!("`{s}` is not a size like `4 MiB`: {e}")))?;
            usize::try_from(size.as_u64())
                .map_err(|_| serde::de::Error::custom(format!("`{s}` is too large")))
        }
    }
}
