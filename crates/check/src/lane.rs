//! A lane: one kind of task with everything that knows it. A lane loads its task files (and
//! checks their rules), reads what a completion offers for its tasks (its `parse`), and brings
//! the adapters that judge it. The engine runs lanes it is given by name ([`Lanes`]); this crate
//! names none, so a new lane is a crate on this one alone.

use crate::adapter::{Adapter, Env, LegInput, LegOutput, Registry};
use crate::error::Result;
use crate::reason::reason_codes;
use crate::task::{SkippedLine, Task};
use std::path::Path;
use std::sync::Arc;

/// One kind of task and what judges it.
pub trait Lane: Send + Sync {
    /// The lane's name, which its tasks carry ([`Task::lane`]).
    fn name(&self) -> &'static str;
    /// The extensions of the task files it loads, without the dot (`jsonl`; `yaml`, `yml`).
    fn task_files(&self) -> &'static [&'static str];
    /// The tasks of one task file's text (`path` names it in errors and places), each with the
    /// line it starts on. A malformed line the lane can skip goes into `skipped`; a task that
    /// breaks the lane's rules is an error naming the file, the line and the field.
    fn load(&self, path: &Path, text: &str, skipped: &mut Vec<SkippedLine>) -> Result<Vec<(Task, usize)>>;
    /// Checks the parameters of a `parse` leg when a profile loads (the error names the field);
    /// a lane whose `parse` reads none accepts any.
    fn check_parse_params(&self, _params: &serde_json::Value) -> std::result::Result<(), String> {
        Ok(())
    }
    /// The `parse` leg of one of its tasks: what the completion offers the later legs (an
    /// answer, a source) as the output's extracted text, or why it offers nothing.
    fn parse(&self, input: &LegInput<'_>) -> LegOutput;
    /// The identity of the sources the lane's results depend on (its crate's, hashed at build
    /// time, with its version): its `parse` legs carry it in their cache keys, and its adapters
    /// answer it from [`Adapter::sources`], so an edit of the lane is never served an old result.
    fn sources(&self) -> String;
    /// Adds the lane's adapters (besides `parse`, which every lane shares).
    fn register(&self, adapters: &mut Registry);
}

/// Lanes by name, in the order they were added.
#[derive(Clone, Default)]
pub struct Lanes {
    lanes: Vec<Arc<dyn Lane>>,
}

impl Lanes {
    /// Adds a lane (one of the same name is replaced).
    pub fn add(&mut self, lane: Arc<dyn Lane>) {
        self.lanes.retain(|l| l.name() != lane.name());
        self.lanes.push(lane);
    }

    /// The lanes with `lane` added.
    pub fn with(mut self, lane: Arc<dyn Lane>) -> Self {
        self.add(lane);
        self
    }

    /// A lane by name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Lane>> {
        self.lanes.iter().find(|l| l.name() == name)
    }

    /// The lane that loads task files with this extension (without the dot).
    pub fn for_file(&self, extension: &str) -> Option<&Arc<dyn Lane>> {
        self.lanes.iter().find(|l| l.task_files().contains(&extension))
    }

    /// The task files the lanes load, for a message: each lane's first extension
    /// (`.jsonl, .yaml`).
    pub fn file_kinds(&self) -> String {
        let kinds: Vec<String> = self
            .lanes
            .iter()
            .filter_map(|l| l.task_files().first().map(|e| format!(".{e}")))
            .collect();
        kinds.join(", ")
    }

    /// The names, in the order the lanes were added.
    pub fn names(&self) -> Vec<&'static str> {
        self.lanes.iter().map(|l| l.name()).collect()
    }

    /// Every lane's adapters, and `parse` over all of them.
    pub fn adapters(&self) -> Registry {
        let mut r = Registry::default();
        r.add(Arc::new(Parse { lanes: self.clone() }));
        for lane in &self.lanes {
            lane.register(&mut r);
        }
        r
    }
}

reason_codes! {
    /// Why the shared `parse` leg is unsettled before any lane reads the completion.
    pub enum ParseReason {
        /// The task's lane is not one the run knows.
        WrongTaskKind => "wrong-task-kind",
    }
}

/// `parse`: what a completion offers its task's lane, read by that lane ([`Lane::parse`]).
struct Parse {
    lanes: Lanes,
}

impl Adapter for Parse {
    fn name(&self) -> &'static str {
        "parse"
    }
    fn version(&self) -> &'static str {
        "3"
    }
    /// The shared adapter's own sources are the engine's; what a task's `parse` reads is its
    /// lane's ([`Parse::identity`]).
    fn sources(&self) -> Option<String> {
        Some("parse".to_string())
    }
    /// The sources of the task's lane (its `parse` is the lane's).
    fn identity(&self, task: &Task, _: &serde_json::Value, _: &Env) -> String {
        self.lanes
            .get(task.lane())
            .map_or_else(String::new, |l| format!("lane={}", l.sources()))
    }
    fn check_params(&self, p: &serde_json::Value) -> std::result::Result<(), String> {
        self.lanes.lanes.iter().try_for_each(|l| l.check_parse_params(p))
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        match self.lanes.get(input.task.lane()) {
            Some(lane) => lane.parse(input),
            None => LegOutput::unsettled(
                ParseReason::WrongTaskKind,
                format!(
                    "task {} is of lane `{}`, which this run does not know",
                    input.task.id,
                    input.task.lane()
                ),
            ),
        }
    }
}
