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

use crate::backend::{
    Backend, BackendError, DevPtr, ErrorKind, EventSlot, FuncId, HelperOp, KernelArg, ModuleId, Wait,
    aligned_image, c_symbol, gpu_uuid, poll_until,
};
use crate::batch::{BatchRepr, THREADS_PER_BLOCK, not_loaded};
use aorlta_record::kernel::harness::{Clocks, DeviceInfo, Geometry, HarnessError};
use libloading::Library;
use std::collections::HashMap;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `hipError_t`.
type HipError = c_int;
/// `hipModule_t`, `hipFunction_t`, `hipEvent_t`, `hipStream_t`, `hipDeviceptr_t`: opaque
/// pointers.
type Handle = *mut c_void;

/// `hipError_t` values this backend tells apart. Taken from the header (Debian's ROCm 5.2
/// `/usr/include/hip/hip_runtime_api.h`); every value there is explicit and unchanged in ROCm 6.
mod err {
    use std::ffi::c_int;
    pub(super) const SUCCESS: c_int = 0;
    pub(super) const OUT_OF_MEMORY: c_int = 2;
    pub(super) const NO_DEVICE: c_int = 100;
    pub(super) const NOT_FOUND: c_int = 500;
    pub(super) const NOT_READY: c_int = 600;
    pub(super) const LAUNCH_FAILURE: c_int = 719;
}

/// `hipDeviceAttribute_t` values, from the same header (where they are implicit: counted by
/// compiling it). They keep their positions in ROCm 6, which only renamed retired entries to
/// `hipDeviceAttributeUnusedN` and appended new ones.
mod attr {
    use std::ffi::c_int;
    pub(super) const L2_CACHE_SIZE: c_int = 19;
    pub(super) const COMPUTE_CAPABILITY_MAJOR: c_int = 23;
    pub(super) const MAX_BLOCK_DIM_X: c_int = 26;
    pub(super) const MAX_BLOCK_DIM_Y: c_int = 27;
    pub(super) const MAX_BLOCK_DIM_Z: c_int = 28;
    pub(super) const MAX_GRID_DIM_X: c_int = 29;
    pub(super) const MAX_GRID_DIM_Y: c_int = 30;
    pub(super) const MAX_GRID_DIM_Z: c_int = 31;
    pub(super) const MAX_THREADS_PER_BLOCK: c_int = 56;
    pub(super) const COMPUTE_CAPABILITY_MINOR: c_int = 61;
    pub(super) const MULTIPROCESSOR_COUNT: c_int = 63;
    pub(super) const MAX_SHARED_MEMORY_PER_BLOCK: c_int = 74;
}

/// Errors that leave the device unusable: prior launch failure, uncorrectable ECC, illegal
/// address, launch timeout, context destroyed, device assert, launch failure, unknown, and the
/// HSA runtime's own (1052, 1053).
fn is_fault(c: c_int) -> bool {
    matches!(c, 53 | 214 | 700 | 702 | 709 | 710 | 719 | 999 | 1052 | 1053)
}

/// What a failed call's code means: a fault, out of memory, a code object that is not for this
/// device (invalid image 200, no binary for the GPU 209, invalid kernel file 218, invalid source
/// 300, symbol not found 302), or anything else.
fn kind_of(c: c_int) -> ErrorKind {
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

/// `hipEventCreateWithFlags` where the library has it, else `hipEventCreate`.
#[derive(Clone, Copy)]
enum EventCreate {
    WithFlags(unsafe extern "C" fn(*mut Handle, c_uint) -> HipError),
    Plain(unsafe extern "C" fn(*mut Handle) -> HipError),
}

type LaunchFn = unsafe extern "C" fn(
    Handle,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    c_uint,
    Handle,
    *mut *mut c_void,
    *mut *mut c_void,
) -> HipError;

/// The opened runtime library and the entry points the backend calls (signatures as in
/// `hip_runtime_api.h`; `hipDevice_t` is an `int`).
struct Api {
    /// Which library was opened.
    path: String,
    init: unsafe extern "C" fn(c_uint) -> HipError,
    get_device_count: unsafe extern "C" fn(*mut c_int) -> HipError,
    device_get: unsafe extern "C" fn(*mut c_int, c_int) -> HipError,
    device_get_name: unsafe extern "C" fn(*mut c_char, c_int, c_int) -> HipError,
    device_get_uuid: Option<unsafe extern "C" fn(*mut [u8; 16], c_int) -> HipError>,
    device_get_pci_bus_id: unsafe extern "C" fn(*mut c_char, c_int, c_int) -> HipError,
    device_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, c_int) -> HipError,
    device_total_mem: unsafe extern "C" fn(*mut usize, c_int) -> HipError,
    driver_get_version: unsafe extern "C" fn(*mut c_int) -> HipError,
    set_device: unsafe extern "C" fn(c_int) -> HipError,
    module_load_data: unsafe extern "C" fn(*mut Handle, *const c_void) -> HipError,
    module_unload: unsafe extern "C" fn(Handle) -> HipError,
    module_get_function: unsafe extern "C" fn(*mut Handle, Handle, *const c_char) -> HipError,
    module_get_global: unsafe extern "C" fn(*mut Handle, *mut usize, Handle, *const c_char) -> HipError,
    module_launch_kernel: LaunchFn,
    malloc: unsafe extern "C" fn(*mut Handle, usize) -> HipError,
    free: unsafe extern "C" fn(Handle) -> HipError,
    memcpy_dtoh: unsafe extern "C" fn(*mut c_void, Handle, usize) -> HipError,
    memset_d32: unsafe extern "C" fn(Handle, c_int, usize) -> HipError,
    event_create: EventCreate,
    event_record: unsafe extern "C" fn(Handle, Handle) -> HipError,
    event_query: unsafe extern "C" fn(Handle) -> HipError,
    event_elapsed_time: unsafe extern "C" fn(*mut f32, Handle, Handle) -> HipError,
    event_destroy: unsafe extern "C" fn(Handle) -> HipError,
    device_synchronize: unsafe extern "C" fn() -> HipError,
    get_error_name: unsafe extern "C" fn(HipError) -> *const c_char,
    get_error_string: unsafe extern "C" fn(HipError) -> *const c_char,
    /// Kept open for the process: the entry points above point into it.
    _lib: Library,
}

