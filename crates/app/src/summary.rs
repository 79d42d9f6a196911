//! A run's summary: counts, scored share, mean reward, pass rate, states per leg and the most
//! frequent reasons, as JSON, Markdown and a terminal table.

use aorlta_record::{LegState, RewardEntry};
use aorlta_store::Facts;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// Counts of each state for one leg.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct StateCounts {
    /// Clean.
    pub clean: usize,
    /// Broke.
    pub broke: usize,
    /// Unsettled.
    pub unsettled: usize,
    /// Skipped.
    pub skipped: usize,
}

impl StateCounts {
    fn add_n(&mut self, s: LegState, n: usize) {
        match s {
            LegState::Clean => self.clean += n,
            LegState::Broke => self.broke += n,
            LegState::Unsettled => self.unsettled += n,
            LegState::Skipped => self.skipped += n,
        }
    }
}

/// True when an entry is scored and every rewarded (non-informational) leg is clean: what the
/// pass rate counts.
pub(crate) fn passed_entry(e: &RewardEntry) -> bool {
    e.scored
        && !e.legs.is_empty()
        && e.legs
            .iter()
            .filter(|l| !l.informational)
            .all(|l| l.state == LegState::Clean)
}

/// The summary of a set of reward entries.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Summary {
    /// Entries.
    pub count: usize,
    /// Scored entries.
    pub scored: usize,
    /// Mean reward over scored entries (0 when none).
    pub mean_reward: f64,
    /// Share of all entries whose every rewarded leg is clean.
    pub pass_rate: f64,
    /// Per leg (profile order kept in `leg_order`), counts by state.
    pub legs: BTreeMap<String, StateCounts>,
    /// Leg names in profile order.
    pub leg_order: Vec<String>,
    /// Most frequent non-clean reason codes: (`leg: code`, count), most first.
    pub top_reasons: Vec<(String, usize)>,
    /// Entries served from the cache.
    pub cached: usize,
    /// Pool lines skipped as malformed.
    pub skipped_lines: usize,
    /// Wall-clock seconds of the run.
    pub elapsed_s: f64,
    /// True when the run's kernel legs ran on the fake device (`kernel: {fake-gpu: true}`):
    /// no kernel was compiled for or run on a GPU, so its kernel rewards and times are the
    /// fake device's model's, not measurements.
    pub fake_gpu: bool,
}

/// The line a summary of a run on the fake device starts with.
pub const FAKE_GPU_NOTICE: &str = "fake device: the kernel legs of this run ran on the CPU-simulated fake device \
     (kernel.fake-gpu), which compiles no source and runs none: its kernel rewards and times are a model's, not \
     measurements, and say nothing of the kernels";

/// A summary made one entry at a time, so a run holds its counts and never its entries. A
/// builder for one part of a run ([`SummaryBuilder::part`]) keeps that part's rewards in
/// order, so that parts merged in input order sum the rewards exactly as one builder would.
#[derive(Debug, Clone, Default)]
pub(crate) struct SummaryBuilder {
    s: Summary,
    total: f64,
    rewards: Option<Vec<f64>>,
    passed: usize,
    reasons: BTreeMap<String, usize>,
}

impl SummaryBuilder {
    /// A builder for one part of a run, to be [merged](SummaryBuilder::merge) into the whole.
    pub(crate) fn part() -> Self {
        SummaryBuilder {
            rewards: Some(Vec::new()),
            ..SummaryBuilder::default()
        }
    }

    /// Counts one entry.
    pub(crate) fn add(&mut self, e: &RewardEntry) {
        self.add_reward(e.reward);
        let legs = e.legs.iter().map(|l| LegView {
            name: &l.name,
            state: l.state,
            informational: l.informational,
            cached: l.cached,
            first: l.first_code(),
        });
        self.tally(1, e.scored, e.reasons.iter().map(|r| r.code.as_str()), legs);
    }

    /// Counts one entry by its reward alone: its facts are counted with
    /// [`SummaryBuilder::add_facts_times`] (entries whose facts are the same, at once).
    pub(crate) fn add_reward(&mut self, reward: Option<f64>) {
        self.s.count += 1;
        if let Some(r) = reward {
            self.s.scored += 1;
            match &mut self.rewards {
                Some(v) => v.push(r),
                None => self.total += r,
            }
        }
    }

    /// Counts the facts of `n` entries whose rewards were counted with
    /// [`SummaryBuilder::add_reward`].
    pub(crate) fn add_facts_times(&mut self, f: &Facts, n: usize) {
        let legs = f.legs.iter().map(|l| LegView {
            name: &l.name,
            state: l.state,
            informational: l.informational,
            cached: l.cached,
            first: l.first.as_deref(),
        });
        self.tally(n, f.scored, f.reasons.iter().map(String::as_str), legs);
    }

