//! Several timed sizes: each size is judged on its own pairs, and one verdict is given on the
//! geometric mean of their speedups, `G = exp(mean_k ln s_k)`, so that a kernel tuned to one
//! shape and no faster at the others is rewarded for the mean, not for its best shape.
//!
//! The rules, in order (docs/JUDGE.md, "Several timed sizes"):
//! 1. a size whose verdict is the candidate's own fault (`too-slow-to-measure`,
//!    `candidate-noisy`) gives the whole verdict: the candidate cannot be measured there;
//! 2. a size that could not be judged (`too-few`, `invalid`, `noisy`) gives the whole verdict,
//!    unsettled: a mean over a size without a speedup is no mean;
//! 3. otherwise the rules 6 to 8 of a single size, applied to `G`: the floor is the largest of
//!    the sizes' floors; the interval is a stratified paired bootstrap (each size's pairs
//!    resampled on their own, the resampled speedups combined as `G` is); and `faster` also
//!    needs the exact sign test over tuples (the `j`-th pair of every size): a tuple beats the
//!    ratio when the geometric mean of its pairs' speedups does.

use super::bootstrap::{percentile_interval, resampled_speedups};
use super::input::Pair;
use super::measurement::Measurement;
use super::params::JudgeParams;
use super::sample::PairedSample;
use super::signs::beats_ratio;
use super::verdict::Verdict;

/// One timed size's run: its index among the task's sizes, its pairs, and the judge's
/// measurement of them.
#[derive(Debug, Clone)]
pub struct SizeRun {
    /// The size's index among the task's sizes.
    pub size: usize,
    /// The interleaved per-launch times of this size.
    pub pairs: Vec<Pair>,
    /// The judge's measurement of these pairs.
    pub measurement: Measurement,
}

/// The verdict of rule 1 or 2: that size's measurement, its sentence saying which size.
fn from_one_size(run: &SizeRun, count: usize) -> Measurement {
    let mut m = run.measurement.clone();
    m.detail = format!("at size {} (of {count} timed): {}", run.size, m.detail);
    m
}

fn geomean(values: impl Iterator<Item = f64>) -> f64 {
    let (sum, n) = values.fold((0.0, 0usize), |(s, n), v| (s + v.ln(), n + 1));
    (sum / n.max(1) as f64).exp()
}

/// The tuples of the sign test: the `j`-th valid pair of every size, as one pair whose
/// `reference / candidate` is the geometric mean of theirs (as many tuples as the shortest size
/// has pairs).
fn tuples(valid: &[Vec<Pair>]) -> Vec<Pair> {
    let n = valid.iter().map(Vec::len).min().unwrap_or(0);
    (0..n)
        .map(|j| {
            Pair::new(
                1.0,
                geomean(valid.iter().map(|v| v[j].reference / v[j].candidate)),
            )
        })
        .collect()
}

