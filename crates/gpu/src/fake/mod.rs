//! The fake device: the [`Backend`] trait on the CPU, for CI and for `aorlta validate
//! --fake-gpu`. Its memory model ([`memory`]) gives allocations real addresses and bounds (a
//! write outside every allocation is a fault); its behaviour model ([`behaviour`]) runs a code
//! object that is a [`FakeImage`] saying what the kernel computes ([`compute`]), which threat it
//! plays and how fast it is; the harness's own device code runs on the CPU ([`helpers`]).
//! The launch plans, the verification and the judge run unchanged on it, so they, not the fake,
//! decide every verdict. Every call is logged, so tests can read the plan's order of steps.

pub(crate) mod behaviour;
pub(crate) mod compute;
pub(crate) mod helpers;
pub(crate) mod library;
pub(crate) mod memory;

use crate::backend::{
    Backend, BackendError, DevPtr, ErrorKind, EventSlot, FuncId, HelperOp, KernelArg, LibraryOp, ModuleId,
    Wait,
};
use crate::geometry::LAUNCH_SYMBOL;
use aorlta_record::FakeImage;
use aorlta_record::{Clocks, DeviceInfo, Geometry};
use memory::Memory;
use rand_core::SeedableRng;
use rand_pcg::Pcg64Mcg;
use std::cell::{Cell, OnceCell};
use std::collections::{BTreeSet, HashMap};
use std::rc::Rc;

/// One logged call.
#[derive(Debug, Clone, PartialEq)]
pub enum Call {
    /// `load_module` → the instance.
    LoadModule(ModuleId),
    /// `unload_module`.
    UnloadModule(ModuleId),
    /// `function(module, symbol)`.
    Function(ModuleId, String),
    /// `global(module, symbol)`.
    Global(ModuleId, String),
    /// `set_max_dynamic_shared`.
    SetShared(u32),
    /// `alloc(bytes)` → address.
    Alloc(usize, DevPtr),
    /// `free`.
    Free(DevPtr),
    /// `copy_d2h(src, bytes)`.
    CopyD2H(DevPtr, usize),
    /// `memset_d32(dst, words)`.
    MemsetD32(DevPtr, usize),
    /// `reset_persisting_l2`.
    ResetL2,
    /// `record_event`.
    Record(EventSlot),
    /// `launch` of a function of a module instance.
    Launch(ModuleId),
    /// `library`: a plan's library operation.
    Library(LibraryOp),
    /// `wait_stop`.
    WaitStop,
    /// `elapsed_s`.
    Elapsed,
    /// `synchronize`.
    Sync,
    /// `load_helpers`.
    LoadHelpers,
    /// `unload_helpers`.
    UnloadHelpers,
    /// `helper`.
    Helper(HelperOp),
}

/// A loaded module instance.
pub(crate) struct FakeModule {
    image: FakeImage,
    launches: Cell<u64>,
    launch_global: Option<(DevPtr, usize)>,
    first_len: OnceCell<u64>,
}

/// The fake device.
pub struct FakeBackend {
    device: DeviceInfo,
    mem: Memory,
    modules: HashMap<u64, Rc<FakeModule>>,
    /// Function → its module instance and symbol.
    funcs: HashMap<u64, (u64, String)>,
    next_id: u64,
    faulted: bool,
    rng: Pcg64Mcg,
    persist_reset: bool,
    flushed_bytes: usize,
    pending: Option<(f64, bool)>,
    helpers: bool,
    /// Counter words the harness's device code has added to (what a tampering kernel learns).
    seen_counts: BTreeSet<DevPtr>,
    /// Comparison counters the harness's device code has used.
    seen_compare: BTreeSet<DevPtr>,
    /// Every call, in order, while [`FakeBackend::keep_log`] is set.
    pub log: Vec<Call>,
    /// Each launch's module instance and the address of its first buffer argument, while
    /// [`FakeBackend::keep_log`] is set (which buffer set a launch ran in).
    pub launch_buffers: Vec<(ModuleId, u64)>,
    /// Whether calls are kept in [`FakeBackend::log`] (tests read it). The harness process
    /// serving jobs turns it off: it lives as long as the service, and the log would grow with
    /// every job.
    pub keep_log: bool,
    /// Longest a hang is simulated before `wait_stop` reports it (seconds).
    pub hang_cap_s: f64,
    /// Seconds every launch keeps the fake device busy in real time (`AORLTA_FAKE_LAUNCH_S`;
    /// 0 by default), so that a benchmark on the fake device is bound by its "GPUs" and shows
    /// how the scheduling scales with their number.
    pub busy_s: f64,
    /// Where allocations lent to the reference process live as files.
    lent_dir: Option<tempfile::TempDir>,
}

