//! The service's counters, gauges and histograms, exposed on `GET /metrics` in the OpenMetrics
//! text format by the `prometheus-client` crate: requests by route and status, answered items
//! by leg and state, entries by profile and outcome, leg and request durations, queue depth per
//! lane, work shared by identical items, time-outs, cache hits, misses and rejected rows, GPU
//! leases held.
//!
//! Per-item updates are aggregated per request (or per computed entry) before they touch a
//! label family, so the hot path takes a handful of locks per request, not per item. Values
//! owned by other parts of the service (queue depths, cache statistics, leases) are read at
//! render time through [`Gauges`].

use aorlta_record::{LegState, RewardEntry};
use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;
use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::time::Duration;

/// Upper bounds (seconds) of the leg duration buckets.
pub(crate) const LEG_BUCKETS: [f64; 12] = [
    1e-5, 1e-4, 1e-3, 0.01, 0.1, 0.5, 1.0, 5.0, 10.0, 30.0, 60.0, 300.0,
];
/// Upper bounds (seconds) of the request duration buckets.
pub(crate) const REQUEST_BUCKETS: [f64; 12] = [
    0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 5.0, 30.0,
];

/// The content type of the exposition.
pub(crate) const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// Values read at render time from other parts of the service.
#[derive(Debug, Clone, Default)]
pub struct Gauges {
    /// Per lane: (name, items admitted and not finished, capacity).
    pub lanes: Vec<(&'static str, usize, usize)>,
    /// Scoring requests whose bodies are read, being answered.
    pub requests_in_flight: usize,
    /// Request bodies being read.
    pub bodies_reading: usize,
    /// Bytes of the request bodies being read.
    pub body_bytes_reading: usize,
    /// Bytes of answers not yet taken by their clients.
    pub unsent_bytes: usize,
    /// Cache entry lookups that hit and missed, and stored rows rejected (None without a
    /// cache).
    pub cache: Option<aorlta_store::CacheStats>,
    /// GPU leases held by this service now.
    pub gpu_leases_held: usize,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct RouteStatus {
    route: String,
    status: u16,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Route {
    route: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct LegStateLabel {
    leg: String,
    state: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct ProfileOutcome {
    profile: String,
    outcome: &'static str,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Leg {
    leg: String,
}

#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Lane {
    lane: &'static str,
}

type HistogramFamily<L> = Family<L, Histogram, fn() -> Histogram>;

fn request_histogram() -> Histogram {
    Histogram::new(REQUEST_BUCKETS)
}

fn leg_histogram() -> Histogram {
    Histogram::new(LEG_BUCKETS)
}

/// Every metric the service keeps, in one registry.
#[derive(Debug)]
pub struct Metrics {
    registry: Registry,
    requests: Family<RouteStatus, Counter>,
    request_durations: HistogramFamily<Route>,
    items: Family<LegStateLabel, Counter>,
    entries: Family<ProfileOutcome, Counter>,
    leg_durations: HistogramFamily<Leg>,
    computed: Counter,
    shared: Counter,
    timed_out: Counter,
    shed: Counter,
    connections_refused: Counter,
    unread_closed: Counter,
    queue_depth: Family<Lane, Gauge>,
    queue_capacity: Family<Lane, Gauge>,
    requests_in_flight: Gauge,
    connections: Gauge,
    bodies_reading: Gauge,
    body_bytes_reading: Gauge,
    unsent_bytes: Gauge,
    cache_hits: Counter,
    cache_misses: Counter,
    cache_rejected: Counter,
    gpu_leases_held: Gauge,
}

impl Default for Metrics {
    fn default() -> Self {
        let m = Metrics {
            registry: Registry::default(),
            requests: Family::default(),
            request_durations: Family::new_with_constructor(request_histogram),
            items: Family::default(),
            entries: Family::default(),
            leg_durations: Family::new_with_constructor(leg_histogram),
            computed: Counter::default(),
            shared: Counter::default(),
            timed_out: Counter::default(),
            shed: Counter::default(),
            connections_refused: Counter::default(),
            unread_closed: Counter::default(),
            queue_depth: Family::default(),
            queue_capacity: Family::default(),
            requests_in_flight: Gauge::default(),
            connections: Gauge::default(),
            bodies_reading: Gauge::default(),
            body_bytes_reading: Gauge::default(),
            unsent_bytes: Gauge::default(),
            cache_hits: Counter::default(),
            cache_misses: Counter::default(),
            cache_rejected: Counter::default(),
            gpu_leases_held: Gauge::default(),
        };
        m.register()
    }
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
    /// Registers every metric under its exposed name (counters get `_total` when encoded; the
    /// encoder ends each help text with a period).
    fn register(mut self) -> Self {
        let r = &mut self.registry;
        r.register(
            "aorlta_requests",
            "Requests answered, by route and status",
            self.requests.clone(),
        );
        r.register(
            "aorlta_request_duration_seconds",
            "Time from a request's arrival to its answer, by route",
            self.request_durations.clone(),
        );
        r.register(
            "aorlta_items",
            "Answered items, by leg and that leg's state",
            self.items.clone(),
        );
        r.register(
            "aorlta_entries",
            "Answered entries, by profile and outcome (scored, unscored, error)",
            self.entries.clone(),
        );
        r.register(
            "aorlta_leg_duration_seconds",
            "Time each leg took when it ran (cached and skipped legs are not counted)",
            self.leg_durations.clone(),
        );
        r.register(
            "aorlta_items_computed",
            "Entries computed by a worker",
            self.computed.clone(),
        );
        r.register(
            "aorlta_items_shared",
            "Items answered from an identical item already in flight",
            self.shared.clone(),
        );
        r.register(
            "aorlta_items_timed_out",
            "Items answered timed-out",
            self.timed_out.clone(),
        );
        r.register(
            "aorlta_requests_shed",
            "Requests refused with 503",
            self.shed.clone(),
        );
        r.register(
            "aorlta_connections_closed_at_cap",
            "Connections closed because the connection cap was reached: a new one when every open connection was busy, or the one idle longest to make room",
            self.connections_refused.clone(),
        );
        r.register(
            "aorlta_queue_depth",
            "Items admitted and not finished (queued or running), by lane",
            self.queue_depth.clone(),
        );
        r.register(
            "aorlta_queue_capacity",
            "Most items a lane admits",
            self.queue_capacity.clone(),
        );
        r.register(
            "aorlta_requests_in_flight",
            "Scoring requests whose bodies are read, being answered",
            self.requests_in_flight.clone(),
        );
        r.register(
            "aorlta_connections",
            "Connections open now",
            self.connections.clone(),
        );
        r.register(
            "aorlta_bodies_reading",
            "Request bodies being read (they hold no scoring slot yet)",
            self.bodies_reading.clone(),
        );
        r.register(
            "aorlta_body_bytes_reading",
            "Bytes of the request bodies being read",
            self.body_bytes_reading.clone(),
        );
        r.register(
            "aorlta_unsent_bytes",
            "Bytes of answers built and not yet taken by their clients",
            self.unsent_bytes.clone(),
        );
        r.register(
            "aorlta_connections_closed_unread",
            "Connections closed because answers not taken by their clients passed the bound",
            self.unread_closed.clone(),
        );
        r.register(
            "aorlta_cache_hits",
            "Cache entry lookups that hit",
            self.cache_hits.clone(),
        );
        r.register(
            "aorlta_cache_misses",
            "Cache entry lookups that missed",
            self.cache_misses.clone(),
        );
        r.register(
            "aorlta_cache_rejected",
            "Stored results found that failed their check (checksum, reward contract) and were computed again",
            self.cache_rejected.clone(),
        );
        r.register(
            "aorlta_gpu_leases_held",
            "GPU leases this service holds now",
            self.gpu_leases_held.clone(),
        );
        self
    }

    /// One answered request on `route` (a route template, never a raw path).
    pub fn observe_request(&self, route: &str, status: u16, elapsed: Duration) {
        self.requests
            .get_or_create(&RouteStatus {
                route: esc(route),
                status,
            })
            .inc();
        self.request_durations
            .get_or_create(&Route { route: esc(route) })
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
        for ((leg, state), n) in items {
            self.items
                .get_or_create(&LegStateLabel {
                    leg: esc(leg),
                    state: state.to_string(),
                })
                .inc_by(n);
        }
        for ((profile, outcome), n) in outcomes {
            self.entries
                .get_or_create(&ProfileOutcome {
                    profile: esc(profile),
                    outcome,
                })
                .inc_by(n);
        }
    }

    /// One entry computed by a worker: leg durations of the legs that ran.
    pub fn observe_computed(&self, e: &RewardEntry) {
        self.computed.inc();
        for leg in e
            .legs
            .iter()
            .filter(|l| !l.cached && l.state != LegState::Skipped)
        {
            self.leg_durations
                .get_or_create(&Leg { leg: esc(&leg.name) })
                .observe(leg.elapsed_s);
        }
    }

    /// Items that joined an identical item already in flight instead of being computed.
    pub fn add_shared(&self, n: u64) {
        self.shared.inc_by(n);
    }

    /// Items answered `timed-out`.
    pub fn add_timed_out(&self, n: u64) {
        self.timed_out.inc_by(n);
    }

    /// Requests refused with 503 because a queue or the request limit was full.
    pub fn add_shed(&self) {
        self.shed.inc();
    }

    /// A connection closed because the connection cap was reached.
    pub fn add_connection_refused(&self) {
        self.connections_refused.inc();
    }

    /// The connections open now (kept by [`crate::connections::Connections`] as they open and
    /// close).
    pub fn set_connections(&self, open: usize) {
        self.connections.set(gauge(open));
    }

    /// A connection closed because answers held for clients passed the bound.
    pub fn add_unread_closed(&self) {
        self.unread_closed.inc();
    }

    /// Entries computed so far (not cached answers, not shared ones).
    pub fn computed(&self) -> u64 {
        self.computed.get()
    }

    /// The OpenMetrics text exposition, with the render-time values of `g`.
    pub fn render(&self, g: &Gauges) -> String {
        for (lane, depth, cap) in &g.lanes {
            let l = Lane { lane };
            self.queue_depth.get_or_create(&l).set(gauge(*depth));
            self.queue_capacity.get_or_create(&l).set(gauge(*cap));
        }
        self.requests_in_flight.set(gauge(g.requests_in_flight));
        self.bodies_reading.set(gauge(g.bodies_reading));
        self.body_bytes_reading.set(gauge(g.body_bytes_reading));
        self.unsent_bytes.set(gauge(g.unsent_bytes));
        let c = g.cache.unwrap_or_default();
        // Counters owned by the cache: mirrored, never decreasing (the cache's own are monotone).
        self.cache_hits.inner().fetch_max(c.hits, Ordering::Relaxed);
        self.cache_misses.inner().fetch_max(c.misses, Ordering::Relaxed);
        self.cache_rejected
            .inner()
            .fetch_max(c.rejected, Ordering::Relaxed);
        self.gpu_leases_held.set(gauge(g.gpu_leases_held));
        let mut out = String::with_capacity(8192);
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }
}

/// A label value as the text format needs it (backslash, quote and newline escaped); the
/// encoder writes label values as they are.
fn esc(s: &str) -> String {
    if !s.contains(['\\', '"', '\n']) {
        return s.to_string();
    }
    s.replace('\\', "\\\\").replace('"', "\\\"").replace('\n', "\\n")
}

fn gauge(n: usize) -> i64 {
    i64::try_from(n).unwrap_or(i64::MAX)
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
        m.set_connections(2);
        let text = m.render(&Gauges {
            lanes: vec![("qa", 3, 100)],
            requests_in_flight: 1,
            bodies_reading: 3,
            body_bytes_reading: 4096,
            unsent_bytes: 5000,
            cache: Some(aorlta_store::CacheStats {
                hits: 7,
                misses: 9,
                rejected: 1,
            }),
            gpu_leases_held: 0,
        });
        m.add_unread_closed();
        for line in [
            "aorlta_requests_total{route=\"/v1/score\",status=\"200\"} 2",
            "aorlta_requests_total{route=\"/v1/score\",status=\"503\"} 1",
            "aorlta_request_duration_seconds_bucket{le=\"0.005\",route=\"/v1/score\"} 2",
            "aorlta_request_duration_seconds_count{route=\"/v1/score\"} 3",
            "aorlta_items_total{leg=\"parse\",state=\"clean\"} 2",
            "aorlta_items_total{leg=\"ref.exact\",state=\"broke\"} 1",
            "aorlta_entries_total{profile=\"qa\",outcome=\"scored\"} 2",
            "aorlta_entries_total{profile=\"qa\",outcome=\"error\"} 1",
            "aorlta_leg_duration_seconds_bucket{le=\"0.001\",leg=\"ref.exact\"} 0",
            "aorlta_leg_duration_seconds_bucket{le=\"0.01\",leg=\"ref.exact\"} 1",
            "aorlta_leg_duration_seconds_count{leg=\"ref.exact\"} 1",
            "aorlta_items_computed_total 1",
            "aorlta_items_shared_total 4",
            "aorlta_queue_depth{lane=\"qa\"} 3",
            "aorlta_queue_capacity{lane=\"qa\"} 100",
            "aorlta_cache_hits_total 7",
            "aorlta_cache_misses_total 9",
            "aorlta_cache_rejected_total 1",
            "aorlta_gpu_leases_held 0",
            "aorlta_requests_in_flight 1",
            "aorlta_connections 2",
            "aorlta_bodies_reading 3",
            "aorlta_body_bytes_reading 4096",
            "aorlta_unsent_bytes 5000",
            "# TYPE aorlta_requests counter",
            "# TYPE aorlta_request_duration_seconds histogram",
            "# TYPE aorlta_queue_depth gauge",
            "# EOF",
        ] {
            assert!(text.lines().any(|l| l == line), "missing `{line}` in\n{text}");
        }
    }

    #[test]
    fn label_values_are_escaped() {
        let m = Metrics::default();
        m.observe_request("a\"b\\c\nd", 200, Duration::from_millis(1));
        let text = m.render(&Gauges::default());
        assert!(
            text.contains("aorlta_requests_total{route=\"a\\\"b\\\\c\\nd\",status=\"200\"} 1"),
            "{text}"
        );
    }
}
