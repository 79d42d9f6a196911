//! The scoring endpoints: `POST /v1/score` (AORLTA's own shape) and `POST /get_reward`
//! (OpenRLHF's remote reward shape). Both read the body first ([`JsonBody`]: a body still
//! arriving holds no scoring slot), then take a request slot, check the batch, hand the items to
//! [`crate::items::score_all`], and answer through [`crate::answer`].

use crate::answer;
use crate::body::refuse_unread;
use crate::connections::ConnHandle;
use crate::error::ApiError;
use crate::items::{Item, TaskSource, score_all};
use crate::json_body::JsonBody;
use crate::openrlhf::{completion_of, correctness};
use crate::state::AppState;
use crate::wire::{GetRewardRequest, GetRewardResponse, ScoreRequest, ScoreResponse, TaskRef};
use aorlta_record::RewardEntry;
use axum::Extension;
use axum::extract::rejection::QueryRejection;
use axum::extract::{FromRequest, Query, Request, State};
use axum::http::StatusCode;
use axum::response::Response;
use serde::Deserialize;
use std::collections::BTreeMap;
use std::sync::Arc;

/// 422 `empty-batch` or 413 `too-many-items`.
fn check_batch(state: &AppState, n: usize) -> Result<(), ApiError> {
    if n == 0 {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "empty-batch",
            "the request has no items",
        ));
    }
    let max = state.limits.max_items;
    if n > max {
        return Err(ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "too-many-items",
            format!("the request has {n} items; the limit is {max}"),
        ));
    }
    Ok(())
}

/// `POST /v1/score`.
pub(super) async fn score(
    State(state): State<Arc<AppState>>,
    conn: Option<Extension<ConnHandle>>,
    JsonBody(req): JsonBody<ScoreRequest>,
) -> Result<Response, ApiError> {
    let _slot = state.request_permit()?;
    let engine = Arc::clone(state.engine(req.profile.as_deref())?);
    check_batch(&state, req.items.len())?;
    let items = req
        .items
        .into_iter()
        .enumerate()
        .map(|(i, it)| {
            let (task_name, task) = match it.task {
                TaskRef::Id(id) => (id.clone(), TaskSource::Id(id)),
                TaskRef::Inline(obj) => (
                    obj.get("id")
                        .and_then(|v| v.as_str())
                        .unwrap_or("inline")
                        .to_string(),
                    TaskSource::Inline(obj),
                ),
            };
            Item {
                id: it.id.unwrap_or_else(|| format!("{task_name}#{i}")),
                task,
                completion: it.completion,
            }
        })
        .collect();
    let results = score_all(&state, &engine, items, None).await?;
    let results = ScoreResponse { results };
    Ok(answer::json(&state.unsent, conn.map(|c| c.0), &results))
}

/// Query parameters of `/get_reward`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct GetRewardParams {
    /// The profile; the default when absent.
    #[serde(default)]
    profile: Option<String>,
}

