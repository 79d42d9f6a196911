//! Before/after comparison of two pools scored with the same tasks and profile (`aorlta eval`):
//! pass rate, mean reward, fast_p at several thresholds and the geometric-mean speedup, each
//! with a 95% bootstrap interval (resampling entries of each pool independently, seeded). Each
//! side is scored alone ([`side_config`]); the figures, plots and report are written by
//! [`write_comparison`].

use crate::config::RunConfig;
use crate::dataset::DatasetSpec;
use crate::plot::{Series, histogram_svg};
use crate::score::RunReport;
use crate::summary::{Summary, passed_entry};
use aorlta_judge::seeded;
use aorlta_record::{LegState, RewardEntry};
use rand::Rng;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Thresholds for fast_p: the share of all entries that are correct and at least p× faster.
pub const FAST_P: [f64; 4] = [1.0, 1.1, 1.5, 2.0];
/// Bootstrap resamples.
pub const RESAMPLES: usize = 2000;

/// A point estimate with a 95% interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// The value on the whole sample.
    pub point: f64,
    /// Lower end of the 95% bootstrap interval.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

/// One pool's figures.
#[derive(Debug, Clone, Serialize)]
pub struct PoolFigures {
    /// Label (`before`, `after`).
    pub label: String,
    /// The run summary.
    pub summary: Summary,
    /// Share of entries whose every rewarded leg is clean.
    pub pass_rate: Estimate,
    /// Mean reward over scored entries.
    pub mean_reward: Estimate,
    /// fast_p for each threshold in [`FAST_P`] (kernel profiles only).
    pub fast_p: Vec<(f64, Estimate)>,
    /// Geometric mean of measured speedups of correct candidates (kernel profiles only).
    pub geomean_speedup: Option<Estimate>,
    /// Scored rewards (for plots).
    #[serde(skip)]
    pub rewards: Vec<f64>,
    /// Measured speedups of correct candidates (for plots).
    #[serde(skip)]
    pub speedups: Vec<f64>,
}

/// Per-entry facts the statistics need.
struct Row {
    passed: bool,
    reward: Option<f64>,
    speedup: Option<f64>,
}

fn row(e: &RewardEntry) -> Row {
    let passed = passed_entry(e);
    let correct = e.scored
        && e.legs
            .iter()
            .filter(|l| !l.informational && l.adapter != "kernel-time")
            .all(|l| l.state == LegState::Clean);
    let speedup = e
        .legs
        .iter()
        .find(|l| {
            l.adapter == "kernel-time" && matches!(l.first_code(), None | Some("faster") | Some("not-faster"))
        })
        .filter(|l| l.state != LegState::Unsettled && l.state != LegState::Skipped)
        .and_then(|l| l.detail.as_ref()?.get("s")?.as_f64())
        .filter(|s| correct && s.is_finite() && *s > 0.0);
    Row {
        passed,
        reward: e.reward,
        speedup,
    }
}

/// A statistic of a sample with its 95% percentile bootstrap interval; `None` on an empty sample.
fn estimate(
    rows: &[Row],
    seed: u64,
    stat: &dyn Fn(&mut dyn Iterator<Item = &Row>) -> Option<f64>,
) -> Option<Estimate> {
    let point = stat(&mut rows.iter())?;
    let mut rng = seeded(seed);
    let mut values: Vec<f64> = (0..RESAMPLES)
        .filter_map(|_| {
            let picks: Vec<usize> = (0..rows.len()).map(|_| rng.random_range(0..rows.len())).collect();
            stat(&mut picks.iter().map(|&i| &rows[i]))
        })
        .collect();
    values.sort_by(f64::total_cmp);
    let at = |q: f64| values[((values.len() - 1) as f64 * q).round() as usize];
    Some(Estimate {
        point,
        low: at(0.025),
        high: at(0.975),
    })
}

fn share(it: &mut dyn Iterator<Item = &Row>, pred: &dyn Fn(&Row) -> bool) -> Option<f64> {
    let (mut n, mut k) = (0usize, 0usize);
    for r in it {
        n += 1;
        k += pred(r) as usize;
    }
    (n > 0).then(|| k as f64 / n as f64)
}

fn mean(it: &mut dyn Iterator<Item = Option<f64>>) -> Option<f64> {
    let (mut n, mut t) = (0usize, 0.0);
    for v in it.flatten() {
        n += 1;
        t += v;
    }
    (n > 0).then(|| t / n as f64)
}