impl Default for FakeBackend {
    fn default() -> Self {
        Self::new(0)
    }
}

impl FakeBackend {
    /// Notes `call` in the log, when one is kept.
    fn record(&mut self, call: Call) {
        if self.keep_log {
            self.log.push(call);
        }
    }

    /// A fake device serving the harness's jobs: no call log kept.
    pub fn serving(index: u32) -> Self {
        FakeBackend {
            keep_log: false,
            ..Self::new(index)
        }
    }

    /// A fake device with the given ordinal.
    pub fn new(index: u32) -> Self {
        let device = DeviceInfo {
            index,
            backend: "fake".into(),
            name: "AORLTA fake device".into(),
            uuid: format!("GPU-fake-{index:04}"),
            driver: "fake".into(),
            cuda_driver_api: 0,
            compute_capability: [9, 0],
            sm_count: 132,
            l2_bytes: 1 << 20,
            persisting_l2_max_bytes: 1 << 19,
            persisting_l2_set_aside_bytes: Some(0),
            total_mem_bytes: 1 << 32,
            max_threads_per_block: 1024,
            max_block: [1024, 1024, 64],
            max_grid: [2_147_483_647, 65535, 65535],
            max_shared_optin: 232_448,
            arch: Some("sm_90".into()),
        };
        FakeBackend {
            mem: Memory::new(device.total_mem_bytes),
            device,
            modules: HashMap::new(),
            funcs: HashMap::new(),
            next_id: 1,
            faulted: false,
            rng: Pcg64Mcg::seed_from_u64(0),
            persist_reset: false,
            flushed_bytes: 0,
            pending: None,
            helpers: false,
            seen_counts: BTreeSet::new(),
            seen_compare: BTreeSet::new(),
            log: Vec::new(),
            launch_buffers: Vec::new(),
            keep_log: true,
            hang_cap_s: 10.0,
            busy_s: std::env::var("AORLTA_FAKE_LAUNCH_S")
                .ok()
                .and_then(|v| v.parse::<f64>().ok())
                .filter(|v| v.is_finite() && *v >= 0.0)
                .unwrap_or(0.0),
            lent_dir: None,
        }
    }

    fn fault(&self, call: &'static str) -> Result<(), BackendError> {
        if self.faulted {
            Err(BackendError {
                kind: ErrorKind::Fault,
                call,
                detail: "an illegal memory access was encountered (fake device)".into(),
            })
        } else {
            Ok(())
        }
    }

    fn driver(call: &'static str, detail: impl Into<String>) -> BackendError {
        BackendError {
            kind: ErrorKind::Driver,
            call,
            detail: detail.into(),
        }
    }
}

impl Backend for FakeBackend {
    fn device(&self) -> &DeviceInfo {
        &self.device
    }

    fn clocks(&mut self) -> Option<Clocks> {
        Some(Clocks {
            sm_mhz: 1980,
            mem_mhz: 3201,
            throttle_reasons: 0,
            temperature_c: 40,
        })
    }

    fn begin_job(&mut self, seed: u64) {
        self.rng = Pcg64Mcg::seed_from_u64(seed ^ 0xFA4E);
    }

    fn load_module(&mut self, image: &[u8]) -> Result<ModuleId, BackendError> {
        self.fault("cuModuleLoadData")?;
        let Some(img) = FakeImage::parse(image) else {
            return Err(BackendError {
                kind: ErrorKind::BadImage,
                call: "cuModuleLoadData",
                detail: "not a fake code object".into(),
            });
        };
        let launch_global = img.launch.as_ref().map(|words| {
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            let p = self.mem.alloc(bytes.len());
            self.mem.write(p, &bytes);
            (p, bytes.len())
        });
        let id = self.next_id;
        self.next_id += 1;
        self.modules.insert(
            id,
            Rc::new(FakeModule {
                image: img,
                launches: Cell::new(0),
                launch_global,
                first_len: OnceCell::new(),
            }),
        );
        self.record(Call::LoadModule(ModuleId(id)));
        Ok(ModuleId(id))
    }

