//! A task set as the pages show it: each task's prompt, reference and spec, and the kernel
//! lane's extraction of a completion's source (the same function its `parse` leg calls), for the
//! CLI (a run's config) and the service (its own tasks) alike.

use crate::run::{Extractor, TaskView};
use aorlta_answer::QaTaskDef;
use aorlta_check::{Task, TaskSet};
use aorlta_kernel::KernelTaskDef;
use std::collections::BTreeMap;
use std::sync::Arc;

/// The task views of `set` and the extraction of a kernel completion's source (none for Q&A,
/// whose extracted answer is in its `parse` leg's detail).
pub fn task_sources(set: Arc<TaskSet>) -> (BTreeMap<String, TaskView>, Extractor) {
    let views = set.iter().map(|t| (t.id.clone(), view(t))).collect();
    let extract: Extractor = Arc::new(move |task: &str, completion: &str| {
        let k = KernelTaskDef::of(set.get(task)?)?;
        aorlta_kernel::kernel_source(completion, k).ok()
    });
    (views, extract)
}

fn view(task: &Task) -> TaskView {
    match (QaTaskDef::of(task).map(|q| &q.task), KernelTaskDef::of(task)) {
        (Some(q), _) => TaskView {
            kind: "qa".into(),
            language: None,
            prompt: Some(q.prompt.clone()),
            reference: Some(q.answer.clone()),
            spec: serde_json::Value::Null,
        },
        (_, Some(k)) => {
            let mut spec = serde_json::to_value(&k.spec).unwrap_or_default();
            if let Some(o) = spec.as_object_mut() {
                o.remove("prompt");
            }
            let file = k
                .file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            TaskView {
                kind: format!("kernel ({file})"),
                language: serde_json::to_value(k.spec.language)
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string)),
                prompt: Some(k.spec.prompt.clone()),
                reference: Some(k.reference_source.clone()),
                spec,
            }
        }
        (None, None) => TaskView {
            kind: task.lane().into(),
            language: None,
            prompt: None,
            reference: None,
            spec: serde_json::Value::Null,
        },
    }
}
