//! The HIP backend for AMD GPUs, on HIP's module API (`hipModuleLoadData`,
//! `hipModuleLaunchKernel` …): the runtime library `libamdhip64` is opened at run time with
//! `libloading`, so nothing here links ROCm and the crate builds and its tests run where there
//! is none. A missing library, a missing symbol or no device is an error, never a panic.
//!
//! One device, made current with `hipSetDevice` on the thread that creates the backend (HIP's
//! current device is per thread; the backend holds raw handles, so it is neither `Send` nor
//! `Sync` and stays on that thread), the null stream, two timing events with default flags,
//! pageable host memory only. AMD has no persisting L2 and no NVML: those parts are no-ops.
//!
//! A code object is a clang offload bundle (`hipcc --genco`) or a plain AMDGPU ELF; the
//! harness's own device code is built for the device's `gfx…` architecture ([`offload_arch`],
//! [`crate::helpers`]). On AMD a kernel's memory fault usually ends the whole process from
//! inside the runtime (its queue error handler aborts), so a fault may show as a harness that
//! died rather than as a record saying `context_lost`.

mod backend;
mod result;
mod sys;
mod topology;

pub(crate) use backend::HipBackend;
pub use topology::list_devices;

#[cfg(test)]
mod tests;