/// The figures of one pool's entries.
pub fn figures(label: &str, entries: &[RewardEntry], seed: u64) -> PoolFigures {
    let rows: Vec<Row> = entries.iter().map(row).collect();
    let zero = Estimate {
        point: 0.0,
        low: 0.0,
        high: 0.0,
    };
    let timed = rows.iter().any(|r| r.speedup.is_some());
    let fast_p = if timed {
        FAST_P
            .iter()
            .map(|&p| {
                let e = estimate(&rows, seed ^ p.to_bits(), &|it| {
                    share(it, &|r| r.speedup.is_some_and(|s| s >= p))
                });
                (p, e.unwrap_or(zero))
            })
            .collect()
    } else {
        Vec::new()
    };
    let geomean_speedup = timed
        .then(|| {
            estimate(&rows, seed ^ 7, &|it| {
                mean(&mut it.map(|r| r.speedup.map(f64::ln))).map(f64::exp)
            })
        })
        .flatten();
    PoolFigures {
        label: label.to_string(),
        summary: Summary::of(entries),
        pass_rate: estimate(&rows, seed ^ 1, &|it| share(it, &|r| r.passed)).unwrap_or(zero),
        mean_reward: estimate(&rows, seed ^ 2, &|it| mean(&mut it.map(|r| r.reward))).unwrap_or(zero),
        fast_p,
        geomean_speedup,
        rewards: rows.iter().filter_map(|r| r.reward).collect(),
        speedups: rows.iter().filter_map(|r| r.speedup).collect(),
    }
}

fn fmt(e: &Estimate, pct: bool) -> String {
    if pct {
        format!(
            "{:.1}% [{:.1}, {:.1}]",
            100.0 * e.point,
            100.0 * e.low,
            100.0 * e.high
        )
    } else {
        format!("{:.4} [{:.4}, {:.4}]", e.point, e.low, e.high)
    }
}

/// The comparison as Markdown rows: one line per figure, a column per pool.
pub fn table(pools: &[PoolFigures]) -> String {
    let mut t = String::new();
    let _ = write!(t, "| figure |");
    for p in pools {
        let _ = write!(t, " {} |", p.label);
    }
    let _ = write!(t, "\n|---|");
    for _ in pools {
        let _ = write!(t, "---:|");
    }
    t.push('\n');
    let mut line = |name: &str, f: &dyn Fn(&PoolFigures) -> String| {
        let _ = write!(t, "| {name} |");
        for p in pools {
            let _ = write!(t, " {} |", f(p));
        }
        t.push('\n');
    };
    line("candidates", &|p| p.summary.count.to_string());
    line("scored", &|p| p.summary.scored.to_string());
    line("pass rate (95% CI)", &|p| fmt(&p.pass_rate, true));
    line("mean reward (95% CI)", &|p| fmt(&p.mean_reward, false));
    for (i, thr) in FAST_P.iter().enumerate() {
        if pools.iter().any(|p| !p.fast_p.is_empty()) {
            line(&format!("fast_{thr}"), &|p| {
                p.fast_p.get(i).map(|(_, e)| fmt(e, true)).unwrap_or("-".into())
            });
        }
    }
    if pools.iter().any(|p| p.geomean_speedup.is_some()) {
        line("geomean speedup (correct)", &|p| {
            p.geomean_speedup.map(|e| fmt(&e, false)).unwrap_or("-".into())
        });
    }
    t
}

/// The run config of one side of a comparison: the config's tasks, profile and cache with the
/// side alone as its input (never the config's own pool or dataset file), writing under `out`.
/// The side is read as a dataset when it is Parquet or when the config has a `dataset:` section
/// (whose mode and column mapping it is read with), else as a pool.
pub fn side_config(config: &RunConfig, side: &Path, out: PathBuf) -> RunConfig {
    let mut c = config.clone();
    let parquet = side
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("parquet") || e.eq_ignore_ascii_case("pq"));
    match (&config.dataset, parquet) {
        (Some(spec), _) => {
            c.pools = Vec::new();
            c.dataset = Some(DatasetSpec {
                file: side.to_path_buf(),
                ..spec.clone()
            });
        }
        (None, true) => {
            c.pools = Vec::new();
            c.dataset = Some(DatasetSpec {
                file: side.to_path_buf(),
                mode: Default::default(),
                columns: Default::default(),
            });
        }
        (None, false) => {
            c.pools = vec![side.to_path_buf()];
            c.dataset = None;
        }
    }
    c.out = out;
    c
}

/// The entries a side's run wrote; an error naming the side (`label`, its file `side`) when it
/// gave no candidate to score.
pub fn side_entries(report: &RunReport, label: &str, side: &Path) -> anyhow::Result<Vec<RewardEntry>> {
    let text = std::fs::read_to_string(&report.rewards)?;
    let entries: Vec<RewardEntry> = text.lines().map(serde_json::from_str).collect::<Result<_, _>>()?;
    if entries.is_empty() {
        anyhow::bail!(
            "the {label} side {} gave no candidate to score ({} lines or rows skipped)",
            side.display(),
            report.skipped.len()
        );
    }
    Ok(entries)
}