    /// Counts `n` entries alike in everything but their rewards.
    fn tally<'a>(
        &mut self,
        n: usize,
        scored: bool,
        reasons: impl Iterator<Item = &'a str>,
        legs: impl Iterator<Item = LegView<'a>> + Clone,
    ) {
        let s = &mut self.s;
        let mut all = legs.clone().peekable();
        if all.peek().is_some() && legs.clone().all(|l| l.cached) {
            s.cached += n;
        }
        let passed = scored
            && legs.clone().next().is_some()
            && legs
                .clone()
                .filter(|l| !l.informational)
                .all(|l| l.state == LegState::Clean);
        if passed {
            self.passed += n;
        }
        for code in reasons {
            count(&mut self.reasons, &format!("entry: {code}"), n);
        }
        for l in legs {
            if !s.leg_order.iter().any(|name| name == l.name) {
                s.leg_order.push(l.name.to_string());
            }
            match s.legs.get_mut(l.name) {
                Some(c) => c.add_n(l.state, n),
                None => s.legs.entry(l.name.to_string()).or_default().add_n(l.state, n),
            }
            if l.state != LegState::Clean
                && l.state != LegState::Skipped
                && let Some(code) = l.first
            {
                count(&mut self.reasons, &format!("{}: {code}", l.name), n);
            }
        }
    }

    /// Adds the counts of a part of the run that comes after everything added so far.
    pub(crate) fn merge(&mut self, part: SummaryBuilder) {
        let p = part.s;
        self.s.count += p.count;
        self.s.scored += p.scored;
        self.s.cached += p.cached;
        self.passed += part.passed;
        let rewards = part.rewards.unwrap_or_default();
        match &mut self.rewards {
            Some(v) => v.extend(rewards),
            None => {
                for r in rewards {
                    self.total += r;
                }
                self.total += part.total;
            }
        }
        for name in p.leg_order {
            if !self.s.leg_order.contains(&name) {
                self.s.leg_order.push(name);
            }
        }
        for (name, c) in p.legs {
            let mine = self.s.legs.entry(name).or_default();
            mine.clean += c.clean;
            mine.broke += c.broke;
            mine.unsettled += c.unsettled;
            mine.skipped += c.skipped;
        }
        for (k, n) in part.reasons {
            count(&mut self.reasons, &k, n);
        }
    }

    /// The summary of the entries added.
    pub(crate) fn finish(self) -> Summary {
        let mut s = self.s;
        let total = self.total + self.rewards.unwrap_or_default().iter().sum::<f64>();
        s.mean_reward = if s.scored > 0 {
            total / s.scored as f64
        } else {
            0.0
        };
        s.pass_rate = if s.count > 0 {
            self.passed as f64 / s.count as f64
        } else {
            0.0
        };
        let mut top: Vec<(String, usize)> = self.reasons.into_iter().collect();
        top.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
        top.truncate(10);
        s.top_reasons = top;
        s
    }
}

/// What the summary counts of one leg.
#[derive(Clone, Copy)]
struct LegView<'a> {
    name: &'a str,
    state: LegState,
    informational: bool,
    cached: bool,
    first: Option<&'a str>,
}

/// Adds `n` to the count of `key`.
fn count(map: &mut BTreeMap<String, usize>, key: &str, n: usize) {
    match map.get_mut(key) {
        Some(c) => *c += n,
        None => {
            map.insert(key.to_string(), n);
        }
    }
}

impl Summary {
    /// Summarises entries.
    pub fn of(entries: &[RewardEntry]) -> Self {
        let mut b = SummaryBuilder::default();
        for e in entries {
            b.add(e);
        }
        b.finish()
    }

