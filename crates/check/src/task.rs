//! Tasks: a task's id, content hash and lane, with what its lane loaded (found by its type), and
//! sets of tasks loaded from files by the lanes that own their kinds ([`Lanes`]).

use crate::error::{CoreError, Result};
use crate::lane::Lanes;
use std::any::Any;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
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

/// Tasks by id.
#[derive(Debug, Clone, Default)]
pub struct TaskSet {
    by_id: HashMap<String, Arc<Task>>,
    order: Vec<String>,
}

impl TaskSet {
    /// Loads tasks from a file or folder: each file by the lane that loads its kind (by its
    /// extension), a folder's files in name order. Lines a lane skips (a malformed JSONL line)
    /// are returned as skipped; a duplicate id or a task its lane refuses is an error.
    pub fn load(path: &Path, lanes: &Lanes) -> Result<(Self, Vec<SkippedLine>)> {
        let mut set = TaskSet::default();
        let mut skipped = Vec::new();
        set.load_into(path, lanes, &mut skipped)?;
        Ok((set, skipped))
    }

    /// Loads several paths into one set.
    pub fn load_all(paths: &[PathBuf], lanes: &Lanes) -> Result<(Self, Vec<SkippedLine>)> {
        let mut set = TaskSet::default();
        let mut skipped = Vec::new();
        for p in paths {
            set.load_into(p, lanes, &mut skipped)?;
        }
        Ok((set, skipped))
    }

    fn load_into(&mut self, path: &Path, lanes: &Lanes, skipped: &mut Vec<SkippedLine>) -> Result<()> {
        if path.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| CoreError::io(path, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| lanes.for_file(ext(p)).is_some())
                .collect();
            files.sort();
            for f in files {
                self.load_into(&f, lanes, skipped)?;
            }
            return Ok(());
        }
        let Some(lane) = lanes.for_file(ext(path)) else {
            return Err(CoreError::invalid(
                path,
                format!(
                    "unknown task file type `.{}` (expected {} or a folder)",
                    ext(path),
                    lanes.file_kinds()
                ),
            ));
        };
        let text = crate::input::read_to_string(path, crate::input::TEXT_LIMIT)?;
        for (task, line) in lane.load(path, &text, skipped)? {
            self.insert(task, path, line)?;
        }
        Ok(())
    }

    fn insert(&mut self, task: Task, path: &Path, line: usize) -> Result<()> {
        if self.by_id.contains_key(&task.id) {
            return Err(CoreError::Parse {
                path: path.to_path_buf(),
                line,
                message: format!("duplicate task id `{}`", task.id),
            });
        }
        self.order.push(task.id.clone());
        self.by_id.insert(task.id.clone(), Arc::new(task));
        Ok(())
    }

    /// Adds a task built elsewhere (an inline task); replaces one with the same id.
    pub fn add(&mut self, task: Task) {
        if !self.by_id.contains_key(&task.id) {
            self.order.push(task.id.clone());
        }
        self.by_id.insert(task.id.clone(), Arc::new(task));
    }

    /// A task by id.
    pub fn get(&self, id: &str) -> Option<&Arc<Task>> {
        self.by_id.get(id)
    }

    /// Tasks in load order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Task>> {
        self.order.iter().map(|id| &self.by_id[id])
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when there are no tasks.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

fn ext(p: &Path) -> &str {
    p.extension().and_then(|e| e.to_str()).unwrap_or("")
}
