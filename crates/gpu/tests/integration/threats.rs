//! Each threat the fake device can play, caught by the plans (not by the fake).

use crate::common::*;
use aorlta_record::kernel::fake::FakeBehaviour as F;

fn img(b: F) -> aorlta_record::kernel::fake::FakeImage {
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
        .rposition(|c| matches!(c, aorlta_gpu::fake::Call::WaitStop))
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
    let rec = aorlta_gpu::plan::run_job(&mut aorlta_gpu::fake::FakeBackend::new(0), &j);
    assert_eq!(codes(&rec), ["candidate:module-load-failed"]);
}

#[test]
fn a_too_slow_candidate_stops_the_loop_early() {
    let mut i = img(F::Correct);
    i.fixed_s = Some(1.0);
    let (rec, _) = run(&i, time_work(30));
    let t = rec.time.unwrap();
    let stop = t.budget_stop.expect("stopped on the budget");
    assert_eq!(stop.launches_done, 1);
    assert!(stop.candidate_lower_bound_s > 0.9);
    assert!(t.pairs.len() < 10);
}

#[test]
fn faster_and_slower_candidates_are_measured_as_such() {
    let (rec, _) = run(&image(F::Correct, 0.5, false), time_work(20));
    let t = rec.time.unwrap();
    let s: f64 = t.pairs.iter().map(|p| p.reference_s / p.candidate_s).sum::<f64>() / 20.0;
    assert!((s - 2.0).abs() < 0.1, "{s}");
    assert!(t.clocks_start.is_some() && !t.throttled);
}
