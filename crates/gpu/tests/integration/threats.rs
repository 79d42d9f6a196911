//! Each threat the fake device can play, caught by the plans (not by the fake).

use crate::common::*;
use aorlta_record::FakeBehaviour as F;

fn img(b: F) -> aorlta_record::FakeImage {
    image(b, 1.0, false)
}

#[test]
fn stateful_kernel_fails_correctness_and_gains_nothing_in_timing() {
    let (rec, _) = run(&img(F::StatefulSkip), check_work());
    assert_eq!(codes(&rec), ["candidate:output-mismatch"]);
    // Timing reloads the module for every launch: the counter never passes one, so the
    // kernel does its full work every time and is measured as such.
    let (rec, _) = run(&img(F::StatefulSkip), time_work(20));
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    let t = rec.time.unwrap();
    let ratio: f64 =
        t.pairs.iter().map(|p| p.reference_s / p.candidate_s).sum::<f64>() / t.pairs.len() as f64;
    assert!((ratio - 1.0).abs() < 0.05, "speedup {ratio}");
}

#[test]
fn sentinel_skipping_kernel_is_timed_on_full_work() {
    let (rec, _) = run(&img(F::SentinelSkip), time_work(20));
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    let t = rec.time.unwrap();
    let ratio: f64 =
        t.pairs.iter().map(|p| p.reference_s / p.candidate_s).sum::<f64>() / t.pairs.len() as f64;
    assert!((ratio - 1.0).abs() < 0.05, "speedup {ratio}");
}

#[test]
fn warm_cache_kernel_gains_nothing_from_a_cold_l2() {
    let (rec, _) = run(&image(F::WarmCache, 0.5, false), time_work(20));
    let t = rec.time.unwrap();
    let ratio: f64 =
        t.pairs.iter().map(|p| p.reference_s / p.candidate_s).sum::<f64>() / t.pairs.len() as f64;
    assert!((ratio - 1.0).abs() < 0.05, "speedup {ratio}");
}

#[test]
fn out_of_bounds_write_breaks_a_guard() {
    let (rec, _) = run(&img(F::OobWrite), check_work());
    assert_eq!(codes(&rec), ["candidate:guard-overwritten"]);
    assert_eq!(rec.check.unwrap().cases[0].guards_broken, ["c"]);
    let (rec, _) = run(&img(F::OobWrite), time_work(10));
    assert_eq!(
        codes(&rec),
        ["candidate:timed-launch-mismatch", "candidate:guard-overwritten"]
    );
}

#[test]
fn input_mutation_is_caught() {
    let (rec, _) = run(&img(F::InputMutation), check_work());
    assert_eq!(codes(&rec), ["candidate:input-mutated"]);
    let (rec, _) = run(&img(F::InputMutation), time_work(10));
    assert_eq!(
        codes(&rec),
        ["candidate:timed-launch-mismatch", "candidate:input-mutated"]
    );
}

#[test]
fn hard_coded_size_fails_on_the_other_sizes() {
    let (rec, _) = run(&img(F::HardcodedSize), check_work());
    assert_eq!(codes(&rec), ["candidate:output-mismatch"]);
    let f = &rec.findings[0];
    assert_eq!(f.size, Some(1));
}

#[test]
fn a_kernel_that_ignores_its_inputs_is_wrong() {
    let (rec, _) = run(&img(F::IgnoresInputs), check_work());
    assert_eq!(codes(&rec), ["candidate:output-mismatch"]);
}

#[test]
fn hang_and_fault_lose_the_context() {
    let (rec, b) = run(&img(F::Hang), check_work());
    assert_eq!(codes(&rec), ["candidate:hung"]);
    assert!(rec.context_lost);
    // Nothing that waits for the device follows the hang: no free, no unload, no sync.
    let after = b
        .log
        .iter()
        .rposition(|c| matches!(c, aorlta_gpu::Call::WaitStop))
        .unwrap();
    assert!(
        b.log[after + 1..].is_empty(),
        "calls after the hung launch: {:?}",
        &b.log[after + 1..]
    );
    let (rec, _) = run(&img(F::Fault), check_work());
    assert_eq!(codes(&rec), ["candidate:device-faulted"]);
    assert!(rec.context_lost);
    let (rec, _) = run(&img(F::Fault), time_work(10));
    assert_eq!(codes(&rec), ["candidate:device-faulted"]);
}

