//! The entry table's query: filters (task, state, reason, reward range, text), a sort and a
//! page, read from the URL's query string, applied on the server to a run's rows so that only
//! one page of a large run goes to the browser.

use crate::run::{Outcome, Row, Run, state_bit};
use aorlta_record::LegState;
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;
use std::collections::HashSet;

/// Rows per page unless `per` says otherwise.
pub(crate) const PER_PAGE: usize = 50;
/// The most rows a page may hold.
pub(crate) const MAX_PER_PAGE: usize = 500;

/// What the table is sorted by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Sort {
    /// Input order.
    #[default]
    Index,
    /// Candidate id.
    Id,
    /// Task id.
    Task,
    /// Reward (unscored last).
    Reward,
    /// Speedup (unmeasured last).
    Speedup,
}

impl Sort {
    /// Every sort, with its column's name.
    pub const ALL: [(Sort, &'static str); 5] = [
        (Sort::Index, "#"),
        (Sort::Id, "id"),
        (Sort::Task, "task"),
        (Sort::Reward, "reward"),
        (Sort::Speedup, "speedup"),
    ];

    /// The word in the URL.
    pub fn as_str(self) -> &'static str {
        match self {
            Sort::Index => "index",
            Sort::Id => "id",
            Sort::Task => "task",
            Sort::Reward => "reward",
            Sort::Speedup => "speedup",
        }
    }
}

/// The states the state filter offers: an entry's outcome, or any of its legs in a state.
pub(crate) const STATES: [&str; 6] = ["passed", "failed", "unscored", "broke", "unsettled", "skipped"];

/// A table query, as the URL gives it; every field may be missing or empty.
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
#[serde(default)]
pub struct Filter {
    /// Only this task.
    pub task: String,
    /// Only tasks in this source language (when the run's tasks are known).
    pub language: String,
    /// `passed`, `failed` or `unscored` (the outcome), or `broke`, `unsettled` or `skipped` (any
    /// leg in that state).
    pub state: String,
    /// Only entries with this reason (`leg: code`, or an entry's own code).
    pub reason: String,
    /// Reward at least this (unscored entries excluded when set).
    pub min: String,
    /// Reward at most this (unscored entries excluded when set).
    pub max: String,
    /// Text the id, task, reasons or completion contain (case-insensitive).
    pub q: String,
    /// The sort.
    pub sort: Sort,
    /// `desc` for descending.
    pub dir: String,
    /// The page, from 1.
    pub page: Option<usize>,
    /// Rows per page.
    pub per: Option<usize>,
}

/// One page of a query's result.
#[derive(Debug, Clone, Serialize)]
pub struct Page {
    /// Rows that match.
    pub total: usize,
    /// The page shown, from 1.
    pub page: usize,
    /// Pages in all (at least 1).
    pub pages: usize,
    /// Rows per page.
    pub per: usize,
    /// The indices of this page's rows.
    pub rows: Vec<usize>,
    /// Milliseconds the query took on the server.
    pub ms: f64,
}

fn number(s: &str) -> Option<f64> {
    s.trim().parse::<f64>().ok().filter(|x| x.is_finite())
}

impl Filter {
    /// True when `row` passes every filter.
    pub fn matches(
        &self,
        row: &Row,
        q: &str,
        min: Option<f64>,
        max: Option<f64>,
        tasks: Option<&HashSet<&str>>,
    ) -> bool {
        if !self.task.is_empty() && row.task != self.task {
            return false;
        }
        if tasks.is_some_and(|t| !t.contains(row.task.as_str())) {
            return false;
        }
        let state_ok = match self.state.as_str() {
            "" => true,
            "passed" => row.outcome == Outcome::Passed,
            "failed" => row.outcome == Outcome::Failed,
            "unscored" => row.outcome == Outcome::Unscored,
            "broke" => row.states & state_bit(LegState::Broke) != 0,
            "unsettled" => row.states & state_bit(LegState::Unsettled) != 0,
            "skipped" => row.states & state_bit(LegState::Skipped) != 0,
            _ => false,
        };
        if !state_ok {
            return false;
        }
        if !self.reason.is_empty() && !row.reasons.contains(&self.reason) {
            return false;
        }
        if min.is_some() || max.is_some() {
            let Some(r) = row.reward else { return false };
            if min.is_some_and(|m| r < m) || max.is_some_and(|m| r > m) {
                return false;
            }
        }
        q.is_empty() || row.hay.contains(q)
    }

