//! What the inspector (`aorlta inspect`, `aorlta-inspect`) shows of a run given by its config
//! besides its entries: the completions of its pools, its tasks, and each kernel completion's
//! source as the kernel lane extracts it.

use crate::config::RunConfig;
use aorlta_check::{CoreError, TaskSet};
use aorlta_inspect::{RunSources, task_sources};
use std::collections::HashMap;
use std::sync::Arc;

/// The completions of a run's pools (by candidate id), its tasks, and the kernel lane's source
/// extraction.
pub fn run_sources(cfg: &RunConfig) -> Result<RunSources, CoreError> {
    let mut completions = HashMap::new();
    for pool in &cfg.pools {
        let (cands, _) = aorlta_core::read_pool(pool)?;
        completions.extend(cands.into_iter().map(|c| (c.id, c.completion)));
    }
    let (set, _) = TaskSet::load_all(&cfg.tasks, &aorlta_core::lanes())?;
    let (tasks, extract) = task_sources(Arc::new(set));
    Ok(RunSources {
        completions,
        tasks,
        extract: Some(extract),
    })
}
