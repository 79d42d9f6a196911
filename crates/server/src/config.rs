//! The service's configuration file (`aorlta serve --config FILE`): which task files and
//! profiles it offers, the cache, the GPUs, the scoring lanes and the request limits. Unknown
//! keys are an error naming the file, the line and the key; paths are relative to the file.

use aorlta_check::CoreError;
use aorlta_check::yaml_error;
use aorlta_kernel::GpuSet;
use serde::{Deserialize, Deserializer};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// OpenRLHF's total time limit for one remote reward request, in seconds (its
/// `aiohttp.ClientTimeout(total=180)`).
pub(crate) const OPENRLHF_REQUEST_LIMIT_S: u64 = 180;

/// The address the service binds when neither the config nor `--bind` names one.
pub(crate) const DEFAULT_BIND: &str = "127.0.0.1:8787";

/// A service configuration.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ServeConfig {
    /// The address to listen on (`--bind` overrides it).
    #[serde(default = "default_bind")]
    pub bind: SocketAddr,
    /// Task files or folders (`*.jsonl` Q&A tasks, `*.yaml` kernel tasks): one path or a list.
    /// None is needed by a service that only scores answers (inline Q&A tasks, or
    /// `get-reward.labels: answer`); a service that can take neither needs one.
    #[serde(default, deserialize_with = "one_or_many")]
    pub tasks: Vec<PathBuf>,
    /// Profile files the service offers, one path or a list; each is offered under its own
    /// `name`.
    #[serde(deserialize_with = "one_or_many")]
    pub profiles: Vec<PathBuf>,
    /// The profile used when a request names none; the first profile when absent.
    #[serde(default)]
    pub default_profile: Option<String>,
    /// Where reward entries and expensive leg results are kept.
    #[serde(default)]
    pub cache: CacheConfig,
    /// GPUs the kernel legs may lease: `all`, or a list of device indices. `None` (the default,
    /// written `none` or `[]`) means none, which is what a Q&A-only service wants.
    #[serde(default, deserialize_with = "de_gpus")]
    pub gpus: Option<GpuSet>,
    /// A folder for scratch files (compile folders); a fresh temporary folder when absent.
    #[serde(default)]
    pub work_dir: Option<PathBuf>,
    /// The kernel tools section, written as in a scoring run's config (read by the kernel
    /// adapters' environment).
    #[serde(default)]
    pub kernel: Option<serde_norway::Value>,
    /// The scoring lanes: Q&A items and kernel items wait in separate queues and run on
    /// separate workers, so a slow kernel never holds up a Q&A item.
    #[serde(default)]
    pub lanes: Lanes,
    /// Request limits.
    #[serde(default)]
    pub limits: Limits,
    /// What inline tasks (a task object in place of a task id) may be.
    #[serde(default)]
    pub inline_tasks: InlineTasks,
    /// How `/get_reward` reads OpenRLHF's queries.
    #[serde(default)]
    pub get_reward: GetReward,
    /// Who may ask: the bearer token the scoring and task routes require.
    #[serde(default)]
    pub auth: AuthConfig,
    /// How many episodes, of how many turns and bytes, live how long.
    #[serde(default)]
    pub episodes: crate::episode_store::EpisodesConfig,
    /// The file this config was read from (relative paths in `kernel:` resolve against it).
    #[serde(skip)]
    pub origin: PathBuf,
}

fn default_bind() -> SocketAddr {
    DEFAULT_BIND.parse().expect("a valid default address")
}

/// The result store: `{kind: none}`, `{kind: memory, max-entries: N}`, `{kind: sqlite, path:
/// FILE}`, `{kind: postgres, url: URL}`, or a PostgreSQL URL as it stands (`cache:
/// postgres://user@host:port/db`). `AORLTA_CACHE_URL`, when set, overrides it.
#[derive(Debug, Clone, PartialEq)]
pub enum CacheConfig {
    /// No cache: every item is computed.
    None,
    /// A bounded in-memory store, lost on exit.
    Memory {
        /// Most entries (and as many leg results) kept; the store is cleared when full.
        max_entries: usize,
    },
    /// A SQLite file, shared with `aorlta score` runs that name the same file.
    Sqlite {
        /// The file, relative to the config file.
        path: PathBuf,
    },
    /// A PostgreSQL database, shared with other services and `aorlta score` runs on any node.
    Postgres {
        /// Its URL, `postgres://user@host:port/db`.
        url: String,
    },
}

