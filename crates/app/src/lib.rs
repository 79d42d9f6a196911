//! AORLTA's application layer: one module per command over the engine (`aorlta-core`). A scoring
//! run (`score`: a pool through the engine, in parallel, resumable, summarised), its offline
//! episode replay, the comparison of two pools (`eval`, with its plots), the harness validation
//! suite (`validate`), the datasets a run config can name (JSONL and Parquet), `timecheck`, the
//! check of kernel task files (`task check`), the benchmarks that drive the binary or the
//! engine (`bench kernels`, `bench score`, `bench serve`, `bench soak`; their measurement
//! machinery is `aorlta-bench`'s) and the summary of a kernel-lane timeline (`timeline`). The
//! command line parses arguments and prints what these return; the service links none of it
//! (no Parquet, no plots).

mod bench_kernels;
mod bench_score;
mod bench_serve;
mod bench_soak;
mod config;
mod dataset;
mod episodes;
mod eval;
mod generated_set;
mod inspect;
mod plot;
mod score;
mod service;
mod summary;
mod task_check;
mod timecheck;
mod timeline;
mod validation;

pub use bench_kernels::{KernelBench, Measured, PoolBench, PoolRun, Say, bench_kernels, bench_pool};
pub use bench_score::{BenchStore, ScoreBench, ScoreBenchRun, bench_score};
pub use bench_serve::{
    SERVE_GOAL_ITEMS_PER_S, SERVE_GOAL_P99_MS, ServeBench, ServeBenchReport, ServeBenchRun,
    prepare_serve_bench,
};
pub use bench_soak::{SoakBench, SoakRun};
pub use config::{
    MAX_CONCURRENCY, OneOrMany, PARTIAL_REWARDS_FILE, REWARDS_FILE, RunConfig, concurrency_problem,
    run_outputs,
};
pub use dataset::{Columns, DatasetMode, DatasetSpec};
pub use episodes::{ReplayReport, ReplayedTurn, replay};
pub use eval::{
    Compared, Estimate, FAST_P, PoolFigures, RESAMPLES, figures, side_config, side_entries, table,
    write_comparison,
};
pub use generated_set::write_generated_set;
pub use inspect::run_sources;
pub use plot::{Series, histogram_svg};
pub use score::{LOCK_FILE, PreparedRun, RunReport, execute, prepare};
pub use summary::{FAKE_GPU_NOTICE, StateCounts, Summary};
pub use task_check::{
    AaTiming, CheckParams, FAKE, NOT_RUN, STEPS, TaskCheck, TaskCheckReport, TaskCheckRun, TaskCheckStart,
    check_task, check_task_on_fake, prepare_task_check,
};
pub use timecheck::{
    FAKE_TIMES, TimecheckRow, Timed, detail_num, fmt_num, shutdown, time_params, time_pool, time_source,
    timecheck_summary,
};
pub use timeline::timeline_summary;
pub use validation::{
    Case, CaseResult, Expect, OneOf, Options, RewardExpect, Suite, Unavailable, Validation,
};
