//! The kernel adapters and their environment: `kernel-compile` (leg `compile`), `kernel-run`
//! (leg `ref.native`, correctness) and `kernel-time` (leg `ref.speedup`, timing), with the
//! compiler driver ([`nvcc`]), the compiler's sandbox ([`sandbox`]), what of its output a client
//! may read ([`diagnostic`]), the source policy ([`policy`]), the harness processes
//! ([`pool`]), the GPU leases ([`lease`]) and the fake device's behaviours
//! ([`fake`]). A run config's `kernel:` section ([`KernelConfig`]) builds the [`KernelEnv`] that
//! every leg shares.

pub mod amdgpu;
pub mod compile;
pub mod compile_cache;
pub mod config;
pub mod diagnostic;
pub mod direct;
pub mod elf;
pub mod env;
pub mod exec;
pub mod fake;
pub mod hip;
pub mod lease;
pub mod nvcc;
pub mod policy;
pub mod pool;
pub mod run;
pub mod sandbox;
pub mod time;

pub use compile::KernelCompile;
pub use config::{GpuSet, KernelConfig, Platform};
pub use env::{KernelEnv, KernelOverrides, KernelTools, env_of, env_with_kernel};
pub use run::KernelRun;
pub use time::KernelTime;

use aorlta_check::Registry;
use std::sync::Arc;

/// Registers the kernel adapters.
pub fn register(registry: &mut Registry) {
    registry.add(Arc::new(KernelCompile));
    registry.add(Arc::new(KernelRun));
    registry.add(Arc::new(KernelTime));
}

#[cfg(test)]
mod tests;