/// The map form of [`CacheConfig`].
#[derive(Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
enum TaggedCache {
    None,
    Memory {
        #[serde(rename = "max-entries", default = "default_max_entries")]
        max_entries: usize,
    },
    Sqlite {
        path: PathBuf,
    },
    Postgres {
        url: String,
    },
}

impl<'de> Deserialize<'de> for CacheConfig {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visit;
        impl<'de> serde::de::Visitor<'de> for Visit {
            type Value = CacheConfig;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map with `kind` (none, memory, sqlite, postgres) or a postgres:// URL")
            }

            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Self::Value, E> {
                if aorlta_store::CacheSpec::is_url(v) {
                    Ok(CacheConfig::Postgres { url: v.to_string() })
                } else {
                    Err(E::custom(format!(
                        "`{}` is not a postgres:// URL; a SQLite file is written {{kind: sqlite, path: FILE}}",
                        aorlta_store::redact_url(v)
                    )))
                }
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                let t = TaggedCache::deserialize(serde::de::value::MapAccessDeserializer::new(map))?;
                Ok(match t {
                    TaggedCache::None => CacheConfig::None,
                    TaggedCache::Memory { max_entries } => CacheConfig::Memory { max_entries },
                    TaggedCache::Sqlite { path } => CacheConfig::Sqlite { path },
                    TaggedCache::Postgres { url } => CacheConfig::Postgres { url },
                })
            }
        }
        d.deserialize_any(Visit)
    }
}

fn default_max_entries() -> usize {
    100_000
}

impl Default for CacheConfig {
    fn default() -> Self {
        CacheConfig::Memory {
            max_entries: default_max_entries(),
        }
    }
}

/// `gpus`: `none` or `[]` (no GPU for the kernel lane), else what [`GpuSet`] reads (`all` or a
/// list of device indices; see docs/OPERATIONS.md).
fn de_gpus<'de, D: Deserializer<'de>>(d: D) -> Result<Option<GpuSet>, D::Error> {
    struct Visit;
    impl<'de> serde::de::Visitor<'de> for Visit {
        type Value = Option<GpuSet>;

        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("`all`, `none` or a list of device indices like [0, 1]")
        }

        fn visit_str<E: serde::de::Error>(self, w: &str) -> Result<Self::Value, E> {
            match w.trim() {
                "none" => Ok(None),
                w => w.parse().map(Some).map_err(E::custom),
            }
        }

        fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            let mut list = Vec::new();
            while let Some(i) = seq.next_element::<u32>()? {
                list.push(i);
            }
            Ok((!list.is_empty()).then_some(GpuSet::List(list)))
        }
    }
    d.deserialize_any(Visit)
}

/// The two scoring lanes.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Lanes {
    /// Q&A items: cheap CPU work.
    #[serde(default = "LaneConfig::qa")]
    pub qa: LaneConfig,
    /// Kernel items: compile and harness runs, each holding a GPU lease while it times.
    #[serde(default = "LaneConfig::kernel")]
    pub kernel: LaneConfig,
}

impl Default for Lanes {
    fn default() -> Self {
        Lanes {
            qa: LaneConfig::qa(),
            kernel: LaneConfig::kernel(),
        }
    }
}

/// One lane's workers, queue and time limit.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct LaneConfig {
    /// Worker threads; 0 means one per CPU core.
    #[serde(default)]
    pub workers: usize,
    /// Most items admitted and not yet finished (queued or running; identical items sharing one
    /// computation each count). A request that would pass
    /// it is answered 503 with `Retry-After`.
    pub queue_items: usize,
    /// Time from admission after which an item is answered `unsettled` (`timed-out`).
    #[serde(deserialize_with = "de_duration")]
    pub item_timeout: Duration,
}

