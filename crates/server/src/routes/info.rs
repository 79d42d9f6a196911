//! The read-only endpoints: tasks, profiles, health and metrics.

use crate::answer;
use crate::connections::ConnHandle;
use crate::state::AppState;
use crate::wire::{Health, ProfileInfo, ProfilesResponse, TaskInfo, TasksResponse};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::response::Response;
use axum::{Extension, Json};
use std::sync::Arc;

/// The hash `GET /v1/tasks` publishes for a task: over what it publishes beside it (kind, id,
/// prompt) and nothing else. The task's content hash, which keys its results, covers the
/// reference answer too, so a dictionary of likely answers tried against it would find the
/// answer; this one covers no secret, so it tells a client nothing the listing does not.
pub(crate) fn public_hash(kind: &str, id: &str, prompt: &str) -> String {
    aorlta_check::hash_parts([
        b"aorlta task listing".as_slice(),
        kind.as_bytes(),
        id.as_bytes(),
        prompt.as_bytes(),
    ])
}

/// `GET /v1/tasks`: every task's id, kind, public hash and prompt (never its reference, nor a
/// hash of it).
pub(super) async fn tasks(
    State(state): State<Arc<AppState>>,
    conn: Option<Extension<ConnHandle>>,
) -> Response {
    let tasks = state
        .tasks()
        .iter()
        .map(|t| {
            let prompt = match (
                aorlta_answer::QaTaskDef::of(t),
                aorlta_kernel::KernelTaskDef::of(t),
            ) {
                (Some(q), _) => q.task.prompt.clone(),
                (_, Some(k)) => k.spec.prompt.clone(),
                (None, None) => String::new(),
            };
            let kind = t.lane();
            TaskInfo {
                id: t.id.clone(),
                kind: kind.to_string(),
                hash: public_hash(kind, &t.id, &prompt),
                prompt,
            }
        })
        .collect();
    answer::json(&state.unsent, conn.map(|c| c.0), &TasksResponse { tasks })
}

/// `GET /v1/profiles`: every profile offered, and which is the default.
pub(super) async fn profiles(
    State(state): State<Arc<AppState>>,
    conn: Option<Extension<ConnHandle>>,
) -> Response {
    let profiles = state
        .engines()
        .iter()
        .map(|(name, e)| ProfileInfo {
            name: name.clone(),
            default: name == state.default_profile(),
            hash: e.profile().hash.clone(),
            profile: e.profile().profile.clone(),
        })
        .collect();
    let answer = ProfilesResponse {
        default: state.default_profile().to_string(),
        profiles,
    };
    answer::json(&state.unsent, conn.map(|c| c.0), &answer)
}

/// `GET /healthz`.
pub(super) async fn healthz(State(state): State<Arc<AppState>>) -> (StatusCode, Json<Health>) {
    let problem = state.store_problem();
    let (code, status) = match &problem {
        None => (StatusCode::OK, "ok"),
        Some(_) => (StatusCode::SERVICE_UNAVAILABLE, "store-lost"),
    };
    let health = Health {
        status: status.into(),
        problem,
        version: aorlta_core::AORLTA_VERSION.into(),
        tasks: state.tasks().len(),
        profiles: state.engines().keys().cloned().collect(),
        queue_depth: state
            .scheduler
            .depths()
            .into_iter()
            .map(|(lane, depth, _)| (lane.to_string(), depth))
            .collect(),
        queue_items: state
            .scheduler
            .depths()
            .into_iter()
            .map(|(lane, _, cap)| (lane.to_string(), cap))
            .collect(),
        item_timeout_s: state
            .scheduler
            .timeouts()
            .into_iter()
            .map(|(lane, t)| (lane.to_string(), t.as_secs_f64()))
            .collect(),
        queue_wait_s: state.limits.queue_wait.as_secs_f64(),
    };
    (code, Json(health))
}

/// `GET /openapi.json`: the service's OpenAPI description, made from the code.
pub(super) async fn openapi() -> impl IntoResponse {
    let routes: Vec<&str> = super::ROUTES
        .iter()
        .chain(&crate::episodes::EPISODE_ROUTES)
        .copied()
        .collect();
    axum::Json(crate::openapi::document(env!("CARGO_PKG_VERSION"), &routes))
}

/// `GET /metrics`: the OpenMetrics text exposition (Prometheus reads it).
pub(super) async fn metrics(State(state): State<Arc<AppState>>) -> impl IntoResponse {
    (
        [(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)],
        state.metrics.render(&state.gauges()),
    )
}
