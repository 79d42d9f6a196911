//! Episodes (docs/API.md, "Episodes"): `POST /v1/episodes` opens one at a task with a profile,
//! `POST /v1/episodes/{id}/turns` scores a completion as its next turn and answers the entry,
//! its feedback and the turn's reward, `GET /v1/episodes/{id}` answers the transcript. Kept in
//! the result store ([`aorlta_store::EpisodeStore`]: the SQLite file or PostgreSQL database of the
//! results, else memory), so they outlive a restart; bounded by the config's `episodes:`
//! section, checked when it loads.

use crate::error::ApiError;
use crate::items::{Item, TaskSource, score_all};
use crate::json_body::JsonBody;
use crate::state::AppState;
use aorlta_record::RewardEntry;
use aorlta_record::{Episode, EpisodeHead, Turn, TurnReward};
use aorlta_store::EpisodeError;
use axum::Json;
use axum::extract::{Path, State};
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{SystemTime, UNIX_EPOCH};

/// The episode routes, as the OpenAPI description names them.
pub(crate) const EPISODE_ROUTES: [&str; 3] = ["/v1/episodes", "/v1/episodes/{id}/turns", "/v1/episodes/{id}"];

/// `POST /v1/episodes` body.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct OpenEpisode {
    /// A task id the service loaded.
    pub task: String,
    /// The profile each turn is scored with; the default when absent.
    #[serde(default)]
    pub profile: Option<String>,
    /// Most turns (1 to the config's `episodes.max-turns`, its value when absent).
    #[serde(default)]
    pub max_turns: Option<usize>,
    /// How a turn's reward is made: `own` (default), `best-so-far` or `gain`.
    #[serde(default)]
    pub turn_reward: TurnReward,
    /// The discount of the discounted sum reported beside (0 to 1; 1 when absent).
    #[serde(default)]
    pub discount: Option<f64>,
}

/// `POST /v1/episodes/{id}/turns` body.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct TurnRequest {
    /// The model's text for this turn.
    pub completion: String,
    /// The client's id for the turn: a request retried with it answers the turn it made.
    #[serde(default)]
    pub turn_id: Option<String>,
}

/// The answer to a turn.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct TurnAnswer {
    /// The episode's id.
    pub episode: String,
    /// 0-based.
    pub turn: usize,
    /// The client's id for the turn, if it gave one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The turn's reward under the episode's `turn_reward`; `null` when unscored.
    pub reward: Option<f64>,
    /// The discounted sum of the turn rewards so far.
    pub discounted_sum: f64,
    /// The entry's feedback: the next user turn.
    pub feedback: Option<String>,
    /// True when the episode takes no more turns.
    pub done: bool,
    /// The turn's reward entry.
    pub entry: RewardEntry,
}

fn now_s() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

static NEXT: AtomicU64 = AtomicU64::new(0);

fn new_id() -> String {
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let h = aorlta_check::hash_str(&format!("{nanos}/{n}/{}", std::process::id()));
    format!("ep-{}", &h[..24])
}

fn store_error(e: EpisodeError) -> ApiError {
    match e {
        EpisodeError::Full(m) => ApiError::new(StatusCode::SERVICE_UNAVAILABLE, "episodes-full", m),
        EpisodeError::TooLarge(m) => ApiError::new(StatusCode::PAYLOAD_TOO_LARGE, "episode-too-large", m),
        EpisodeError::NotFound => ApiError::new(
            StatusCode::NOT_FOUND,
            "unknown-episode",
            "no such episode: never opened, or expired",
        ),
        EpisodeError::Refused(m) => ApiError::new(StatusCode::CONFLICT, "episode-done", m),
        EpisodeError::Store(m) => {
            tracing::warn!("episodes: {m}");
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal-error",
                "the episode store failed",
            )
        }
    }
}

/// Runs a store call off the async workers.
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, EpisodeError> + Send + 'static,
) -> Result<T, ApiError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|_| {
            ApiError::new(
                StatusCode::INTERNAL_SERVER_ERROR,
                "internal-error",
                "the episode store failed",
            )
        })?
        .map_err(store_error)
}

