//! The CUDA driver backend, on cudarc's dynamically loaded driver API: nothing here links
//! `libcuda`, and [`driver_present`] is checked before anything touches it (a missing library
//! would otherwise panic). One primary context, the legacy default stream, two timing events
//! with default flags, pageable host memory only.
//!
//! The process must set `CUDA_MODULE_LOADING=EAGER` before the driver starts, so that a module
//! is loaded whole by `cuModuleLoadData` and nothing is loaded lazily inside a timed interval.

use crate::backend::{
    Backend, BackendError, DevPtr, ErrorKind, EventSlot, FuncId, HelperOp, KernelArg, ModuleId, Wait,
    aligned_image, c_symbol, gpu_uuid, poll_until,
};
use crate::batch::{BatchRepr, THREADS_PER_BLOCK, not_loaded};
use crate::nvml::Nvml;
use aorlta_record::{Clocks, DeviceInfo, Geometry, HarnessError};
use cudarc::driver::result::{self, DriverError};
use cudarc::driver::sys;
use std::collections::HashMap;
use std::ffi::c_void;

/// True when the driver library can be opened.
pub fn driver_present() -> bool {
    // SAFETY: only tries to open the library.
    unsafe { sys::is_culib_present() }
}

fn code(e: &DriverError) -> u32 {
    e.0 as u32
}

fn name(e: &DriverError) -> String {
    let n = e
        .error_name()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    let s = e
        .error_string()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{n} ({}): {s}", code(e))
}

/// Errors that leave the context unusable.
fn is_fault(c: u32) -> bool {
    matches!(
        c,
        214 | 700 | 702 | 709 | 710 | 714 | 715 | 716 | 717 | 718 | 719 | 720 | 999
    )
}

fn classify(call: &'static str, e: DriverError) -> BackendError {
    let c = code(&e);
    let kind = if is_fault(c) {
        ErrorKind::Fault
    } else if c == 2 {
        ErrorKind::OutOfMemory
    } else if matches!(c, 200 | 209 | 218 | 221 | 222 | 300 | 302) {
        ErrorKind::BadImage
    } else {
        ErrorKind::Driver
    };
    BackendError {
        kind,
        call,
        detail: name(&e),
    }
}

fn harness_error(code: &str, what: &str, e: DriverError) -> HarnessError {
    HarnessError {
        code: code.to_string(),
        detail: format!("{what}: {}", name(&e)),
    }
}

fn attr(dev: sys::CUdevice, a: sys::CUdevice_attribute) -> Result<i32, DriverError> {
    // SAFETY: `dev` came from cuDeviceGet.
    unsafe { result::device::get_attribute(dev, a) }
}

fn uuid_string(u: &sys::CUuuid) -> String {
    gpu_uuid(&u.bytes.map(|c| c as u8))
}