/// Where the runtime library is looked for, in order: `$ROCM_PATH/lib`, `/opt/rocm/lib`, then
/// the loader's search path by soname.
pub fn library_candidates() -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(root) = std::env::var_os("ROCM_PATH").filter(|r| !r.is_empty()) {
        out.push(Path::new(&root).join("lib/libamdhip64.so"));
    }
    out.push(PathBuf::from("/opt/rocm/lib/libamdhip64.so"));
    for soname in [
        "libamdhip64.so",
        "libamdhip64.so.7",
        "libamdhip64.so.6",
        "libamdhip64.so.5",
    ] {
        out.push(PathBuf::from(soname));
    }
    out
}

/// One entry point, copied out of the library.
///
/// # Safety
/// `T` is the function-pointer type of the symbol's C signature.
unsafe fn sym<T: Copy>(lib: &Library, path: &str, name: &str) -> Result<T, String> {
    let c = format!("{name}\0");
    // SAFETY: the caller promises `T` matches the symbol.
    unsafe { lib.get::<T>(c.as_bytes()) }
        .map(|s| *s)
        .map_err(|e| format!("{path} has no {name}: {e}"))
}

impl Api {
    /// Opens the first candidate that loads and takes its entry points. `Err` names every
    /// candidate tried and why it failed, or the entry point that is missing.
    fn open(candidates: &[PathBuf]) -> Result<Api, String> {
        let mut tried = Vec::new();
        for c in candidates {
            // SAFETY: loading the vendor's runtime runs its initialisers, which is what using it
            // means; nothing else is loaded.
            match unsafe { Library::new(c) } {
                Ok(lib) => return Api::take(lib, c.display().to_string()),
                Err(e) => tried.push(format!("{} ({e})", c.display())),
            }
        }
        Err(format!(
            "no HIP runtime library (libamdhip64.so) could be opened; tried: {}",
            tried.join("; ")
        ))
    }

    fn take(lib: Library, path: String) -> Result<Api, String> {
        let p = path.as_str();
        // SAFETY: every type below is the C signature of the named symbol in
        // `hip_runtime_api.h`, the same in ROCm 5 and 6.
        unsafe {
            Ok(Api {
                init: sym(&lib, p, "hipInit")?,
                get_device_count: sym(&lib, p, "hipGetDeviceCount")?,
                device_get: sym(&lib, p, "hipDeviceGet")?,
                device_get_name: sym(&lib, p, "hipDeviceGetName")?,
                device_get_uuid: sym(&lib, p, "hipDeviceGetUuid").ok(),
                device_get_pci_bus_id: sym(&lib, p, "hipDeviceGetPCIBusId")?,
                device_get_attribute: sym(&lib, p, "hipDeviceGetAttribute")?,
                device_total_mem: sym(&lib, p, "hipDeviceTotalMem")?,
                driver_get_version: sym(&lib, p, "hipDriverGetVersion")?,
                set_device: sym(&lib, p, "hipSetDevice")?,
                module_load_data: sym(&lib, p, "hipModuleLoadData")?,
                module_unload: sym(&lib, p, "hipModuleUnload")?,
                module_get_function: sym(&lib, p, "hipModuleGetFunction")?,
                module_get_global: sym(&lib, p, "hipModuleGetGlobal")?,
                module_launch_kernel: sym(&lib, p, "hipModuleLaunchKernel")?,
                malloc: sym(&lib, p, "hipMalloc")?,
                free: sym(&lib, p, "hipFree")?,
                memcpy_dtoh: sym(&lib, p, "hipMemcpyDtoH")?,
                memset_d32: sym(&lib, p, "hipMemsetD32")?,
                event_create: match sym(&lib, p, "hipEventCreateWithFlags") {
                    Ok(f) => EventCreate::WithFlags(f),
                    Err(_) => EventCreate::Plain(sym(&lib, p, "hipEventCreate")?),
                },
                event_record: sym(&lib, p, "hipEventRecord")?,
                event_query: sym(&lib, p, "hipEventQuery")?,
                event_elapsed_time: sym(&lib, p, "hipEventElapsedTime")?,
                event_destroy: sym(&lib, p, "hipEventDestroy")?,
                device_synchronize: sym(&lib, p, "hipDeviceSynchronize")?,
                get_error_name: sym(&lib, p, "hipGetErrorName")?,
                get_error_string: sym(&lib, p, "hipGetErrorString")?,
                path,
                _lib: lib,
            })
        }
    }

