//! The scoring queue: bounded lanes of blocking workers, admission with load shedding, per-item
//! time limits, and sharing of identical items in flight.
//!
//! Scoring is synchronous work (a kernel leg blocks on a harness process for seconds), so it
//! runs on dedicated worker threads, never on the async runtime. Each lane (Q&A, kernel) has its
//! own FIFO, threads and capacity: a request is admitted whole or refused whole, and is refused
//! (the handler answers 503) when its items would take a lane past its capacity, so memory
//! never grows with load. An item admitted while an identical one (same entry key: profile,
//! task, completion and every leg's version identity) is in flight joins it instead of being
//! computed again, and still takes its own place in the capacity until the computation ends: a
//! waiting item holds memory whether or not it is computed. Each item waits at most its lane's time limit from admission, then is
//! answered `unsettled` (`timed-out`); the work itself runs on (a harness has its own limits) and
//! keeps its place in the queue's count until it finishes.

use crate::metrics::Metrics;
use aorlta_check::Task;
use aorlta_core::Engine;
use aorlta_core::LoadedProfile;
use aorlta_record::{Candidate, LegResult, LegState, Reason, RewardEntry, VersionIdentity};
use std::collections::{HashMap, VecDeque};
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};
use tokio::sync::oneshot;

/// The lane an item runs in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum LaneKind {
    /// Q&A items.
    Qa = 0,
    /// Kernel items.
    Kernel = 1,
}

impl LaneKind {
    /// The lane for a task.
    pub(crate) fn of(task: &Task) -> Self {
        if task.lane() == aorlta_kernel::LANE {
            LaneKind::Kernel
        } else {
            LaneKind::Qa
        }
    }

    /// The lane's name in metrics and errors.
    pub(crate) fn name(self) -> &'static str {
        match self {
            LaneKind::Qa => "qa",
            LaneKind::Kernel => "kernel",
        }
    }
}

/// A lane's size.
#[derive(Debug, Clone, Copy)]
pub struct LaneSpec {
    /// Worker threads.
    pub workers: usize,
    /// Most items admitted and not finished.
    pub capacity: usize,
    /// Time from admission after which an item is answered `timed-out`.
    pub timeout: Duration,
}

/// One item to score.
pub struct Work {
    /// The engine of the request's profile.
    pub engine: Arc<Engine>,
    /// The task (from the service's set, or inline).
    pub task: Arc<Task>,
    /// The candidate.
    pub cand: Candidate,
}

/// Why a batch was not admitted.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SubmitError {
    /// The lane has no room now; retrying later can succeed.
    #[error("the {lane} queue is full ({depth} of {capacity} items in flight; this request adds {adding})")]
    Overloaded {
        /// The lane.
        lane: &'static str,
        /// Items in flight.
        depth: usize,
        /// The lane's capacity.
        capacity: usize,
        /// New items the request needs.
        adding: usize,
    },
    /// The request alone needs more than the lane's whole capacity; retrying cannot help.
    #[error("this request has {adding} {lane} items but the {lane} queue holds at most {capacity}")]
    TooLarge {
        /// The lane.
        lane: &'static str,
        /// The lane's capacity.
        capacity: usize,
        /// Items the request needs (identical ones included).
        adding: usize,
    },
    /// The service is shutting down.
    #[error("the service is shutting down")]
    Closed,
}

/// A computation in flight: its job's serial number and where each waiting item's answer goes.
struct Flight {
    serial: u64,
    waiters: Vec<oneshot::Sender<RewardEntry>>,
    /// The places in its lane the items waiting for it take (its job's [`Job::charged`]).
    charged: Arc<AtomicUsize>,
}

/// Computations in flight by dedupe key.
type Inflight = Arc<Mutex<HashMap<String, Flight>>>;

struct Lane {
    kind: LaneKind,
    spec: LaneSpec,
    depth: AtomicUsize,
    /// Told (one waiter at a time) when an item leaves, for requests waiting for room.
    room: Arc<tokio::sync::Notify>,
    queue: Mutex<LaneQueue>,
    ready: Condvar,
}

#[derive(Default)]
struct LaneQueue {
    jobs: VecDeque<Job>,
    closed: bool,
}

/// An admitted computation. Dropping it (done or not) frees its place and its in-flight key.
struct Job {
    serial: u64,
    work: Work,
    key: String,
    deadline: Instant,
    lane: Arc<Lane>,
    inflight: Inflight,
    /// The places in its lane this job's items take: one each, identical items that joined it
    /// included. Final once its flight has left the map (no item joins it after that).
    charged: Arc<AtomicUsize>,
}

