//! The adapter interface: what a leg gets, what it answers, and the registry that maps an
//! adapter's name (as a profile writes it) to its implementation.
//!
//! An adapter's verdict is data: [`LegOutput`] with a state and reasons. Our own failures
//! (a missing tool, a broken cache) are reported as `unsettled` with a reason, never as `broke`.

use crate::reason::ReasonCode;
use crate::task::Task;
use aorlta_record::{LegResult, LegState, Reason};
use std::any::{Any, TypeId};
use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;
use std::sync::Arc;

/// Everything a leg needs to run.
pub struct LegInput<'a> {
    /// The leg's name in the profile.
    pub leg: &'a str,
    /// The leg's parameters (already checked by [`Adapter::check_params`]).
    pub params: &'a serde_json::Value,
    /// The task.
    pub task: &'a Task,
    /// The whole completion.
    pub completion: &'a str,
    /// What the `parse` leg extracted (its lane's reading of the completion), if it ran clean.
    pub extracted: Option<&'a str>,
    /// The machine's tools and resources.
    pub env: &'a Env,
}

/// What a leg produced.
#[derive(Debug, Clone, PartialEq)]
pub struct LegOutput {
    /// The outcome.
    pub state: LegState,
    /// Reasons (at least one unless clean).
    pub reasons: Vec<Reason>,
    /// What the leg extracted or measured, for the report.
    pub detail: Option<serde_json::Value>,
    /// Text handed to later legs (what `parse` read from the completion).
    pub extracted: Option<String>,
}

impl LegOutput {
    /// A clean output.
    pub fn clean() -> Self {
        LegOutput {
            state: LegState::Clean,
            reasons: Vec::new(),
            detail: None,
            extracted: None,
        }
    }

    /// A broke output with one reason.
    pub fn broke(code: impl ReasonCode, detail: impl Into<String>) -> Self {
        Self::with_code(LegState::Broke, code.as_str(), detail)
    }

    /// An unsettled output with one reason.
    pub fn unsettled(code: impl ReasonCode, detail: impl Into<String>) -> Self {
        Self::with_code(LegState::Unsettled, code.as_str(), detail)
    }

    /// An output in `state` with one reason whose code is given as text: for a code that comes
    /// from another process (the harness's findings); a lane's own codes go through
    /// [`LegOutput::broke`] and [`LegOutput::unsettled`].
    pub fn with_code(state: LegState, code: &str, detail: impl Into<String>) -> Self {
        LegOutput {
            state,
            reasons: vec![Reason::new(code, detail)],
            ..Self::clean()
        }
    }

    /// Adds a detail value.
    pub fn with_detail(mut self, detail: serde_json::Value) -> Self {
        self.detail = Some(detail);
        self
    }

    /// Adds extracted text.
    pub fn with_extracted(mut self, text: String) -> Self {
        self.extracted = Some(text);
        self
    }
}

/// Reads a leg's parameters into their type (a missing `params` reads as `{}`); the error names
/// the field.
pub fn params<T: for<'de> serde::Deserialize<'de>>(value: &serde_json::Value) -> Result<T, String> {
    let v = if value.is_null() {
        serde_json::json!({})
    } else {
        value.clone()
    };
    serde_json::from_value(v).map_err(|e| e.to_string())
}

/// The machine's tools and resources, shared by every leg of a run.
#[derive(Default)]
pub struct Env {
    /// A folder for scratch files (compile folders live in fresh temp folders under it).
    pub work_dir: PathBuf,
    /// The tools each lane sets up once per run (its compilers, processes, leases), found by
    /// their type, one entry per type: a lane's tools never replace another's. The lane that
    /// owns a type reads it back, so this crate names no lane.
    tools: HashMap<TypeId, Arc<dyn Any + Send + Sync>>,
}

impl Env {
    /// An environment with a scratch folder and no lane tools.
    pub fn new(work_dir: impl Into<PathBuf>) -> Self {
        Env {
            work_dir: work_dir.into(),
            tools: HashMap::new(),
        }
    }

    /// The same environment holding a lane's tools (replacing only tools of the same type).
    pub fn with_tools<T: Any + Send + Sync>(mut self, tools: T) -> Self {
        self.tools.insert(TypeId::of::<T>(), Arc::new(tools));
        self
    }

