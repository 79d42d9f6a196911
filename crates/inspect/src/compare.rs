//! Two runs side by side: their figures, and the entries (matched by candidate id) whose
//! outcome changed from one to the other, what `aorlta eval` compares, read from two run
//! folders.

use crate::run::{Outcome, Run};
use serde::Serialize;

/// One entry whose outcome differs between the two runs.
#[derive(Debug, Clone, Serialize)]
pub struct Changed {
    /// The candidate id.
    pub id: String,
    /// The task id.
    pub task: String,
    /// Its row in the first run.
    pub a: usize,
    /// Its row in the second run.
    pub b: usize,
    /// Its outcome in the first run.
    pub outcome_a: Outcome,
    /// Its outcome in the second run.
    pub outcome_b: Outcome,
    /// Its reward in the first run.
    pub reward_a: Option<f64>,
    /// Its reward in the second run.
    pub reward_b: Option<f64>,
}

/// What two runs share and what changed between them.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// Candidate ids found in both runs.
    pub common: usize,
    /// Entries whose outcome changed, in the first run's order.
    pub changed: Vec<Changed>,
}

/// Matches the entries of `a` and `b` by candidate id.
pub fn compare(a: &Run, b: &Run) -> Comparison {
    let mut common = 0;
    let mut changed = Vec::new();
    for ra in &a.rows {
        let Some(&ib) = b.by_id.get(&ra.id) else { continue };
        common += 1;
        let rb = &b.rows[ib];
        if ra.outcome != rb.outcome {
            changed.push(Changed {
                id: ra.id.clone(),
                task: ra.task.clone(),
                a: ra.index,
                b: ib,
                outcome_a: ra.outcome,
                outcome_b: rb.outcome,
                reward_a: ra.reward,
                reward_b: rb.reward,
            });
        }
    }
    Comparison { common, changed }
}

/// Changes that made an entry pass, and changes that made it stop passing.
pub(crate) fn gains_and_losses(c: &Comparison) -> (usize, usize) {
    let gains = c
        .changed
        .iter()
        .filter(|x| x.outcome_b == Outcome::Passed)
        .count();
    let losses = c
        .changed
        .iter()
        .filter(|x| x.outcome_a == Outcome::Passed)
        .count();
    (gains, losses)
}