    fn unload_module(&mut self, module: ModuleId) -> Result<(), BackendError> {
        self.record(Call::UnloadModule(module));
        self.fault("cuModuleUnload")?;
        let m = self
            .modules
            .remove(&module.0)
            .ok_or_else(|| Self::driver("cuModuleUnload", "unknown module"))?;
        if let Some((p, _)) = m.launch_global {
            self.mem.free(p);
        }
        self.funcs.retain(|_, v| v.0 != module.0);
        Ok(())
    }

    fn function(&mut self, module: ModuleId, symbol: &str) -> Result<Option<FuncId>, BackendError> {
        self.record(Call::Function(module, symbol.to_string()));
        self.fault("cuModuleGetFunction")?;
        let m = self
            .modules
            .get(&module.0)
            .ok_or_else(|| Self::driver("cuModuleGetFunction", "unknown module"))?;
        if !m.image.symbols.iter().any(|s| s == symbol) {
            return Ok(None);
        }
        let id = self.next_id;
        self.next_id += 1;
        self.funcs.insert(id, (module.0, symbol.to_string()));
        Ok(Some(FuncId(id)))
    }

    fn global(&mut self, module: ModuleId, symbol: &str) -> Result<Option<(DevPtr, usize)>, BackendError> {
        self.record(Call::Global(module, symbol.to_string()));
        self.fault("cuModuleGetGlobal")?;
        let m = self
            .modules
            .get(&module.0)
            .ok_or_else(|| Self::driver("cuModuleGetGlobal", "unknown module"))?;
        Ok((symbol == LAUNCH_SYMBOL).then_some(m.launch_global).flatten())
    }

