//! The kernel pipeline measured end to end on a pool (`aorlta bench kernels --pool`): how many
//! candidates a second one scoring run gets through, where their time went (compiling, waiting
//! for a GPU, the harness's correctness and timing jobs), how busy the GPUs were, the harness's
//! own time per timed launch outside the kernel, and the looks at which timings settled. Read
//! from the run's reward entries alone, so it describes exactly what `aorlta score` did.

use crate::percentile::percentile;
use aorlta_record::{LegState, RewardEntry};
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt;

/// The `q` quantile of `xs` ([`percentile`], nearest rank, after sorting), NaN when empty.
fn quantile(xs: &mut [f64], q: f64) -> f64 {
    xs.sort_by(f64::total_cmp);
    percentile(xs, q * 100.0).unwrap_or(f64::NAN)
}

/// Totals of one stage over a run.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Stage {
    /// Legs (or jobs) counted.
    pub count: usize,
    /// Seconds summed over them.
    pub total_s: f64,
    /// Median seconds of one.
    pub median_s: f64,
    /// 90th percentile.
    pub p90_s: f64,
}

impl Stage {
    fn of(mut xs: Vec<f64>) -> Self {
        Stage {
            count: xs.len(),
            total_s: xs.iter().sum(),
            median_s: quantile(&mut xs, 0.5),
            p90_s: quantile(&mut xs, 0.9),
        }
    }
}

/// What a pool benchmark measured.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct PoolReport {
    /// Candidates scored.
    pub candidates: usize,
    /// Distinct completions among them.
    pub distinct: usize,
    /// Wall seconds of the whole run.
    pub wall_s: f64,
    /// Candidates per second, end to end.
    pub per_s: f64,
    /// GPUs the run could lease.
    pub gpus: usize,
    /// Compile legs that ran a compiler.
    pub compile: Stage,
    /// Correctness jobs in the harness.
    pub correctness: Stage,
    /// Timing jobs in the harness.
    pub timing: Stage,
    /// Seconds GPU legs spent outside their harness job: waiting for a lease, writing the job,
    /// reading the record.
    pub waiting: Stage,
    /// The share of `wall_s * gpus` in which a GPU had at least one harness job (correctness
    /// jobs may share a GPU, so this is not the jobs' summed time).
    pub gpu_busy: f64,
    /// Harness job seconds, summed.
    pub job_s: f64,
    /// The harness's time per timed launch outside the kernel, one value per timing job.
    pub overhead_per_launch: Stage,
    /// Timed pairs per timing job.
    pub pairs: Stage,
    /// Timing jobs by the look that settled them (`full` when none did).
    pub settled_at: BTreeMap<String, usize>,
    /// Entries by outcome: the first non-clean leg's state and reason, or `clean`.
    pub outcomes: BTreeMap<String, usize>,
}

fn detail_f64(d: &serde_json::Value, path: &[&str]) -> Option<f64> {
    let mut v = d;
    for k in path {
        v = v.get(*k)?;
    }
    v.as_f64()
}