#[test]
fn launch_symbol_out_of_bounds_is_refused() {
    let mut i = img(F::Correct);
    i.launch = Some(vec![1 << 30, 1, 1, 256, 1, 1, 0]);
    let (rec, _) = run(&i, check_work());
    assert_eq!(codes(&rec), ["candidate:launch-out-of-bounds"]);
    i.launch = Some(vec![16, 1, 1, 2048, 1, 1, 0]);
    let (rec, _) = run(&i, time_work(10));
    assert_eq!(codes(&rec), ["candidate:launch-out-of-bounds"]);
    // A symbol of the wrong size is refused without reading past it.
    i.launch = Some(vec![1024, 1, 1]);
    let (rec, _) = run(&i, check_work());
    assert_eq!(codes(&rec), ["candidate:launch-out-of-bounds"]);
    assert!(
        rec.findings[0].detail.contains("12 bytes"),
        "{}",
        rec.findings[0].detail
    );
    // A zero dimension is out of bounds.
    i.launch = Some(vec![1024, 1, 1, 0, 1, 1, 0]);
    let (rec, _) = run(&i, check_work());
    assert_eq!(codes(&rec), ["candidate:launch-out-of-bounds"]);
    // A geometry inside the bounds is used.
    i.launch = Some(vec![16, 1, 1, 128, 1, 1, 0]);
    let (rec, _) = run(&i, check_work());
    assert!(rec.findings.is_empty());
    assert!(rec.check.unwrap().cases[0].candidate.from_symbol);
}

#[test]
fn missing_symbol_and_foreign_image_are_the_candidates() {
    let mut i = img(F::Correct);
    i.symbols = vec!["other".into()];
    let (rec, _) = run(&i, check_work());
    assert_eq!(codes(&rec), ["candidate:kernel-not-found"]);
    let dir = tempfile::tempdir().unwrap();
    let mut j = job(dir.path(), &img(F::Correct), check_work());
    std::fs::write(&j.candidate.path, b"\x7fELF not a fake image").unwrap();
    j.id = "x".into();
    let rec = aorlta_gpu::run_job(&mut aorlta_gpu::FakeBackend::new(0), &j);
    assert_eq!(codes(&rec), ["candidate:module-load-failed"]);
}

#[test]
fn a_too_slow_candidate_is_cut_at_its_first_launch() {
    let mut i = img(F::Correct);
    i.fixed_s = Some(1.0);
    // A budget of 5 s for at least 10 pairs: a launch over 0.5 s proves it cannot fit, long
    // before the launch timeout calls it hung.
    let dir = tempfile::tempdir().unwrap();
    let mut j = job(dir.path(), &i, time_work(30));
    j.launch_timeout_s = 3.0;
    let rec = aorlta_gpu::run_job(&mut aorlta_gpu::FakeBackend::new(0), &j);
    assert!(rec.findings.is_empty(), "{:?}", rec.findings);
    assert!(rec.context_lost, "the cut kernel still holds the device");
    let t = rec.time.unwrap();
    assert!(t.cut);
    assert!(t.pairs.is_empty());
    let stop = t.budget_stop.expect("stopped on the budget");
    assert_eq!(stop.launches_done, 0);
    assert!(
        stop.candidate_lower_bound_s >= 0.5,
        "{}",
        stop.candidate_lower_bound_s
    );
    assert!(stop.reference_median_s > 0.0 && stop.reference_median_s < 0.01);
}

#[test]
fn writing_into_the_harness_s_other_allocations_is_caught() {
    let (rec, _) = run(&img(F::Scribble), check_work());
    assert_eq!(codes(&rec), ["candidate:guard-overwritten"]);
    assert!(
        rec.findings[0].detail.contains("other allocations"),
        "{}",
        rec.findings[0].detail
    );
    let (rec, _) = run(&img(F::Scribble), time_work(10));
    assert_eq!(
        codes(&rec),
        ["candidate:timed-launch-mismatch", "candidate:guard-overwritten"]
    );
}