fn describe(index: u32, dev: sys::CUdevice) -> Result<DeviceInfo, DriverError> {
    use sys::CUdevice_attribute as A;
    let mut api = 0i32;
    // SAFETY: writes one int.
    unsafe { sys::cuDriverGetVersion(&mut api) }.result()?;
    let u = |v: i32| v.max(0) as u32;
    Ok(DeviceInfo {
        index,
        backend: "cuda".into(),
        name: result::device::get_name(dev)?,
        uuid: uuid_string(&result::device::get_uuid(dev)?),
        driver: format!("cuda-api-{api}"),
        cuda_driver_api: api,
        compute_capability: [
            attr(dev, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)?,
            attr(dev, A::CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
        ],
        sm_count: u(attr(dev, A::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?),
        l2_bytes: u64::from(u(attr(dev, A::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?)),
        persisting_l2_max_bytes: u64::from(u(attr(
            dev,
            A::CU_DEVICE_ATTRIBUTE_MAX_PERSISTING_L2_CACHE_SIZE,
        )?)),
        persisting_l2_set_aside_bytes: None,
        // SAFETY: `dev` came from cuDeviceGet.
        total_mem_bytes: unsafe { result::device::total_mem(dev) }? as u64,
        max_threads_per_block: u(attr(dev, A::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?),
        max_block: [
            u(attr(dev, A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?),
            u(attr(dev, A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?),
            u(attr(dev, A::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?),
        ],
        max_grid: [
            u(attr(dev, A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?),
            u(attr(dev, A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?),
            u(attr(dev, A::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?),
        ],
        max_shared_optin: u(attr(
            dev,
            A::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
        )?),
        arch: None,
    })
    .map(|mut d| {
        d.arch = Some(format!(
            "sm_{}{}",
            d.compute_capability[0], d.compute_capability[1]
        ));
        d
    })
}

fn init() -> Result<(), HarnessError> {
    if !driver_present() {
        return Err(HarnessError {
            code: "no-gpu".into(),
            detail: "the CUDA driver library (libcuda.so) is not present".into(),
        });
    }
    result::init().map_err(|e| harness_error("no-gpu", "cuInit", e))
}

/// Bytes of L2 the current context sets aside for persisting accesses.
fn persisting_set_aside() -> Result<u64, DriverError> {
    let mut v: usize = 0;
    // SAFETY: writes one size_t; acts on the current context.
    unsafe { sys::cuCtxGetLimit(&mut v, sys::CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE) }.result()?;
    Ok(v as u64)
}

/// Sets the current context's persisting set-aside to zero.
fn no_persisting_set_aside() -> Result<(), DriverError> {
    // SAFETY: acts on the current context.
    unsafe { sys::cuCtxSetLimit(sys::CUlimit::CU_LIMIT_PERSISTING_L2_CACHE_SIZE, 0) }.result()
}

/// Every visible device, without creating a context.
pub(crate) fn list_devices() -> Result<Vec<DeviceInfo>, HarnessError> {
    init()?;
    let n = result::device::get_count().map_err(|e| harness_error("driver-error", "cuDeviceGetCount", e))?;
    let mut out = Vec::new();
    for i in 0..n {
        let dev = result::device::get(i).map_err(|e| harness_error("driver-error", "cuDeviceGet", e))?;
        let mut info =
            describe(i as u32, dev).map_err(|e| harness_error("driver-error", "device attributes", e))?;
        if let Some(v) = Nvml::open(&info.uuid).and_then(|n| n.driver_version()) {
            info.driver = v;
        }
        out.push(info);
    }
    Ok(out)
}

/// The harness's device code: its module instance and its one kernel, `aorlta_run`, which runs a
/// batch of [`HelperOp`]s in one launch.
struct Helpers {
    module: sys::CUmodule,
    run: sys::CUfunction,
}

/// The CUDA device of one harness process.
pub(crate) struct CudaBackend {
    device: DeviceInfo,
    events: [sys::CUevent; 2],
    modules: HashMap<u64, sys::CUmodule>,
    funcs: HashMap<u64, sys::CUfunction>,
    next_id: u64,
    nvml: Option<Nvml>,
    helper_image: Vec<u64>,
    helpers: Option<Helpers>,
    cublas: Option<crate::cublas::Cublas>,
}

impl CudaBackend {
    /// Creates the primary context of device `index` and its two events; `helpers` is the
    /// harness's device code for this device (see [`crate::helpers`]).
    pub(crate) fn new(index: u32, helpers: &[u8]) -> Result<Self, HarnessError> {
        init()?;
        let n =
            result::device::get_count().map_err(|e| harness_error("driver-error", "cuDeviceGetCount", e))?;
        if index as i32 >= n {
            return Err(HarnessError {
                code: "no-gpu".into(),
                detail: format!("device {index} asked for; {n} visible"),
            });
        }
        let dev =
            result::device::get(index as i32).map_err(|e| harness_error("driver-error", "cuDeviceGet", e))?;
        // SAFETY: `dev` came from cuDeviceGet; the context stays retained for the process.
        let ctx = unsafe { result::primary_ctx::retain(dev) }
            .map_err(|e| harness_error("driver-error", "cuDevicePrimaryCtxRetain", e))?;
        // SAFETY: `ctx` is a live primary context.
        unsafe { result::ctx::set_current(ctx) }
            .map_err(|e| harness_error("driver-error", "cuCtxSetCurrent", e))?;
        let mut device =
            describe(index, dev).map_err(|e| harness_error("driver-error", "device attributes", e))?;
        // No L2 set aside for persisting accesses: a kernel's `evict_last` loads then keep
        // nothing from one timed launch to the next. Only host code can change the limit, and
        // no candidate's host code runs, so it is set once here and recorded.
        no_persisting_set_aside().map_err(|e| harness_error("driver-error", "cuCtxSetLimit", e))?;
        device.persisting_l2_set_aside_bytes =
            Some(persisting_set_aside().map_err(|e| harness_error("driver-error", "cuCtxGetLimit", e))?);
        let nvml = Nvml::open(&device.uuid);
        if let Some(v) = nvml.as_ref().and_then(Nvml::driver_version) {
            device.driver = v;
        }
        let flags = sys::CUevent_flags::CU_EVENT_DEFAULT;
        let start =
            result::event::create(flags).map_err(|e| harness_error("driver-error", "cuEventCreate", e))?;
        let stop =
            result::event::create(flags).map_err(|e| harness_error("driver-error", "cuEventCreate", e))?;
        Ok(CudaBackend {
            device,
            events: [start, stop],
            modules: HashMap::new(),
            funcs: HashMap::new(),
            next_id: 1,
            nvml,
            helper_image: aligned_image(helpers),
            helpers: None,
            cublas: None,
        })
    }

    /// The device's compute capability as an nvcc architecture (`sm_90`).
    pub(crate) fn arch_of(index: u32) -> Result<String, HarnessError> {
        let d = list_devices()?
            .into_iter()
            .find(|d| d.index == index)
            .ok_or_else(|| HarnessError {
                code: "no-gpu".into(),
                detail: format!("no device {index}"),
            })?;
        Ok(format!(
            "sm_{}{}",
            d.compute_capability[0], d.compute_capability[1]
        ))
    }

    fn helper_launch(&self, f: sys::CUfunction, batch: &BatchRepr) -> Result<(), BackendError> {
        let mut params = [batch as *const BatchRepr as *mut c_void];
        // SAFETY: the one parameter points at a batch laid out as `aorlta_run`'s parameter,
        // and the driver copies it before returning.
        unsafe {
            result::launch_kernel(
                f,
                (batch.blocks(self.device.sm_count), 1, 1),
                (THREADS_PER_BLOCK, 1, 1),
                0,
                std::ptr::null_mut(),
                &mut params,
            )
        }
        .map_err(|e| classify("cuLaunchKernel (harness)", e))
    }

    fn module(&self, m: ModuleId) -> Result<sys::CUmodule, BackendError> {
        self.modules.get(&m.0).copied().ok_or(BackendError {
            kind: ErrorKind::Driver,
            call: "module",
            detail: "unknown module instance".into(),
        })
    }
}

impl Backend for CudaBackend {
    fn device(&self) -> &DeviceInfo {
        &self.device
    }

    fn clocks(&mut self) -> Option<Clocks> {
        crate::profile::timed("clocks", || self.nvml.as_ref().and_then(Nvml::clocks))
    }

    fn load_module(&mut self, image: &[u8]) -> Result<ModuleId, BackendError> {
        crate::profile::timed("load_module", || {
            // The driver reads the ELF image; give it an 8-byte-aligned copy.
            let aligned = aligned_image(image);
            // SAFETY: the image is a complete code object in memory that lives through the call.
            let m = unsafe { result::module::load_data(aligned.as_ptr() as *const c_void) }
                .map_err(|e| classify("cuModuleLoadData", e))?;
            let id = self.next_id;
            self.next_id += 1;
            self.modules.insert(id, m);
            Ok(ModuleId(id))
        })
    }

    fn unload_module(&mut self, module: ModuleId) -> Result<(), BackendError> {
        crate::profile::timed("unload_module", || {
            let m = self.module(module)?;
            self.modules.remove(&module.0);
            // SAFETY: `m` is a loaded module, removed from the table so it is unloaded once.
            unsafe { result::module::unload(m) }.map_err(|e| classify("cuModuleUnload", e))
        })
    }

    fn function(&mut self, module: ModuleId, symbol: &str) -> Result<Option<FuncId>, BackendError> {
        crate::profile::timed("function", || {
            let m = self.module(module)?;
            // SAFETY: `m` is a loaded module.
            match unsafe { result::module::get_function(m, c_symbol("cuModuleGetFunction", symbol)?) } {
                Ok(f) => {
                    let id = self.next_id;
                    self.next_id += 1;
                    self.funcs.insert(id, f);
                    Ok(Some(FuncId(id)))
                }
                Err(e) if code(&e) == 500 => Ok(None),
                Err(e) => Err(classify("cuModuleGetFunction", e)),
            }
        })
    }

    fn global(&mut self, module: ModuleId, symbol: &str) -> Result<Option<(DevPtr, usize)>, BackendError> {
        crate::profile::timed("global", || {
            let m = self.module(module)?;
            // SAFETY: `m` is a loaded module.
            match unsafe { result::module::get_global(m, c_symbol("cuModuleGetGlobal", symbol)?) } {
                Ok((p, n)) => Ok(Some((p, n))),
                Err(e) if code(&e) == 500 => Ok(None),
                Err(e) => Err(classify("cuModuleGetGlobal", e)),
            }
        })
    }

    fn set_max_dynamic_shared(&mut self, func: FuncId, bytes: u32) -> Result<(), BackendError> {
        crate::profile::timed("set_max_dynamic_shared", || {
            let f = self.funcs.get(&func.0).copied().ok_or(BackendError {
                kind: ErrorKind::Driver,
                call: "cuFuncSetAttribute",
                detail: "unknown function".into(),
            })?;
            let a = sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES;
            // SAFETY: `f` belongs to a loaded module.
            unsafe { sys::cuFuncSetAttribute(f, a, bytes as i32) }
                .result()
                .map_err(|e| BackendError {
                    kind: ErrorKind::LaunchRefused,
                    ..classify("cuFuncSetAttribute", e)
                })
        })
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, BackendError> {
        crate::profile::timed("alloc", || {
            // SAFETY: plain device allocation.
            unsafe { result::malloc_sync(bytes.max(1)) }.map_err(|e| classify("cuMemAlloc", e))
        })
    }

    fn lend(&mut self, alloc: DevPtr, _bytes: usize) -> Result<crate::backend::Lent, BackendError> {
        let mut handle = std::mem::MaybeUninit::<sys::CUipcMemHandle>::zeroed();
        // SAFETY: `alloc` is an allocation of `cuMemAlloc`; the handle is written whole.
        unsafe { sys::cuIpcGetMemHandle(handle.as_mut_ptr(), alloc) }
            .result()
            .map_err(|e| classify("cuIpcGetMemHandle", e))?;
        // SAFETY: initialised by the call above.
        let handle = unsafe { handle.assume_init() };
        let hex: String = handle
            .reserved
            .iter()
            .map(|b| format!("{:02x}", *b as u8))
            .collect();
        Ok(crate::backend::Lent::Ipc(hex))
    }

    unsafe fn free(&mut self, ptr: DevPtr) -> Result<(), BackendError> {
        crate::profile::timed("free", || {
            // SAFETY: the caller promises `ptr` came from `alloc` and is freed once.
            unsafe { sys::cuMemFree_v2(ptr) }
                .result()
                .map_err(|e| classify("cuMemFree", e))
        })
    }

    unsafe fn copy_d2h(&mut self, dst: &mut [u8], src: DevPtr) -> Result<(), BackendError> {
        crate::profile::timed("copy_d2h", || {
            // SAFETY: the caller promises `src` is an allocation or symbol at least `dst.len()` long.
            unsafe { result::memcpy_dtoh_sync(dst, src) }.map_err(|e| classify("cuMemcpyDtoH", e))
        })
    }

    unsafe fn memset_d32(&mut self, dst: DevPtr, value: u32, count: usize) -> Result<(), BackendError> {
        crate::profile::timed("memset_d32", || {
            // SAFETY: the caller promises `dst` is an allocation of at least `count` words.
            unsafe { sys::cuMemsetD32_v2(dst, value, count) }
                .result()
                .map_err(|e| classify("cuMemsetD32", e))
        })
    }

    unsafe fn library(&mut self, op: &crate::backend::LibraryOp) -> Result<(), BackendError> {
        crate::profile::timed("library", || {
            if self.cublas.is_none() {
                let cublas = crate::cublas::Cublas::new(&mut |bytes| self.alloc(bytes))?;
                self.cublas = Some(cublas);
            }
            let cublas = self.cublas.as_mut().expect("created above");
            // SAFETY: the caller promises every matrix lies inside one live allocation.
            unsafe { cublas.run(op) }
        })
    }

    fn reset_persisting_l2(&mut self) -> Result<(), BackendError> {
        crate::profile::timed("reset_persisting_l2", || {
            // SAFETY: acts on the current context.
            unsafe { sys::cuCtxResetPersistingL2Cache() }
                .result()
                .map_err(|e| classify("cuCtxResetPersistingL2Cache", e))
        })
    }

    fn record_event(&mut self, slot: EventSlot) -> Result<(), BackendError> {
        crate::profile::timed("record_event", || {
            let ev = self.events[slot as usize];
            // SAFETY: the event was created with default flags and lives as long as the backend.
            unsafe { result::event::record(ev, std::ptr::null_mut()) }
                .map_err(|e| classify("cuEventRecord", e))
        })
    }

    unsafe fn launch(&mut self, func: FuncId, g: &Geometry, args: &[KernelArg]) -> Result<(), BackendError> {
        crate::profile::timed("launch", || {
            let f = self.funcs.get(&func.0).copied().ok_or(BackendError {
                kind: ErrorKind::Driver,
                call: "cuLaunchKernel",
                detail: "unknown function".into(),
            })?;
            let mut words: Vec<u64> = args.iter().map(KernelArg::word).collect();
            let mut params: Vec<*mut c_void> =
                words.iter_mut().map(|w| w as *mut u64 as *mut c_void).collect();
            // SAFETY: the caller promises the parameters match the kernel's signature and its
            // buffers are live; the driver copies them before returning.
            unsafe {
                result::launch_kernel(
                    f,
                    (g.grid[0], g.grid[1], g.grid[2]),
                    (g.block[0], g.block[1], g.block[2]),
                    g.shared_bytes,
                    std::ptr::null_mut(),
                    &mut params,
                )
            }
            .map_err(|e| {
                let mut err = classify("cuLaunchKernel", e);
                if err.kind != ErrorKind::Fault {
                    err.kind = ErrorKind::LaunchRefused;
                }
                err
            })
        })
    }

    fn wait_stop(&mut self, timeout_s: f64) -> Result<Wait, BackendError> {
        crate::profile::timed("wait_stop", || {
            let ev = self.events[EventSlot::Stop as usize];
            poll_until(timeout_s, || {
                // SAFETY: a live event.
                match unsafe { result::event::query(ev) } {
                    Ok(()) => Ok(true),
                    Err(e) if code(&e) == 600 => Ok(false),
                    Err(e) => Err(classify("cuEventQuery", e)),
                }
            })
        })
    }

    fn elapsed_s(&mut self) -> Result<f64, BackendError> {
        crate::profile::timed("elapsed_s", || {
            // SAFETY: both events were recorded on the same stream and have completed.
            let ms = unsafe { result::event::elapsed(self.events[0], self.events[1]) }
                .map_err(|e| classify("cuEventElapsedTime", e))?;
            Ok(f64::from(ms) / 1000.0)
        })
    }

    fn synchronize(&mut self) -> Result<(), BackendError> {
        crate::profile::timed("synchronize", || {
            result::ctx::synchronize().map_err(|e| classify("cuCtxSynchronize", e))
        })
    }

    fn load_helpers(&mut self) -> Result<(), BackendError> {
        crate::profile::timed("load_helpers", || {
            self.unload_helpers()?;
            // SAFETY: the image is the harness's own code object, aligned, alive through the call.
            let module = unsafe { result::module::load_data(self.helper_image.as_ptr() as *const c_void) }
                .map_err(|e| classify("cuModuleLoadData (harness)", e))?;
            let get = |name: &str| -> Result<sys::CUfunction, BackendError> {
                // SAFETY: `module` was just loaded.
                unsafe { result::module::get_function(module, c_symbol("cuModuleGetFunction", name)?) }
                    .map_err(|e| classify("cuModuleGetFunction (harness)", e))
            };
            let helpers = Helpers {
                module,
                run: get("aorlta_run")?,
            };
            self.helpers = Some(helpers);
            Ok(())
        })
    }

    fn unload_helpers(&mut self) -> Result<(), BackendError> {
        crate::profile::timed("unload_helpers", || {
            if let Some(h) = self.helpers.take() {
                // SAFETY: the harness's module, taken out of `self` so it is unloaded once.
                unsafe { result::module::unload(h.module) }
                    .map_err(|e| classify("cuModuleUnload (harness)", e))?;
            }
            Ok(())
        })
    }

    unsafe fn helpers(&mut self, ops: &[HelperOp]) -> Result<(), BackendError> {
        crate::profile::timed("helpers", || {
            let run = self.helpers.as_ref().map(|h| h.run).ok_or_else(not_loaded)?;
            BatchRepr::split(ops).try_for_each(|batch| self.helper_launch(run, &batch))
        })
    }
}
