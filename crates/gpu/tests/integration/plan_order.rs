//! The per-launch protocol, read from the fake device's call log.

use crate::common::*;
use aorlta_gpu::backend::{EventSlot, ModuleId};
use aorlta_gpu::fake::Call;
use aorlta_record::kernel::fake::FakeBehaviour;
use std::collections::HashSet;

/// Splits the log of a timing job into launch steps: from a module load to its unload.
fn steps(log: &[Call]) -> Vec<Vec<Call>> {
    let mut out = Vec::new();
    let mut cur: Option<Vec<Call>> = None;
    for c in log {
        match c {
            Call::LoadModule(_) => cur = Some(vec![c.clone()]),
            Call::UnloadModule(_) => {
                if let Some(mut s) = cur.take() {
                    s.push(c.clone());
                    out.push(s);
                }
            }
            _ => {
                if let Some(s) = cur.as_mut() {
                    s.push(c.clone());
                }
            }
        }
    }
    out
}

#[test]
fn every_timed_launch_follows_the_protocol() {
    let pairs = 12;
    let (rec, b) = run(&image(FakeBehaviour::Correct, 1.0, false), time_work(pairs));
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    let t = rec.time.as_ref().unwrap();
    assert_eq!(t.pairs.len(), pairs);
    assert_eq!(t.verified_launches, 2 * pairs);
    let all = steps(&b.log);
    // Two probes (reference, candidate), then one step per launch.
    assert_eq!(all.len(), 2 + 2 * pairs);
    let launches: Vec<&Vec<Call>> = all
        .iter()
        .filter(|s| s.iter().any(|c| matches!(c, Call::Launch(_))))
        .collect();
    assert_eq!(launches.len(), 2 * pairs);
    let flush_words = (t.l2_flush_bytes / 4) as usize;
    assert!(t.l2_flush_bytes >= 2 * rec.device.as_ref().unwrap().l2_bytes);
    let mut modules = HashSet::new();
    for s in &launches {
        let Call::LoadModule(m) = s[0] else {
            panic!("a step starts with a load")
        };
        assert!(modules.insert(m), "module instance {m:?} reused");
        let kinds: Vec<String> = s
            .iter()
            .map(|c| match c {
                Call::LoadModule(_) => "load".to_string(),
                Call::Function(..) => "function".into(),
                Call::CopyH2D(..) => "h2d".into(),
                Call::ResetL2 => "reset-l2".into(),
                Call::MemsetD32(_, n) if *n == flush_words => "flush".into(),
                Call::Sync => "sync".into(),
                Call::Record(EventSlot::Start) => "start".into(),
                Call::Launch(l) => {
                    assert_eq!(*l, m, "launches the fresh instance");
                    "launch".into()
                }
                Call::Record(EventSlot::Stop) => "stop".into(),
                Call::WaitStop => "wait".into(),
                Call::Elapsed => "elapsed".into(),
                Call::CopyD2H(..) => "d2h".into(),
                Call::UnloadModule(u) => {
                    assert_eq!(*u, m);
                    "unload".into()
                }
                other => format!("{other:?}"),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "load", "function", "h2d", "h2d", "h2d", "reset-l2", "flush", "sync", "start", "launch",
                "stop", "wait", "sync", "elapsed", "d2h", "d2h", "d2h", "unload"
            ],
            "step {kinds:?}"
        );
    }
    // The order within each pair follows the seeded order, and both orders occur.
    let firsts: Vec<bool> = launches
        .chunks(2)
        .map(|p| {
            p[0].iter()
                .any(|c| matches!(c, Call::Function(_, s) if s == "vector_add"))
        })
        .collect();
    let recorded: Vec<bool> = t.pairs.iter().map(|p| p.candidate_first).collect();
    assert_eq!(firsts, recorded);
    assert!(recorded.iter().any(|x| *x) && recorded.iter().any(|x| !*x));
}

#[test]
fn inputs_are_restored_every_launch_with_fresh_values_every_pair() {
    let (rec, b) = run(&image(FakeBehaviour::Correct, 1.0, false), time_work(10));
    assert!(rec.findings.is_empty());
    // Every buffer of every launch is uploaded whole (guards included) before the launch and
    // read back whole after the stop event.
    let a_bytes = 4096 * 4 + 2 * aorlta_gpu::data::GUARD_BYTES;
    let h2d = b
        .log
        .iter()
        .filter(|c| matches!(c, Call::CopyH2D(_, n) if *n == a_bytes))
        .count();
    let d2h = b
        .log
        .iter()
        .filter(|c| matches!(c, Call::CopyD2H(_, n) if *n == a_bytes))
        .count();
    assert_eq!(h2d, 3 * 20);
    assert_eq!(d2h, 3 * 20);
}

#[test]
fn correctness_scrubs_the_reference_outputs_before_the_candidate_runs() {
    let (rec, b) = run(&image(FakeBehaviour::Correct, 1.0, false), check_work());
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    assert_eq!(rec.check.as_ref().unwrap().cases.len(), 6);
    // One module instance per kernel for the whole job.
    let loads: Vec<ModuleId> = b
        .log
        .iter()
        .filter_map(|c| {
            if let Call::LoadModule(m) = c {
                Some(*m)
            } else {
                None
            }
        })
        .collect();
    assert_eq!(loads.len(), 4, "two probes and one instance each");
    // Between a reference launch and the next candidate launch, the reference's buffers are
    // read back and then re-filled.
    let launches: Vec<usize> = b
        .log
        .iter()
        .enumerate()
        .filter(|(_, c)| matches!(c, Call::Launch(_)))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(launches.len(), 12);
    for pair in launches.chunks(2) {
        let between = &b.log[pair[0]..pair[1]];
        let d2h = between
            .iter()
            .position(|c| matches!(c, Call::CopyD2H(..)))
            .unwrap();
        let refill = between
            .iter()
            .rposition(|c| matches!(c, Call::CopyH2D(..)))
            .unwrap();
        assert!(d2h < refill);
        assert_eq!(
            between.iter().filter(|c| matches!(c, Call::CopyH2D(..))).count(),
            6,
            "ref refill + cand upload"
        );
    }
}