    fn set_max_dynamic_shared(&mut self, _func: FuncId, bytes: u32) -> Result<(), BackendError> {
        self.record(Call::SetShared(bytes));
        self.fault("cuFuncSetAttribute")
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, BackendError> {
        self.fault("cuMemAlloc")?;
        if bytes as u64 > self.mem.capacity {
            return Err(BackendError {
                kind: ErrorKind::OutOfMemory,
                call: "cuMemAlloc",
                detail: format!("{bytes} bytes"),
            });
        }
        let p = self.mem.alloc(bytes);
        self.record(Call::Alloc(bytes, p));
        Ok(p)
    }

    unsafe fn free(&mut self, ptr: DevPtr) -> Result<(), BackendError> {
        self.record(Call::Free(ptr));
        self.fault("cuMemFree")?;
        let len = self
            .mem
            .free(ptr)
            .ok_or_else(|| Self::driver("cuMemFree", "not an allocation"))?;
        // A lent allocation's file goes with it: a harness serving jobs for hours would
        // otherwise keep a file for every allocation it ever lent.
        if let Some(dir) = &self.lent_dir {
            let _ = std::fs::remove_file(dir.path().join(format!("alloc-{ptr:x}")));
        }
        // Counters in freed memory are no longer the harness's: forget them, so the sets hold
        // only live counters however many jobs have run.
        let end = ptr + len.max(1) as u64;
        for set in [&mut self.seen_counts, &mut self.seen_compare] {
            let stale: Vec<DevPtr> = set.range(ptr..end).copied().collect();
            for p in stale {
                set.remove(&p);
            }
        }
        Ok(())
    }

    fn lend(&mut self, alloc: DevPtr, bytes: usize) -> Result<crate::backend::Lent, BackendError> {
        self.fault("lend")?;
        let data = self
            .mem
            .read(alloc, bytes)
            .ok_or_else(|| Self::driver("lend", "not an allocation"))?
            .to_vec();
        let dir = self.lent_dir.get_or_insert_with(|| {
            tempfile::Builder::new()
                .prefix("aorlta-fake-lent-")
                .tempdir()
                .expect("a temporary folder")
        });
        let path = dir.path().join(format!("alloc-{alloc:x}"));
        std::fs::write(&path, data).map_err(|e| Self::driver("lend", e.to_string()))?;
        Ok(crate::backend::Lent::File(path))
    }

    fn take_back(&mut self, alloc: DevPtr, lent: &crate::backend::Lent) -> Result<(), BackendError> {
        let crate::backend::Lent::File(path) = lent else {
            return Err(Self::driver("take_back", "not lent as a file"));
        };
        let data = std::fs::read(path).map_err(|e| Self::driver("take_back", e.to_string()))?;
        if !self.mem.write(alloc, &data) {
            return Err(Self::driver(
                "take_back",
                "the file no longer fits its allocation",
            ));
        }
        Ok(())
    }

    unsafe fn copy_d2h(&mut self, dst: &mut [u8], src: DevPtr) -> Result<(), BackendError> {
        self.record(Call::CopyD2H(src, dst.len()));
        self.fault("cuMemcpyDtoH")?;
        let data = self
            .mem
            .read(src, dst.len())
            .ok_or_else(|| Self::driver("cuMemcpyDtoH", "source outside every allocation"))?;
        dst.copy_from_slice(data);
        Ok(())
    }

    unsafe fn memset_d32(&mut self, dst: DevPtr, value: u32, count: usize) -> Result<(), BackendError> {
        self.record(Call::MemsetD32(dst, count));
        self.fault("cuMemsetD32")?;
        let s = self
            .mem
            .slice_mut(dst, count * 4)
            .ok_or_else(|| Self::driver("cuMemsetD32", "outside every allocation"))?;
        let word = value.to_le_bytes();
        for c in s.chunks_exact_mut(4) {
            c.copy_from_slice(&word);
        }
        self.flushed_bytes += count * 4;
        Ok(())
    }

    fn reset_persisting_l2(&mut self) -> Result<(), BackendError> {
        self.record(Call::ResetL2);
        self.fault("cuCtxResetPersistingL2Cache")?;
        self.persist_reset = true;
        self.flushed_bytes = 0;
        Ok(())
    }

    fn record_event(&mut self, slot: EventSlot) -> Result<(), BackendError> {
        self.record(Call::Record(slot));
        self.fault("cuEventRecord")
    }

    unsafe fn launch(
        &mut self,
        func: FuncId,
        _geometry: &Geometry,
        args: &[KernelArg],
    ) -> Result<(), BackendError> {
        self.fault("cuLaunchKernel")?;
        let (id, symbol) = self
            .funcs
            .get(&func.0)
            .cloned()
            .ok_or_else(|| Self::driver("cuLaunchKernel", "unknown function"))?;
        self.record(Call::Launch(ModuleId(id)));
        if self.keep_log {
            let first = args.iter().find_map(|a| match a {
                KernelArg::Buffer { ptr, .. } => Some(*ptr),
                _ => None,
            });
            self.launch_buffers.push((ModuleId(id), first.unwrap_or(0)));
        }
        let module = self
            .modules
            .get(&id)
            .cloned()
            .ok_or_else(|| Self::driver("cuLaunchKernel", "unknown module"))?;
        let ran = self.run_kernel(&module, &symbol, args);
        self.pending = Some((ran.time_s, ran.hang));
        Ok(())
    }

    unsafe fn library(&mut self, op: &LibraryOp) -> Result<(), BackendError> {
        self.fault(op.call())?;
        self.record(Call::Library(*op));
        let ran = self.run_library(op);
        self.pending = Some((ran.time_s, ran.hang));
        Ok(())
    }

    fn wait_stop(&mut self, timeout_s: f64) -> Result<Wait, BackendError> {
        self.record(Call::WaitStop);
        self.fault("cuEventQuery")?;
        match self.pending {
            Some((_, true)) => {
                std::thread::sleep(std::time::Duration::from_secs_f64(
                    timeout_s.min(self.hang_cap_s).max(0.0),
                ));
                Ok(Wait::TimedOut)
            }
            Some((t, false)) if t > timeout_s => {
                std::thread::sleep(std::time::Duration::from_secs_f64(
                    timeout_s.min(self.hang_cap_s).max(0.0),
                ));
                Ok(Wait::TimedOut)
            }
            _ => {
                if self.busy_s > 0.0 {
                    std::thread::sleep(std::time::Duration::from_secs_f64(self.busy_s));
                }
                Ok(Wait::Done)
            }
        }
    }

    fn elapsed_s(&mut self) -> Result<f64, BackendError> {
        self.record(Call::Elapsed);
        self.fault("cuEventElapsedTime")?;
        self.pending
            .map(|p| p.0)
            .ok_or_else(|| Self::driver("cuEventElapsedTime", "no launch recorded"))
    }

    fn synchronize(&mut self) -> Result<(), BackendError> {
        self.record(Call::Sync);
        self.fault("cuCtxSynchronize")
    }

    fn load_helpers(&mut self) -> Result<(), BackendError> {
        self.record(Call::LoadHelpers);
        self.fault("cuModuleLoadData (harness)")?;
        self.helpers = true;
        Ok(())
    }

    fn unload_helpers(&mut self) -> Result<(), BackendError> {
        self.record(Call::UnloadHelpers);
        self.fault("cuModuleUnload (harness)")?;
        self.helpers = false;
        Ok(())
    }

    unsafe fn helpers(&mut self, ops: &[HelperOp]) -> Result<(), BackendError> {
        // A device runs them in one launch, in no order: the fake refuses what would race there.
        crate::backend::independent(ops).map_err(|m| Self::driver("cuLaunchKernel (harness)", m))?;
        for op in ops {
            self.record(Call::Helper(*op));
            self.fault("cuLaunchKernel (harness)")?;
            if !self.helpers {
                return Err(Self::driver("helper", "the harness's device code is not loaded"));
            }
            match *op {
                HelperOp::CheckGuard { count, .. } | HelperOp::CheckData { count, .. } => {
                    self.seen_counts.insert(count);
                }
                HelperOp::Compare { out, .. } => {
                    self.seen_compare.insert(out);
                }
                _ => {}
            }
            if helpers::run(&mut self.mem, op).is_none() {
                return Err(Self::driver(
                    "cuLaunchKernel (harness)",
                    "a region outside every allocation",
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lent_allocations_file_is_removed_when_the_allocation_is_freed() {
        let mut b = FakeBackend::serving(0);
        let mut paths = Vec::new();
        for _ in 0..3 {
            let a = b.alloc(4096).unwrap();
            let lent = b.lend(a, 4096).unwrap();
            let crate::backend::Lent::File(path) = &lent else {
                panic!("{lent:?}")
            };
            assert_eq!(std::fs::metadata(path).unwrap().len(), 4096);
            b.take_back(a, &lent).unwrap();
            // SAFETY: `a` is a live allocation of the fake device.
            unsafe { b.free(a).unwrap() };
            assert!(
                !path.exists(),
                "{} left after its allocation was freed",
                path.display()
            );
            paths.push(path.clone());
        }
        let dir = b.lent_dir.as_ref().unwrap().path().to_path_buf();
        assert!(
            dir.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("aorlta-fake-lent-")
        );
        assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
    }

    #[test]
    fn a_serving_fake_keeps_no_log_and_forgets_the_counters_of_freed_memory() {
        for (mut b, logs) in [(FakeBackend::new(0), true), (FakeBackend::serving(0), false)] {
            b.load_helpers().unwrap();
            for _ in 0..100 {
                let data = b.alloc(256).unwrap();
                let counters = b.alloc(64).unwrap();
                let op = HelperOp::CheckGuard {
                    src: data,
                    bytes: 256,
                    offset: 0,
                    count: counters + 8,
                };
                // SAFETY: both pointers are live allocations of the fake device.
                unsafe {
                    b.helpers(&[op]).unwrap();
                    assert!(b.seen_counts.contains(&(counters + 8)));
                    b.free(data).unwrap();
                    b.free(counters).unwrap();
                }
            }
            assert!(
                b.seen_counts.is_empty(),
                "{} counters kept after their memory was freed",
                b.seen_counts.len()
            );
            assert_eq!(!b.log.is_empty(), logs);
        }
    }
}
