//! The per-launch protocol, read from the fake device's call log.

use crate::common::*;
use aorlta_gpu::COUNTER_WORDS;
use aorlta_gpu::Call;
use aorlta_gpu::{EventSlot, HelperOp, ModuleId};
use aorlta_record::FakeBehaviour;
use std::collections::{HashMap, HashSet};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Who {
    Candidate,
    Reference,
}

/// One launch as the log shows it, with what happened around it.
#[derive(Debug)]
struct Launch {
    who: Who,
    module: ModuleId,
    /// Index in the log.
    at: usize,
    helpers_loaded: bool,
    /// L2 reset and at least `flush_words` words written since the previous launch.
    cold: bool,
}

fn read(log: &[Call], flush_words: usize) -> Vec<Launch> {
    let mut who: HashMap<ModuleId, Who> = HashMap::new();
    let mut helpers = false;
    let (mut reset, mut flushed) = (false, false);
    let mut out = Vec::new();
    for (i, c) in log.iter().enumerate() {
        match c {
            Call::Function(m, s) if s == "vector_add" => {
                who.insert(*m, Who::Candidate);
            }
            Call::Function(m, s) if s == MANGLED => {
                who.insert(*m, Who::Reference);
            }
            Call::LoadHelpers => helpers = true,
            Call::UnloadHelpers => helpers = false,
            Call::ResetL2 => {
                reset = true;
                flushed = false;
            }
            Call::MemsetD32(_, n) if *n >= flush_words => flushed = true,
            Call::Launch(m) => {
                assert_eq!(log[i - 1], Call::Record(EventSlot::Start), "timed alone");
                assert_eq!(log[i + 1], Call::Record(EventSlot::Stop), "timed alone");
                out.push(Launch {
                    who: who[m],
                    module: *m,
                    at: i,
                    helpers_loaded: helpers,
                    cold: reset && flushed,
                });
                reset = false;
                flushed = false;
            }
            _ => {}
        }
    }
    out
}

fn is_counter_reset(c: &Call) -> bool {
    matches!(c, Call::MemsetD32(_, n) if *n == COUNTER_WORDS * 2)
}

fn is_check(c: &Call) -> bool {
    matches!(
        c,
        Call::Helper(HelperOp::CheckGuard { .. } | HelperOp::CheckData { .. } | HelperOp::Compare { .. })
    )
}

#[test]
fn every_timed_launch_follows_the_protocol() {
    let pairs = 12;
    let (rec, b) = run(&image(FakeBehaviour::Correct, 1.0, false), time_work(pairs));
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    let t = rec.time.as_ref().unwrap();
    assert_eq!(t.pairs.len(), pairs);
    assert_eq!(t.verified_launches, 2 * pairs);
    assert!(t.l2_flush_bytes >= 2 * rec.device.as_ref().unwrap().l2_bytes);
    let flush_words = (t.l2_flush_bytes / 4) as usize;
    let launches = read(&b.log, flush_words);
    let cand: Vec<&Launch> = launches.iter().filter(|l| l.who == Who::Candidate).collect();
    assert_eq!(cand.len(), pairs);
    // A calibration launch, one timed reference launch per pair, and an untimed one after the
    // candidate in every pair where the reference went first.
    let ref_first = t.pairs.iter().filter(|p| !p.candidate_first).count();
    assert!(ref_first > 0 && ref_first < pairs, "both orders occur");
    assert_eq!(launches.len() - pairs, 1 + pairs + ref_first);
    let mut modules = HashSet::new();
    for l in &launches {
        assert!(modules.insert(l.module), "module instance {:?} reused", l.module);
        let unloads = b.log[l.at..]
            .iter()
            .filter(|c| **c == Call::UnloadModule(l.module))
            .count();
        assert_eq!(unloads, 1, "every instance is unloaded once");
    }
    for l in &cand {
        assert!(l.cold, "the candidate starts with a cold L2");
        assert!(
            !l.helpers_loaded,
            "the harness's device code is not in memory while it runs"
        );
        // After it: the device code loaded afresh, the counters zeroed, then the checks.
        let after = &b.log[l.at..];
        let load = after.iter().position(|c| *c == Call::LoadHelpers).unwrap();
        let zero = after.iter().position(is_counter_reset).unwrap();
        let check = after.iter().position(is_check).unwrap();
        assert!(
            load < zero && zero < check,
            "load {load}, zero {zero}, check {check}"
        );
    }
    // Both sides reach their timed launch alike: the L2 flush is the last call before the start
    // event (a module load between them left the GPU idle before the reference's event only, and
    // the host's launch latency counted in the reference's time).
    for l in launches.iter().filter(|l| l.cold) {
        assert!(
            matches!(&b.log[l.at - 2], Call::MemsetD32(_, n) if *n >= flush_words),
            "{:?} launch at {}: {:?} between the flush and the start event",
            l.who,
            l.at,
            &b.log[l.at.saturating_sub(6)..l.at]
        );
    }
    // Every comparison uses a reference output made after the candidate's launch: between a
    // candidate launch and the comparison that follows it, a reference launch.
    for l in &cand {
        let after = &b.log[l.at..];
        let cmp = after
            .iter()
            .position(|c| matches!(c, Call::Helper(HelperOp::Compare { .. })))
            .unwrap();
        assert!(
            launches
                .iter()
                .any(|r| r.who == Who::Reference && r.at > l.at && r.at < l.at + cmp),
            "no reference launch between a candidate launch and its comparison"
        );
    }
    // The pair order recorded is the order launched.
    let timed_ref: Vec<&Launch> = launches
        .iter()
        .filter(|l| l.who == Who::Reference && l.cold)
        .skip(1)
        .collect();
    assert_eq!(timed_ref.len(), pairs);
    for (k, p) in t.pairs.iter().enumerate() {
        assert_eq!(p.candidate_first, cand[k].at < timed_ref[k].at, "pair {k}");
    }
}

