//! The service's counters and histograms, rendered as Prometheus text on `GET /metrics`:
//! requests by route and status, answered items by leg and state, entries by profile and
//! outcome, leg and request durations, queue depth per lane, work shared by identical items,
//! time-outs, cache hits and misses, GPU leases held.
//!
//! Updates are aggregated per request (or per computed entry) and merged under one short lock,
//! so the hot path takes a handful of locks per request, not per item.

use aorlta_record::{LegState, RewardEntry};
use std::collections::BTreeMap;
use std::fmt::Write;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

/// Upper bounds (seconds) of the leg duration buckets.
pub const LEG_BUCKETS: [f64; 12] = [
    1e-5, 1e-4, 1e-3, 0.01, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0,
];
/// Upper bounds (seconds) of the request duration buckets.
pub const REQUEST_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0,
];

/// A cumulative histogram with fixed buckets.
#[derive(Debug, Clone)]
pub struct Histogram {
    bounds: &'static [f64],
    counts: Vec<u64>,
    sum: f64,
    count: u64,
}

impl Histogram {
    /// An empty histogram over `bounds` (ascending upper bounds; `+Inf` is implied).
    pub fn new(bounds: &'static [f64]) -> Self {
        Histogram {
            bounds,
            counts: vec![0; bounds.len()],
            sum: 0.0,
            count: 0,
        }
    }

    /// Adds one observation.
    pub fn observe(&mut self, v: f64) {
        if let Some(i) = self.bounds.iter().position(|b| v <= *b) {
            self.counts[i] += 1;
        }
        self.sum += v;
        self.count += 1;
    }

    fn render(&self, out: &mut String, name: &str, labels: &str) {
        let mut cumulative = 0;
        let sep = if labels.is_empty() { "" } else { "," };
        for (b, c) in self.bounds.iter().zip(&self.counts) {
            cumulative += c;
            let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"{b}\"}} {cumulative}");
        }
        let _ = writeln!(out, "{name}_bucket{{{labels}{sep}le=\"+Inf\"}} {}", self.count);
        let _ = writeln!(out, "{name}_sum{{{labels}}} {}", self.sum);
        let _ = writeln!(out, "{name}_count{{{labels}}} {}", self.count);
    }
}

/// Values read at render time from other parts of the service.
#[derive(Debug, Clone, Default)]
pub struct Gauges {
    /// Per lane: (name, items admitted and not finished, capacity).
    pub lanes: Vec<(&'static str, usize, usize)>,
    /// Scoring requests being read or answered.
    pub requests_in_flight: usize,
    /// Cache entry lookups that hit and missed (None without a cache).
    pub cache: Option<(u64, u64)>,
    /// GPU leases held by this service now.
    pub gpu_leases_held: usize,
}

#[derive(Debug, Default)]
struct Counts {
    requests: BTreeMap<(String, u16), u64>,
    request_durations: BTreeMap<String, Histogram>,
    items: BTreeMap<(String, LegState), u64>,
    entries: BTreeMap<(String, &'static str), u64>,
    leg_durations: BTreeMap<String, Histogram>,
}

/// Every counter the service keeps.
#[derive(Debug, Default)]
pub struct Metrics {
    counts: Mutex<Counts>,
    computed: AtomicU64,
    shared: AtomicU64,
    timed_out: AtomicU64,
    shed: AtomicU64,
}

/// The outcome label of an answered entry.
fn outcome(e: &RewardEntry) -> &'static str {
    if e.scored {
        "scored"
    } else if e.legs.is_empty() {
        "error"
    } else {
        "unscored"
    }
}

impl Metrics {
    fn counts(&self) -> std::sync::MutexGuard<'_, Counts> {
        self.counts.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// One answered request on `route` (a route template, never a raw path).
    pub fn observe_request(&self, route: &str, status: u16, elapsed: Duration) {
        let mut c = self.counts();
        *c.requests.entry((route.to_string(), status)).or_default() += 1;
        c.request_durations
            .entry(route.to_string())
            .or_insert_with(|| Histogram::new(&REQUEST_BUCKETS))
            .observe(elapsed.as_secs_f64());
    }