impl LaneConfig {
    fn qa() -> Self {
        LaneConfig {
            workers: 0,
            queue_items: 8192,
            item_timeout: Duration::from_secs(10),
        }
    }

    fn kernel() -> Self {
        LaneConfig {
            workers: 2,
            queue_items: 256,
            item_timeout: Duration::from_secs(150),
        }
    }

    /// The number of worker threads this lane runs.
    pub fn worker_count(&self) -> usize {
        if self.workers > 0 {
            self.workers
        } else {
            std::thread::available_parallelism().map_or(2, |n| n.get())
        }
    }
}

/// Limits on one request.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct Limits {
    /// Largest request body (`16 MiB`, `512 KiB` or a number of bytes); past it, 413.
    #[serde(default = "default_max_body", deserialize_with = "de_bytes")]
    pub max_body_bytes: usize,
    /// Most items in one request; past it, 413.
    #[serde(default = "default_max_items")]
    pub max_items: usize,
    /// Longest completion in bytes; a longer one gets its own `completion-too-long` entry.
    #[serde(default = "default_max_completion", deserialize_with = "de_bytes")]
    pub max_completion_bytes: usize,
    /// Most scoring requests being read or answered at once; past it, 503. Bounds the memory
    /// that bodies can take to about this times `max-body-bytes`.
    #[serde(default = "default_max_requests")]
    pub max_requests_in_flight: usize,
    /// The `Retry-After` a 503 carries.
    #[serde(default = "default_retry_after", deserialize_with = "de_duration")]
    pub retry_after: Duration,
    /// Longest time a request body may take to arrive; past it, 408.
    #[serde(default = "default_read_timeout", deserialize_with = "de_duration")]
    pub read_timeout: Duration,
    /// The slowest a request body may arrive, in bytes per second (`8 KiB`): after the first
    /// second, a body must have delivered this rate times the seconds since its head; past it,
    /// 408 `body-too-slow`. Bodies are read before a request takes a scoring slot, so a slow
    /// client holds only its connection, and only this long.
    #[serde(default = "default_min_body_rate", deserialize_with = "de_bytes")]
    pub min_body_rate: usize,
    /// Most bytes of request bodies being read at once, all connections together; a body that
    /// would pass it is refused with 503. Bounds the memory of bodies not yet parsed.
    #[serde(default = "default_max_reading", deserialize_with = "de_bytes")]
    pub max_reading_bytes: usize,
    /// Longest time a connection may make no progress writing an answer (the client takes
    /// none of it); past it, the connection is closed.
    #[serde(default = "default_write_timeout", deserialize_with = "de_duration")]
    pub write_timeout: Duration,
    /// Most bytes of answers held for clients that have not taken them yet, all connections
    /// together; past it, the connection whose answer has made no progress for longest is
    /// closed to make room.
    #[serde(default = "default_max_unsent", deserialize_with = "de_bytes")]
    pub max_unsent_bytes: usize,
    /// How long SIGTERM or SIGINT waits for accepted requests to be answered and the workers
    /// to finish; then the store commits what it holds and the process exits (1). A second
    /// signal ends the wait at once.
    #[serde(default = "default_drain_timeout", deserialize_with = "de_duration")]
    pub drain_timeout: Duration,
    /// Longest time the head of a request may take to arrive, counted from when the
    /// connection is ready for it (so it also bounds an idle keep-alive connection); past it,
    /// the connection is closed.
    #[serde(default = "default_header_read_timeout", deserialize_with = "de_duration")]
    pub header_read_timeout: Duration,
    /// Most connections open at once; at the cap, the connection idle longest is closed to
    /// make room. Default: three quarters of the process's file-descriptor limit.
    #[serde(default)]
    pub max_connections: Option<usize>,
    /// `/get_reward` only: how long a request waits for a request slot and for room in its
    /// lane before it is answered 503 (OpenRLHF sends one sample per request and does not
    /// read `Retry-After`). `/v1/score` is answered 503 at once.
    #[serde(default = "default_queue_wait", deserialize_with = "de_duration")]
    pub queue_wait: Duration,
}