#[test]
fn every_pair_draws_fresh_inputs_on_the_device() {
    let (rec, b) = run(&image(FakeBehaviour::Correct, 1.0, false), time_work(10));
    assert!(rec.findings.is_empty());
    // Nothing but counters and single elements crosses to the host.
    for c in &b.log {
        if let Call::CopyD2H(_, n) = c {
            assert!(*n <= COUNTER_WORDS * 8, "a read of {n} bytes");
        }
    }
    let mut keys = HashSet::new();
    for c in &b.log {
        if let Call::Helper(HelperOp::FillData {
            fill: aorlta_gpu::Fill::Input { key, .. },
            ..
        }) = c
        {
            keys.insert(*key);
        }
    }
    // Two inputs per pair, eleven seeds (ten pairs and the calibration launch).
    assert_eq!(keys.len(), 2 * 11);
}

#[test]
fn correctness_makes_the_expected_output_after_the_candidate_ran() {
    let (rec, b) = run(&image(FakeBehaviour::Correct, 1.0, false), check_work());
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    assert_eq!(rec.check.as_ref().unwrap().cases.len(), 6);
    let launches = read(&b.log, usize::MAX);
    let cand: Vec<&Launch> = launches.iter().filter(|l| l.who == Who::Candidate).collect();
    let refs: Vec<&Launch> = launches.iter().filter(|l| l.who == Who::Reference).collect();
    assert_eq!((cand.len(), refs.len()), (6, 6));
    // One candidate instance for the whole job (a stateful kernel shows), a fresh reference
    // instance per case, each launched after the candidate's.
    assert!(cand.iter().all(|l| l.module == cand[0].module));
    let fresh: HashSet<ModuleId> = refs.iter().map(|l| l.module).collect();
    assert_eq!(fresh.len(), 6);
    for (c, r) in cand.iter().zip(&refs) {
        assert!(!c.helpers_loaded);
        assert!(c.at < r.at);
        let loaded = b.log[..c.at]
            .iter()
            .rposition(|x| *x == Call::LoadModule(r.module));
        assert!(
            loaded.is_none(),
            "the reference was loaded before the candidate ran"
        );
    }
}

#[test]
fn a_timing_stops_at_the_first_look_that_settles_its_verdict() {
    use aorlta_record::Work;
    let judged = |speed: f64| {
        let mut w = time_work(30);
        if let Work::Time(t) = &mut w {
            t.looks = vec![10, 16, 24, 30];
            t.judge = serde_json::json!({"ratio": 1.1});
        }
        run(&image(FakeBehaviour::Correct, speed, false), w).0
    };
    // As fast: settled at the first look (not faster). Twice as fast: at the first look whose
    // sign test can show it (every one of 16 pairs faster; ten signs are never enough).
    for (speed, look) in [(1.0, 10), (0.5, 16)] {
        let rec = judged(speed);
        assert!(rec.findings.is_empty(), "{:?}", rec.findings);
        let t = rec.time.unwrap();
        assert_eq!(t.settled_at, Some(look), "speed {speed}");
        assert_eq!(t.pairs.len(), look);
    }
    // Without judge parameters the timing runs to its last pair.
    let (rec, _) = run(&image(FakeBehaviour::Correct, 0.5, false), time_work(30));
    let t = rec.time.unwrap();
    assert_eq!((t.settled_at, t.pairs.len()), (None, 30));
}

#[test]
fn an_inout_buffer_is_timed_without_blaming_the_candidate() {
    // `c` read and updated in place: when the reference runs first in a pair, its set is scrubbed
    // back to the drawn input (not the sentinel), which is what the untouched check and the
    // reference's second run both expect.
    let dir = tempfile::tempdir().unwrap();
    let mut j = job(
        dir.path(),
        &image(FakeBehaviour::Correct, 1.0, false),
        time_work(20),
    );
    j.task.buffers[2].role = aorlta_record::Role::Inout;
    let mut b = aorlta_gpu::FakeBackend::new(0);
    let rec = aorlta_gpu::run_job(&mut b, &j);
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    assert_eq!(rec.time.unwrap().pairs.len(), 20);
}

