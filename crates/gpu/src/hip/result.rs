//! Calls into the runtime as results: a failed call's code read as what it means to the harness
//! (a fault, out of memory, a code object not for this device), and the runtime's queries as
//! `Result`s (the `result` layer, over [`super::sys`]).

use super::sys::*;
use crate::backend::{BackendError, ErrorKind, gpu_uuid};
use aorlta_record::{DeviceInfo, HarnessError};
use std::ffi::{CStr, c_int};

/// Errors that leave the device unusable: prior launch failure, uncorrectable ECC, illegal
/// address, launch timeout, context destroyed, device assert, launch failure, unknown, and the
/// HSA runtime's own (1052, 1053).
pub(super) fn is_fault(c: c_int) -> bool {
    matches!(c, 53 | 214 | 700 | 702 | 709 | 710 | 719 | 999 | 1052 | 1053)
}

/// What a failed call's code means: a fault, out of memory, a code object that is not for this
/// device (invalid image 200, no binary for the GPU 209, invalid kernel file 218, invalid source
/// 300, symbol not found 302), or anything else.
pub(super) fn kind_of(c: c_int) -> ErrorKind {
    if is_fault(c) {
        ErrorKind::Fault
    } else if c == err::OUT_OF_MEMORY {
        ErrorKind::OutOfMemory
    } else if matches!(c, 200 | 209 | 218 | 300 | 302) {
        ErrorKind::BadImage
    } else {
        ErrorKind::Driver
    }
}

/// A failed runtime call: which, and its code.
#[derive(Debug, Clone, Copy)]
pub(super) struct Failed {
    pub(super) call: &'static str,
    pub(super) code: HipError,
}

pub(super) fn check(call: &'static str, code: HipError) -> Result<(), Failed> {
    if code == err::SUCCESS {
        Ok(())
    } else {
        Err(Failed { call, code })
    }
}

impl Api {
    pub(super) fn classify(&self, f: Failed) -> BackendError {
        BackendError {
            kind: kind_of(f.code),
            call: f.call,
            detail: self.describe(f.code),
        }
    }

    pub(super) fn harness_error(&self, code: &str, f: Failed) -> HarnessError {
        HarnessError {
            code: code.to_string(),
            detail: format!("{}: {}: {}", self.path, f.call, self.describe(f.code)),
        }
    }

    pub(super) fn attribute(&self, dev: c_int, a: c_int) -> Result<i32, Failed> {
        let mut v: c_int = 0;
        // SAFETY: writes one int; `dev` is a device ordinal below the device count.
        check("hipDeviceGetAttribute", unsafe {
            (self.device_get_attribute)(&mut v, a, dev)
        })?;
        Ok(v)
    }

    /// `hipInit` and the device count; no device is a `no-gpu` error.
    pub(super) fn devices(&self) -> Result<c_int, HarnessError> {
        // SAFETY: flags must be 0.
        check("hipInit", unsafe { (self.init)(0) }).map_err(|f| self.harness_error("no-gpu", f))?;
        let mut n: c_int = 0;
        // SAFETY: writes one int.
        let rc = unsafe { (self.get_device_count)(&mut n) };
        let f = Failed {
            call: "hipGetDeviceCount",
            code: rc,
        };
        match rc {
            err::SUCCESS if n > 0 => Ok(n),
            err::SUCCESS => Err(no_gpu(format!("{}: no HIP device visible", self.path))),
            err::NO_DEVICE => Err(self.harness_error("no-gpu", f)),
            _ => Err(self.harness_error("driver-error", f)),
        }
    }

