//! The HIP device of one harness process (the `safe` layer): the [`Backend`] the harness drives,
//! over [`super::result`].

use super::result::*;
use super::sys::*;
use super::topology::*;
use crate::backend::{
    Backend, BackendError, DevPtr, ErrorKind, EventSlot, FuncId, HelperOp, KernelArg, ModuleId, Wait,
    aligned_image, c_symbol, poll_until,
};
use crate::batch::{BatchRepr, THREADS_PER_BLOCK, not_loaded};
use aorlta_record::{Clocks, DeviceInfo, Geometry, HarnessError};
use std::collections::HashMap;
use std::ffi::{c_int, c_void};

/// The harness's device code: its module instance (with the image it was loaded from) and its
/// one kernel, `aorlta_run`.
struct Helpers {
    module: Handle,
    run: Handle,
}

/// The HIP device of one harness process.
pub(crate) struct HipBackend {
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
    pub(crate) fn new(index: u32, arch: &str, helpers: &[u8]) -> Result<Self, HarnessError> {
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
    pub(crate) fn arch_of(index: u32, given: Option<&str>) -> Result<String, HarnessError> {
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
