//! A task: its id, content hash and lane, with what its lane loaded (found by its type); and a
//! line a lane skipped while loading its tasks.

use std::any::Any;
use std::sync::Arc;

/// One task.
#[derive(Debug, Clone)]
pub struct Task {
    /// The task id.
    pub id: String,
    /// blake3 of the task's content (and of whatever else its lane reads for it, such as a
    /// reference source).
    pub hash: String,
    /// The lane that loaded it.
    lane: &'static str,
    /// What the lane loaded (its own type, read back with [`Task::body`]).
    body: Arc<dyn Any + Send + Sync>,
}

impl Task {
    /// A task of `lane`, holding what the lane loaded.
    pub fn new<T: Any + Send + Sync>(lane: &'static str, id: String, hash: String, body: T) -> Self {
        Task {
            id,
            hash,
            lane,
            body: Arc::new(body),
        }
    }

    /// The name of the lane that loaded the task.
    pub fn lane(&self) -> &'static str {
        self.lane
    }

    /// What the lane loaded, when it is of type `T`.
    pub fn body<T: Any>(&self) -> Option<&T> {
        self.body.downcast_ref()
    }
}

/// A malformed line that was skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedLine {
    /// `file:line`.
    pub place: String,
    /// What was wrong.
    pub message: String,
}

impl std::fmt::Display for SkippedLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}