/// `POST /get_reward[?profile=NAME]`: OpenRLHF's remote reward request. OpenRLHF sends one
/// sample per request and does not read `Retry-After`, so a request waits (up to
/// `limits.queue-wait` from its arrival) for a request slot and for room in its lane before it
/// is refused. A query string it cannot read is refused before the body is read (and the body
/// drained), so the body goes through [`JsonBody`] here rather than as an argument.
pub(super) async fn get_reward(
    State(state): State<Arc<AppState>>,
    conn: Option<Extension<ConnHandle>>,
    params: Result<Query<GetRewardParams>, QueryRejection>,
    request: Request,
) -> Result<Response, ApiError> {
    let deadline = tokio::time::Instant::now() + state.limits.queue_wait;
    let Query(params) = match params {
        Ok(p) => p,
        Err(e) => {
            let err = ApiError::invalid(format!("the query string: {}", e.body_text()));
            return Err(refuse_unread(&state, request.into_body(), err).await);
        }
    };
    let JsonBody(req): JsonBody<GetRewardRequest> = JsonBody::from_request(request, &state).await?;
    let _slot = state.request_permit_until(deadline).await?;
    let engine = Arc::clone(state.engine(params.profile.as_deref())?);
    let n = req.query.len();
    let prompts_len = req.prompts.as_ref().map_or(n, Vec::len);
    if req.labels.len() != n || prompts_len != n {
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "length-mismatch",
            format!(
                "`query` has {n} entries, `prompts` {prompts_len} and `labels` {}; they must match",
                req.labels.len()
            ),
        ));
    }
    // OpenRLHF may send a batch with nothing in it: the rest answers it with empty lists.
    if n > 0 {
        check_batch(&state, n)?;
    }
    let labels: Vec<String> = req.labels.into_iter().map(|l| l.0).collect();
    check_labels(&state, &labels)?;
    let profile = engine.profile().profile.name.clone();
    let mut prompts = req.prompts.map(Vec::into_iter);
    let mut refused: Vec<(usize, RewardEntry)> = Vec::new();
    let mut items = Vec::with_capacity(n);
    for (i, (query, label)) in req.query.into_iter().zip(labels).enumerate() {
        let id = format!("{label}#{i}");
        let prompt = prompts.as_mut().and_then(Iterator::next);
        match completion_of(&query, prompt.as_deref(), state.special_tokens()) {
            Ok(completion) => items.push(Item {
                id,
                task: label_task(&state, label, prompt.as_deref()),
                completion,
            }),
            Err(reason) => refused.push((i, RewardEntry::error(&id, &label, &profile, reason))),
        }
    }
    let mut results = if items.is_empty() {
        Vec::new()
    } else {
        score_all(&state, &engine, items, Some(deadline)).await?
    };
    if !refused.is_empty() {
        state.metrics.observe_answered(refused.iter().map(|(_, e)| e));
        for (i, e) in refused {
            results.insert(i, e);
        }
    }
    let stand_in = engine.profile().profile.unscored_value;
    let rewards: Vec<f64> = results.iter().map(|e| e.reward.unwrap_or(stand_in)).collect();
    let scores: Vec<f64> = results.iter().map(correctness).collect();
    let flag = |f: &dyn Fn(&RewardEntry) -> bool| -> Vec<f64> {
        results.iter().map(|e| if f(e) { 1.0 } else { 0.0 }).collect()
    };
    let mut extra_logs = BTreeMap::new();
    extra_logs.insert("scored".to_string(), flag(&|e| e.scored));
    extra_logs.insert("unscored".to_string(), flag(&|e| !e.scored));
    extra_logs.insert(
        "timed_out".to_string(),
        flag(&|e| e.reasons.iter().any(|r| r.code == "timed-out")),
    );
    for e in results.iter().filter(|e| !e.scored) {
        let codes: Vec<&str> = e.reasons.iter().map(|r| r.code.as_str()).collect();
        tracing::debug!(id = %e.id, task = %e.task, reasons = ?codes, "unscored");
    }
    let answer = GetRewardResponse {
        rewards,
        scores,
        extra_logs,
    };
    Ok(answer::json(&state.unsent, conn.map(|c| c.0), &answer))
}

/// The task a label stands for under the service's `get-reward.labels` mode: a task id, or an
/// inline Q&A task whose reference answer is the label (its id `answer-` and a hash of the
/// prompt and the answer; its prompt the sample's prompt, which a Q&A reward does not read).
fn label_task(state: &AppState, label: String, prompt: Option<&str>) -> TaskSource {
    use crate::config::LabelMode;
    let answer = match state.label_mode() {
        LabelMode::Id => false,
        LabelMode::Answer => true,
        LabelMode::Auto => state.tasks().get(&label).is_none(),
    };
    if !answer {
        return TaskSource::Id(label);
    }
    let prompt = prompt.unwrap_or("").to_string();
    let hash = aorlta_check::hash_str(&format!("{prompt}\0{label}"));
    let mut task = serde_json::Map::new();
    task.insert("id".into(), format!("answer-{}", &hash[..16]).into());
    task.insert("prompt".into(), prompt.into());
    task.insert("answer".into(), label.into());
    TaskSource::Inline(task)
}

/// 422 `unknown-label` for an empty label, or in id mode one that names no task: OpenRLHF
/// sends its label column as it is, and a silent stand-in reward would train on nothing.
fn check_labels(state: &AppState, labels: &[String]) -> Result<(), ApiError> {
    let ids = state.label_mode() == crate::config::LabelMode::Id;
    for (i, label) in labels.iter().enumerate() {
        let why = if label.trim().is_empty() {
            "is empty: put task ids (or, with `get-reward.labels: answer`, the answers) in the \
             column OpenRLHF sends as labels (`--data.label_key` from OpenRLHF 0.10.2, \
             `--label_key` before)"
                .to_string()
        } else if ids && state.tasks().get(label).is_none() {
            format!(
                "`{label}` is not a task id this service loaded ({} tasks; `GET /v1/tasks` lists them); \
                 labels that are answers need `get-reward.labels: answer` (or `auto`) in the service config",
                state.tasks().len()
            )
        } else {
            continue;
        };
        return Err(ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown-label",
            format!("labels[{i}] {why}"),
        ));
    }
    Ok(())
}