/// `POST /v1/episodes`.
pub(crate) async fn open(
    State(state): State<Arc<AppState>>,
    JsonBody(req): JsonBody<OpenEpisode>,
) -> Result<Json<EpisodeHead>, ApiError> {
    let engine = state.engine(req.profile.as_deref())?;
    let cfg = state.episodes_config();
    if state.tasks().get(&req.task).is_none() {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown-task",
            format!(
                "`{}` is not a task id this service loaded (`GET /v1/tasks` lists them)",
                req.task
            ),
        ));
    }
    let max_turns = req.max_turns.unwrap_or(cfg.max_turns);
    if !(1..=cfg.max_turns).contains(&max_turns) {
        return Err(ApiError::invalid(format!(
            "field `max_turns`: {max_turns} is not 1 to {} (`episodes.max-turns`)",
            cfg.max_turns
        )));
    }
    let discount = req.discount.unwrap_or(1.0);
    if !(0.0..=1.0).contains(&discount) {
        return Err(ApiError::invalid(format!(
            "field `discount`: {discount} is not 0 to 1"
        )));
    }
    let now = now_s();
    let head = EpisodeHead {
        id: new_id(),
        task: req.task,
        profile: engine.profile().profile.name.clone(),
        max_turns,
        turn_reward: req.turn_reward,
        discount,
        created_s: now,
        expires_s: now + cfg.ttl.as_secs(),
    };
    let store = Arc::clone(state.episodes());
    let h = head.clone();
    blocking(move || store.create(&h, now)).await?;
    Ok(Json(head))
}

fn answer(episode: &str, turn: Turn, max_turns: usize) -> TurnAnswer {
    TurnAnswer {
        episode: episode.to_string(),
        turn: turn.turn,
        turn_id: turn.turn_id,
        reward: turn.reward,
        discounted_sum: turn.discounted_sum,
        feedback: turn.entry.feedback.clone(),
        done: turn.turn + 1 >= max_turns,
        entry: turn.entry,
    }
}

/// `POST /v1/episodes/{id}/turns`.
pub(crate) async fn turn(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
    JsonBody(req): JsonBody<TurnRequest>,
) -> Result<Json<TurnAnswer>, ApiError> {
    let _slot = state.request_permit()?;
    let store = Arc::clone(state.episodes());
    let (s, i) = (Arc::clone(&store), id.clone());
    let ep = blocking(move || s.get(&i, now_s())?.ok_or(EpisodeError::NotFound)).await?;
    if let Some(t) = req.turn_id.as_deref().and_then(|t| ep.turn_by_id(t)) {
        return Ok(Json(answer(&id, t.clone(), ep.head.max_turns)));
    }
    if ep.done() {
        return Err(store_error(done(&ep)));
    }
    let engine = Arc::clone(state.engine(Some(&ep.head.profile))?);
    let item = Item {
        id: format!("{id}#{}", ep.turns.len()),
        task: TaskSource::Id(ep.head.task.clone()),
        completion: req.completion.clone(),
    };
    let entry = score_all(&state, &engine, vec![item], None)
        .await?
        .pop()
        .expect("one entry per item");
    let max_turns = ep.head.max_turns;
    let (turn_id, completion) = (req.turn_id, req.completion);
    let i = id.clone();
    let turn = blocking(move || {
        store.update(&i, now_s(), &mut |ep| {
            // A retry that raced its first request finds the turn the first one stored.
            if let Some(t) = turn_id.as_deref().and_then(|t| ep.turn_by_id(t)) {
                return Ok(t.clone());
            }
            if ep.done() {
                return Err(done(ep));
            }
            let mut entry = entry.clone();
            entry.id = format!("{}#{}", ep.head.id, ep.turns.len());
            let t = ep.next_turn(turn_id.clone(), completion.clone(), entry);
            ep.turns.push(t.clone());
            Ok(t)
        })
    })
    .await?;
    Ok(Json(answer(&id, turn, max_turns)))
}

fn done(ep: &Episode) -> EpisodeError {
    EpisodeError::Refused(format!(
        "episode `{}` has taken its {} turns",
        ep.head.id, ep.head.max_turns
    ))
}

/// `GET /v1/episodes/{id}`.
pub(crate) async fn transcript(
    State(state): State<Arc<AppState>>,
    Path(id): Path<String>,
) -> Result<Json<Episode>, ApiError> {
    let store = Arc::clone(state.episodes());
    let ep = blocking(move || store.get(&id, now_s())?.ok_or(EpisodeError::NotFound)).await?;
    Ok(Json(ep))
}

#[cfg(test)]
mod tests;