    pub(super) fn describe_device(&self, index: u32) -> Result<DeviceInfo, Failed> {
        let mut dev: c_int = 0;
        // SAFETY: writes one int; the ordinal was checked against the device count.
        check("hipDeviceGet", unsafe {
            (self.device_get)(&mut dev, index as c_int)
        })?;
        let mut name = [0u8; 256];
        // SAFETY: the buffer holds `len` bytes.
        check("hipDeviceGetName", unsafe {
            (self.device_get_name)(name.as_mut_ptr().cast(), name.len() as c_int, dev)
        })?;
        let mut uuid = [0u8; 16];
        let have_uuid = self.device_get_uuid.is_some_and(|f| {
            // SAFETY: `hipUUID` is 16 bytes.
            unsafe { f(&mut uuid, dev) == err::SUCCESS }
        });
        let mut bus = [0u8; 64];
        // SAFETY: the buffer holds `len` bytes.
        check("hipDeviceGetPCIBusId", unsafe {
            (self.device_get_pci_bus_id)(bus.as_mut_ptr().cast(), bus.len() as c_int, dev)
        })?;
        let mut version: c_int = 0;
        // SAFETY: writes one int.
        check("hipDriverGetVersion", unsafe {
            (self.driver_get_version)(&mut version)
        })?;
        let mut total: usize = 0;
        // SAFETY: writes one size_t.
        check("hipDeviceTotalMem", unsafe {
            (self.device_total_mem)(&mut total, dev)
        })?;
        let a = |x| self.attribute(dev, x).map(|v| v.max(0) as u32);
        // gcnArch major and minor (gfx90a: 9, 0); [0, 0] where the runtime does not say.
        let capability = match (
            self.attribute(dev, attr::COMPUTE_CAPABILITY_MAJOR),
            self.attribute(dev, attr::COMPUTE_CAPABILITY_MINOR),
        ) {
            (Ok(major), Ok(minor)) => [major, minor],
            _ => [0, 0],
        };
        Ok(DeviceInfo {
            index,
            backend: "hip".into(),
            name: c_text(&name),
            uuid: device_uuid(have_uuid.then_some(&uuid), &c_text(&bus)),
            driver: format!("hip-runtime-{version}"),
            cuda_driver_api: 0,
            compute_capability: capability,
            sm_count: a(attr::MULTIPROCESSOR_COUNT)?,
            l2_bytes: u64::from(a(attr::L2_CACHE_SIZE)?),
            // AMD has no persisting L2.
            persisting_l2_max_bytes: 0,
            persisting_l2_set_aside_bytes: None,
            total_mem_bytes: total as u64,
            max_threads_per_block: a(attr::MAX_THREADS_PER_BLOCK)?,
            max_block: [
                a(attr::MAX_BLOCK_DIM_X)?,
                a(attr::MAX_BLOCK_DIM_Y)?,
                a(attr::MAX_BLOCK_DIM_Z)?,
            ],
            max_grid: [
                a(attr::MAX_GRID_DIM_X)?,
                a(attr::MAX_GRID_DIM_Y)?,
                a(attr::MAX_GRID_DIM_Z)?,
            ],
            // AMD has no opt-in: a block may use all of its LDS (64 KiB on CDNA 2 and 3).
            max_shared_optin: a(attr::MAX_SHARED_MEMORY_PER_BLOCK)?,
            // Set by the callers, who know it: the runtime's attributes do not name it.
            arch: None,
        })
    }
}

/// A NUL-terminated string in a buffer the runtime filled.
pub(super) fn c_text(buf: &[u8]) -> String {
    CStr::from_bytes_until_nul(buf)
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_else(|_| String::from_utf8_lossy(buf).into_owned())
}

/// The device's identity: its UUID as `GPU-…`, else `PCI-<bus id>`.
///
/// ROCm's `hipDeviceGetUuid` fills the 16 bytes with the agent's unique id as 16 ASCII hex
/// digits (the body of ROCm's own `GPU-<16 hex digits>`), which is kept as ROCm spells it; 16
/// binary bytes are formatted as the CUDA backend formats them. All zero, an agent without a
/// unique id (ROCm's `GPU-XX`: text that is not 16 hex digits) or no `hipDeviceGetUuid` at all
/// falls back to the PCI bus id, stable for the slot.
pub(super) fn device_uuid(uuid: Option<&[u8; 16]>, pci_bus: &str) -> String {
    match uuid {
        Some(u) if u.iter().all(u8::is_ascii_hexdigit) => {
            format!("GPU-{}", String::from_utf8_lossy(u).to_ascii_lowercase())
        }
        Some(u) if u.iter().any(|&b| !(b == 0 || b.is_ascii_graphic() || b == b' ')) => gpu_uuid(u),
        _ => format!("PCI-{pci_bus}"),
    }
}