    /// `hipErrorName (code): what it means`.
    fn describe(&self, code: HipError) -> String {
        let text = |p: *const c_char| {
            if p.is_null() {
                String::new()
            } else {
                // SAFETY: the runtime returns a pointer to a static NUL-terminated string.
                unsafe { CStr::from_ptr(p) }.to_string_lossy().into_owned()
            }
        };
        // SAFETY: both take any code and return static strings.
        let (name, what) = unsafe { ((self.get_error_name)(code), (self.get_error_string)(code)) };
        format!("{} ({code}): {}", text(name), text(what))
    }
}

/// The process's runtime library, opened once from [`library_candidates`].
fn api() -> Result<&'static Api, HarnessError> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(|| Api::open(&library_candidates()))
        .as_ref()
        .map_err(|detail| no_gpu(detail.clone()))
}

fn no_gpu(detail: String) -> HarnessError {
    HarnessError {
        code: "no-gpu".into(),
        detail,
    }
}

/// A failed runtime call: which, and its code.
#[derive(Debug, Clone, Copy)]
struct Failed {
    call: &'static str,
    code: HipError,
}

fn check(call: &'static str, code: HipError) -> Result<(), Failed> {
    if code == err::SUCCESS {
        Ok(())
    } else {
        Err(Failed { call, code })
    }
}

impl Api {
    fn classify(&self, f: Failed) -> BackendError {
        BackendError {
            kind: kind_of(f.code),
            call: f.call,
            detail: self.describe(f.code),
        }
    }

    fn harness_error(&self, code: &str, f: Failed) -> HarnessError {
        HarnessError {
            code: code.to_string(),
            detail: format!("{}: {}: {}", self.path, f.call, self.describe(f.code)),
        }
    }

    fn attribute(&self, dev: c_int, a: c_int) -> Result<i32, Failed> {
        let mut v: c_int = 0;
        // SAFETY: writes one int; `dev` is a device ordinal below the device count.
        check("hipDeviceGetAttribute", unsafe {
            (self.device_get_attribute)(&mut v, a, dev)
        })?;
        Ok(v)
    }