fn default_max_body() -> usize {
    16 << 20
}
fn default_max_items() -> usize {
    4096
}
fn default_max_completion() -> usize {
    aorlta_core::MAX_COMPLETION_BYTES
}
fn default_max_requests() -> usize {
    256
}
fn default_retry_after() -> Duration {
    Duration::from_secs(1)
}
fn default_read_timeout() -> Duration {
    Duration::from_secs(60)
}
fn default_header_read_timeout() -> Duration {
    Duration::from_secs(30)
}
fn default_min_body_rate() -> usize {
    8 << 10
}
fn default_max_reading() -> usize {
    1 << 30
}
fn default_write_timeout() -> Duration {
    Duration::from_secs(30)
}
fn default_max_unsent() -> usize {
    256 << 20
}
fn default_drain_timeout() -> Duration {
    Duration::from_secs(60)
}
fn default_queue_wait() -> Duration {
    Duration::from_secs(20)
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_body_bytes: default_max_body(),
            max_items: default_max_items(),
            max_completion_bytes: default_max_completion(),
            max_requests_in_flight: default_max_requests(),
            retry_after: default_retry_after(),
            read_timeout: default_read_timeout(),
            min_body_rate: default_min_body_rate(),
            max_reading_bytes: default_max_reading(),
            write_timeout: default_write_timeout(),
            max_unsent_bytes: default_max_unsent(),
            drain_timeout: default_drain_timeout(),
            header_read_timeout: default_header_read_timeout(),
            max_connections: None,
            queue_wait: default_queue_wait(),
        }
    }
}

/// The `get-reward` section.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct GetReward {
    /// Tokens removed from the end of a completion and from the front of a query and its
    /// prompt (OpenRLHF decodes queries with their special tokens). Default: the end, padding
    /// and beginning tokens of common chat templates (`<|im_end|>`, `<|endoftext|>`, `</s>`,
    /// `<|eot_id|>`, `<pad>` ...).
    #[serde(default = "default_special_tokens")]
    pub special_tokens: Vec<String>,
    /// What OpenRLHF's labels are: `id` (the default: task ids; an unknown one is refused,
    /// 422 `unknown-label`), `answer` (each label is the reference answer of a Q&A task of its
    /// own, as standard datasets carry it) or `auto` (a label that is a loaded task's id is that
    /// task, any other an answer). docs/DATA.md.
    #[serde(default)]
    pub labels: LabelMode,
}

/// How `/get_reward` reads a label.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LabelMode {
    /// A task id.
    #[default]
    Id,
    /// A reference answer.
    Answer,
    /// A task id when one is loaded by that id, else an answer.
    Auto,
}

fn default_special_tokens() -> Vec<String> {
    crate::openrlhf::DEFAULT_SPECIAL_TOKENS
        .iter()
        .map(|s| s.to_string())
        .collect()
}

impl Default for GetReward {
    fn default() -> Self {
        GetReward {
            special_tokens: default_special_tokens(),
            labels: LabelMode::Id,
        }
    }
}

/// The `auth` section: where the bearer token comes from. `AORLTA_TOKEN`, when set, is the
/// token and overrides the file. A service that listens on an address other than loopback
/// refuses to start without one.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct AuthConfig {
    /// A file holding the token (surrounding white space is ignored), relative to the config.
    #[serde(default)]
    pub token_file: Option<PathBuf>,
}

/// What an inline task may be.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct InlineTasks {
    /// Accept inline Q&A tasks (`{"id", "prompt", "answer"}`). On by default.
    #[serde(default = "yes")]
    pub qa: bool,
    /// Accept inline kernel tasks, whose `reference` must name a file under this folder
    /// (relative, no `..`). Off when absent: a client must never make the service read an
    /// arbitrary file.
    #[serde(default)]
    pub kernel_reference_dir: Option<PathBuf>,
}

fn yes() -> bool {
    true
}

impl Default for InlineTasks {
    fn default() -> Self {
        InlineTasks {
            qa: true,
            kernel_reference_dir: None,
        }
    }
}

impl ServeConfig {
    /// Reads and checks a config file; relative paths in it are resolved against its folder.
    pub fn load(path: &Path) -> Result<Self, CoreError> {
        let text = aorlta_check::read_input_text(path, aorlta_check::TEXT_LIMIT)?;
        Self::from_yaml(&text, path)
    }

