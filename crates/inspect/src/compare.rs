//! Two runs side by side: their figures, and the entries whose outcome changed from one to the
//! other, what `aorlta eval` compares, read from two run folders. Entries are matched by
//! candidate id; two runs that share no id (two checkpoints' pools of the same tasks, such as
//! the Q&A example's `before` and `after`) are matched by task and rank within the task: the
//! k-th candidate of a task in one run against the k-th of that task in the other.

use crate::run::{Outcome, Run};
use serde::Serialize;
use std::collections::HashMap;

/// One entry whose outcome differs between the two runs.
#[derive(Debug, Clone, Serialize)]
pub struct Changed {
    /// The candidate id (`first → second` when the runs were matched by task and rank).
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

/// How two runs' entries were paired.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum MatchedBy {
    /// The same candidate id.
    Id,
    /// The same task and rank within the task (the runs share no candidate id).
    TaskRank,
}

/// What two runs share and what changed between them.
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    /// How entries were paired.
    pub matched_by: MatchedBy,
    /// Entries paired.
    pub common: usize,
    /// Entries whose outcome changed, in the first run's order.
    pub changed: Vec<Changed>,
}

/// Pairs the entries of `a` and `b` (by id, else by task and rank) and lists those whose
/// outcome changed.
pub fn compare(a: &Run, b: &Run) -> Comparison {
    let by_id = a.rows.iter().any(|r| b.by_id.contains_key(&r.id));
    let pairs: Vec<(usize, usize)> = if by_id {
        a.rows
            .iter()
            .filter_map(|r| Some((r.index, *b.by_id.get(&r.id)?)))
            .collect()
    } else {
        let mut ranks: HashMap<&str, Vec<usize>> = HashMap::new();
        for r in &b.rows {
            ranks.entry(r.task.as_str()).or_default().push(r.index);
        }
        let mut seen: HashMap<&str, usize> = HashMap::new();
        a.rows
            .iter()
            .filter_map(|r| {
                let k = seen.entry(r.task.as_str()).or_default();
                *k += 1;
                Some((r.index, *ranks.get(r.task.as_str())?.get(*k - 1)?))
            })
            .collect()
    };
    let changed = pairs
        .iter()
        .filter(|(ia, ib)| a.rows[*ia].outcome != b.rows[*ib].outcome)
        .map(|&(ia, ib)| {
            let (ra, rb) = (&a.rows[ia], &b.rows[ib]);
            Changed {
                id: if by_id {
                    ra.id.clone()
                } else {
                    format!("{} → {}", ra.id, rb.id)
                },
                task: ra.task.clone(),
                a: ia,
                b: ib,
                outcome_a: ra.outcome,
                outcome_b: rb.outcome,
                reward_a: ra.reward,
                reward_b: rb.reward,
            }
        })
        .collect();
    Comparison {
        matched_by: if by_id { MatchedBy::Id } else { MatchedBy::TaskRank },
        common: pairs.len(),
        changed,
    }
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
