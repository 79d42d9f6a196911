//! One job, start to record: the format check, then the correctness plan ([`crate::check`]),
//! the timing plan ([`crate::timing`]), a task's tolerance sanity ([`crate::sanity`]) or one
//! launch for a profiler ([`crate::launch_once`]), the
//! findings and the device gathered into the record.

use crate::backend::Backend;
use crate::plan::Runner;
use aorlta_judge::{JudgeParams, Pair, RunFacts};
use aorlta_record::{HARNESS_FORMAT, HarnessJob, HarnessRecord, Party, TimeWork, TimedPair, Work};
use std::time::Instant;

/// The judge's question at each look of a timing job: do the pairs so far settle the verdict?
/// Asked with the facts the harness has then (no throttle seen, not too slow); a job whose
/// judge parameters do not read never stops early, and the timing leg's own judging says why.
pub(crate) fn settle_rule(w: &TimeWork) -> impl Fn(&[TimedPair]) -> bool + use<> {
    let params: Option<JudgeParams> = serde_json::from_value(w.judge.clone()).ok();
    let looks = w.looks.clone();
    move |pairs: &[TimedPair]| {
        let Some(p) = &params else { return false };
        let pairs: Vec<Pair> = pairs
            .iter()
            .map(|q| Pair::new(q.candidate_s, q.reference_s))
            .collect();
        aorlta_judge::settled(&pairs, &RunFacts::default(), p, &looks)
    }
}

/// Runs one job and returns its record.
pub fn run_job<B: Backend>(backend: &mut B, job: &HarnessJob) -> HarnessRecord {
    let start = Instant::now();
    let seed = match &job.work {
        Work::Check(w) => w.seeds.first().copied().unwrap_or(0),
        Work::Time(w) => w.order_seed ^ w.input_seed.rotate_left(17),
        Work::Sanity(w) => w.seed,
        Work::Launch(w) => w.seed,
    };
    backend.begin_job(seed);
    let mut r = Runner {
        b: backend,
        job,
        findings: Vec::new(),
        context_lost: false,
        helpers_loaded: false,
        phases: Default::default(),
        pending: Vec::new(),
    };
    let mut check = None;
    let mut time = None;
    let mut sanity = None;
    let mut launch = None;
    if job.format.major != HARNESS_FORMAT.major {
        r.finding(
            Party::Harness,
            "bad-job",
            format!(
                "job format {}.{}; this harness reads {}.x",
                job.format.major, job.format.minor, HARNESS_FORMAT.major
            ),
        );
    } else {
        match &job.work {
            Work::Check(w) => check = Some(crate::check::run(&mut r, w)),
            Work::Time(w) => {
                let settled = settle_rule(w);
                time = crate::timing::run(&mut r, w, &settled);
            }
            Work::Sanity(w) => sanity = Some(crate::sanity::run(&mut r, w)),
            Work::Launch(w) => launch = crate::launch_once::run(&mut r, w),
        }
    }
    let _ = r.helpers_off();
    let device = Some(r.b.device().clone());
    crate::profile::end_job(job.work.kind(), start.elapsed().as_secs_f64());
    HarnessRecord {
        format: HARNESS_FORMAT,
        job: job.id.clone(),
        device,
        findings: r.findings,
        context_lost: r.context_lost,
        check,
        time,
        sanity,
        launch,
        elapsed_s: start.elapsed().as_secs_f64(),
    }
}
