//! Sets of tasks by id, loaded from files by the lanes that own their kinds ([`Lanes`]).

use crate::error::{CoreError, Result};
use crate::lane::Lanes;
use crate::task::{SkippedLine, Task};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

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
        // What is not a regular file is named as such before its extension is looked at.
        crate::input::check_regular(path)?;
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
        let text = crate::input::read_input_text(path, crate::input::TEXT_LIMIT)?;
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
