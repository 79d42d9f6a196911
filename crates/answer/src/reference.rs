//! A Q&A task as the lane holds it: the task, and its reference answer read once per task (per
//! set of answer forms a leg reads it with), as a task is read once when it loads,
//! so that no candidate pays for reading the reference again.

use crate::extract::{self, AnswerForm};
use crate::normalise::{self, Reference};
use aorlta_check::Task;
use aorlta_record::QaTask;
use std::sync::{Arc, Mutex, OnceLock};

/// A Q&A task with its reference answer's readings.
pub struct QaTaskDef {
    /// The task as written.
    pub task: QaTask,
    /// The reference read whole (on first use).
    whole: OnceLock<Arc<ReadReference>>,
    /// The reference read with each set of answer forms a leg asked for (few: one per leg).
    with_forms: Mutex<Vec<(Vec<AnswerForm>, Arc<ReadReference>)>>,
}

/// The reference answer a comparison uses, read.
#[derive(Debug)]
pub(crate) struct ReadReference {
    /// Its text: the whole reference, or the answer found in it with the leg's forms.
    pub text: String,
    /// True when `text` was found in a longer reference (the leg reports it).
    pub found: bool,
    /// `text`, read.
    pub read: Reference,
}

impl QaTaskDef {
    /// The task, its reference not yet read.
    pub(crate) fn new(task: QaTask) -> Self {
        QaTaskDef {
            task,
            whole: OnceLock::new(),
            with_forms: Mutex::new(Vec::new()),
        }
    }

    /// The Q&A task a task holds, when it is one.
    pub fn of(task: &Task) -> Option<&QaTaskDef> {
        task.body()
    }

    fn whole(&self) -> &Arc<ReadReference> {
        self.whole.get_or_init(|| {
            Arc::new(ReadReference {
                text: self.task.answer.clone(),
                found: false,
                read: Reference::read(&self.task.answer),
            })
        })
    }

    /// The reference as a leg reading it with `forms` compares with. With `forms`, a reference
    /// that holds a box, or that does not read as an answer whole (a worked solution), is read
    /// with them (the whole reference when none finds an answer); a bare reference that reads
    /// whole is kept whole, so `$3$ or $4$` is not cut to its last span. Read once per task and
    /// set of forms.
    pub(crate) fn reference(&self, forms: &[AnswerForm]) -> Arc<ReadReference> {
        let reference = self.task.answer.as_str();
        let boxed = reference.contains("\\boxed") || reference.contains("\\fbox");
        if forms.is_empty() || (!boxed && self.whole().read.readable()) {
            return self.whole().clone();
        }
        let mut memo = self.with_forms.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((_, r)) = memo.iter().find(|(f, _)| f == forms) {
            return r.clone();
        }
        let read = match extract::extract_answer(reference, forms, normalise::MAX_ANSWER_BYTES) {
            Ok(a) if a.text != reference.trim() => Arc::new(ReadReference {
                read: Reference::read(&a.text),
                text: a.text,
                found: true,
            }),
            _ => self.whole().clone(),
        };
        memo.push((forms.to_vec(), read.clone()));
        read
    }
}