    /// Entries answered to a client: counts items by leg and state, and entries by outcome.
    pub fn observe_answered<'a>(&self, entries: impl IntoIterator<Item = &'a RewardEntry>) {
        let mut items: BTreeMap<(&str, LegState), u64> = BTreeMap::new();
        let mut outcomes: BTreeMap<(&str, &'static str), u64> = BTreeMap::new();
        for e in entries {
            *outcomes.entry((&e.profile, outcome(e))).or_default() += 1;
            for leg in &e.legs {
                *items.entry((&leg.name, leg.state)).or_default() += 1;
            }
        }
        let mut c = self.counts();
        for ((leg, state), n) in items {
            *c.items.entry((leg.to_string(), state)).or_default() += n;
        }
        for ((profile, o), n) in outcomes {
            *c.entries.entry((profile.to_string(), o)).or_default() += n;
        }
    }

    /// One entry computed by a worker: leg durations of the legs that ran.
    pub fn observe_computed(&self, e: &RewardEntry) {
        self.computed.fetch_add(1, Ordering::Relaxed);
        let mut c = self.counts();
        for leg in e
            .legs
            .iter()
            .filter(|l| !l.cached && l.state != LegState::Skipped)
        {
            if let Some(h) = c.leg_durations.get_mut(&leg.name) {
                h.observe(leg.elapsed_s);
            } else {
                let mut h = Histogram::new(&LEG_BUCKETS);
                h.observe(leg.elapsed_s);
                c.leg_durations.insert(leg.name.clone(), h);
            }
        }
    }

    /// Items that joined an identical item already in flight instead of being computed.
    pub fn add_shared(&self, n: u64) {
        self.shared.fetch_add(n, Ordering::Relaxed);
    }

    /// Items answered `timed-out`.
    pub fn add_timed_out(&self, n: u64) {
        self.timed_out.fetch_add(n, Ordering::Relaxed);
    }

    /// Requests refused with 503 because a queue or the request limit was full.
    pub fn add_shed(&self) {
        self.shed.fetch_add(1, Ordering::Relaxed);
    }

    /// Entries computed so far (not cached answers, not shared ones).
    pub fn computed(&self) -> u64 {
        self.computed.load(Ordering::Relaxed)
    }

    /// The Prometheus text exposition.
    pub fn render(&self, g: &Gauges) -> String {
        let mut out = String::with_capacity(4096);
        let c = self.counts();
        header(
            &mut out,
            "aorlta_requests_total",
            "counter",
            "Requests answered, by route and status.",
        );
        for ((route, status), n) in &c.requests {
            let _ = writeln!(
                out,
                "aorlta_requests_total{{route=\"{}\",status=\"{status}\"}} {n}",
                esc(route)
            );
        }
        header(
            &mut out,
            "aorlta_request_duration_seconds",
            "histogram",
            "Time from a request's arrival to its answer, by route.",
        );
        for (route, h) in &c.request_durations {
            h.render(
                &mut out,
                "aorlta_request_duration_seconds",
                &format!("route=\"{}\"", esc(route)),
            );
        }
        header(
            &mut out,
            "aorlta_items_total",
            "counter",
            "Answered items, by leg and that leg's state.",
        );
        for ((leg, state), n) in &c.items {
            let _ = writeln!(
                out,
                "aorlta_items_total{{leg=\"{}\",state=\"{state}\"}} {n}",
                esc(leg)
            );
        }
        header(
            &mut out,
            "aorlta_entries_total",
            "counter",
            "Answered entries, by profile and outcome (scored, unscored, error).",
        );
        for ((profile, o), n) in &c.entries {
            let _ = writeln!(
                out,
                "aorlta_entries_total{{profile=\"{}\",outcome=\"{o}\"}} {n}",
                esc(profile)
            );
        }
        header(
            &mut out,
            "aorlta_leg_duration_seconds",
            "histogram",
            "Time each leg took when it ran (cached and skipped legs are not counted).",
        );
        for (leg, h) in &c.leg_durations {
            h.render(
                &mut out,
                "aorlta_leg_duration_seconds",
                &format!("leg=\"{}\"", esc(leg)),
            );
        }
        drop(c);
        let counters = [
            (
                "aorlta_items_computed_total",
                "Entries computed by a worker.",
                &self.computed,
            ),
            (
                "aorlta_items_shared_total",
                "Items answered from an identical item already in flight.",
                &self.shared,
            ),
            (
                "aorlta_items_timed_out_total",
                "Items answered timed-out.",
                &self.timed_out,
            ),
            (
                "aorlta_requests_shed_total",
                "Requests refused with 503.",
                &self.shed,
            ),
        ];
        for (name, help, v) in counters {
            header(&mut out, name, "counter", help);
            let _ = writeln!(out, "{name} {}", v.load(Ordering::Relaxed));
        }
        header(
            &mut out,
            "aorlta_queue_depth",
            "gauge",
            "Items admitted and not finished (queued or running), by lane.",
        );
        for (lane, depth, _) in &g.lanes {
            let _ = writeln!(out, "aorlta_queue_depth{{lane=\"{lane}\"}} {depth}");
        }
        header(
            &mut out,
            "aorlta_queue_capacity",
            "gauge",
            "Most items a lane admits.",
        );
        for (lane, _, cap) in &g.lanes {
            let _ = writeln!(out, "aorlta_queue_capacity{{lane=\"{lane}\"}} {cap}");
        }
        header(
            &mut out,
            "aorlta_requests_in_flight",
            "gauge",
            "Scoring requests being read or answered.",
        );
        let _ = writeln!(out, "aorlta_requests_in_flight {}", g.requests_in_flight);
        let (hits, misses) = g.cache.unwrap_or((0, 0));
        header(
            &mut out,
            "aorlta_cache_hits_total",
            "counter",
            "Cache entry lookups that hit.",
        );
        let _ = writeln!(out, "aorlta_cache_hits_total {hits}");
        header(
            &mut out,
            "aorlta_cache_misses_total",
            "counter",
            "Cache entry lookups that missed.",
        );
        let _ = writeln!(out, "aorlta_cache_misses_total {misses}");
        header(
            &mut out,
            "aorlta_gpu_leases_held",
            "gauge",
            "GPU leases this service holds now.",
        );
        let _ = writeln!(out, "aorlta_gpu_leases_held {}", g.gpu_leases_held);
        out
    }
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    let _ = writeln!(out, "# HELP {name} {help}");
    let _ = writeln!(out, "# TYPE {name} {kind}");
}

/// Escapes a label value (backslash, quote, newline).
fn esc(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::{LegResult, Reason};

    fn entry(profile: &str, legs: Vec<LegResult>, scored: bool) -> RewardEntry {
        let mut e = RewardEntry::error("i", "t", profile, Reason::new("x", "y"));
        e.scored = scored;
        e.legs = legs;
        e
    }

    #[test]
    fn counts_render_as_prometheus_text() {
        let m = Metrics::default();
        m.observe_request("/v1/score", 200, Duration::from_millis(3));
        m.observe_request("/v1/score", 200, Duration::from_millis(30));
        m.observe_request("/v1/score", 503, Duration::from_millis(1));
        let mut broke = LegResult::with_state(
            "ref.exact",
            "reference-match",
            LegState::Broke,
            Reason::new("a", "b"),
        );
        broke.elapsed_s = 0.002;
        let parse = LegResult::clean("parse", "parse");
        let e1 = entry("qa", vec![parse.clone(), broke.clone()], true);
        let e2 = entry("qa", vec![parse], true);
        let e3 = entry("qa", vec![], false);
        m.observe_answered([&e1, &e2, &e3]);
        m.observe_computed(&e1);
        m.add_shared(4);
        let text = m.render(&Gauges {
            lanes: vec![("qa", 3, 100)],
            requests_in_flight: 1,
            cache: Some((7, 9)),
            gpu_leases_held: 0,
        });
        for line in [
            "aorlta_requests_total{route=\"/v1/score\",status=\"200\"} 2",
            "aorlta_requests_total{route=\"/v1/score\",status=\"503\"} 1",
            "aorlta_request_duration_seconds_bucket{route=\"/v1/score\",le=\"0.005\"} 2",
            "aorlta_request_duration_seconds_count{route=\"/v1/score\"} 3",
            "aorlta_items_total{leg=\"parse\",state=\"clean\"} 2",
            "aorlta_items_total{leg=\"ref.exact\",state=\"broke\"} 1",
            "aorlta_entries_total{profile=\"qa\",outcome=\"scored\"} 2",
            "aorlta_entries_total{profile=\"qa\",outcome=\"error\"} 1",
            "aorlta_leg_duration_seconds_bucket{leg=\"ref.exact\",le=\"0.001\"} 0",
            "aorlta_leg_duration_seconds_bucket{leg=\"ref.exact\",le=\"0.01\"} 1",
            "aorlta_leg_duration_seconds_count{leg=\"ref.exact\"} 1",
            "aorlta_items_computed_total 1",
            "aorlta_items_shared_total 4",
            "aorlta_queue_depth{lane=\"qa\"} 3",
            "aorlta_queue_capacity{lane=\"qa\"} 100",
            "aorlta_cache_hits_total 7",
            "aorlta_cache_misses_total 9",
            "aorlta_gpu_leases_held 0",
        ] {
            assert!(text.lines().any(|l| l == line), "missing `{line}` in\n{text}");
        }
    }

    #[test]
    fn label_values_are_escaped() {
        assert_eq!(esc("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
    }
}
