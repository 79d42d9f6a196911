//! The queue's behaviour on a real engine: sharing, whole-batch admission, lanes, time-outs.

use super::*;
use aorlta_check::TaskSet;
use aorlta_core::EngineParts;
use aorlta_record::QaTask;

const PROFILE: &str = "name: qa\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n  \
    - {name: ref.normalised, adapter: normalised-match, needs: [parse], on-broke: -0.5}\n";

fn engine() -> Arc<Engine> {
    engine_with(PROFILE, EngineParts::default())
}

fn engine_with(profile: &str, parts: EngineParts) -> Arc<Engine> {
    let profile = LoadedProfile::from_yaml(
        profile,
        std::path::Path::new("p.yaml"),
        &parts.adapters,
        &parts.rewards,
    )
    .unwrap();
    Arc::new(Engine::new(profile, Arc::new(TaskSet::default()), parts))
}

fn work(engine: &Arc<Engine>, id: &str, completion: &str) -> Work {
    let task = aorlta_answer::qa_task(QaTask {
        id: "t".into(),
        prompt: "1+1?".into(),
        answer: "2".into(),
    });
    Work {
        engine: Arc::clone(engine),
        task: Arc::new(task),
        cand: Candidate {
            id: id.into(),
            task: "t".into(),
            completion: completion.into(),
        },
    }
}

fn lane(capacity: usize, timeout: Duration) -> LaneSpec {
    LaneSpec {
        workers: 1,
        capacity,
        timeout,
    }
}

#[tokio::test]
async fn identical_items_share_one_computation_and_keep_their_ids() {
    let metrics = Arc::new(Metrics::default());
    let s = Scheduler::start(
        lane(10, Duration::from_secs(30)),
        lane(1, Duration::from_secs(1)),
        Arc::clone(&metrics),
    )
    .unwrap();
    let e = engine();
    let waiters = s
        .submit(vec![
            work(&e, "a", "\\boxed{2}"),
            work(&e, "b", "\\boxed{2}"),
            work(&e, "c", "\\boxed{3}"),
        ])
        .unwrap();
    assert_eq!(
        waiters.iter().map(Waiter::shared).collect::<Vec<_>>(),
        [false, true, false]
    );
    let mut out = Vec::new();
    for w in waiters {
        out.push(w.wait().await);
    }
    assert_eq!(
        out.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["a", "b", "c"]
    );
    assert_eq!(out[0].legs, out[1].legs);
    assert_eq!(metrics.computed(), 2);
    s.shutdown();
    assert_eq!(s.depths()[0].1, 0, "finished work frees its place");
}

#[tokio::test]
async fn a_full_lane_refuses_whole_batches() {
    let metrics = Arc::new(Metrics::default());
    let s = Scheduler::start(
        lane(3, Duration::from_secs(30)),
        lane(1, Duration::from_secs(1)),
        metrics,
    )
    .unwrap();
    let e = engine();
    let too_big: Vec<Work> = (0..4).map(|i| work(&e, "x", &format!("{i}"))).collect();
    assert!(matches!(
        s.submit(too_big),
        Err(SubmitError::TooLarge {
            adding: 4,
            capacity: 3,
            ..
        })
    ));
    // Identical items share one computation but each takes its own place (a waiting item
    // holds memory too): ten copies do not fit a lane of three, three do.
    let copies: Vec<Work> = (0..10).map(|_| work(&e, "x", "same")).collect();
    assert!(matches!(
        s.submit(copies),
        Err(SubmitError::TooLarge {
            adding: 10,
            capacity: 3,
            ..
        })
    ));
    let copies: Vec<Work> = (0..3).map(|_| work(&e, "x", "same")).collect();
    let waiters = s.submit(copies).unwrap();
    assert_eq!(waiters.len(), 3);
    for w in waiters {
        assert_eq!(w.wait().await.legs.len(), 2);
    }
    // Every place is given back once the shared computation ends.
    let deadline = Instant::now() + Duration::from_secs(5);
    while s.depths()[0].1 != 0 && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(
        s.depths()[0].1,
        0,
        "the shared computation frees all three places"
    );
    s.shutdown();
    assert!(matches!(
        s.submit(vec![work(&e, "x", "late")]),
        Err(SubmitError::Closed)
    ));
}