#[test]
fn with_a_seed_per_family_every_size_draws_every_family_of_every_input() {
    // The run leg asks for at least as many seeds per size as an input has families
    // (`aorlta_kernel`'s `seeds_for`); the plan then gives each size consecutive turns of each
    // input's rotation, so no family meets only some sizes.
    let task = task();
    let families: Vec<Vec<_>> = task
        .buffers
        .iter()
        .filter(|b| b.role != aorlta_record::Role::Out)
        .map(aorlta_record::allowed_families)
        .collect();
    let seeds = families.iter().map(Vec::len).max().unwrap() as u64;
    let work = aorlta_record::Work::Check(aorlta_record::CheckWork {
        sizes: vec![0, 1, 2],
        seeds: (0..seeds).map(|s| 0xF00D + s).collect(),
    });
    let (rec, _) = run(&image(FakeBehaviour::Correct, 1.0, false), work);
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    let cases = rec.check.unwrap().cases;
    assert_eq!(cases.len() as u64, 3 * seeds);
    for size in 0..3 {
        for (b, allowed) in ["a", "b"].iter().zip(&families) {
            let drawn: HashSet<_> = cases
                .iter()
                .filter(|c| c.size == size)
                .map(|c| c.families[*b])
                .collect();
            assert_eq!(drawn.len(), allowed.len(), "size {size}, input {b}: {drawn:?}");
        }
    }
}

fn symmetric_time_work(pairs: usize) -> aorlta_record::Work {
    match time_work(pairs) {
        aorlta_record::Work::Time(mut w) => {
            w.symmetric = true;
            aorlta_record::Work::Time(w)
        }
        _ => unreachable!(),
    }
}

#[test]
fn a_symmetric_timing_gives_both_sides_the_same_conditions() {
    let pairs = 16;
    let (rec, b) = run(
        &image(FakeBehaviour::Correct, 1.0, false),
        symmetric_time_work(pairs),
    );
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    let t = rec.time.as_ref().unwrap();
    assert_eq!(t.pairs.len(), pairs);
    let flush_words = (t.l2_flush_bytes / 4) as usize;
    let launches = read(&b.log, flush_words);
    // Every timed launch, of either side, starts cold with the harness's device code unloaded.
    let timed: Vec<&Launch> = launches.iter().filter(|l| l.cold).collect();
    assert_eq!(timed.len(), 2 * pairs + 1, "the calibration and two per pair");
    for l in &timed {
        assert!(
            !l.helpers_loaded,
            "{:?} timed with the harness's code loaded",
            l.who
        );
    }
    // The candidate ran in both buffer sets, and in every pair the two sides used different sets.
    let set_of: HashMap<ModuleId, u64> = b.launch_buffers.iter().copied().collect();
    let cand_sets: HashSet<u64> = launches
        .iter()
        .filter(|l| l.who == Who::Candidate)
        .map(|l| set_of[&l.module])
        .collect();
    assert_eq!(cand_sets.len(), 2, "the candidate's set is drawn per pair");
    let timed_ref: Vec<&&Launch> = timed.iter().filter(|l| l.who == Who::Reference).skip(1).collect();
    let cand: Vec<&Launch> = launches.iter().filter(|l| l.who == Who::Candidate).collect();
    for (k, (c, r)) in cand.iter().zip(&timed_ref).enumerate() {
        assert_ne!(
            set_of[&c.module], set_of[&r.module],
            "pair {k}: both sides in one set"
        );
    }
    // The order within pairs is the same as without the symmetry (a stream of its own).
    let (plain, _) = run(&image(FakeBehaviour::Correct, 1.0, false), time_work(pairs));
    let order = |r: &aorlta_record::HarnessRecord| -> Vec<bool> {
        r.time
            .as_ref()
            .unwrap()
            .pairs
            .iter()
            .map(|p| p.candidate_first)
            .collect()
    };
    assert_eq!(order(&rec), order(&plain));
}

#[test]
fn without_symmetry_the_reference_is_timed_with_the_harness_code_loaded_in_its_own_set() {
    // What the symmetric timing changes, seen on the default protocol: the asymmetry exists.
    let (rec, b) = run(&image(FakeBehaviour::Correct, 1.0, false), time_work(12));
    let t = rec.time.as_ref().unwrap();
    let flush_words = (t.l2_flush_bytes / 4) as usize;
    let launches = read(&b.log, flush_words);
    let set_of: HashMap<ModuleId, u64> = b.launch_buffers.iter().copied().collect();
    let refs: Vec<&Launch> = launches
        .iter()
        .filter(|l| l.who == Who::Reference && l.cold)
        .collect();
    assert!(refs.iter().all(|l| l.helpers_loaded));
    let cand_sets: HashSet<u64> = launches
        .iter()
        .filter(|l| l.who == Who::Candidate)
        .map(|l| set_of[&l.module])
        .collect();
    assert_eq!(cand_sets.len(), 1);
}