    /// Parses and checks a config given as text; `origin` names it in errors and is the base
    /// of relative paths.
    pub fn from_yaml(text: &str, origin: &Path) -> Result<Self, CoreError> {
        let mut cfg: ServeConfig =
            serde_norway::from_str(text).map_err(|e| name_the_key(yaml_error(origin, &e), text, &e))?;
        cfg.origin = origin.to_path_buf();
        let base = origin.parent().unwrap_or(Path::new(""));
        let resolve = |p: &mut PathBuf| {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        };
        cfg.tasks.iter_mut().for_each(resolve);
        cfg.profiles.iter_mut().for_each(resolve);
        if let CacheConfig::Sqlite { path } = &mut cfg.cache {
            resolve(path);
        }
        if let Some(p) = &mut cfg.work_dir {
            resolve(p);
        }
        if let Some(p) = &mut cfg.inline_tasks.kernel_reference_dir {
            resolve(p);
        }
        if let Some(p) = &mut cfg.auth.token_file {
            resolve(p);
        }
        cfg.check(origin)?;
        Ok(cfg)
    }

    /// A warning when a `/get_reward` sample may wait (`queue-wait`) and then run (a lane's
    /// `item-timeout`) longer than OpenRLHF waits for its answer.
    pub fn get_reward_budget_warning(&self) -> Option<String> {
        let longest = self.lanes.kernel.item_timeout.max(self.lanes.qa.item_timeout);
        let worst = self.limits.queue_wait + longest;
        (worst >= Duration::from_secs(OPENRLHF_REQUEST_LIMIT_S)).then(|| {
            format!(
                "`limits.queue-wait` plus the longest `item-timeout` is {} s: OpenRLHF gives up on a \
                 remote reward request after {OPENRLHF_REQUEST_LIMIT_S} s, so keep the sum below that",
                worst.as_secs_f64()
            )
        })
    }

    fn check(&self, origin: &Path) -> Result<(), CoreError> {
        let bad = |m: &str| Err(CoreError::invalid(origin, m));
        let answers_only = self.inline_tasks.qa || self.get_reward.labels != LabelMode::Id;
        if self.tasks.is_empty() && !answers_only {
            return bad(
                "field `tasks`: name at least one task file or folder (a service with no tasks \
                 scores answers only: inline Q&A tasks, or `get-reward: {labels: answer}`, and \
                 this config turns both off)",
            );
        }
        if self.profiles.is_empty() {
            return bad("field `profiles`: name at least one profile");
        }
        if let Err(m) = self.episodes.check() {
            return bad(&m);
        }
        let l = &self.limits;
        if l.max_items == 0 || l.max_body_bytes == 0 || l.max_completion_bytes == 0 {
            return bad("field `limits`: every limit must be at least 1");
        }
        if l.max_requests_in_flight == 0 {
            return bad("field `limits.max-requests-in-flight`: must be at least 1");
        }
        if l.max_connections == Some(0) {
            return bad("field `limits.max-connections`: must be at least 1");
        }
        for (key, t) in [
            ("header-read-timeout", l.header_read_timeout),
            ("read-timeout", l.read_timeout),
            ("write-timeout", l.write_timeout),
            ("drain-timeout", l.drain_timeout),
        ] {
            if t.is_zero() {
                return Err(CoreError::invalid(
                    origin,
                    format!("field `limits.{key}`: must be above 0"),
                ));
            }
        }
        if l.min_body_rate == 0 {
            return bad("field `limits.min-body-rate`: must be at least 1 byte per second");
        }
        if l.min_body_rate > l.max_body_bytes {
            return bad(
                "field `limits.min-body-rate`: above `max-body-bytes` per second, every body \
                 would have to arrive within a second",
            );
        }
        if l.max_reading_bytes < l.max_body_bytes {
            return bad(
                "field `limits.max-reading-bytes`: must be at least `max-body-bytes`, or a body \
                 of the largest size could never be read",
            );
        }
        if l.max_unsent_bytes == 0 {
            return bad("field `limits.max-unsent-bytes`: must be at least 1");
        }
        for (name, lane) in [("qa", &self.lanes.qa), ("kernel", &self.lanes.kernel)] {
            if lane.queue_items == 0 || lane.item_timeout.is_zero() {
                return Err(CoreError::invalid(
                    origin,
                    format!("field `lanes.{name}`: `queue-items` and `item-timeout` must be above 0"),
                ));
            }
        }
        Ok(())
    }
}