/// What a comparison wrote: its report and its reward plot.
#[derive(Debug, Clone)]
pub struct Compared {
    /// `report.md`.
    pub report: PathBuf,
    /// `rewards.svg`.
    pub rewards_svg: PathBuf,
}

/// Writes a comparison's files under `out`: `rewards.svg`, `speedups.svg` (when a side has
/// timed kernels), `report.md` (naming the config and the two sides as given, with the `table`
/// of [`table`]) and `report.json` (the figures).
pub fn write_comparison(
    out: &Path,
    config: &Path,
    before: &Path,
    after: &Path,
    pools: &[PoolFigures; 2],
    table: &str,
) -> std::io::Result<Compared> {
    let rewards_svg = out.join("rewards.svg");
    std::fs::write(
        &rewards_svg,
        histogram_svg(
            "Reward distribution, before and after",
            "reward",
            &[
                Series {
                    label: "before",
                    values: &pools[0].rewards,
                },
                Series {
                    label: "after",
                    values: &pools[1].rewards,
                },
            ],
            -1.55,
            1.0,
            17,
        ),
    )?;
    let mut plots = String::from("![rewards](rewards.svg)\n");
    if pools.iter().any(|p| !p.speedups.is_empty()) {
        let logs: Vec<Vec<f64>> = pools
            .iter()
            .map(|p| p.speedups.iter().map(|s| s.log2()).collect())
            .collect();
        std::fs::write(
            out.join("speedups.svg"),
            histogram_svg(
                "Measured speedup of correct kernels (log2)",
                "log2(speedup)",
                &[
                    Series {
                        label: "before",
                        values: &logs[0],
                    },
                    Series {
                        label: "after",
                        values: &logs[1],
                    },
                ],
                -3.0,
                3.0,
                24,
            ),
        )?;
        plots.push_str("\n![speedups](speedups.svg)\n");
    }
    let md = format!(
        "# Before / after\n\nconfig `{}`, before `{}`, after `{}`; intervals are 95% bootstrap intervals \
         ({} resamples of each pool's entries).\n\n{table}\n{plots}",
        config.display(),
        before.display(),
        after.display(),
        RESAMPLES
    );
    let report = out.join("report.md");
    std::fs::write(&report, md)?;
    std::fs::write(
        out.join("report.json"),
        serde_json::to_string_pretty(pools).map_err(std::io::Error::other)? + "\n",
    )?;
    Ok(Compared { report, rewards_svg })
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::{FORMAT_VERSION, LegResult, Parts, VersionIdentity};

    fn entry(reward: f64, passed: bool, s: Option<f64>) -> RewardEntry {
        let mut legs = vec![LegResult::clean("parse", "parse")];
        if !passed {
            legs[0].state = LegState::Broke;
        }
        if let Some(s) = s {
            let mut t = LegResult::clean("ref.speedup", "kernel-time");
            t.detail = Some(serde_json::json!({"s": s, "ratio": 1.1}));
            legs.push(t);
        }
        RewardEntry {
            format: FORMAT_VERSION,
            id: "x".into(),
            task: "t".into(),
            reward: Some(reward),
            scored: true,
            parts: Some(Parts {
                base: reward,
                broke_healthy: 0.0,
                length: 0.0,
            }),
            reasons: vec![],
            legs,
            profile: "p".into(),
            reward_fn: "rewardfn.speedup".into(),
            version: VersionIdentity::default(),
            elapsed_s: 0.0,
            feedback: None,
        }
    }

    #[test]
    fn figures_and_intervals() {
        let entries: Vec<RewardEntry> = (0..100)
            .map(|i| entry(if i < 60 { 1.0 } else { -0.5 }, i < 60, (i < 60).then_some(2.0)))
            .collect();
        let f = figures("after", &entries, 1);
        assert!((f.pass_rate.point - 0.6).abs() < 1e-12);
        assert!(f.pass_rate.low < 0.6 && f.pass_rate.high > 0.6 && f.pass_rate.low > 0.45);
        assert!((f.mean_reward.point - 0.4).abs() < 1e-12);
        assert_eq!(f.fast_p.len(), FAST_P.len());
        assert!(
            (f.fast_p[3].1.point - 0.6).abs() < 1e-12,
            "s = 2.0 counts at p = 2.0"
        );
        let g = f.geomean_speedup.unwrap();
        assert!(
            [g.point, g.low, g.high].iter().all(|v| (v - 2.0).abs() < 1e-12),
            "{g:?}"
        );
        insta::assert_snapshot!("kernel_pool_table", table(&[f]));
    }

    #[test]
    fn qa_pools_have_no_speed_figures() {
        let entries: Vec<RewardEntry> = (0..10).map(|i| entry(1.0, i % 2 == 0, None)).collect();
        let f = figures("before", &entries, 1);
        assert!(f.fast_p.is_empty() && f.geomean_speedup.is_none());
        insta::assert_snapshot!("qa_pool_table", table(&[f]));
    }
}
