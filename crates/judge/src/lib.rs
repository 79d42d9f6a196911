//! The timing judge (docs/JUDGE.md): pure statistics over interleaved per-launch times that decide
//! whether a candidate kernel is faster than its reference by a required ratio, and says so only
//! when neither noise nor chance can explain the difference.
//!
//! A speedup `s = median(reference) / median(candidate)` must clear two tests to count: the
//! noise floor (`s >= ratio * (1 + floor)`, the floor being the larger of `min-floor` and both
//! relative raw MADs) and a seeded paired-bootstrap interval of `s` whose lower end clears the same
//! mark, and the pairs themselves must show it: the candidate beats the ratio in so many pairs
//! that an exact sign test rejects "no faster" at the interval's one-sided level (`signs`);
//! `not-faster` mirrors the first two (its interval's upper end at or below the ratio). Everything
//! else that cannot be decided is an unsettled verdict, never a clean one. `docs/JUDGE.md`
//! explains the rules and their reasons.

mod bootstrap;
mod decide;
mod input;
mod measurement;
mod own_noise;
mod params;
mod rng;
mod sample;
mod sequential;
mod signs;
mod sim;
mod sizes;
mod stats;
mod verdict;
mod version;

#[cfg(test)]
mod prop_tests;
#[cfg(test)]
mod simulation_tests;
#[cfg(test)]
mod verdict_tests;

pub use bootstrap::{Interval, percentile_interval, resampled_speedups, speedup_interval, tail_rank};
pub use decide::judge;
pub use input::{Pair, RunFacts, TooSlow, is_valid_time};
pub use measurement::Measurement;
pub use params::{DEFAULT_SEED, JudgeParams, MIN_RESAMPLES, ParamsError};
pub use rng::{SeededRng, seeded};
pub use sample::{PairedSample, Sample, SampleError};
pub use sequential::{DEFAULT_LOOKS, Looked, judge_looks, looks_for, per_look, settled};
pub use signs::{Beats, beats_ratio};
pub use sim::{Noise, Scenario, aa_scenarios};
pub use sizes::{SizeRun, judge_sizes};
pub use stats::{Summary, mad, median, median_in_place, summarize};
pub use verdict::Verdict;
pub use version::JUDGE_VERSION;