#[test]
fn no_expected_output_is_on_the_device_while_the_candidate_runs() {
    // The kernel copies its expected output from wherever another allocation holds it: it
    // never finds one, in either plan, in either pair order.
    let (rec, _) = run(&img(F::SearchExpected), check_work());
    assert_eq!(codes(&rec), ["candidate:output-mismatch"]);
    let (rec, _) = run(&img(F::SearchExpected), time_work(10));
    assert_eq!(codes(&rec), ["candidate:timed-launch-mismatch"]);
}

#[test]
fn corrupting_the_comparison_s_counters_is_undone_before_the_checks() {
    // The attack is real: counters set by the kernel make the comparison's additions wrap.
    use aorlta_gpu::{Backend, HelperOp};
    use aorlta_record::{Dtype, Tolerance};
    let mut b = aorlta_gpu::FakeBackend::new(0);
    b.load_helpers().unwrap();
    let (e, g, out) = (b.alloc(64).unwrap(), b.alloc(64).unwrap(), b.alloc(24).unwrap());
    let mut words = [0u8; 24];
    // SAFETY: every region lies in the allocations above.
    unsafe {
        b.memset_d32(e, 0x3F80_0000, 16).unwrap();
        b.memset_d32(out, 0, 6).unwrap();
        let wrap = 16u64.wrapping_neg().to_le_bytes();
        let op = HelperOp::Compare {
            expected: e,
            got: g,
            len: 16,
            dtype: Dtype::F32,
            tol: Tolerance::default_for(Dtype::F32),
            out,
        };
        b.helpers(&[op]).unwrap();
        b.copy_d2h(&mut words, out).unwrap();
        assert_eq!(u64::from_le_bytes(words[..8].try_into().unwrap()), 16);
        b.memset_d32(out, 0, 6).unwrap();
        b.memset_d32(out, u32::from_le_bytes(wrap[..4].try_into().unwrap()), 1)
            .unwrap();
        b.memset_d32(out + 4, u32::from_le_bytes(wrap[4..].try_into().unwrap()), 1)
            .unwrap();
        b.helpers(&[op]).unwrap();
        b.copy_d2h(&mut words, out).unwrap();
    }
    assert_eq!(u64::from_le_bytes(words[..8].try_into().unwrap()), 0);
    // The plans zero the counters after the launch: the kernel's wrong outputs are seen.
    let (rec, _) = run(&img(F::CorruptCounters), check_work());
    assert_eq!(codes(&rec), ["candidate:output-mismatch"]);
    assert_eq!(
        rec.findings[0].seed,
        Some(12),
        "the first case had nothing to attack"
    );
    let (rec, _) = run(&img(F::CorruptCounters), time_work(10));
    assert_eq!(codes(&rec), ["candidate:timed-launch-mismatch"]);
    assert_eq!(rec.time.unwrap().pairs.len(), 1, "caught in the second pair");
}

#[test]
fn faster_and_slower_candidates_are_measured_as_such() {
    let (rec, _) = run(&image(F::Correct, 0.5, false), time_work(20));
    let t = rec.time.unwrap();
    let s: f64 = t.pairs.iter().map(|p| p.reference_s / p.candidate_s).sum::<f64>() / 20.0;
    assert!((s - 2.0).abs() < 0.1, "{s}");
    assert!(t.clocks_start.is_some() && !t.throttled);
}

#[test]
fn a_symmetric_timing_catches_every_timing_threat_as_the_default_does() {
    use aorlta_record::Work;
    let symmetric = |pairs| match time_work(pairs) {
        Work::Time(mut w) => {
            w.symmetric = true;
            Work::Time(w)
        }
        _ => unreachable!(),
    };
    for b in [
        F::StatefulSkip,
        F::SentinelSkip,
        F::OobWrite,
        F::InputMutation,
        F::Scribble,
        F::SearchExpected,
        F::CorruptCounters,
        F::Fault,
    ] {
        let (plain, _) = run(&img(b), time_work(12));
        let (sym, _) = run(&img(b), symmetric(12));
        assert_eq!(codes(&sym), codes(&plain), "{b:?}");
        let speedup = |r: &aorlta_record::HarnessRecord| r.time.as_ref().map(|t| t.pairs.len());
        assert_eq!(speedup(&sym), speedup(&plain), "{b:?}: pairs measured");
    }
}
