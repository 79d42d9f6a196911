//! The Q&A lane as the engine runs it: its task files (JSONL, one `{"id", "prompt", "answer"}`
//! per line), its `parse` (the final answer of a completion, in the forms the leg accepts) and
//! its comparison adapters.

use crate::extract::{self, AnswerForm};
use crate::reason::AnswerReason;
use crate::reference::QaTaskDef;
use aorlta_check::{Lane, LegInput, LegOutput, Registry, Result, SkippedLine, Task, hash_parts, params};
use aorlta_record::{LegState, QaTask};
use serde::Deserialize;
use serde_json::json;
use std::path::Path;

/// The Q&A lane's name, which its tasks carry.
pub const LANE: &str = "qa";

/// A Q&A task of the lane (its body is a [`QaTaskDef`]).
pub fn qa_task(task: QaTask) -> Task {
    let json = serde_json::to_string(&task).expect("a QaTask serialises");
    let hash = hash_parts([b"qa".as_slice(), json.as_bytes()]);
    Task::new(LANE, task.id.clone(), hash, QaTaskDef::new(task))
}

/// Parameters of the `parse` adapter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub(crate) struct ParseParams {
    /// Answer forms accepted, tried in the fixed order boxed, statement, latex, bare, number.
    #[serde(default = "default_forms")]
    pub forms: Vec<AnswerForm>,
    /// Longest answer accepted, in bytes.
    #[serde(default = "default_max_answer")]
    pub max_answer_len: usize,
}

fn default_forms() -> Vec<AnswerForm> {
    vec![
        AnswerForm::Tag,
        AnswerForm::Boxed,
        AnswerForm::Statement,
        AnswerForm::Latex,
        AnswerForm::Bare,
    ]
}

fn default_max_answer() -> usize {
    200
}

/// The Q&A lane.
pub struct QaLane;

impl Lane for QaLane {
    fn name(&self) -> &'static str {
        LANE
    }
    fn task_files(&self) -> &'static [&'static str] {
        &["jsonl"]
    }
    fn load(&self, path: &Path, text: &str, skipped: &mut Vec<SkippedLine>) -> Result<Vec<(Task, usize)>> {
        let mut tasks = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            match serde_json::from_str::<QaTask>(line) {
                Ok(t) => tasks.push((qa_task(t), i + 1)),
                Err(e) => skipped.push(SkippedLine {
                    place: format!("{}:{}", path.display(), i + 1),
                    message: e.to_string(),
                }),
            }
        }
        Ok(tasks)
    }
    fn check_parse_params(&self, p: &serde_json::Value) -> std::result::Result<(), String> {
        let p = params::<ParseParams>(p)?;
        // Past what the comparison reads, a longer answer would only come back unreadable.
        if !(1..=crate::normalise::MAX_ANSWER_BYTES).contains(&p.max_answer_len) {
            return Err(format!(
                "`max-answer-len` must be 1 to {} (the longest answer the comparison reads), not {}",
                crate::normalise::MAX_ANSWER_BYTES,
                p.max_answer_len
            ));
        }
        Ok(())
    }
    fn parse(&self, input: &LegInput<'_>) -> LegOutput {
        let p: ParseParams = match params(input.params) {
            Ok(p) => p,
            Err(e) => return LegOutput::unsettled(AnswerReason::BadParams, e),
        };
        match extract::extract_answer(input.completion, &p.forms, p.max_answer_len) {
            Ok(a) => LegOutput::clean()
                .with_detail(json!({"answer": a.text, "form": a.form}))
                .with_extracted(a.text),
            Err(r) => LegOutput::with_code(LegState::Broke, &r.code, r.detail),
        }
    }
    fn sources(&self) -> String {
        crate::identity::SOURCES.to_string()
    }
    fn register(&self, registry: &mut Registry) {
        crate::qa::register(registry);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_check::{Lanes, TaskSet};
    use std::sync::Arc;

    fn lanes() -> Lanes {
        Lanes::default().with(Arc::new(QaLane))
    }

    #[test]
    fn malformed_lines_are_skipped_with_their_place() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.jsonl");
        std::fs::write(
            &f,
            "{\"id\":\"a\",\"prompt\":\"p\",\"answer\":\"1\"}\nnot json\n\n{\"id\":\"b\",\"prompt\":\"p\",\"answer\":\"2\"}\n",
        )
        .unwrap();
        let (set, skipped) = TaskSet::load(&f, &lanes()).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].place.ends_with("t.jsonl:2"), "{}", skipped[0].place);
    }

    #[test]
    fn duplicate_ids_are_an_error_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.jsonl");
        let line = "{\"id\":\"a\",\"prompt\":\"p\",\"answer\":\"1\"}\n";
        std::fs::write(&f, format!("{line}{line}")).unwrap();
        let err = TaskSet::load(&f, &lanes()).unwrap_err().to_string();
        assert!(err.contains("t.jsonl:2") && err.contains("duplicate"), "{err}");
    }
}