/// Adds the key to a value error whose message names only the enclosing section (serde reports
/// the path down to the struct that holds the key): the key is read off the line the error
/// points at.
fn name_the_key(err: CoreError, text: &str, e: &serde_norway::Error) -> CoreError {
    let CoreError::Parse { path, line, message } = err else {
        return err;
    };
    let key = e.location().and_then(|loc| {
        let l = text.lines().nth(loc.line().checked_sub(1)?)?;
        // The value the message quotes, found on the line, is preceded by its key (flow maps
        // such as `{queue-items: 8, item-timeout: 1 week}` hold several keys on one line).
        let quoted = message.split('`').nth(1).filter(|q| !q.is_empty());
        let col = loc.column().saturating_sub(1);
        let before = match quoted {
            Some(q) => &l[..l.find(q)?],
            None => l.get(..col + l.get(col..)?.find(':')?)?,
        };
        let before = before.trim_end().trim_end_matches(':');
        let key = before
            .rsplit(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '_'))
            .next()?;
        (!key.is_empty()).then(|| key.to_string())
    });
    let message = match key {
        Some(k) if !message.contains(&format!("`{k}`")) && !message.contains(&format!("{k}:")) => {
            format!("key `{k}`: {message}")
        }
        _ => message,
    };
    CoreError::Parse { path, line, message }
}

/// A duration as humantime writes it (`250ms`, `10s`, `5m`, `1h 30m`).
pub(crate) fn parse_duration(s: &str) -> Result<Duration, String> {
    humantime::parse_duration(s.trim())
        .map_err(|e| format!("`{s}` is not a duration like `250ms`, `10s`, `5m`: {e}"))
}

/// A size as bytesize writes it (`16 MiB`, `512 KiB`, `100 B`, `2MB`, or a number of bytes).
pub(crate) fn parse_bytes(s: &str) -> Result<usize, String> {
    let size: bytesize::ByteSize = s
        .trim()
        .parse()
        .map_err(|e| format!("`{s}` is not a size like `16 MiB`, `512 KiB`: {e}"))?;
    usize::try_from(size.as_u64()).map_err(|_| format!("`{s}` is too large"))
}

fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<PathBuf>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        One(PathBuf),
        Many(Vec<PathBuf>),
    }
    match Raw::deserialize(d).map_err(|_| serde::de::Error::custom("expected a path or a list of paths"))? {
        Raw::One(p) => Ok(vec![p]),
        Raw::Many(v) => Ok(v),
    }
}

#[derive(Deserialize)]
#[serde(untagged)]
enum NumOrText {
    Num(u64),
    Text(String),
}

fn de_duration<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
    match NumOrText::deserialize(d)? {
        NumOrText::Num(n) => Ok(Duration::from_secs(n)),
        NumOrText::Text(t) => parse_duration(&t).map_err(serde::de::Error::custom),
    }
}

