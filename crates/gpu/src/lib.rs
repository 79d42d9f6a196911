//! The AORLTA kernel harness: built from a task alone, it loads the reference's and the
//! candidate's code objects through the driver's module API, finds each kernel by its mangled
//! signature (or `extern "C"` name), runs the correctness plan or the per-launch timing plan,
//! and writes a JSON record file, the only thing the service reads from it.
//!
//! The device sits behind [`backend::Backend`]: the CUDA driver ([`cuda`], loaded dynamically,
//! so this builds and its tests run where there is no CUDA) or the CPU-simulated fake device
//! ([`fake`]) that CI uses. The plans ([`plan`], [`check`], [`timing`]) are one piece of code for
//! both. [`serve`] is the process loop: one process per leased GPU serving jobs in turn.

pub mod backend;
pub mod check;
pub mod cuda;
pub mod data;
pub mod fake;
pub mod geometry;
pub mod half;
pub mod nvml;
pub mod plan;
pub mod rng;
pub mod serve;
pub mod timing;
