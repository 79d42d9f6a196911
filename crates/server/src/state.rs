//! What every handler shares: one engine per offered profile (all over the same tasks, cache and
//! environment, exactly as `aorlta score` builds them), the scoring queue, the limits and the
//! metrics. Built once from a [`ServeConfig`].

use crate::answer::Unsent;
use crate::auth::Token;
use crate::config::{CacheConfig, InlineTasks, Limits, ServeConfig};
use crate::error::{ApiError, ServerError};
use crate::metrics::{Gauges, Metrics};
use crate::queue::{LaneSpec, Scheduler};
use crate::reading::Reading;
use aorlta_check::Env;
use aorlta_check::TaskSet;
use aorlta_core::LoadedProfile;
use aorlta_core::RewardRegistry;
use aorlta_core::{Engine, EngineParts};
use aorlta_kernel::KernelTools;
use aorlta_kernel::{GpuSet, KernelEnv};
use aorlta_store::{Cache, CacheSpec, MemoryCache, PgCache, SqliteCache};
use axum::http::StatusCode;
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The service's environment: its `work-dir` (or a temporary folder, removed when this is
/// dropped) and, like a scoring run's, the kernel tools of its `kernel:` section.
pub struct ServeEnv {
    env: Arc<Env>,
    _scratch: Option<tempfile::TempDir>,
}

impl ServeEnv {
    /// Creates the scratch folder.
    pub fn build(cfg: &ServeConfig) -> Result<Self, ServerError> {
        let (work_dir, scratch) = match &cfg.work_dir {
            Some(d) => {
                std::fs::create_dir_all(d).map_err(|error| ServerError::Io {
                    what: format!("creating work-dir {}", d.display()),
                    error,
                })?;
                (d.clone(), None)
            }
            None => {
                let t = tempfile::Builder::new()
                    .prefix("aorlta-serve-")
                    .tempdir()
                    .map_err(|error| ServerError::Io {
                        what: format!("creating a scratch folder in {}", std::env::temp_dir().display()),
                        error,
                    })?;
                (t.path().to_path_buf(), Some(t))
            }
        };
        let kernel = KernelEnv::from_section(cfg.kernel.as_ref(), &cfg.origin, &work_dir, cfg.gpus.clone())
            .map_err(ServerError::Load)?;
        Ok(ServeEnv {
            env: Arc::new(aorlta_kernel::env_of(work_dir, kernel)),
            _scratch: scratch,
        })
    }

    /// The environment to score in.
    pub fn env(&self) -> Arc<Env> {
        Arc::clone(&self.env)
    }
}

/// The service's shared state.
pub struct AppState {
    engines: BTreeMap<String, Arc<Engine>>,
    default_profile: String,
    tasks: Arc<TaskSet>,
    /// Request limits.
    pub limits: Limits,
    /// What inline tasks may be.
    pub inline: InlineTasks,
    special_tokens: Vec<String>,
    label_mode: crate::config::LabelMode,
    /// The scoring queue.
    pub scheduler: Scheduler,
    /// Counters for `/metrics`.
    pub metrics: Arc<Metrics>,
    /// The request bodies being read (against `limits.max-reading-bytes`).
    pub reading: Arc<Reading>,
    /// The answers not yet taken by their clients (against `limits.max-unsent-bytes`).
    pub unsent: Arc<Unsent>,
    token: Option<Token>,
    cache: Option<Arc<dyn Cache>>,
    requests: Arc<Semaphore>,
    gpus: Option<GpuSet>,
    env: Arc<Env>,
    store_file: Option<StoreFile>,
    /// The latest answered entries, for `/ui`.
    pub recent: Arc<crate::recent::Recent>,
    episodes: Arc<dyn aorlta_store::EpisodeStore>,
    episodes_config: crate::episode_store::EpisodesConfig,
}