    /// `hipInit` and the device count; no device is a `no-gpu` error.
    fn devices(&self) -> Result<c_int, HarnessError> {
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

    fn describe_device(&self, index: u32) -> Result<DeviceInfo, Failed> {
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
fn c_text(buf: &[u8]) -> String {
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
fn device_uuid(uuid: Option<&[u8; 16]>, pci_bus: &str) -> String {
    match uuid {
        Some(u) if u.iter().all(u8::is_ascii_hexdigit) => {
            format!("GPU-{}", String::from_utf8_lossy(u).to_ascii_lowercase())
        }
        Some(u) if u.iter().any(|&b| !(b == 0 || b.is_ascii_graphic() || b == b' ')) => gpu_uuid(u),
        _ => format!("PCI-{pci_bus}"),
    }
}

/// Every visible HIP device, each with its architecture where the KFD topology tells it. `Err`
/// with code `no-gpu` when the runtime library cannot be opened, `hipInit` fails or no device is
/// visible.
pub fn list_devices() -> Result<Vec<DeviceInfo>, HarnessError> {
    let api = api()?;
    let n = api.devices()?;
    (0..n as u32)
        .map(|i| {
            let mut d = api
                .describe_device(i)
                .map_err(|f| api.harness_error("driver-error", f))?;
            d.arch = offload_arch(i, None).ok();
            Ok(d)
        })
        .collect()
}

/// The bytes of cache the cold-cache flush must overwrite: the L2 the runtime reports, or the
/// last-level cache behind it where the architecture has one the L2 attribute does not count
/// (CDNA 3 and 4, gfx94x and gfx95x: a 256 MiB Infinity Cache). Without it a flush of twice the
/// L2 would leave an input that fits in the Infinity Cache warm for the launch after.
pub fn flushed_cache_bytes(arch: &str, l2_bytes: u64) -> u64 {
    let model = arch.split(':').next().unwrap_or(arch);
    let infinity_cache: u64 = if model.starts_with("gfx94") || model.starts_with("gfx95") {
        256 << 20
    } else {
        0
    };
    l2_bytes.max(infinity_cache)
}

/// Where the kernel driver publishes its topology: one folder per node, GPUs and CPUs.
pub const KFD_TOPOLOGY: &str = "/sys/class/kfd/kfd/topology";

/// The `gfx…` name of a KFD `gfx_target_version` (`90010` → `gfx90a`, `90402` → `gfx942`): major
/// `v / 10000` in decimal, then minor `(v / 100) % 100` and stepping `v % 100` as one hex digit
/// each. `None` for 0 (a CPU node) or a minor or stepping over 15.
pub fn gfx_name(version: u32) -> Option<String> {
    let (major, minor, stepping) = (version / 10000, (version / 100) % 100, version % 100);
    (major > 0 && minor < 16 && stepping < 16).then(|| format!("gfx{major}{minor:x}{stepping:x}"))
}

/// The architectures of the GPU nodes under a KFD topology folder, in node order (which is the
/// order of HIP's device ordinals when no visibility variable reorders them). CPU nodes
/// (`gfx_target_version 0`) are left out.
pub fn kfd_gpu_arches(topology: &Path) -> Result<Vec<String>, String> {
    let nodes = topology.join("nodes");
    let entries = std::fs::read_dir(&nodes).map_err(|e| format!("{}: {e}", nodes.display()))?;
    let mut numbered: Vec<(u64, PathBuf)> = entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let n = e.file_name().to_str()?.parse().ok()?;
            Some((n, e.path().join("properties")))
        })
        .collect();
    numbered.sort();
    let mut out = Vec::new();
    for (_, props) in numbered {
        let text = std::fs::read_to_string(&props).map_err(|e| format!("{}: {e}", props.display()))?;
        let version = text
            .lines()
            .find_map(|l| l.strip_prefix("gfx_target_version "))
            .and_then(|v| v.trim().parse::<u32>().ok())
            .ok_or_else(|| format!("{}: no gfx_target_version", props.display()))?;
        if version == 0 {
            continue;
        }
        out.push(gfx_name(version).ok_or_else(|| {
            format!(
                "{}: gfx_target_version {version} names no architecture",
                props.display()
            )
        })?);
    }
    Ok(out)
}

/// The variables with which the runtime hides or reorders devices.
const VISIBILITY_VARS: [&str; 4] = [
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
    "GPU_DEVICE_ORDINAL",
];

/// Device `index`'s architecture among the topology's GPU nodes. When every GPU is of one
/// architecture, that one; otherwise the node at `index`, unless a visibility variable is set
/// (`remapped`), for then node order is not device order and only `--offload-arch` can say.
fn pick_arch(arches: &[String], index: u32, remapped: bool) -> Result<String, String> {
    match arches {
        [] => Err("the KFD topology lists no GPU".into()),
        [first, rest @ ..] if rest.iter().all(|a| a == first) => Ok(first.clone()),
        _ if remapped => Err(format!(
            "the GPUs are of several architectures ({}) and a visibility variable reorders them",
            arches.join(", ")
        )),
        _ => arches.get(index as usize).cloned().ok_or_else(|| {
            format!(
                "device {index} asked for; the KFD topology lists {} GPUs",
                arches.len()
            )
        }),
    }
}

/// The `gfx…` architecture to build the harness's device code for: `given` (`--offload-arch`)
/// when there is one, else device `index`'s from the KFD topology ([`KFD_TOPOLOGY`]).
pub fn offload_arch(index: u32, given: Option<&str>) -> Result<String, HarnessError> {
    if let Some(a) = given {
        return Ok(a.to_string());
    }
    let remapped = VISIBILITY_VARS.iter().any(|v| std::env::var_os(v).is_some());
    kfd_gpu_arches(Path::new(KFD_TOPOLOGY))
        .and_then(|arches| pick_arch(&arches, index, remapped))
        .map_err(|why| HarnessError {
            code: "harness-failed".into(),
            detail: format!("cannot tell device {index}'s architecture: {why} (pass --offload-arch)"),
        })
}

/// The harness's device code: its module instance (with the image it was loaded from) and its
/// one kernel, `aorlta_run`.
struct Helpers {
    module: Handle,
    run: Handle,
}

/// The HIP device of one harness process.
pub struct HipBackend {
    api: &'static Api,
    device: DeviceInfo,
    events: [Handle; 2],
    /// Each module with the aligned copy of the image it was loaded from, kept while it is
    /// loaded.
    modules: HashMap<u64, (Handle, Vec<u64>)>,
    funcs: HashMap<u64, Handle>,
    next_id: u64,
    helper_image: Vec<u64>,
    helpers: Option<Helpers>,
}

impl HipBackend {
    /// Makes device `index` current on this thread and creates its two events; `helpers` is the
    /// harness's device code built for it, for architecture `arch` (see [`crate::helpers`]).
    pub fn new(index: u32, arch: &str, helpers: &[u8]) -> Result<Self, HarnessError> {
        let api = api()?;
        let n = api.devices()?;
        if index as c_int >= n {
            return Err(no_gpu(format!("device {index} asked for; {n} visible")));
        }
        let driver = |f| api.harness_error("driver-error", f);
        // SAFETY: the ordinal is below the device count.
        check("hipSetDevice", unsafe { (api.set_device)(index as c_int) }).map_err(driver)?;
        let mut device = api.describe_device(index).map_err(driver)?;
        device.l2_bytes = flushed_cache_bytes(arch, device.l2_bytes);
        device.arch = Some(arch.to_string());
        let mut events = [std::ptr::null_mut(); 2];
        for ev in &mut events {
            // SAFETY: writes one event handle; 0 is `hipEventDefault`.
            let rc = unsafe {
                match api.event_create {
                    EventCreate::WithFlags(f) => f(ev, 0),
                    EventCreate::Plain(f) => f(ev),
                }
            };
            check("hipEventCreate", rc).map_err(driver)?;
        }
        Ok(HipBackend {
            api,
            device,
            events,
            modules: HashMap::new(),
            funcs: HashMap::new(),
            next_id: 1,
            helper_image: aligned_image(helpers),
            helpers: None,
        })
    }

    /// Device `index`'s architecture for the harness's device code, after checking the device
    /// is there (`no-gpu` otherwise): see [`offload_arch`].
    pub fn arch_of(index: u32, given: Option<&str>) -> Result<String, HarnessError> {
        let n = list_devices()?.len();
        if index as usize >= n {
            return Err(no_gpu(format!("no device {index}; {n} visible")));
        }
        offload_arch(index, given)
    }

    fn call(&self, call: &'static str, rc: HipError) -> Result<(), BackendError> {
        check(call, rc).map_err(|f| self.api.classify(f))
    }

    fn module(&self, m: ModuleId) -> Result<Handle, BackendError> {
        self.modules.get(&m.0).map(|(h, _)| *h).ok_or(BackendError {
            kind: ErrorKind::Driver,
            call: "module",
            detail: "unknown module instance".into(),
        })
    }

    fn func(&self, call: &'static str, f: FuncId) -> Result<Handle, BackendError> {
        self.funcs.get(&f.0).copied().ok_or(BackendError {
            kind: ErrorKind::Driver,
            call,
            detail: "unknown function".into(),
        })
    }

    fn load(&self, call: &'static str, image: &[u64]) -> Result<Handle, BackendError> {
        let mut m: Handle = std::ptr::null_mut();
        // SAFETY: the image is a complete code object, 8-byte aligned, alive through the call
        // (and kept while the module is loaded).
        let rc = unsafe { (self.api.module_load_data)(&mut m, image.as_ptr().cast()) };
        self.call(call, rc)?;
        Ok(m)
    }

    /// A function of a loaded module; `None` when it has none of that name.
    fn lookup(&self, call: &'static str, m: Handle, symbol: &str) -> Result<Option<Handle>, BackendError> {
        let name = c_symbol(call, symbol)?;
        let mut f: Handle = std::ptr::null_mut();
        // SAFETY: `m` is a loaded module; the name is NUL-terminated.
        match unsafe { (self.api.module_get_function)(&mut f, m, name.as_ptr()) } {
            err::SUCCESS => Ok(Some(f)),
            err::NOT_FOUND => Ok(None),
            rc => Err(self.api.classify(Failed { call, code: rc })),
        }
    }

    fn helper_launch(&self, f: Handle, batch: &BatchRepr) -> Result<(), BackendError> {
        let mut params = [batch as *const BatchRepr as *mut c_void];
        // SAFETY: the one parameter points at a batch laid out as `aorlta_run`'s parameter,
        // and the runtime copies it before returning.
        let rc = unsafe {
            (self.api.module_launch_kernel)(
                f,
                batch.blocks(self.device.sm_count),
                1,
                1,
                THREADS_PER_BLOCK,
                1,
                1,
                0,
                std::ptr::null_mut(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        self.call("hipModuleLaunchKernel (harness)", rc)
    }
}

impl Backend for HipBackend {
    fn device(&self) -> &DeviceInfo {
        &self.device
    }

    fn clocks(&mut self) -> Option<Clocks> {
        // No NVML; ROCm's management library is not read.
        None
    }

    fn load_module(&mut self, image: &[u8]) -> Result<ModuleId, BackendError> {
        let aligned = aligned_image(image);
        let m = self.load("hipModuleLoadData", &aligned)?;
        let id = self.next_id;
        self.next_id += 1;
        self.modules.insert(id, (m, aligned));
        Ok(ModuleId(id))
    }

    fn unload_module(&mut self, module: ModuleId) -> Result<(), BackendError> {
        let m = self.module(module)?;
        self.modules.remove(&module.0);
        // SAFETY: `m` is a loaded module, removed from the table so it is unloaded once.
        self.call("hipModuleUnload", unsafe { (self.api.module_unload)(m) })
    }

    fn function(&mut self, module: ModuleId, symbol: &str) -> Result<Option<FuncId>, BackendError> {
        let m = self.module(module)?;
        Ok(self.lookup("hipModuleGetFunction", m, symbol)?.map(|f| {
            let id = self.next_id;
            self.next_id += 1;
            self.funcs.insert(id, f);
            FuncId(id)
        }))
    }

    fn global(&mut self, module: ModuleId, symbol: &str) -> Result<Option<(DevPtr, usize)>, BackendError> {
        let m = self.module(module)?;
        let name = c_symbol("hipModuleGetGlobal", symbol)?;
        let (mut p, mut n): (Handle, usize) = (std::ptr::null_mut(), 0);
        // SAFETY: `m` is a loaded module; the name is NUL-terminated.
        match unsafe { (self.api.module_get_global)(&mut p, &mut n, m, name.as_ptr()) } {
            err::SUCCESS => Ok(Some((p as DevPtr, n))),
            err::NOT_FOUND => Ok(None),
            rc => Err(self.api.classify(Failed {
                call: "hipModuleGetGlobal",
                code: rc,
            })),
        }
    }

    fn set_max_dynamic_shared(&mut self, func: FuncId, bytes: u32) -> Result<(), BackendError> {
        self.func("hipFuncSetAttribute", func)?;
        // AMD has no opt-in: a kernel may use up to the block's LDS as it is.
        let max = self.device.max_shared_optin;
        if bytes > max {
            return Err(BackendError {
                kind: ErrorKind::LaunchRefused,
                call: "hipFuncSetAttribute",
                detail: format!("{bytes} bytes of dynamic shared memory asked for; the device has {max}"),
            });
        }
        Ok(())
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, BackendError> {
        let mut p: Handle = std::ptr::null_mut();
        // SAFETY: plain device allocation.
        self.call("hipMalloc", unsafe { (self.api.malloc)(&mut p, bytes.max(1)) })?;
        Ok(p as DevPtr)
    }

    unsafe fn free(&mut self, ptr: DevPtr) -> Result<(), BackendError> {
        // SAFETY: the caller promises `ptr` came from `alloc` and is freed once.
        self.call("hipFree", unsafe { (self.api.free)(ptr as Handle) })
    }

    unsafe fn copy_d2h(&mut self, dst: &mut [u8], src: DevPtr) -> Result<(), BackendError> {
        if dst.is_empty() {
            return Ok(());
        }
        // SAFETY: the caller promises `src` is an allocation or symbol at least `dst.len()` long.
        let rc = unsafe { (self.api.memcpy_dtoh)(dst.as_mut_ptr().cast(), src as Handle, dst.len()) };
        self.call("hipMemcpyDtoH", rc)
    }

    unsafe fn memset_d32(&mut self, dst: DevPtr, value: u32, count: usize) -> Result<(), BackendError> {
        // SAFETY: the caller promises `dst` is an allocation of at least `count` words.
        let rc = unsafe { (self.api.memset_d32)(dst as Handle, value as c_int, count) };
        self.call("hipMemsetD32", rc)
    }

    fn reset_persisting_l2(&mut self) -> Result<(), BackendError> {
        // AMD GPUs have no persisting L2 lines: nothing to reset.
        Ok(())
    }

    fn record_event(&mut self, slot: EventSlot) -> Result<(), BackendError> {
        let ev = self.events[slot as usize];
        // SAFETY: a live event, recorded on the null stream.
        self.call("hipEventRecord", unsafe {
            (self.api.event_record)(ev, std::ptr::null_mut())
        })
    }

    unsafe fn launch(&mut self, func: FuncId, g: &Geometry, args: &[KernelArg]) -> Result<(), BackendError> {
        let f = self.func("hipModuleLaunchKernel", func)?;
        let mut words: Vec<u64> = args.iter().map(KernelArg::word).collect();
        let mut params: Vec<*mut c_void> = words.iter_mut().map(|w| w as *mut u64 as *mut c_void).collect();
        // SAFETY: the caller promises the parameters match the kernel's signature and its
        // buffers are live; the runtime copies them before returning.
        let rc = unsafe {
            (self.api.module_launch_kernel)(
                f,
                g.grid[0],
                g.grid[1],
                g.grid[2],
                g.block[0],
                g.block[1],
                g.block[2],
                g.shared_bytes,
                std::ptr::null_mut(),
                params.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        self.call("hipModuleLaunchKernel", rc).map_err(|mut e| {
            // A launch that returns at once was refused, not run: the runtime answers a block
            // over the kernel's launch bounds with 719 too, without harming the device.
            if e.kind != ErrorKind::Fault || rc == err::LAUNCH_FAILURE {
                e.kind = ErrorKind::LaunchRefused;
            }
            e
        })
    }

    fn wait_stop(&mut self, timeout_s: f64) -> Result<Wait, BackendError> {
        let ev = self.events[EventSlot::Stop as usize];
        poll_until(timeout_s, || {
            // SAFETY: a live event.
            match unsafe { (self.api.event_query)(ev) } {
                err::SUCCESS => Ok(true),
                err::NOT_READY => Ok(false),
                rc => Err(self.api.classify(Failed {
                    call: "hipEventQuery",
                    code: rc,
                })),
            }
        })
    }

    fn elapsed_s(&mut self) -> Result<f64, BackendError> {
        let mut ms = 0f32;
        // SAFETY: both events were recorded on the null stream and have completed.
        let rc = unsafe { (self.api.event_elapsed_time)(&mut ms, self.events[0], self.events[1]) };
        self.call("hipEventElapsedTime", rc)?;
        Ok(f64::from(ms) / 1000.0)
    }

    fn synchronize(&mut self) -> Result<(), BackendError> {
        // SAFETY: no arguments; waits for the current device.
        self.call("hipDeviceSynchronize", unsafe { (self.api.device_synchronize)() })
    }

    fn load_helpers(&mut self) -> Result<(), BackendError> {
        self.unload_helpers()?;
        let module = self.load("hipModuleLoadData (harness)", &self.helper_image)?;
        let run = match self.lookup("hipModuleGetFunction (harness)", module, "aorlta_run") {
            Ok(Some(f)) => f,
            other => {
                // SAFETY: the module was just loaded and is not kept.
                let _ = unsafe { (self.api.module_unload)(module) };
                return Err(other.err().unwrap_or(BackendError {
                    kind: ErrorKind::BadImage,
                    call: "hipModuleGetFunction (harness)",
                    detail: "the harness's device code has no aorlta_run".into(),
                }));
            }
        };
        self.helpers = Some(Helpers { module, run });
        Ok(())
    }

    fn unload_helpers(&mut self) -> Result<(), BackendError> {
        if let Some(h) = self.helpers.take() {
            // SAFETY: the harness's module, taken out of `self` so it is unloaded once.
            let rc = unsafe { (self.api.module_unload)(h.module) };
            self.call("hipModuleUnload (harness)", rc)?;
        }
        Ok(())
    }

    unsafe fn helpers(&mut self, ops: &[HelperOp]) -> Result<(), BackendError> {
        let run = self.helpers.as_ref().map(|h| h.run).ok_or_else(not_loaded)?;
        BatchRepr::split(ops).try_for_each(|batch| self.helper_launch(run, &batch))
    }
}

impl Drop for HipBackend {
    fn drop(&mut self) {
        for ev in self.events {
            // SAFETY: the backend's own events, destroyed once, with nothing recorded after.
            unsafe { (self.api.event_destroy)(ev) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where the runtime is installed but sees no AMD GPU (Debian's `libamdhip64.so.5` here and
    /// in CI: `hipInit` answers 101, `hipGetDeviceCount` 100), the listing is a `no-gpu` error
    /// naming the call; where no runtime is installed, naming the libraries tried.
    #[test]
    fn with_no_amd_gpu_the_listing_is_a_no_gpu_error() {
        match list_devices() {
            Ok(devices) => {
                // A host with an AMD GPU: the listing is of HIP devices.
                assert!(!devices.is_empty());
                assert!(devices.iter().all(|d| d.backend == "hip" && d.sm_count > 0));
            }
            Err(e) => {
                assert_eq!(e.code, "no-gpu", "{e:?}");
                let runtime_loaded = e.detail.contains("hipInit")
                    || e.detail.contains("hipGetDeviceCount")
                    || e.detail.contains("no HIP device visible");
                let no_runtime = e.detail.contains("tried: ") && e.detail.contains("libamdhip64.so.5");
                assert!(runtime_loaded || no_runtime, "{}", e.detail);
                if runtime_loaded {
                    // The runtime's own name for the error is in the detail.
                    assert!(e.detail.contains("hipError"), "{}", e.detail);
                }
            }
        }
        // Opening the backend meets the same error, and asking for the architecture too.
        if let Err(e) = list_devices() {
            assert_eq!(
                HipBackend::new(0, "gfx90a", b"").err().map(|e| e.code),
                Some(e.code.clone())
            );
            assert_eq!(HipBackend::arch_of(0, Some("gfx90a")).unwrap_err().code, "no-gpu");
        }
    }

    #[test]
    fn no_library_among_the_candidates_is_an_error_naming_each() {
        let dir = tempfile::tempdir().unwrap();
        let a = dir.path().join("lib/libamdhip64.so");
        let b = dir.path().join("nowhere/libamdhip64.so.6");
        let not_a_library = dir.path().join("libamdhip64.so.5");
        std::fs::write(&not_a_library, b"not an ELF").unwrap();
        let detail = Api::open(&[a.clone(), b.clone(), not_a_library.clone()])
            .err()
            .expect("nothing can be opened");
        for p in [&a, &b, &not_a_library] {
            assert!(detail.contains(&p.display().to_string()), "{detail}");
        }
        assert!(detail.starts_with("no HIP runtime library"), "{detail}");
        assert_eq!(no_gpu(detail).code, "no-gpu");
        assert!(Api::open(&[]).is_err());
    }

    /// A library that opens but lacks the entry points is an error naming the first one missing.
    #[test]
    fn a_library_without_the_entry_points_is_an_error_naming_the_symbol() {
        let Some(libc) = ["libc.so.6", "libm.so.6"]
            .into_iter()
            // SAFETY: the C library is already loaded in this process.
            .find_map(|l| unsafe { Library::new(l) }.ok().map(|lib| (lib, l)))
        else {
            panic!("no C library to open");
        };
        let detail = Api::take(libc.0, libc.1.into()).err().expect("libc is not HIP");
        assert!(detail.contains("hipInit") && detail.contains(libc.1), "{detail}");
    }

    #[test]
    fn the_library_is_looked_for_under_rocm_first_then_by_soname() {
        let c = library_candidates();
        let names: Vec<String> = c.iter().map(|p| p.display().to_string()).collect();
        let opt = names
            .iter()
            .position(|n| n == "/opt/rocm/lib/libamdhip64.so")
            .unwrap();
        let so5 = names.iter().position(|n| n == "libamdhip64.so.5").unwrap();
        let so6 = names.iter().position(|n| n == "libamdhip64.so.6").unwrap();
        let bare = names.iter().position(|n| n == "libamdhip64.so").unwrap();
        assert!(opt < bare && bare < so6 && so6 < so5, "{names:?}");
        assert_eq!(so5, names.len() - 1);
        if let Some(root) = std::env::var_os("ROCM_PATH").filter(|r| !r.is_empty()) {
            assert_eq!(c[0], Path::new(&root).join("lib/libamdhip64.so"));
        }
    }

    #[test]
    fn kfd_target_versions_name_their_architectures() {
        assert_eq!(gfx_name(90010).as_deref(), Some("gfx90a"));
        assert_eq!(gfx_name(90402).as_deref(), Some("gfx942"));
        assert_eq!(gfx_name(90400).as_deref(), Some("gfx940"));
        assert_eq!(gfx_name(90500).as_deref(), Some("gfx950"));
        assert_eq!(gfx_name(90008).as_deref(), Some("gfx908"));
        assert_eq!(gfx_name(100300).as_deref(), Some("gfx1030"));
        assert_eq!(gfx_name(110001).as_deref(), Some("gfx1101"));
        assert_eq!(gfx_name(90012).as_deref(), Some("gfx90c"));
        assert_eq!(gfx_name(0), None);
        assert_eq!(gfx_name(90016), None);
    }

    fn node(root: &Path, n: u32, version: u32) {
        let d = root.join(format!("nodes/{n}"));
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(
            d.join("properties"),
            format!("cpu_cores_count 0\nsimd_count 440\ngfx_target_version {version}\nvendor_id 4098\n"),
        )
        .unwrap();
    }

    #[test]
    fn the_kfd_topology_gives_the_gpus_in_node_order() {
        let t = tempfile::tempdir().unwrap();
        node(t.path(), 0, 0);
        node(t.path(), 1, 90402);
        node(t.path(), 2, 90010);
        node(t.path(), 10, 90500);
        node(t.path(), 9, 90400);
        let arches = kfd_gpu_arches(t.path()).unwrap();
        assert_eq!(arches, ["gfx942", "gfx90a", "gfx940", "gfx950"]);
        assert_eq!(pick_arch(&arches, 1, false).unwrap(), "gfx90a");
        assert_eq!(pick_arch(&arches, 3, false).unwrap(), "gfx950");
        assert!(pick_arch(&arches, 4, false).unwrap_err().contains("4 GPUs"));
        assert!(pick_arch(&arches, 0, true).unwrap_err().contains("visibility"));
        let same = vec!["gfx942".to_string(); 8];
        assert_eq!(pick_arch(&same, 5, true).unwrap(), "gfx942");
        assert!(pick_arch(&[], 0, false).is_err());
        assert!(kfd_gpu_arches(&t.path().join("missing")).is_err());
        std::fs::write(t.path().join("nodes/2/properties"), "simd_count 4\n").unwrap();
        assert!(
            kfd_gpu_arches(t.path())
                .unwrap_err()
                .contains("no gfx_target_version")
        );
    }

    #[test]
    fn a_given_architecture_is_used_as_is() {
        assert_eq!(offload_arch(3, Some("gfx942")).unwrap(), "gfx942");
        // MI300X's Infinity Cache is flushed too; MI200 has none behind its 8 MiB L2.
        assert_eq!(flushed_cache_bytes("gfx942:sramecc+:xnack-", 4 << 20), 256 << 20);
        assert_eq!(flushed_cache_bytes("gfx950", 4 << 20), 256 << 20);
        assert_eq!(flushed_cache_bytes("gfx90a", 8 << 20), 8 << 20);
    }

    #[test]
    fn the_device_identity_is_its_uuid_else_its_pci_slot() {
        assert_eq!(
            device_uuid(Some(b"4A5e3c2bd3f1a8c6"), "0000:c1:00.0"),
            "GPU-4a5e3c2bd3f1a8c6"
        );
        let mut binary = [0u8; 16];
        binary[0] = 0xde;
        binary[15] = 0x07;
        assert_eq!(
            device_uuid(Some(&binary), "0000:c1:00.0"),
            "GPU-de000000-0000-0000-0000-000000000007"
        );
        assert_eq!(device_uuid(Some(&[0; 16]), "0000:c1:00.0"), "PCI-0000:c1:00.0");
        let mut xx = [0u8; 16];
        xx[..2].copy_from_slice(b"XX");
        assert_eq!(device_uuid(Some(&xx), "0000:03:00.0"), "PCI-0000:03:00.0");
        assert_eq!(device_uuid(None, "0000:03:00.0"), "PCI-0000:03:00.0");
    }

    #[test]
    fn errors_are_classified_as_the_cuda_backend_classifies_them() {
        for c in [700, 719, 709, 999] {
            assert_eq!(kind_of(c), ErrorKind::Fault, "{c}");
        }
        assert_eq!(kind_of(2), ErrorKind::OutOfMemory);
        for c in [200, 209, 218] {
            assert_eq!(kind_of(c), ErrorKind::BadImage, "{c}");
        }
        for c in [1, 98, 500, 600, 701] {
            assert_eq!(kind_of(c), ErrorKind::Driver, "{c}");
        }
        assert_eq!(c_text(b"AMD Instinct MI300X\0junk"), "AMD Instinct MI300X");
    }
}