    /// The lane tools of type `T`, when the environment holds them.
    pub fn tools<T: Any>(&self) -> Option<&T> {
        self.tools.get(&TypeId::of::<T>())?.downcast_ref()
    }
}

/// The code behind one kind of leg.
pub trait Adapter: Send + Sync {
    /// The name a profile uses (`parse`, `normalised-match`).
    fn name(&self) -> &'static str;
    /// The adapter's own version; bump it whenever its results can change.
    fn version(&self) -> &'static str;
    /// Checks a leg's parameters when the profile is loaded. The error names the field.
    fn check_params(&self, params: &serde_json::Value) -> Result<(), String>;
    /// What else in the world can change this leg's result for this task (compiler version,
    /// reference source hash, judge version, host fingerprint). Part of the cache key.
    fn identity(&self, _task: &Task, _params: &serde_json::Value, _env: &Env) -> String {
        String::new()
    }
    /// The identity of the sources this adapter's results depend on beyond what every leg
    /// depends on (the engine adds that): its lane's ([`crate::Lane::sources`]). Part of the
    /// cache key, so a result is never served after those sources changed. `None` (the default)
    /// gets the identity of every source the engine knows.
    fn sources(&self) -> Option<String> {
        None
    }
    /// Whether this adapter's results are worth caching (expensive legs).
    fn cacheable(&self) -> bool {
        false
    }
    /// Whether its figures may only be reported: a profile must mark its leg `informational`
    /// (a profiler's figures describe a candidate; they are no verdict a reward may read).
    fn informational_only(&self) -> bool {
        false
    }
    /// Runs the leg.
    fn run(&self, input: &LegInput<'_>) -> LegOutput;
}

/// Adapters by name.
#[derive(Clone, Default)]
pub struct Registry {
    adapters: BTreeMap<&'static str, Arc<dyn Adapter>>,
}

impl Registry {
    /// Adds (or replaces) an adapter.
    pub fn add(&mut self, adapter: Arc<dyn Adapter>) {
        self.adapters.insert(adapter.name(), adapter);
    }

    /// Looks an adapter up by name.
    pub fn get(&self, name: &str) -> Option<&Arc<dyn Adapter>> {
        self.adapters.get(name)
    }

    /// The names, sorted.
    pub fn names(&self) -> Vec<&'static str> {
        self.adapters.keys().copied().collect()
    }
}

/// The one door every leg runs through, for the commands that run a lane's adapter straight on a
/// source rather than score a completion (a lane's task check, timings of candidate files). The
/// engine implements it (`aorlta_core::Legs`) with the function it runs a
/// profile's legs with, so a panic is caught and a missing reason named as in a scoring run, and
/// the store is used as the caller configured it. A lane states its need as this trait because it
/// cannot name the engine, which is above it.
pub trait LegRunner: Send + Sync {
    /// Runs the adapter registered as `adapter` as leg `leg` on `source` (the completion and what
    /// `parse` extracted both), with `params` (`null` for the adapter's defaults).
    fn run_on_source(
        &self,
        leg: &str,
        adapter: &str,
        task: &Task,
        source: &str,
        params: &serde_json::Value,
        env: &Env,
    ) -> LegResult;
}

#[cfg(test)]
mod tests {
    use super::Env;

    struct FirstLaneTools(&'static str);
    struct SecondLaneTools(u32);

    #[test]
    fn a_second_lane_with_tools_keeps_the_first_lanes() {
        let env = Env::new("/tmp")
            .with_tools(FirstLaneTools("compilers"))
            .with_tools(SecondLaneTools(7));
        assert_eq!(env.tools::<FirstLaneTools>().map(|t| t.0), Some("compilers"));
        assert_eq!(env.tools::<SecondLaneTools>().map(|t| t.0), Some(7));
        assert!(env.tools::<String>().is_none());
        // A lane's own tools are replaced by its own, never by another's.
        let env = env.with_tools(FirstLaneTools("again"));
        assert_eq!(env.tools::<FirstLaneTools>().map(|t| t.0), Some("again"));
        assert_eq!(env.tools::<SecondLaneTools>().map(|t| t.0), Some(7));
    }
}