#[tokio::test]
async fn kernel_items_wait_in_their_own_lane() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels/tasks");
    let (tasks, _) = TaskSet::load(&dir.join("vector_add.yaml"), &aorlta_core::lanes()).unwrap();
    let kernel = Arc::clone(tasks.get("vector_add").unwrap());
    assert_eq!(LaneKind::of(&kernel), LaneKind::Kernel);
    let s = Scheduler::start(
        lane(8, Duration::from_secs(30)),
        lane(1, Duration::from_secs(30)),
        Arc::new(Metrics::default()),
    )
    .unwrap();
    let e = engine();
    let kernel_work = |c: &str| Work {
        task: Arc::clone(&kernel),
        ..work(&e, "k", c)
    };
    // Two kernel items never fit a kernel lane of one, whatever the Q&A lane holds.
    let err = s.submit(vec![kernel_work("a"), kernel_work("b"), work(&e, "q", "x")]);
    assert!(
        matches!(err, Err(SubmitError::TooLarge { lane: "kernel", .. })),
        "{:?}",
        err.err()
    );
    let waiters = s.submit(vec![kernel_work("a"), work(&e, "q", "x")]).unwrap();
    for w in waiters {
        assert_eq!(w.wait().await.legs.len(), 2);
    }
    s.shutdown();
}

#[test]
fn a_timed_out_entry_lists_every_leg_unsettled() {
    let e = engine();
    let t = timed_out(e.profile(), "i", "t", Duration::from_millis(250));
    assert!(!t.scored && t.reward.is_none() && t.parts.is_none());
    assert_eq!(t.reasons[0].code, "timed-out");
    assert_eq!(t.legs.len(), 2);
    assert!(
        t.legs
            .iter()
            .all(|l| l.state == LegState::Unsettled && l.reasons[0].code == "timed-out")
    );
    assert_eq!(t.version.profile, e.profile().hash);
}

/// An adapter that holds its worker for a while: a lane that stays full.
struct Sleepy;

impl aorlta_check::Adapter for Sleepy {
    fn name(&self) -> &'static str {
        "sleepy"
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn check_params(&self, _params: &serde_json::Value) -> Result<(), String> {
        Ok(())
    }
    fn run(&self, _input: &aorlta_check::LegInput<'_>) -> aorlta_check::LegOutput {
        std::thread::sleep(Duration::from_millis(1500));
        aorlta_check::LegOutput::clean()
    }
}

#[tokio::test]
async fn a_batch_waits_for_room_until_its_deadline_and_no_longer() {
    let mut parts = EngineParts::default();
    parts.adapters.add(Arc::new(Sleepy));
    let e = engine_with(
        "name: slow\nlegs:\n  - {name: nap, adapter: sleepy, on-broke: -1.0}\n",
        parts,
    );
    let s = Scheduler::start(
        lane(1, Duration::from_secs(30)),
        lane(1, Duration::from_secs(1)),
        Arc::new(Metrics::default()),
    )
    .unwrap();
    // One item holds the lane's only place for 1.5 s.
    let first = s.submit(vec![work(&e, "a", "one")]).unwrap();
    // A batch that may wait 300 ms is refused after 300 ms, not at once and not later.
    let t0 = tokio::time::Instant::now();
    let refused = s
        .submit_until(vec![work(&e, "b", "two")], t0 + Duration::from_millis(300))
        .await;
    let waited = t0.elapsed();
    assert!(
        matches!(refused, Err(SubmitError::Overloaded { .. })),
        "{:?}",
        refused.err()
    );
    assert!(
        waited >= Duration::from_millis(300) && waited < Duration::from_millis(1200),
        "waited {waited:?}"
    );
    // One that may wait 5 s gets the place when the first item leaves.
    let later = s
        .submit_until(vec![work(&e, "c", "three")], t0 + Duration::from_secs(5))
        .await
        .unwrap();
    assert!(t0.elapsed() >= Duration::from_millis(1400), "{:?}", t0.elapsed());
    for w in first.into_iter().chain(later) {
        assert!(w.wait().await.scored);
    }
    s.shutdown();
}
