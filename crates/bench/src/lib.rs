//! Measurements behind AORLTA's speed goals. Each runs on the calling thread and returns a
//! report whose `Display` is a small table; the targets under `benches/` load their workloads
//! and print these reports, and `aorlta bench` drives them. Goals are shown by printed figures,
//! never asserted by timed tests.
//!
//! One module per benchmark, private, with the names used outside listed here: `qa` (answer
//! extraction and comparison, and a corpus scored end to end), `score` (the scoring run as a
//! child process, its workload and costs), `serve` (the HTTP load generator), `soak` (the
//! service's memory and work folder sampled under load), `kernels` (a kernel pool's run read
//! from its rewards) and `percentile`, the one percentile of them all.

mod kernels;
mod percentile;
mod qa;
mod score;
mod serve;
mod soak;

pub use kernels::{PoolReport, Stage};
pub use percentile::percentile;
pub use qa::corpus::{CorpusLine, CorpusRun, Verdict, read_corpus, score_corpus};
pub use qa::{CaseTiming, MIN_MEASURE, Outcomes, QaBenchReport, builtin_pairs, load_pairs, run_qa};
pub use score::{
    ProcessCost, ScoreBenchReport, StoreRow, Workload, compare_rewards, load_average, run_cache_counts,
    run_measured, write_workload,
};
pub use serve::{LoadReport, Sample, get_text, metric, pool_samples, run_load, score_bodies, task_samples};
pub use soak::{HalfMax, SoakReport, SoakRow, children_rss_kib, folder_size, rss_kib, soak_load};