impl Drop for Job {
    fn drop(&mut self) {
        // Still in the map: the job ends unanswered, and dropping the senders tells its waiters.
        self.take_waiters();
        let places = self.charged.load(Ordering::Acquire);
        self.lane.depth.fetch_sub(places, Ordering::AcqRel);
        if places == 1 {
            self.lane.room.notify_one();
        } else {
            self.lane.room.notify_waiters();
        }
    }
}

impl Job {
    /// Removes this job's flight from the map (from then on identical items start anew) and
    /// returns its waiters.
    fn take_waiters(&self) -> Vec<oneshot::Sender<RewardEntry>> {
        let mut map = lock(&self.inflight);
        match map.get(&self.key) {
            Some(f) if f.serial == self.serial => {
                map.remove(&self.key).map(|f| f.waiters).unwrap_or_default()
            }
            _ => Vec::new(),
        }
    }

    /// True (and the flight removed, so no item joins it any more) when every item waiting for
    /// this job has given up (timed out or gone away).
    fn abandoned(&self) -> bool {
        let mut map = lock(&self.inflight);
        let gone = map
            .get(&self.key)
            .is_some_and(|f| f.serial == self.serial && f.waiters.iter().all(|w| w.is_closed()));
        if gone {
            map.remove(&self.key);
        }
        gone
    }
}

/// An admitted item's answer, to await.
pub struct Waiter {
    rx: oneshot::Receiver<RewardEntry>,
    deadline: Instant,
    timeout: Duration,
    engine: Arc<Engine>,
    id: String,
    task: String,
    shared: bool,
}

impl Waiter {
    /// True when this item joined an identical one already in flight.
    pub fn shared(&self) -> bool {
        self.shared
    }

    /// The item's entry: the computed one (with this item's id), or `timed-out` once the
    /// lane's time limit from admission has passed.
    pub async fn wait(self) -> RewardEntry {
        match tokio::time::timeout_at(self.deadline.into(), self.rx).await {
            Ok(Ok(mut e)) => {
                e.id = self.id;
                e
            }
            Ok(Err(_)) => unsettled_entry(
                self.engine.profile(),
                &self.id,
                &self.task,
                Reason::new("internal-error", "the worker stopped before answering this item"),
            ),
            Err(_) => timed_out(self.engine.profile(), &self.id, &self.task, self.timeout),
        }
    }
}