/// Judges several sizes' runs as one (the module's rules). `p` is what the geometric mean is
/// judged with (the timing leg passes its per-look parameters, the strictest it used). One run
/// gives its own measurement unchanged.
pub fn judge_sizes(runs: &[SizeRun], p: &JudgeParams) -> Measurement {
    let count = runs.len();
    if count == 1 {
        return runs[0].measurement.clone();
    }
    let own_fault = |v: Verdict| matches!(v, Verdict::TooSlowToMeasure | Verdict::CandidateNoisy);
    if let Some(r) = runs.iter().find(|r| own_fault(r.measurement.verdict)) {
        return from_one_size(r, count);
    }
    let decided = |v: Verdict| matches!(v, Verdict::Faster | Verdict::NotFaster | Verdict::WithinNoise);
    if let Some(r) = runs
        .iter()
        .find(|r| !decided(r.measurement.verdict) || r.measurement.s.is_none())
    {
        return from_one_size(r, count);
    }
    let valid: Vec<Vec<Pair>> = runs
        .iter()
        .map(|r| r.pairs.iter().copied().filter(Pair::is_valid).collect())
        .collect();
    let samples: Option<Vec<PairedSample>> = valid.iter().map(|v| PairedSample::from_pairs(v).ok()).collect();
    let Some(samples) = samples.filter(|_| p.validate().is_ok()) else {
        return base(
            runs,
            p,
            Verdict::Invalid,
            "cannot judge the sizes together: a size has no usable pairs or the parameters are \
             out of range"
                .into(),
        );
    };
    let s = geomean(runs.iter().filter_map(|r| r.measurement.s));
    let floor = runs
        .iter()
        .filter_map(|r| r.measurement.floor)
        .fold(p.min_floor, f64::max);
    let each = runs
        .iter()
        .map(|r| {
            format!(
                "size {}: s = {:.4} {}",
                r.size,
                r.measurement.s.unwrap_or(f64::NAN),
                r.measurement.verdict.code()
            )
        })
        .collect::<Vec<_>>()
        .join(", ");
    let up = p.ratio * (1.0 + floor);
    let down = p.ratio / (1.0 + floor);
    let head = format!(
        "geometric mean over {count} sizes s = {s:.4} ({each}) at ratio {} with floor {:.1}%",
        p.ratio,
        100.0 * floor
    );
    let mut m = base(runs, p, Verdict::WithinNoise, String::new());
    m.s = Some(s);
    m.floor = Some(floor);
    if s < up && s > down {
        m.detail = format!("{head}: s is inside the floor band [{down:.4}, {up:.4}]");
        return m;
    }
    // The stratified bootstrap: resample b of every size, combined as the point estimate is.
    let per_size: Vec<Vec<f64>> = samples
        .iter()
        .enumerate()
        .map(|(k, sample)| resampled_speedups(sample, p.resamples, p.seed.wrapping_add(k as u64)))
        .collect();
    let resamples = per_size.iter().map(Vec::len).min().unwrap_or(0);
    let combined: Vec<f64> = (0..resamples)
        .map(|b| geomean(per_size.iter().map(|v| v[b])))
        .collect();
    let iv = percentile_interval(combined, p.confidence);
    m.ci_low = Some(iv.low);
    m.ci_high = Some(iv.high);
    let conf = format!(
        "{}% interval [{:.4}, {:.4}]",
        100.0 * p.confidence,
        iv.low,
        iv.high
    );
    if s >= up && iv.low <= up {
        m.detail = format!("{head}: s clears {up:.4} but the {conf} does not");
    } else if s >= up {
        let level = (1.0 - p.confidence) / 2.0;
        let signs = beats_ratio(&tuples(&valid), p.ratio);
        let but = if signs.p_value <= level {
            m.verdict = Verdict::Faster;
            "and"
        } else {
            "but only"
        };
        m.detail = format!(
            "{head}: s and the whole {conf} clear {up:.4}, {but} {} of {} tuples of one pair per \
             size beat the ratio (sign test p = {:.2e}, level {level:e})",
            signs.beat, signs.pairs, signs.p_value
        );
    } else if iv.high <= p.ratio {
        m.verdict = Verdict::NotFaster;
        m.detail = format!("{head}: s is below {down:.4} and the {conf} stays at or below the ratio");
    } else {
        m.detail = format!("{head}: s is below {down:.4} but the {conf} reaches above the ratio");
    }
    m.state = m.verdict.state();
    m
}