    /// The page of `run`'s rows this query asks for.
    pub fn apply(&self, run: &Run) -> Page {
        let start = std::time::Instant::now();
        let q = self.q.trim().to_lowercase();
        let (min, max) = (number(&self.min), number(&self.max));
        let in_language: Option<HashSet<&str>> = (!self.language.is_empty()).then(|| {
            run.sources
                .tasks
                .iter()
                .filter(|(_, t)| t.language.as_deref() == Some(self.language.as_str()))
                .map(|(id, _)| id.as_str())
                .collect()
        });
        let mut hits: Vec<usize> = run
            .rows
            .iter()
            .filter(|r| self.matches(r, &q, min, max, in_language.as_ref()))
            .map(|r| r.index)
            .collect();
        let rows = &run.rows;
        let desc = self.dir == "desc";
        // Missing values sort last either way.
        let opt = |a: Option<f64>, b: Option<f64>| match (a, b) {
            (Some(a), Some(b)) => {
                let o = a.total_cmp(&b);
                if desc { o.reverse() } else { o }
            }
            (Some(_), None) => Ordering::Less,
            (None, Some(_)) => Ordering::Greater,
            (None, None) => Ordering::Equal,
        };
        let dir = |o: Ordering| if desc { o.reverse() } else { o };
        match self.sort {
            Sort::Index => {
                if desc {
                    hits.reverse();
                }
            }
            Sort::Id => hits.sort_by(|a, b| dir(rows[*a].id.cmp(&rows[*b].id))),
            Sort::Task => hits.sort_by(|a, b| dir(rows[*a].task.cmp(&rows[*b].task)).then(a.cmp(b))),
            Sort::Reward => hits.sort_by(|a, b| opt(rows[*a].reward, rows[*b].reward).then(a.cmp(b))),
            Sort::Speedup => hits.sort_by(|a, b| opt(rows[*a].speedup, rows[*b].speedup).then(a.cmp(b))),
        }
        let per = self.per.unwrap_or(PER_PAGE).clamp(1, MAX_PER_PAGE);
        let total = hits.len();
        let pages = total.div_ceil(per).max(1);
        let page = self.page.unwrap_or(1).clamp(1, pages);
        let rows = hits.into_iter().skip((page - 1) * per).take(per).collect();
        Page {
            total,
            page,
            pages,
            per,
            rows,
            ms: start.elapsed().as_secs_f64() * 1e3,
        }
    }

    /// The query string of this filter at another page and sort (empty fields left out).
    pub fn query_string(&self, page: usize, sort: Sort, dir: &str) -> String {
        let mut parts: Vec<(&str, String)> = vec![];
        for (k, v) in [
            ("task", &self.task),
            ("language", &self.language),
            ("state", &self.state),
            ("reason", &self.reason),
            ("min", &self.min),
            ("max", &self.max),
            ("q", &self.q),
        ] {
            if !v.is_empty() {
                parts.push((k, v.clone()));
            }
        }
        if sort != Sort::Index {
            parts.push(("sort", sort.as_str().into()));
        }
        if dir == "desc" {
            parts.push(("dir", "desc".into()));
        }
        if page > 1 {
            parts.push(("page", page.to_string()));
        }
        if let Some(p) = self.per {
            parts.push(("per", p.to_string()));
        }
        parts
            .iter()
            .map(|(k, v)| format!("{k}={}", encode(v)))
            .collect::<Vec<_>>()
            .join("&")
    }
}

/// Percent-encodes a query value (everything but unreserved characters).
pub(crate) fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encode_leaves_only_unreserved_characters() {
        assert_eq!(encode("a b&c=d/é<"), "a%20b%26c%3Dd%2F%C3%A9%3C");
        let f = Filter {
            q: "x&y".into(),
            task: "t 1".into(),
            ..Filter::default()
        };
        assert_eq!(
            f.query_string(2, Sort::Reward, "desc"),
            "task=t%201&q=x%26y&sort=reward&dir=desc&page=2"
        );
    }
}