/// The lanes and their workers.
pub struct Scheduler {
    lanes: [Arc<Lane>; 2],
    inflight: Inflight,
    serial: std::sync::atomic::AtomicU64,
    threads: Mutex<Vec<JoinHandle<()>>>,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Scheduler {
    /// Starts the workers of both lanes.
    pub fn start(qa: LaneSpec, kernel: LaneSpec, metrics: Arc<Metrics>) -> std::io::Result<Self> {
        let lane = |kind, spec| {
            Arc::new(Lane {
                kind,
                spec,
                depth: AtomicUsize::new(0),
                room: Arc::new(tokio::sync::Notify::new()),
                queue: Mutex::default(),
                ready: Condvar::new(),
            })
        };
        let sched = Scheduler {
            lanes: [lane(LaneKind::Qa, qa), lane(LaneKind::Kernel, kernel)],
            inflight: Arc::default(),
            serial: Default::default(),
            threads: Mutex::default(),
        };
        for l in &sched.lanes {
            for i in 0..l.spec.workers.max(1) {
                let l2 = Arc::clone(l);
                let m = Arc::clone(&metrics);
                let handle = std::thread::Builder::new()
                    .name(format!("aorlta-{}-{i}", l.kind.name()))
                    .spawn(move || worker(&l2, &m))?;
                lock(&sched.threads).push(handle);
            }
        }
        Ok(sched)
    }

    /// Per lane: (name, items admitted and not finished, capacity).
    pub fn depths(&self) -> Vec<(&'static str, usize, usize)> {
        self.lanes
            .iter()
            .map(|l| (l.kind.name(), l.depth.load(Ordering::Acquire), l.spec.capacity))
            .collect()
    }

    /// Per lane: (name, item time limit).
    pub fn timeouts(&self) -> Vec<(&'static str, Duration)> {
        self.lanes
            .iter()
            .map(|l| (l.kind.name(), l.spec.timeout))
            .collect()
    }

    /// Admits a batch whole, or refuses it whole. Identical items (in this batch or already in
    /// flight) share one computation.
    pub fn submit(&self, works: Vec<Work>) -> Result<Vec<Waiter>, SubmitError> {
        self.try_submit(works).map_err(|(e, _)| e)
    }

    /// As [`Scheduler::submit`], but a batch refused for want of room waits for room until
    /// `deadline` (woken as items leave their lane), then is refused as `submit` would.
    pub async fn submit_until(
        &self,
        works: Vec<Work>,
        deadline: tokio::time::Instant,
    ) -> Result<Vec<Waiter>, SubmitError> {
        let mut works = works;
        loop {
            let lane = match self.try_submit(works) {
                Ok(w) => {
                    // Pass the wake-up on: there may be room for the next waiter too.
                    for l in &self.lanes {
                        l.room.notify_one();
                    }
                    return Ok(w);
                }
                Err((SubmitError::Overloaded { lane, .. }, back))
                    if tokio::time::Instant::now() < deadline =>
                {
                    works = back;
                    lane
                }
                Err((e, _)) => return Err(e),
            };
            let room = Arc::clone(&self.lanes[if lane == "qa" { 0 } else { 1 }].room);
            // Woken by a leaving item, or re-checked every 100 ms (a wake-up taken by a
            // request that then did not fit is not lost for long).
            let wake = tokio::time::Instant::now() + Duration::from_millis(100);
            let _ = tokio::time::timeout_at(wake.min(deadline), room.notified()).await;
        }
    }

    fn try_submit(&self, works: Vec<Work>) -> Result<Vec<Waiter>, (SubmitError, Vec<Work>)> {
        let now = Instant::now();
        let keyed: Vec<(String, Work)> = works.into_iter().map(|w| (dedupe_key(&w), w)).collect();
        let give_back = |keyed: Vec<(String, Work)>| keyed.into_iter().map(|(_, w)| w).collect::<Vec<_>>();
        let mut inflight = lock(&self.inflight);
        // Which items start a computation; every item, started or joined, takes a place.
        let mut starts = vec![false; keyed.len()];
        let mut adding = [0usize; 2];
        {
            let mut fresh: std::collections::HashSet<&str> = std::collections::HashSet::new();
            for (i, (key, w)) in keyed.iter().enumerate() {
                if !inflight.contains_key(key) && fresh.insert(key) {
                    starts[i] = true;
                }
                adding[LaneKind::of(&w.task) as usize] += 1;
            }
        }
        for lane in &self.lanes {
            let n = adding[lane.kind as usize];
            if n == 0 {
                continue;
            }
            let cap = lane.spec.capacity;
            if n > cap {
                drop(inflight);
                let e = SubmitError::TooLarge {
                    lane: lane.kind.name(),
                    capacity: cap,
                    adding: n,
                };
                return Err((e, give_back(keyed)));
            }
            let depth = lane.depth.load(Ordering::Acquire);
            if depth + n > cap {
                drop(inflight);
                let e = SubmitError::Overloaded {
                    lane: lane.kind.name(),
                    depth,
                    capacity: cap,
                    adding: n,
                };
                return Err((e, give_back(keyed)));
            }
        }
        if self.lanes.iter().any(|l| lock(&l.queue).closed) {
            drop(inflight);
            return Err((SubmitError::Closed, give_back(keyed)));
        }
        for lane in &self.lanes {
            lane.depth.fetch_add(adding[lane.kind as usize], Ordering::AcqRel);
        }
        let mut waiters = Vec::with_capacity(keyed.len());
        let mut jobs: [Vec<Job>; 2] = [Vec::new(), Vec::new()];
        for ((key, work), start) in keyed.into_iter().zip(starts) {
            let lane = &self.lanes[LaneKind::of(&work.task) as usize];
            let timeout = lane.spec.timeout;
            let deadline = now + timeout;
            let (tx, rx) = oneshot::channel();
            let started = if start {
                let serial = self.serial.fetch_add(1, Ordering::Relaxed);
                let charged = Arc::new(AtomicUsize::new(1));
                inflight.insert(
                    key.clone(),
                    Flight {
                        serial,
                        waiters: vec![tx],
                        charged: Arc::clone(&charged),
                    },
                );
                Some((serial, charged))
            } else {
                let flight = inflight.get_mut(&key).expect("a joined key is in flight");
                flight.waiters.push(tx);
                flight.charged.fetch_add(1, Ordering::AcqRel);
                None
            };
            waiters.push(Waiter {
                rx,
                deadline,
                timeout,
                engine: Arc::clone(&work.engine),
                id: work.cand.id.clone(),
                task: work.cand.task.clone(),
                shared: started.is_none(),
            });
            if let Some((serial, charged)) = started {
                jobs[lane.kind as usize].push(Job {
                    serial,
                    work,
                    key,
                    deadline,
                    lane: Arc::clone(lane),
                    inflight: Arc::clone(&self.inflight),
                    charged,
                });
            }
        }
        drop(inflight);
        for (lane, batch) in self.lanes.iter().zip(jobs) {
            if batch.is_empty() {
                continue;
            }
            let n = batch.len();
            lock(&lane.queue).jobs.extend(batch);
            if n == 1 {
                lane.ready.notify_one();
            } else {
                lane.ready.notify_all();
            }
        }
        Ok(waiters)
    }

    /// Stops admitting, lets the workers finish every admitted item, and joins them.
    pub fn shutdown(&self) {
        for l in &self.lanes {
            lock(&l.queue).closed = true;
            l.ready.notify_all();
        }
        let threads: Vec<JoinHandle<()>> = lock(&self.threads).drain(..).collect();
        for t in threads {
            let _ = t.join();
        }
    }
}

impl Drop for Scheduler {
    fn drop(&mut self) {
        for l in &self.lanes {
            lock(&l.queue).closed = true;
            l.ready.notify_all();
        }
    }
}

/// A worker: takes jobs from its lane until the lane is closed and empty.
fn worker(lane: &Lane, metrics: &Metrics) {
    loop {
        let job = {
            let mut q = lock(&lane.queue);
            loop {
                if let Some(j) = q.jobs.pop_front() {
                    break j;
                }
                if q.closed {
                    return;
                }
                q = lane.ready.wait(q).unwrap_or_else(|e| e.into_inner());
            }
        };
        run(job, metrics);
    }
}

fn run(job: Job, metrics: &Metrics) {
    if job.abandoned() {
        return;
    }
    let Work { engine, task, cand } = &job.work;
    let entry = if Instant::now() >= job.deadline {
        timed_out(engine.profile(), &cand.id, &cand.task, job.lane.spec.timeout)
    } else {
        let scored = catch_unwind(AssertUnwindSafe(|| engine.score_task(task, cand)));
        let entry = scored.unwrap_or_else(|_| {
            tracing::error!(task = %cand.task, id = %cand.id, "scoring panicked");
            unsettled_entry(
                engine.profile(),
                &cand.id,
                &cand.task,
                Reason::new(
                    "internal-error",
                    "scoring this item failed; the error is in the service's log",
                ),
            )
        });
        metrics.observe_computed(&entry);
        entry
    };
    // Every waiter but the last gets a copy; the last gets the entry itself.
    let mut waiters = job.take_waiters();
    if let Some(last) = waiters.pop() {
        for w in waiters {
            let _ = w.send(entry.clone());
        }
        let _ = last.send(entry);
    }
}

/// The key under which identical items share a computation: the profile's hash, the task's
/// content hash and the completion. Within one service these fix every leg's version identity,
/// so two items with the same key have the same entry key.
fn dedupe_key(w: &Work) -> String {
    aorlta_check::hash_parts([
        w.engine.profile().hash.as_bytes(),
        w.task.hash.as_bytes(),
        w.cand.completion.as_bytes(),
    ])
}

/// An entry whose every leg is unsettled with one reason (a time-out, an internal failure).
pub(crate) fn unsettled_entry(profile: &LoadedProfile, id: &str, task: &str, reason: Reason) -> RewardEntry {
    let legs = profile
        .profile
        .legs
        .iter()
        .map(|l| LegResult {
            informational: l.informational,
            ..LegResult::with_state(&l.name, &l.adapter, LegState::Unsettled, reason.clone())
        })
        .collect();
    RewardEntry {
        legs,
        reward_fn: profile.profile.reward_fn.clone(),
        version: VersionIdentity {
            aorlta: aorlta_core::AORLTA_VERSION.to_string(),
            profile: profile.hash.clone(),
            legs: Default::default(),
        },
        ..RewardEntry::error(id, task, &profile.profile.name, reason)
    }
}

/// The entry of an item that passed its time limit.
pub(crate) fn timed_out(profile: &LoadedProfile, id: &str, task: &str, limit: Duration) -> RewardEntry {
    let mut e = unsettled_entry(
        profile,
        id,
        task,
        Reason::new(
            "timed-out",
            format!(
                "not finished within the item time limit of {:.3} s",
                limit.as_secs_f64()
            ),
        ),
    );
    e.elapsed_s = limit.as_secs_f64();
    e
}

#[cfg(test)]
mod tests;