impl PoolReport {
    /// The report of a run: its entries (in any order), its completions (for the count of
    /// distinct ones), its wall time, GPU count and the share of the wall its GPUs had a job
    /// (`aorlta_kernel`'s `PoolStats::busy_share`).
    pub fn of(
        entries: &[RewardEntry],
        completions: &[&str],
        wall_s: f64,
        gpus: usize,
        gpu_busy: f64,
    ) -> Self {
        let mut compile = Vec::new();
        let (mut check, mut time, mut waiting) = (Vec::new(), Vec::new(), Vec::new());
        let (mut overhead, mut pairs) = (Vec::new(), Vec::new());
        let mut settled_at = BTreeMap::new();
        let mut outcomes = BTreeMap::new();
        for e in entries {
            let outcome = e
                .legs
                .iter()
                .find(|l| l.state != LegState::Clean && l.state != LegState::Skipped)
                .map(|l| format!("{} {} {}", l.name, l.state, l.first_code().unwrap_or("")))
                .unwrap_or_else(|| "clean".into());
            *outcomes.entry(outcome.trim().to_string()).or_insert(0) += 1;
            for l in &e.legs {
                if l.cached || l.state == LegState::Skipped {
                    continue;
                }
                let d = l.detail.clone().unwrap_or_default();
                match l.adapter.as_str() {
                    "kernel-compile" => compile.push(l.elapsed_s),
                    "kernel-run" | "kernel-time" => {
                        let Some(h) = detail_f64(&d, &["harness_s"]) else {
                            continue;
                        };
                        waiting.push((l.elapsed_s - h).max(0.0));
                        if l.adapter == "kernel-run" {
                            check.push(h);
                            continue;
                        }
                        time.push(h);
                        if let Some(o) =
                            detail_f64(&d, &["overhead", "outside_median_s"]).filter(|o| *o > 0.0)
                        {
                            overhead.push(o);
                        }
                        if let Some(n) = d.get("pairs").and_then(|v| v.as_u64()) {
                            pairs.push(n as f64);
                            let at = d
                                .get("settled_at")
                                .and_then(|v| v.as_u64())
                                .map_or_else(|| "full".to_string(), |k| k.to_string());
                            *settled_at.entry(at).or_insert(0) += 1;
                        }
                    }
                    _ => {}
                }
            }
        }
        let busy: f64 = check.iter().chain(&time).sum();
        let distinct = completions.iter().collect::<std::collections::HashSet<_>>().len();
        PoolReport {
            candidates: entries.len(),
            distinct,
            wall_s,
            per_s: entries.len() as f64 / wall_s.max(1e-9),
            gpus,
            compile: Stage::of(compile),
            correctness: Stage::of(check),
            timing: Stage::of(time),
            waiting: Stage::of(waiting),
            gpu_busy,
            job_s: busy,
            overhead_per_launch: Stage::of(overhead),
            pairs: Stage::of(pairs),
            settled_at,
            outcomes,
        }
    }
}

impl fmt::Display for PoolReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "end to end: {} candidates ({} distinct completions) in {:.1} s: {:.2} candidates/s on {} GPU(s)",
            self.candidates, self.distinct, self.wall_s, self.per_s, self.gpus
        )?;
        writeln!(
            f,
            "{:<34} {:>7} {:>10} {:>10} {:>10}",
            "STAGE", "COUNT", "TOTAL S", "MEDIAN", "P90"
        )?;
        let ms = |x: f64| format!("{:.2} ms", x * 1e3);
        for (name, s) in [
            ("compile (compiler ran)", &self.compile),
            ("waiting for a GPU and the harness", &self.waiting),
            ("correctness job (harness)", &self.correctness),
            ("timing job (harness)", &self.timing),
            ("overhead per timed launch", &self.overhead_per_launch),
        ] {
            if s.count == 0 {
                writeln!(f, "{name:<34} {:>7} {:>10} {:>10} {:>10}", 0, "-", "-", "-")?;
                continue;
            }
            writeln!(
                f,
                "{:<34} {:>7} {:>10.2} {:>10} {:>10}",
                name,
                s.count,
                s.total_s,
                ms(s.median_s),
                ms(s.p90_s)
            )?;
        }
        writeln!(
            f,
            "GPU busy: {:.1}% of {:.1} s x {} GPU(s) with a harness job; harness jobs {:.2} s in all",
            100.0 * self.gpu_busy,
            self.wall_s,
            self.gpus,
            self.job_s
        )?;
        writeln!(
            f,
            "timed pairs per timing: median {:.0}, p90 {:.0}; settled at look {:?}",
            self.pairs.median_s, self.pairs.p90_s, self.settled_at
        )?;
        writeln!(f, "{:<60} {:>7}", "OUTCOME (first leg not clean)", "COUNT")?;
        for (k, v) in &self.outcomes {
            writeln!(f, "{k:<60} {v:>7}")?;
        }
        Ok(())
    }
}
