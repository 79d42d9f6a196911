//! Task and pool line formats (JSONL).

use serde::{Deserialize, Serialize};

/// A question/answer task: one line of a Q&A tasks file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct QaTask {
    /// Unique id within its file.
    pub id: String,
    /// The question shown to the model.
    pub prompt: String,
    /// The reference answer.
    pub answer: String,
}

/// One line of a pool file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PoolLine {
    /// The task id this completion answers.
    pub task: String,
    /// The model's text.
    pub completion: String,
    /// The candidate's id; `<task>#<line>` when absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    /// Which sample of the task this is (informational).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sample: Option<u64>,
}

/// A candidate ready to score: its id, task id and completion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Candidate {
    /// The candidate's id.
    pub id: String,
    /// The task id.
    pub task: String,
    /// The model's text.
    pub completion: String,
}