/// The SQLite store's file as the service opened it: a file deleted or replaced under a running
/// service takes every later write with it, so the service notices and stops admitting work.
struct StoreFile {
    path: std::path::PathBuf,
    dev: u64,
    ino: u64,
    /// Whether the loss was logged already (once is enough).
    told: std::sync::atomic::AtomicBool,
}

impl StoreFile {
    fn of(path: &std::path::Path) -> Option<Self> {
        use std::os::unix::fs::MetadataExt;
        let m = std::fs::metadata(path).ok()?;
        Some(StoreFile {
            path: path.to_path_buf(),
            dev: m.dev(),
            ino: m.ino(),
            told: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// Why the store is lost, or `None` while its file is the one opened.
    fn problem(&self) -> Option<String> {
        use std::os::unix::fs::MetadataExt;
        let same = std::fs::metadata(&self.path).is_ok_and(|m| m.dev() == self.dev && m.ino() == self.ino);
        if same {
            return None;
        }
        let why = format!(
            "the result store {} was deleted or replaced while the service ran: what it stores \
             now would be lost at restart, so no work is admitted; restart the service",
            self.path.display()
        );
        if !self.told.swap(true, std::sync::atomic::Ordering::Relaxed) {
            tracing::error!(store = %self.path.display(), "{why}");
        }
        Some(why)
    }
}

impl AppState {
    /// Why the service admits no work, when its store's file is gone: `None` while it is
    /// there (or the store is not a file).
    pub fn store_problem(&self) -> Option<String> {
        self.store_file.as_ref().and_then(StoreFile::problem)
    }

    /// Commits every result put in the store so far (a drained service calls it before it
    /// exits, so what it computed is in a shared store for the next service).
    pub fn flush_cache(&self) {
        if let Some(c) = &self.cache {
            flush(c.as_ref());
        }
    }

    /// [`AppState::flush_cache`] off the async workers: a request's answers are committed
    /// before they are sent, so a service killed after answering never has the next one
    /// score them again.
    pub async fn commit_answers(&self) {
        if let Some(c) = self.cache.clone() {
            let _ = tokio::task::spawn_blocking(move || flush(c.as_ref())).await;
        }
    }

    /// Loads the tasks, profiles and cache a config names and starts the workers. `env` is the
    /// machine's tools (scratch folder, kernel tools), built by the caller as for a scoring run.
    /// The token comes from `AORLTA_TOKEN` or `auth.token-file` ([`Token::load`]).
    pub fn from_config(cfg: &ServeConfig, config_path: &Path, env: Arc<Env>) -> Result<Self, ServerError> {
        let token = Token::load(&cfg.auth)?;
        let adapters = aorlta_core::adapters();
        let rewards = RewardRegistry::builtin();
        let (tasks, skipped) = TaskSet::load_all(&cfg.tasks, &aorlta_core::lanes())?;
        for s in &skipped {
            tracing::warn!(place = %s.place, message = %s.message, "skipped a malformed task line");
        }
        let mut profiles = Vec::new();
        for path in &cfg.profiles {
            let p = LoadedProfile::load(path, &adapters, &rewards)?;
            if profiles
                .iter()
                .any(|q: &LoadedProfile| q.profile.name == p.profile.name)
            {
                return Err(ServerError::DuplicateProfile {
                    path: path.clone(),
                    name: p.profile.name,
                });
            }
            profiles.push(p);
        }
        // Every scoring worker may read at once.
        let readers = cfg.lanes.qa.worker_count() + cfg.lanes.kernel.worker_count();
        let store_path = match (CacheSpec::from_env()?, &cfg.cache) {
            (Some(CacheSpec::Sqlite(p)), _) => Some(p),
            (None, CacheConfig::Sqlite { path }) => Some(path.clone()),
            _ => None,
        };
        let cache: Option<Arc<dyn Cache>> = match (CacheSpec::from_env()?, &cfg.cache) {
            (Some(spec), _) => Some(spec.open(readers)?),
            (None, CacheConfig::None) => None,
            (None, CacheConfig::Memory { max_entries }) => Some(Arc::new(MemoryCache::new(*max_entries))),
            (None, CacheConfig::Sqlite { path }) => Some(Arc::new(SqliteCache::open_with(path, readers)?)),
            (None, CacheConfig::Postgres { url }) => Some(Arc::new(PgCache::connect(url, readers)?)),
        };
        let results_spec = match (CacheSpec::from_env()?, &cfg.cache) {
            (Some(spec), _) => Some(spec),
            (None, CacheConfig::Sqlite { path }) => Some(CacheSpec::Sqlite(path.clone())),
            (None, CacheConfig::Postgres { url }) => Some(CacheSpec::Postgres(url.clone())),
            _ => None,
        };
        let episodes =
            crate::episode_store::open_store(results_spec.as_ref(), &cfg.episodes).map_err(|message| {
                aorlta_check::CoreError::Cache {
                    store: "episodes".into(),
                    message,
                }
            })?;
        let parts = EngineParts {
            adapters,
            rewards,
            cache: cache.clone(),
            env: Arc::clone(&env),
            max_completion_bytes: cfg.limits.max_completion_bytes,
        };
        let default = match &cfg.default_profile {
            Some(d) => d.clone(),
            None => profiles[0].profile.name.clone(),
        };
        if !profiles.iter().any(|p| p.profile.name == default) {
            return Err(ServerError::UnknownDefault {
                config: config_path.to_path_buf(),
                name: default,
                offered: profiles
                    .iter()
                    .map(|p| p.profile.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            });
        }
        // A kernel task whose tolerance a kernel computing nothing would pass is refused at start.
        let runs_kernels = profiles.iter().any(|p| {
            p.profile
                .legs
                .iter()
                .any(|l| matches!(l.adapter.as_str(), "kernel-run" | "kernel-time"))
        });
        if runs_kernels {
            for note in aorlta_kernel::check_tolerances(&env, tasks.iter().map(|t| &**t))? {
                tracing::warn!("{note}");
            }
        }
        if let Some(w) = cfg.get_reward_budget_warning() {
            tracing::warn!("{}: {w}", config_path.display());
        }
        let tasks = Arc::new(tasks);
        let metrics = Arc::new(Metrics::default());
        let lane = |l: &crate::config::LaneConfig| LaneSpec {
            workers: l.worker_count(),
            capacity: l.queue_items,
            timeout: l.item_timeout,
        };
        let scheduler = Scheduler::start(lane(&cfg.lanes.qa), lane(&cfg.lanes.kernel), Arc::clone(&metrics))
            .map_err(|error| ServerError::Io {
                what: "starting the scoring workers".into(),
                error,
            })?;
        let engines = profiles
            .into_iter()
            .map(|p| {
                let name = p.profile.name.clone();
                (name, Arc::new(Engine::new(p, Arc::clone(&tasks), parts.clone())))
            })
            .collect();
        Ok(AppState {
            engines,
            default_profile: default,
            recent: Arc::new(crate::recent::Recent::new(Arc::clone(&tasks))),
            tasks,
            limits: cfg.limits.clone(),
            inline: cfg.inline_tasks.clone(),
            special_tokens: cfg.get_reward.special_tokens.clone(),
            label_mode: cfg.get_reward.labels,
            scheduler,
            reading: Reading::new(cfg.limits.max_reading_bytes),
            unsent: Unsent::new(cfg.limits.max_unsent_bytes, Arc::clone(&metrics)),
            token,
            metrics,
            cache,
            requests: Arc::new(Semaphore::new(cfg.limits.max_requests_in_flight)),
            gpus: cfg.gpus.clone(),
            env,
            store_file: store_path.as_deref().and_then(StoreFile::of),
            episodes,
            episodes_config: cfg.episodes.clone(),
        })
    }

    /// The engine of a profile (the default when `name` is `None`); 422 `unknown-profile`.
    pub fn engine(&self, name: Option<&str>) -> Result<&Arc<Engine>, ApiError> {
        let name = name.unwrap_or(&self.default_profile);
        self.engines.get(name).ok_or_else(|| {
            ApiError::new(
                StatusCode::UNPROCESSABLE_ENTITY,
                "unknown-profile",
                format!(
                    "no profile named `{name}` (offered: {})",
                    self.engines.keys().cloned().collect::<Vec<_>>().join(", ")
                ),
            )
        })
    }

    /// The engines by profile name.
    pub fn engines(&self) -> &BTreeMap<String, Arc<Engine>> {
        &self.engines
    }

    /// The default profile's name.
    pub fn default_profile(&self) -> &str {
        &self.default_profile
    }

    /// The tokens `/get_reward` strips from queries, prompts and completions.
    pub fn special_tokens(&self) -> &[String] {
        &self.special_tokens
    }

    /// How `/get_reward` reads its labels.
    pub fn label_mode(&self) -> crate::config::LabelMode {
        self.label_mode
    }

    /// Where episodes are kept.
    pub fn episodes(&self) -> &Arc<dyn aorlta_store::EpisodeStore> {
        &self.episodes
    }

    /// The config's `episodes:` section.
    pub fn episodes_config(&self) -> &crate::episode_store::EpisodesConfig {
        &self.episodes_config
    }

    /// The service's tasks.
    pub fn tasks(&self) -> &Arc<TaskSet> {
        &self.tasks
    }

    /// The token requests must carry (`None`: the service asks for none).
    pub fn token(&self) -> Option<&Token> {
        self.token.as_ref()
    }

    /// The GPUs the config names (`None`: the kernel lane has none).
    pub fn gpus(&self) -> Option<&GpuSet> {
        self.gpus.as_ref()
    }

    /// A place for one scoring request, or 503 when `max-requests-in-flight` are being served.
    ///
    /// A semaphore taken in the handler, not tower's `ConcurrencyLimit` + `LoadShed` layers
    /// (whose features the workspace no longer enables): only the scoring routes are limited,
    /// so health and metrics answer under load, and the refusal is the service's own 503 with
    /// `Retry-After`, counted in the metrics.
    pub fn request_permit(&self) -> Result<OwnedSemaphorePermit, ApiError> {
        if let Some(why) = self.store_problem() {
            return Err(ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "store-lost", why));
        }
        Arc::clone(&self.requests).try_acquire_owned().map_err(|_| {
            self.metrics.add_shed();
            ApiError::overloaded(
                format!(
                    "{} scoring requests are already in flight",
                    self.limits.max_requests_in_flight
                ),
                self.limits.retry_after,
            )
        })
    }

    /// A place for one `/get_reward` request, waiting for one until `deadline`; then 503.
    pub async fn request_permit_until(
        &self,
        deadline: tokio::time::Instant,
    ) -> Result<OwnedSemaphorePermit, ApiError> {
        if let Some(why) = self.store_problem() {
            return Err(ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "store-lost", why));
        }
        match tokio::time::timeout_at(deadline, Arc::clone(&self.requests).acquire_owned()).await {
            Ok(Ok(p)) => Ok(p),
            _ => self.request_permit(),
        }
    }

    /// The values `/metrics` reads at render time.
    pub fn gauges(&self) -> Gauges {
        Gauges {
            lanes: self.scheduler.depths(),
            requests_in_flight: self.limits.max_requests_in_flight - self.requests.available_permits(),
            bodies_reading: self.reading.bodies(),
            body_bytes_reading: self.reading.bytes(),
            unsent_bytes: self.unsent.bytes(),
            cache: self.cache.as_ref().map(|c| c.stats()),
            gpu_leases_held: self
                .env
                .kernel()
                .and_then(|k| k.leases_if_started().map(|l| l.held()))
                .unwrap_or(0),
        }
    }
}

fn flush(c: &dyn Cache) {
    if let Err(e) = c.flush() {
        tracing::error!(store = %c.describe(), error = %e, "results not stored");
    }
}
