//! The kernel adapters (`kernel-compile`, `kernel-run`, `kernel-time`) and their environment.
//!
//! (In progress.)

use super::Registry;

/// Kernel tools: compiler, harness binary, GPU leases.
#[derive(Debug, Default)]
pub struct KernelEnv {}

/// Registers the kernel adapters.
pub fn register(_registry: &mut Registry) {}
