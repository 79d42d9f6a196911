//! The kernel lane as the engine runs it: its task files (YAML, [`crate::task`]), its `parse`
//! (the kernel source of a completion, [`crate::extract`]) and its adapters.

use crate::compile::KernelCompile;
use crate::extract::kernel_source;
use crate::ncu::KernelProfile;
use crate::reason::KernelReason;
use crate::run::KernelRun;
use crate::task::{KernelTaskDef, LANE};
use crate::time::KernelTime;
use aorlta_check::{Lane, LegInput, LegOutput, Registry, Result, SkippedLine, Task};
use aorlta_record::LegState;
use serde_json::json;
use std::path::Path;
use std::sync::Arc;

/// The kernel lane.
pub struct KernelLane;

impl Lane for KernelLane {
    fn name(&self) -> &'static str {
        LANE
    }
    fn task_files(&self) -> &'static [&'static str] {
        &["yaml", "yml"]
    }
    fn load(&self, path: &Path, text: &str, _: &mut Vec<SkippedLine>) -> Result<Vec<(Task, usize)>> {
        Ok(vec![(crate::task::load(path, text)?, 1)])
    }
    fn parse(&self, input: &LegInput<'_>) -> LegOutput {
        let Some(k) = KernelTaskDef::of(input.task) else {
            return LegOutput::unsettled(
                KernelReason::WrongTaskKind,
                format!("task {} is not a kernel task", input.task.id),
            );
        };
        match kernel_source(input.completion, k) {
            Ok(src) => LegOutput::clean()
                .with_detail(json!({
                    "bytes": src.len(),
                    "source_hash": aorlta_check::hash_str(&src),
                }))
                .with_extracted(src),
            Err(r) => LegOutput::with_code(LegState::Broke, &r.code, r.detail),
        }
    }
    fn sources(&self) -> String {
        crate::identity::SOURCES.to_string()
    }
    fn register(&self, registry: &mut Registry) {
        registry.add(Arc::new(KernelCompile));
        registry.add(Arc::new(KernelRun));
        registry.add(Arc::new(KernelTime));
        registry.add(Arc::new(KernelProfile));
    }
}
