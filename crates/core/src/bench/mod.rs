//! Measurements behind AORLTA's speed goals. Each runs on the calling thread and returns a
//! report whose `Display` is a small table; the targets under `benches/` load their workloads
//! and print these reports. Goals are shown by printed figures, never asserted by timed tests.

pub mod kernels;
pub mod qa;

pub use kernels::PoolReport;
pub use qa::{QaBenchReport, builtin_pairs, load_pairs, run_qa};
