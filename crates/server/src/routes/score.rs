//! The scoring endpoints: `POST /v1/score` (AORLTA's own shape) and `POST /get_reward`
//! (OpenRLHF's remote reward shape). Both take a request slot, read the body within its limit,
//! check the batch, and hand the items to [`crate::items::score_all`].

use crate::error::ApiError;
use crate::items::{Item, TaskSource, score_all};
use crate::state::AppState;
use crate::wire::{GetRewardRequest, GetRewardResponse, ScoreRequest, ScoreResponse, TaskRef};
use aorlta_record::{Reason, RewardEntry};
use axum::Json;
use axum::body::Body;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, StatusCode, header};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use serde::Deserialize;
use serde::de::DeserializeOwned;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Reads and parses a JSON body: 413 past the limit (checked against `Content-Length` before
/// reading anything), 400 when it is not JSON, 422 when it is JSON of the wrong shape (the
/// message names the field, e.g. `items[3].completion`).
async fn read_json<T: DeserializeOwned>(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<T, ApiError> {
    let limit = state.limits.max_body_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::body_too_large(limit));
    }
    let read = tokio::time::timeout(state.limits.read_timeout, Limited::new(body, limit).collect());
    let Ok(collected) = read.await else {
        return Err(ApiError::new(
            StatusCode::REQUEST_TIMEOUT,
            "body-timeout",
            format!(
                "the body did not arrive within {} s",
                state.limits.read_timeout.as_secs_f64()
            ),
        ));
    };
    let bytes = match collected {
        Ok(c) => c.to_bytes(),
        Err(e) if e.downcast_ref::<LengthLimitError>().is_some() => {
            return Err(ApiError::body_too_large(limit));
        }
        Err(e) => {
            return Err(ApiError::new(
                StatusCode::BAD_REQUEST,
                "body-unreadable",
                format!("the body could not be read: {e}"),
            ));
        }
    };
    parse_json(&bytes)
}

/// Parses JSON text, classifying its errors as [`read_json`] says.
pub fn parse_json<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    // The fast path; a body that fails is parsed again, tracking the path for the message.
    if let Ok(v) = serde_json::from_slice(bytes) {
        return Ok(v);
    }
    use serde_json::error::Category;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        match inner.classify() {
            Category::Data => {
                if path == "." || path.is_empty() {
                    ApiError::invalid(format!("the request: {inner}"))
                } else {
                    ApiError::invalid(format!("field `{path}`: {inner}"))
                }
            }
            Category::Syntax | Category::Eof | Category::Io => ApiError::malformed_json(inner),
        }
    })?;
    de.end().map_err(ApiError::malformed_json)?;
    // Both parsers agree on what is valid; this is reached only if they ever disagree.
    Ok(value)
}

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
pub async fn score(
    State(state): State<Arc<AppState>>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<ScoreResponse>, ApiError> {
    let _slot = state.request_permit()?;
    let req: ScoreRequest = read_json(&state, &headers, body).await?;
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
    let results = score_all(&state, &engine, items).await?;
    Ok(Json(ScoreResponse { results }))
}

/// Query parameters of `/get_reward`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GetRewardParams {
    /// The profile; the default when absent.
    #[serde(default)]
    profile: Option<String>,
}

/// `POST /get_reward[?profile=NAME]`: OpenRLHF's remote reward request.
pub async fn get_reward(
    State(state): State<Arc<AppState>>,
    params: Result<Query<GetRewardParams>, axum::extract::rejection::QueryRejection>,
    headers: HeaderMap,
    body: Body,
) -> Result<Json<GetRewardResponse>, ApiError> {
    let _slot = state.request_permit()?;
    let Query(params) =
        params.map_err(|e| ApiError::invalid(format!("the query string: {}", e.body_text())))?;
    let req: GetRewardRequest = read_json(&state, &headers, body).await?;
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
    check_batch(&state, n)?;
    let profile = engine.profile().profile.name.clone();
    let mut prompts = req.prompts.map(Vec::into_iter);
    let mut refused: Vec<(usize, RewardEntry)> = Vec::new();
    let mut items = Vec::with_capacity(n);
    for (i, (query, label)) in req.query.into_iter().zip(req.labels).enumerate() {
        let id = format!("{label}#{i}");
        let prompt = prompts.as_mut().and_then(Iterator::next);
        let completion = match prompt {
            None => query,
            Some(p) => match query.strip_prefix(p.as_str()) {
                Some(rest) => rest.to_string(),
                None => {
                    let reason = Reason::new(
                        "prompt-not-prefix",
                        "the query does not start with its prompt, so the completion is unknown",
                    );
                    refused.push((i, RewardEntry::error(&id, &label, &profile, reason)));
                    continue;
                }
            },
        };
        items.push(Item {
            id,
            task: TaskSource::Id(label),
            completion,
        });
    }
    let mut results = if items.is_empty() {
        Vec::new()
    } else {
        score_all(&state, &engine, items).await?
    };
    if !refused.is_empty() {
        state.metrics.observe_answered(refused.iter().map(|(_, e)| e));
        for (i, e) in refused {
            results.insert(i, e);
        }
    }
    let stand_in = engine.profile().profile.unscored_value;
    let rewards: Vec<f64> = results.iter().map(|e| e.reward.unwrap_or(stand_in)).collect();
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
    Ok(Json(GetRewardResponse {
        scores: rewards.clone(),
        rewards,
        extra_logs,
    }))
}
