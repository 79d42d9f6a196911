//! Turning one request item into work for the queue, or into its own error entry when it cannot
//! be judged (an unknown task, a bad inline task, an over-long completion), so that one bad item
//! never fails the rest of its batch. Both scoring endpoints go through here, then [`score_all`].

use crate::error::ApiError;
use crate::queue::{SubmitError, Work};
use crate::state::AppState;
use aorlta_check::Task;
use aorlta_core::Engine;
use aorlta_record::KernelTask;
use aorlta_record::{Candidate, QaTask, Reason, RewardEntry};
use axum::http::StatusCode;
use std::path::{Component, Path};
use std::sync::Arc;

/// Where an item's task comes from.
pub(crate) enum TaskSource {
    /// A task id (looked up in the service's tasks).
    Id(String),
    /// An inline task object.
    Inline(serde_json::Map<String, serde_json::Value>),
}

/// An item ready to be resolved.
pub(crate) struct Item {
    /// The item's id.
    pub id: String,
    /// Its task.
    pub task: TaskSource,
    /// The completion.
    pub completion: String,
}

enum Slot {
    Ready(Box<RewardEntry>),
    Queued,
}

/// Scores a batch with one engine: resolves each item, admits the rest to the queue whole
/// (or refuses the request: 503 when the queue is full, 413 when it could never fit), and
/// awaits every answer. Entries come back in item order. With `admit_by`, a batch that finds
/// its lane full waits for room until then before it is refused.
pub(crate) async fn score_all(
    state: &AppState,
    engine: &Arc<Engine>,
    items: Vec<Item>,
    admit_by: Option<tokio::time::Instant>,
) -> Result<Vec<RewardEntry>, ApiError> {
    let mut slots = Vec::with_capacity(items.len());
    let mut works = Vec::new();
    // What `/ui` keeps: the batch's last `KEEP` items at most.
    let kept_from = items.len().saturating_sub(crate::recent::KEEP);
    let completions: Vec<String> = items[kept_from..]
        .iter()
        .map(|i| crate::recent::kept(&i.completion))
        .collect();
    for item in items {
        match resolve(state, engine, item) {
            Ok(w) => {
                works.push(w);
                slots.push(Slot::Queued);
            }
            Err(e) => slots.push(Slot::Ready(e)),
        }
    }
    let submitted = match admit_by {
        None => state.scheduler.submit(works),
        Some(deadline) => state.scheduler.submit_until(works, deadline).await,
    };
    let waiters = submitted.map_err(|e| match e {
        SubmitError::Overloaded { .. } | SubmitError::Closed => {
            state.metrics.add_shed();
            ApiError::overloaded(e.to_string(), state.limits.retry_after)
        }
        SubmitError::TooLarge { .. } => ApiError::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "batch-exceeds-queue",
            e.to_string(),
        ),
    })?;
    let shared = waiters.iter().filter(|w| w.shared()).count() as u64;
    if shared > 0 {
        state.metrics.add_shared(shared);
    }
    let mut waiters = waiters.into_iter();
    let mut out = Vec::with_capacity(slots.len());
    let mut timed_out = 0;
    for slot in slots {
        let e = match slot {
            Slot::Ready(e) => *e,
            Slot::Queued => {
                let w = waiters.next().expect("one waiter per queued item");
                let e = w.wait().await;
                if e.reasons.first().is_some_and(|r| r.code == "timed-out") {
                    timed_out += 1;
                }
                e
            }
        };
        out.push(e);
    }
    if timed_out > 0 {
        state.metrics.add_timed_out(timed_out);
    }
    state.metrics.observe_answered(&out);
    state.recent.record(&out[kept_from..], completions);
    // Only what was computed now is stored (and may be waiting to be committed).
    if out.iter().any(|e| e.scored && e.legs.iter().any(|l| !l.cached)) {
        state.commit_answers().await;
    }
    Ok(out)
}

fn error(engine: &Engine, id: &str, task: &str, code: &str, detail: String) -> Box<RewardEntry> {
    Box::new(RewardEntry::error(
        id,
        task,
        &engine.profile().profile.name,
        Reason::new(code, detail),
    ))
}

/// The work for an item, or its error entry.
fn resolve(state: &AppState, engine: &Arc<Engine>, item: Item) -> Result<Work, Box<RewardEntry>> {
    let task = match item.task {
        TaskSource::Id(id) => match state.tasks().get(&id) {
            Some(t) => Arc::clone(t),
            None => {
                return Err(error(
                    engine,
                    &item.id,
                    &id,
                    "unknown-task",
                    format!("no task with id `{id}`"),
                ));
            }
        },
        TaskSource::Inline(obj) => {
            let task_id = obj.get("id").and_then(|v| v.as_str()).unwrap_or("").to_string();
            match inline_task(state, obj) {
                Ok(t) => Arc::new(t),
                Err((code, detail)) => return Err(error(engine, &item.id, &task_id, code, detail)),
            }
        }
    };
    let limit = state.limits.max_completion_bytes;
    if item.completion.len() > limit {
        return Err(error(
            engine,
            &item.id,
            &task.id,
            "completion-too-long",
            format!(
                "the completion has {} bytes; the limit is {limit}",
                item.completion.len()
            ),
        ));
    }
    Ok(Work {
        engine: Arc::clone(engine),
        cand: Candidate {
            id: item.id,
            task: task.id.clone(),
            completion: item.completion,
        },
        task,
    })
}

/// Builds an inline task: a Q&A task, or (when the config allows) a kernel task whose reference
/// lies under the configured folder.
fn inline_task(
    state: &AppState,
    obj: serde_json::Map<String, serde_json::Value>,
) -> Result<Task, (&'static str, String)> {
    let is_kernel = obj.contains_key("signature");
    let value = serde_json::Value::Object(obj);
    if !is_kernel {
        if !state.inline.qa {
            return Err((
                "inline-task-disabled",
                "this service takes no inline Q&A tasks".into(),
            ));
        }
        let qa: QaTask =
            serde_json::from_value(value).map_err(|e| ("invalid-task", format!("inline Q&A task: {e}")))?;
        return Ok(aorlta_answer::qa_task(qa));
    }
    let Some(dir) = &state.inline.kernel_reference_dir else {
        return Err((
            "inline-task-disabled",
            "this service takes no inline kernel tasks (its config sets no \
             `inline-tasks.kernel-reference-dir`)"
                .into(),
        ));
    };
    let spec: KernelTask =
        serde_json::from_value(value).map_err(|e| ("invalid-task", format!("inline kernel task: {e}")))?;
    let Some(source) = spec.reference.source() else {
        return Err((
            "invalid-task",
            "inline kernel task: `reference` must be a kernel source in the reference folder".into(),
        ));
    };
    let rel = Path::new(source);
    if rel.as_os_str().is_empty() || !rel.components().all(|c| matches!(c, Component::Normal(_))) {
        return Err((
            "invalid-task",
            format!(
                "inline kernel task: `reference` must be a relative path inside the reference folder, not `{source}`"
            ),
        ));
    }
    aorlta_kernel::kernel_task(spec, dir, Path::new("<inline task>")).map_err(|e| {
        tracing::debug!(error = %e, "inline kernel task refused");
        let text = e.to_string();
        match text.find("field `signature`") {
            Some(at) => ("invalid-task", format!("inline kernel task: {}", &text[at..])),
            // Any other failure names a server path: say only what is wrong.
            None => (
                "invalid-task",
                "inline kernel task: its `reference` is not a readable file in the reference folder".into(),
            ),
        }
    })
}