    /// The headline figures as (terminal label, value) pairs, in the order both renderings use;
    /// the seconds have no label of their own on the terminal.
    fn headline(&self) -> [(&'static str, String); 7] {
        [
            ("count", self.count.to_string()),
            ("scored", self.scored.to_string()),
            ("mean reward", format!("{:.4}", self.mean_reward)),
            ("pass rate", format!("{:.1}%", 100.0 * self.pass_rate)),
            ("from cache", self.cached.to_string()),
            ("skipped lines", self.skipped_lines.to_string()),
            ("", format!("{:.2}", self.elapsed_s)),
        ]
    }

    /// The summary as a Markdown document.
    pub fn to_markdown(&self, title: &str) -> String {
        let mut m = format!("# {title}\n\n");
        if self.fake_gpu {
            let _ = writeln!(m, "> **{FAKE_GPU_NOTICE}**\n");
        }
        let _ = writeln!(
            m,
            "| count | scored | mean reward | pass rate | from cache | skipped lines | seconds |"
        );
        let _ = writeln!(m, "|---:|---:|---:|---:|---:|---:|---:|");
        let _ = writeln!(m, "| {} |\n", self.headline().map(|(_, v)| v).join(" | "));
        let _ = writeln!(
            m,
            "## States per leg\n\n| leg | clean | broke | unsettled | skipped |\n|---|---:|---:|---:|---:|"
        );
        for name in &self.leg_order {
            let c = &self.legs[name];
            let _ = writeln!(
                m,
                "| {name} | {} | {} | {} | {} |",
                c.clean, c.broke, c.unsettled, c.skipped
            );
        }
        let _ = writeln!(m, "\n## Top reasons\n\n| leg: reason | count |\n|---|---:|");
        for (r, n) in &self.top_reasons {
            let _ = writeln!(m, "| {r} | {n} |");
        }
        m
    }

    /// The summary as a plain-text table for the terminal.
    pub fn to_terminal(&self) -> String {
        let mut t = String::new();
        if self.fake_gpu {
            let _ = writeln!(t, "{FAKE_GPU_NOTICE}");
        }
        let line: Vec<String> = self
            .headline()
            .iter()
            .map(|(k, v)| {
                if k.is_empty() {
                    format!("{v} s")
                } else {
                    format!("{k} {v}")
                }
            })
            .collect();
        let _ = writeln!(t, "{}", line.join("   "));
        let w = self.leg_order.iter().map(|s| s.len()).max().unwrap_or(3).max(3);
        let _ = writeln!(
            t,
            "\n{:<w$}  {:>7} {:>7} {:>9} {:>7}",
            "leg", "clean", "broke", "unsettled", "skipped"
        );
        for name in &self.leg_order {
            let c = &self.legs[name];
            let _ = writeln!(
                t,
                "{name:<w$}  {:>7} {:>7} {:>9} {:>7}",
                c.clean, c.broke, c.unsettled, c.skipped
            );
        }
        if !self.top_reasons.is_empty() {
            let rw = self.top_reasons.iter().map(|(r, _)| r.len()).max().unwrap_or(6);
            let _ = writeln!(t, "\n{:<rw$}  {:>6}", "top reasons", "count");
            for (r, n) in &self.top_reasons {
                let _ = writeln!(t, "{r:<rw$}  {n:>6}");
            }
        }
        t
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::{FORMAT_VERSION, LegResult, Parts, Reason, VersionIdentity};

    /// An entry with a parse leg and a match leg in the given states (reward from the ladder).
    fn entry(parse: LegState, matched: LegState, cached: bool) -> RewardEntry {
        let leg = |name: &str, adapter: &str, state: LegState, broke_code: &str| {
            let code = match state {
                LegState::Unsettled => "internal-error",
                LegState::Skipped => "needs-not-clean",
                _ => broke_code,
            };
            let mut l = match state {
                LegState::Clean => LegResult::clean(name, adapter),
                s => LegResult::with_state(name, adapter, s, Reason::new(code, "d")),
            };
            l.cached = cached;
            l
        };
        let matched = if parse == LegState::Clean {
            matched
        } else {
            LegState::Skipped
        };
        let legs = vec![
            leg("parse", "parse", parse, "no-answer"),
            leg("ref.normalised", "normalised-match", matched, "mismatch"),
        ];
        let unsettled = legs.iter().any(|l| l.state == LegState::Unsettled);
        let reward = (!unsettled).then(|| match (parse, matched) {
            (LegState::Clean, LegState::Clean) => 1.0,
            (LegState::Clean, _) => -0.5,
            _ => -1.0,
        });
        RewardEntry {
            format: FORMAT_VERSION,
            id: "c".into(),
            task: "t".into(),
            reward,
            scored: reward.is_some(),
            parts: reward.map(|base| Parts {
                base,
                broke_healthy: 0.0,
                length: 0.0,
            }),
            reasons: if unsettled {
                vec![Reason::new("leg-unsettled", "ref.normalised")]
            } else {
                vec![]
            },
            legs,
            profile: "qa".into(),
            reward_fn: "rewardfn.base".into(),
            version: VersionIdentity::default(),
            elapsed_s: 0.0,
            feedback: None,
        }
    }

    fn summary() -> Summary {
        use LegState::{Broke, Clean, Unsettled};
        let mut entries = Vec::new();
        for _ in 0..5 {
            entries.push(entry(Clean, Clean, false));
        }
        entries.push(entry(Clean, Clean, true));
        entries.push(entry(Clean, Broke, false));
        entries.push(entry(Clean, Broke, false));
        entries.push(entry(Broke, Clean, false));
        entries.push(entry(Clean, Unsettled, false));
        Summary {
            skipped_lines: 1,
            elapsed_s: 1.5,
            ..Summary::of(&entries)
        }
    }

    #[test]
    fn the_summary_counts_states_reasons_and_the_pass_rate() {
        let s = summary();
        assert_eq!((s.count, s.scored, s.cached), (10, 9, 1));
        assert!((s.pass_rate - 0.6).abs() < 1e-12);
        insta::assert_json_snapshot!("summary_json", s);
    }

    #[test]
    fn a_summary_on_the_fake_device_says_so_first() {
        let s = Summary {
            fake_gpu: true,
            ..summary()
        };
        assert!(
            s.to_terminal().starts_with("fake device: "),
            "{}",
            s.to_terminal()
        );
        let md = s.to_markdown("t");
        assert!(md.starts_with("# t\n\n> **fake device: "), "{md}");
        assert!(md.contains("not measurements"), "{md}");
        let plain = summary();
        assert!(!plain.to_terminal().contains("fake device"));
        assert!(!plain.to_markdown("t").contains("fake device"));
    }

    #[test]
    fn the_terminal_table_and_the_markdown_are_stable() {
        let s = summary();
        insta::assert_snapshot!("summary_terminal", s.to_terminal());
        insta::assert_snapshot!("summary_markdown", s.to_markdown("qa-score"));
    }
}
