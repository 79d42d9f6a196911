//! The lanes AORLTA ships and their adapters: what a run knows by name unless it is given others.

use aorlta_check::{Lanes, Registry};
use std::sync::Arc;

/// The lanes AORLTA ships, by name: Q&A (`aorlta-answer`) and kernels (`aorlta-kernel`).
pub fn lanes() -> Lanes {
    Lanes::default()
        .with(Arc::new(aorlta_answer::QaLane))
        .with(Arc::new(aorlta_kernel::KernelLane))
}

/// Every adapter AORLTA ships: `parse` over its lanes and each lane's own.
pub fn adapters() -> Registry {
    lanes().adapters()
}