fn de_bytes<'de, D: Deserializer<'de>>(d: D) -> Result<usize, D::Error> {
    match NumOrText::deserialize(d)? {
        NumOrText::Num(n) => usize::try_from(n).map_err(serde::de::Error::custom),
        NumOrText::Text(t) => parse_bytes(&t).map_err(serde::de::Error::custom),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIN: &str = "tasks: t.jsonl\nprofiles: [p.yaml]\n";

    fn parse(text: &str) -> Result<ServeConfig, String> {
        ServeConfig::from_yaml(text, Path::new("/cfg/serve.yaml")).map_err(|e| e.to_string())
    }

    #[test]
    fn defaults_and_relative_paths() {
        let c = parse(MIN).unwrap();
        assert_eq!(c.bind.to_string(), DEFAULT_BIND);
        assert_eq!(c.tasks, vec![PathBuf::from("/cfg/t.jsonl")]);
        assert_eq!(c.profiles, vec![PathBuf::from("/cfg/p.yaml")]);
        assert_eq!(c.gpus, None);
        assert_eq!(c.cache, CacheConfig::Memory { max_entries: 100_000 });
        assert_eq!(c.limits.max_body_bytes, 16 << 20);
        assert_eq!(c.lanes.qa.item_timeout, Duration::from_secs(10));
        assert!(c.inline_tasks.qa && c.inline_tasks.kernel_reference_dir.is_none());
    }

    #[test]
    fn full_config() {
        let c = parse(&format!(
            "{MIN}bind: 0.0.0.0:9000\ndefault-profile: qa\ncache: {{kind: sqlite, path: c/cache.sqlite}}\n\
             gpus: [0, 1]\nlanes:\n  qa: {{workers: 3, queue-items: 64, item-timeout: 250ms}}\n\
             limits:\n  max-body-bytes: 2 MiB\n  max-items: 8\n  max-completion-bytes: 1000\n  retry-after: 2s\n"
        ))
        .unwrap();
        assert_eq!(c.bind.port(), 9000);
        assert_eq!(
            c.cache,
            CacheConfig::Sqlite {
                path: "/cfg/c/cache.sqlite".into()
            }
        );
        assert_eq!(c.gpus, Some(GpuSet::List(vec![0, 1])));
        for text in [
            "cache: postgres://u@db:5432/aorlta\n",
            "cache: {kind: postgres, url: \"postgres://u@db:5432/aorlta\"}\n",
        ] {
            assert_eq!(
                parse(&format!("{MIN}{text}")).unwrap().cache,
                CacheConfig::Postgres {
                    url: "postgres://u@db:5432/aorlta".into()
                }
            );
        }
        let err = parse(&format!("{MIN}cache: c/cache.sqlite\n")).unwrap_err();
        assert!(err.contains("kind: sqlite"), "{err}");
        assert_eq!(c.lanes.qa.worker_count(), 3);
        assert_eq!(c.lanes.qa.item_timeout, Duration::from_millis(250));
        assert_eq!(
            c.lanes.kernel.queue_items, 256,
            "an absent lane keeps its defaults"
        );
        assert_eq!(c.limits.max_body_bytes, 2 << 20);
        assert_eq!(c.limits.retry_after, Duration::from_secs(2));
        assert_eq!(
            parse(&format!("{MIN}gpus: all\n")).unwrap().gpus,
            Some(GpuSet::All)
        );
        assert_eq!(parse(&format!("{MIN}gpus: none\n")).unwrap().gpus, None);
        assert_eq!(parse(&format!("{MIN}gpus: []\n")).unwrap().gpus, None);
    }

    #[test]
    fn get_reward_defaults_fit_openrlhfs_180_s_request_limit() {
        let c = parse(MIN).unwrap();
        let longest = c.lanes.kernel.item_timeout.max(c.lanes.qa.item_timeout);
        assert!(
            c.limits.queue_wait + longest < Duration::from_secs(OPENRLHF_REQUEST_LIMIT_S),
            "a queued /get_reward sample is answered before OpenRLHF gives up on it"
        );
        assert!(c.get_reward_budget_warning().is_none());
        let slow = parse(&format!(
            "{MIN}lanes:\n  kernel: {{queue-items: 8, item-timeout: 10m}}\n"
        ))
        .unwrap();
        assert!(slow.get_reward_budget_warning().unwrap().contains("180"));
    }

    #[test]
    fn unknown_keys_name_file_line_and_key() {
        let err = parse(&format!("{MIN}limits:\n  max-itemz: 3\n")).unwrap_err();
        assert!(err.starts_with("/cfg/serve.yaml:4:"), "{err}");
        assert!(err.contains("max-itemz"), "{err}");
        let err = parse(&format!("{MIN}cache: {{kind: redis}}\n")).unwrap_err();
        assert!(err.contains("redis"), "{err}");
    }

    #[test]
    fn bad_values_are_explained() {
        let err = parse(&format!("{MIN}gpus: some\n")).unwrap_err();
        assert!(err.contains("`gpus`"), "{err}");
        // A service that only scores answers needs no task file; one that cannot, does.
        for answers_only in ["profiles: [p.yaml]\n", "tasks: []\nprofiles: [p.yaml]\n"] {
            assert!(parse(answers_only).unwrap().tasks.is_empty());
        }
        assert!(parse("profiles: [p.yaml]\ninline-tasks: {qa: false}\nget-reward: {labels: auto}\n").is_ok());
        let err = parse("tasks: []\nprofiles: [p.yaml]\ninline-tasks: {qa: false}\n").unwrap_err();
        assert!(
            err.contains("field `tasks`") && err.contains("answers only"),
            "{err}"
        );
        let err = parse(&format!(
            "{MIN}lanes:\n  qa: {{queue-items: 0, item-timeout: 1s}}\n"
        ))
        .unwrap_err();
        assert!(err.contains("lanes.qa"), "{err}");
        for (text, key) in [
            ("limits:\n  retry-after: soon\n", "retry-after"),
            ("limits:\n  max-body-bytes: 3 parsecs\n", "max-body-bytes"),
            (
                "lanes:\n  qa: {queue-items: 8, item-timeout: 1 fortnight}\n",
                "item-timeout",
            ),
            ("gpus: [0, x]\n", "gpus"),
        ] {
            let err = parse(&format!("{MIN}{text}")).unwrap_err();
            assert!(err.starts_with("/cfg/serve.yaml:"), "{err}");
            assert!(err.contains(key), "{key}: {err}");
            let line: usize = err.split(':').nth(1).unwrap().parse().unwrap();
            assert!((3..=4).contains(&line), "{err}");
        }
    }

    #[test]
    fn the_connection_limits_are_checked_at_load() {
        let c = parse(&format!("{MIN}auth: {{token-file: secret/token}}\n")).unwrap();
        assert_eq!(c.auth.token_file, Some(PathBuf::from("/cfg/secret/token")));
        assert_eq!(c.limits.min_body_rate, 8 << 10);
        assert_eq!(c.limits.drain_timeout, Duration::from_secs(60));
        let c = parse(&format!(
            "{MIN}limits: {{min-body-rate: 1 KiB, write-timeout: 5s, max-unsent-bytes: 64 MiB, drain-timeout: 2s}}\n"
        ))
        .unwrap();
        assert_eq!(c.limits.min_body_rate, 1024);
        assert_eq!(c.limits.max_unsent_bytes, 64 << 20);
        for (text, key) in [
            ("limits: {min-body-rate: 0}\n", "min-body-rate"),
            ("limits: {min-body-rate: 32 MiB}\n", "min-body-rate"),
            ("limits: {max-reading-bytes: 1 MiB}\n", "max-reading-bytes"),
            ("limits: {write-timeout: 0s}\n", "write-timeout"),
            ("limits: {drain-timeout: 0s}\n", "drain-timeout"),
            ("limits: {max-unsent-bytes: 0}\n", "max-unsent-bytes"),
            ("auth: {token: abc}\n", "token"),
        ] {
            let err = parse(&format!("{MIN}{text}")).unwrap_err();
            assert!(err.contains(key), "{key}: {err}");
        }
    }

    #[test]
    fn durations_and_sizes() {
        assert_eq!(parse_duration("250ms"), Ok(Duration::from_millis(250)));
        assert_eq!(parse_duration("2m"), Ok(Duration::from_secs(120)));
        assert_eq!(parse_duration("1m 30s"), Ok(Duration::from_secs(90)));
        assert!(parse_duration("ten").is_err());
        assert!(parse_duration("3 fortnights").is_err());
        assert_eq!(parse_bytes("16 MiB"), Ok(16 << 20));
        assert_eq!(parse_bytes("512KiB"), Ok(512 << 10));
        assert_eq!(parse_bytes("7"), Ok(7));
        assert_eq!(parse_bytes("2 MB"), Ok(2_000_000));
        assert!(parse_bytes("1 parsec").is_err());
        assert!(parse_bytes("lots").is_err());
    }
}