/// The combined record's common fields: counts summed, per-size statistics left to the sizes'
/// own records.
fn base(runs: &[SizeRun], p: &JudgeParams, verdict: Verdict, detail: String) -> Measurement {
    Measurement {
        judge_version: super::version::JUDGE_VERSION.to_string(),
        verdict,
        state: verdict.state(),
        detail,
        pairs: runs.iter().map(|r| r.pairs.len()).sum(),
        valid_pairs: runs.iter().map(|r| r.measurement.valid_pairs).sum(),
        median_candidate: None,
        median_reference: None,
        mad_candidate: None,
        mad_reference: None,
        rel_mad_candidate: None,
        rel_mad_reference: None,
        floor: None,
        s: None,
        ci_low: None,
        ci_high: None,
        s_upper_bound: None,
        params: p.clone(),
        throttled: runs.iter().any(|r| r.measurement.throttled),
        too_slow: None,
        samples: None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::decide::judge;
    use super::super::input::RunFacts;
    use super::super::rng::seeded;
    use super::super::sim::{Noise, Scenario, aa_scenarios};
    use super::*;

    fn run(size: usize, sc: &Scenario, n: usize, seed: u64, p: &JudgeParams) -> SizeRun {
        let pairs = sc.pairs(n, &mut seeded(seed));
        let measurement = judge(&pairs, &RunFacts::default(), p);
        SizeRun {
            size,
            pairs,
            measurement,
        }
    }

    fn speedup(reference: Noise, factor: f64) -> Scenario {
        Scenario {
            candidate: reference.scaled(1.0 / factor),
            reference,
            drift_sigma: 0.005,
            resolution_s: 0.0,
        }
    }

    #[test]
    fn one_size_is_its_own_verdict_unchanged() {
        let p = JudgeParams::default();
        let r = run(0, &speedup(Noise::quiet(100e-6, 0.02), 1.5), 30, 1, &p);
        let m = judge_sizes(std::slice::from_ref(&r), &p);
        assert_eq!(
            serde_json::to_value(&m).unwrap(),
            serde_json::to_value(&r.measurement).unwrap()
        );
    }

    #[test]
    fn a_kernel_fast_at_one_size_only_gets_the_geometric_mean() {
        let p = JudgeParams::default();
        let fast = run(0, &speedup(Noise::quiet(100e-6, 0.01), 2.0), 30, 2, &p);
        let same = run(1, &speedup(Noise::quiet(400e-6, 0.01), 1.0), 30, 3, &p);
        assert_eq!(fast.measurement.verdict, Verdict::Faster);
        let m = judge_sizes(&[fast.clone(), same], &p);
        let s = m.s.unwrap();
        assert!((s - 2f64.sqrt()).abs() < 0.05, "{s}: {}", m.detail);
        assert!(s < fast.measurement.s.unwrap() - 0.4, "{s}");
        assert_eq!(m.verdict, Verdict::Faster, "{}", m.detail);
        assert!(m.ci_low.unwrap() > 1.1 && m.ci_high.unwrap() < 1.6, "{m:?}");
        assert!(
            m.detail.contains("size 0: s = 1.99") && m.detail.contains("size 1: s = 0.99"),
            "{}",
            m.detail
        );
    }

    #[test]
    fn faster_at_one_size_and_slower_at_the_other_is_not_faster_overall() {
        let p = JudgeParams::default();
        let fast = run(0, &speedup(Noise::quiet(100e-6, 0.01), 1.3), 30, 4, &p);
        let slow = run(2, &speedup(Noise::quiet(400e-6, 0.01), 0.6), 30, 5, &p);
        let m = judge_sizes(&[fast, slow], &p);
        assert_eq!(m.verdict, Verdict::NotFaster, "{}", m.detail);
        assert!((m.s.unwrap() - (1.3f64 * 0.6).sqrt()).abs() < 0.03, "{:?}", m.s);
        assert_eq!(m.state.as_str(), "broke");
    }

    #[test]
    fn a_size_the_candidate_cannot_be_measured_at_decides_then_an_unjudged_size() {
        let p = JudgeParams::default();
        let fast = run(0, &speedup(Noise::quiet(100e-6, 0.01), 2.0), 30, 6, &p);
        let mut noisy = run(1, &speedup(Noise::quiet(100e-6, 0.01), 1.0), 30, 7, &p);
        noisy.measurement.verdict = Verdict::Noisy;
        noisy.measurement.state = Verdict::Noisy.state();
        let m = judge_sizes(&[fast.clone(), noisy.clone()], &p);
        assert_eq!(m.verdict, Verdict::Noisy);
        assert!(m.detail.starts_with("at size 1 (of 2 timed): "), "{}", m.detail);
        let mut own = run(2, &speedup(Noise::quiet(100e-6, 0.01), 1.0), 30, 8, &p);
        own.measurement.verdict = Verdict::CandidateNoisy;
        own.measurement.state = Verdict::CandidateNoisy.state();
        let m = judge_sizes(&[fast, noisy, own], &p);
        assert_eq!(m.verdict, Verdict::CandidateNoisy, "its own fault comes first");
        assert!(m.detail.starts_with("at size 2 (of 3 timed): "), "{}", m.detail);
    }

    #[test]
    fn aa_runs_over_two_and_three_sizes_are_never_faster_at_ratio_one() {
        let p = JudgeParams {
            ratio: 1.0,
            ..JudgeParams::default()
        };
        let scenarios = aa_scenarios();
        let mut decided = 0;
        let trials = 300;
        for t in 0..trials {
            let k = 2 + t % 2;
            let runs: Vec<SizeRun> = (0..k)
                .map(|i| {
                    let (_, sc) = &scenarios[(t + i) % scenarios.len()];
                    run(i, sc, 30, 10_000 + (t * 7 + i) as u64, &p)
                })
                .collect();
            let m = judge_sizes(&runs, &p);
            assert_ne!(m.verdict, Verdict::Faster, "trial {t}: {}", m.detail);
            decided += matches!(m.verdict, Verdict::NotFaster | Verdict::WithinNoise) as usize;
        }
        assert!(
            decided >= trials * 9 / 10,
            "{decided} of {trials} reached the last rules"
        );
    }
}
