//! The HIP runtime as C: the types and codes of `hip_runtime_api.h` that the backend uses, and
//! the library `libamdhip64` opened at run time with its entry points (the `sys` layer).

use aorlta_record::HarnessError;
use libloading::Library;
use std::ffi::{CStr, c_char, c_int, c_uint, c_void};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// `hipError_t`.
pub(super) type HipError = c_int;
/// `hipModule_t`, `hipFunction_t`, `hipEvent_t`, `hipStream_t`, `hipDeviceptr_t`: opaque
/// pointers.
pub(super) type Handle = *mut c_void;

/// `hipError_t` values this backend tells apart. Taken from the header (Debian's ROCm 5.2
/// `/usr/include/hip/hip_runtime_api.h`); every value there is explicit and unchanged in ROCm 6.
pub(super) mod err {
    use std::ffi::c_int;
    pub(crate) const SUCCESS: c_int = 0;
    pub(crate) const OUT_OF_MEMORY: c_int = 2;
    pub(crate) const NO_DEVICE: c_int = 100;
    pub(crate) const NOT_FOUND: c_int = 500;
    pub(crate) const NOT_READY: c_int = 600;
    pub(crate) const LAUNCH_FAILURE: c_int = 719;
}

/// `hipDeviceAttribute_t` values, from the same header (where they are implicit: counted by
/// compiling it). They keep their positions in ROCm 6, which only renamed retired entries to
/// `hipDeviceAttributeUnusedN` and appended new ones.
pub(super) mod attr {
    use std::ffi::c_int;
    pub(crate) const L2_CACHE_SIZE: c_int = 19;
    pub(crate) const COMPUTE_CAPABILITY_MAJOR: c_int = 23;
    pub(crate) const MAX_BLOCK_DIM_X: c_int = 26;
    pub(crate) const MAX_BLOCK_DIM_Y: c_int = 27;
    pub(crate) const MAX_BLOCK_DIM_Z: c_int = 28;
    pub(crate) const MAX_GRID_DIM_X: c_int = 29;
    pub(crate) const MAX_GRID_DIM_Y: c_int = 30;
    pub(crate) const MAX_GRID_DIM_Z: c_int = 31;
    pub(crate) const MAX_THREADS_PER_BLOCK: c_int = 56;
    pub(crate) const COMPUTE_CAPABILITY_MINOR: c_int = 61;
    pub(crate) const MULTIPROCESSOR_COUNT: c_int = 63;
    pub(crate) const MAX_SHARED_MEMORY_PER_BLOCK: c_int = 74;
}

/// `hipEventCreateWithFlags` where the library has it, else `hipEventCreate`.
#[derive(Clone, Copy)]
pub(super) enum EventCreate {
    WithFlags(unsafe extern "C" fn(*mut Handle, c_uint) -> HipError),
    Plain(unsafe extern "C" fn(*mut Handle) -> HipError),
}

pub(super) type LaunchFn = unsafe extern "C" fn(
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
pub(super) struct Api {
    /// Which library was opened.
    pub(super) path: String,
    pub(super) init: unsafe extern "C" fn(c_uint) -> HipError,
    pub(super) get_device_count: unsafe extern "C" fn(*mut c_int) -> HipError,
    pub(super) device_get: unsafe extern "C" fn(*mut c_int, c_int) -> HipError,
    pub(super) device_get_name: unsafe extern "C" fn(*mut c_char, c_int, c_int) -> HipError,
    pub(super) device_get_uuid: Option<unsafe extern "C" fn(*mut [u8; 16], c_int) -> HipError>,
    pub(super) device_get_pci_bus_id: unsafe extern "C" fn(*mut c_char, c_int, c_int) -> HipError,
    pub(super) device_get_attribute: unsafe extern "C" fn(*mut c_int, c_int, c_int) -> HipError,
    pub(super) device_total_mem: unsafe extern "C" fn(*mut usize, c_int) -> HipError,
    pub(super) driver_get_version: unsafe extern "C" fn(*mut c_int) -> HipError,
    pub(super) set_device: unsafe extern "C" fn(c_int) -> HipError,
    pub(super) module_load_data: unsafe extern "C" fn(*mut Handle, *const c_void) -> HipError,
    pub(super) module_unload: unsafe extern "C" fn(Handle) -> HipError,
    pub(super) module_get_function: unsafe extern "C" fn(*mut Handle, Handle, *const c_char) -> HipError,
    pub(super) module_get_global:
        unsafe extern "C" fn(*mut Handle, *mut usize, Handle, *const c_char) -> HipError,
    pub(super) module_launch_kernel: LaunchFn,
    pub(super) malloc: unsafe extern "C" fn(*mut Handle, usize) -> HipError,
    pub(super) free: unsafe extern "C" fn(Handle) -> HipError,
    pub(super) memcpy_dtoh: unsafe extern "C" fn(*mut c_void, Handle, usize) -> HipError,
    pub(super) memset_d32: unsafe extern "C" fn(Handle, c_int, usize) -> HipError,
    pub(super) event_create: EventCreate,
    pub(super) event_record: unsafe extern "C" fn(Handle, Handle) -> HipError,
    pub(super) event_query: unsafe extern "C" fn(Handle) -> HipError,
    pub(super) event_elapsed_time: unsafe extern "C" fn(*mut f32, Handle, Handle) -> HipError,
    pub(super) event_destroy: unsafe extern "C" fn(Handle) -> HipError,
    pub(super) device_synchronize: unsafe extern "C" fn() -> HipError,
    pub(super) get_error_name: unsafe extern "C" fn(HipError) -> *const c_char,
    pub(super) get_error_string: unsafe extern "C" fn(HipError) -> *const c_char,
    /// Kept open for the process: the entry points above point into it.
    pub(super) _lib: Library,
}

/// Where the runtime library is looked for, in order: `$ROCM_PATH/lib`, `/opt/rocm/lib`, then
/// the loader's search path by soname.
pub(crate) fn library_candidates() -> Vec<PathBuf> {
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
pub(super) unsafe fn sym<T: Copy>(lib: &Library, path: &str, name: &str) -> Result<T, String> {
    let c = format!("{name}\0");
    // SAFETY: the caller promises `T` matches the symbol.
    unsafe { lib.get::<T>(c.as_bytes()) }
        .map(|s| *s)
        .map_err(|e| format!("{path} has no {name}: {e}"))
}

impl Api {
    /// Opens the first candidate that loads and takes its entry points. `Err` names every
    /// candidate tried and why it failed, or the entry point that is missing.
    pub(super) fn open(candidates: &[PathBuf]) -> Result<Api, String> {
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

    pub(super) fn take(lib: Library, path: String) -> Result<Api, String> {
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
    pub(super) fn describe(&self, code: HipError) -> String {
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
pub(super) fn api() -> Result<&'static Api, HarnessError> {
    static API: OnceLock<Result<Api, String>> = OnceLock::new();
    API.get_or_init(|| Api::open(&library_candidates()))
        .as_ref()
        .map_err(|detail| no_gpu(detail.clone()))
}

pub(super) fn no_gpu(detail: String) -> HarnessError {
    HarnessError {
        code: "no-gpu".into(),
        detail,
    }
}
