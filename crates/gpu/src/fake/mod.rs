//! The fake device: the [`Backend`] trait on the CPU, for CI and for `aorlta validate
//! --fake-gpu`. Device memory is a set of host vectors with real addresses and bounds (a write
//! outside every allocation is a fault); a code object is a [`FakeImage`] that says what the
//! kernel computes ([`compute`]), which threat it plays and how fast it is; launch times come
//! from a model of the task (50 us plus 1 us per kB moved) times the image's speed and a seeded
//! log-normal noise.
//! The launch plans, the verification and the judge run unchanged on it, so they, not the fake,
//! decide every verdict. Every call is logged, so tests can read the plan's order of steps.

pub mod compute;

use crate::backend::{
    Backend, BackendError, DevPtr, ErrorKind, EventSlot, FuncId, KernelArg, ModuleId, Wait,
};
use crate::data::{elem_size, element, sentinel};
use crate::geometry::LAUNCH_SYMBOL;
use crate::rng::SplitMix64;
use aorlta_record::kernel::fake::{FakeBehaviour, FakeImage};
use aorlta_record::kernel::harness::{Clocks, DeviceInfo, Geometry};
use aorlta_record::kernel::{Dtype, Role};
use std::collections::{BTreeMap, HashMap};

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
    /// `copy_h2d(dst, bytes)`.
    CopyH2D(DevPtr, usize),
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
    /// `wait_stop`.
    WaitStop,
    /// `elapsed_s`.
    Elapsed,
    /// `synchronize`.
    Sync,
}

struct Module {
    image: FakeImage,
    launches: u64,
    launch_global: Option<(DevPtr, usize)>,
    first_len: Option<u64>,
}

/// The fake device.
pub struct FakeBackend {
    device: DeviceInfo,
    mem: BTreeMap<DevPtr, Vec<u8>>,
    next_addr: DevPtr,
    modules: HashMap<u64, Module>,
    funcs: HashMap<u64, u64>,
    next_id: u64,
    faulted: bool,
    rng: SplitMix64,
    persist_reset: bool,
    flushed_bytes: usize,
    pending: Option<(f64, bool)>,
    /// Every call, in order.
    pub log: Vec<Call>,
    /// Longest a hang is simulated before `wait_stop` reports it (seconds).
    pub hang_cap_s: f64,
}

impl Default for FakeBackend {
    fn default() -> Self {
        Self::new(0)
    }
}

impl FakeBackend {
    /// A fake device with the given ordinal.
    pub fn new(index: u32) -> Self {
        FakeBackend {
            device: DeviceInfo {
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
                total_mem_bytes: 1 << 32,
                max_threads_per_block: 1024,
                max_block: [1024, 1024, 64],
                max_grid: [2_147_483_647, 65535, 65535],
                max_shared_optin: 232_448,
            },
            mem: BTreeMap::new(),
            next_addr: 0x7f00_0000_0000,
            modules: HashMap::new(),
            funcs: HashMap::new(),
            next_id: 1,
            faulted: false,
            rng: SplitMix64::new(0),
            persist_reset: false,
            flushed_bytes: 0,
            pending: None,
            log: Vec::new(),
            hang_cap_s: 10.0,
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

    /// The allocation holding `[addr, addr + len)`: its base and the offset of `addr`.
    fn locate(&self, addr: DevPtr, len: usize) -> Option<(DevPtr, usize)> {
        let (&base, v) = self.mem.range(..=addr).next_back()?;
        let off = (addr - base) as usize;
        (off + len <= v.len()).then_some((base, off))
    }

    fn read(&self, addr: DevPtr, len: usize) -> Option<&[u8]> {
        let (base, off) = self.locate(addr, len)?;
        Some(&self.mem[&base][off..off + len])
    }

    fn write(&mut self, addr: DevPtr, bytes: &[u8]) -> bool {
        match self.locate(addr, bytes.len()) {
            Some((base, off)) => {
                if let Some(v) = self.mem.get_mut(&base) {
                    v[off..off + bytes.len()].copy_from_slice(bytes);
                }
                true
            }
            None => false,
        }
    }

    fn alloc_bytes(&mut self, bytes: usize) -> DevPtr {
        let addr = self.next_addr;
        self.next_addr += (bytes as u64).div_ceil(1 << 16).max(1) * (1 << 16) + (1 << 16);
        self.mem.insert(addr, vec![0u8; bytes]);
        addr
    }

    fn run_kernel(&mut self, module_id: u64, args: &[KernelArg]) -> Result<(f64, bool), BackendError> {
        let Some(module) = self.modules.get(&module_id) else {
            return Err(Self::driver("cuLaunchKernel", "unknown function"));
        };
        let img = module.image.clone();
        let launches = module.launches;
        let first_len = module.first_len;
        let mut inputs = Vec::new();
        let mut outs: Vec<(DevPtr, Dtype, u64)> = Vec::new();
        let mut first_input: Option<(DevPtr, Dtype)> = None;
        let mut ints = Vec::new();
        let mut bytes_moved = 0u64;
        for a in args {
            match *a {
                KernelArg::Buffer {
                    ptr,
                    dtype,
                    len,
                    role,
                } => {
                    bytes_moved += len * elem_size(dtype) as u64;
                    if matches!(role, Role::In | Role::Inout) {
                        let n = len as usize * elem_size(dtype);
                        let Some(data) = self.read(ptr, n) else {
                            self.faulted = true;
                            return Ok((0.0, false));
                        };
                        let values = (0..len as usize).map(|i| element(data, dtype, i)).collect();
                        inputs.push(compute::Buf { values });
                        if first_input.is_none() && role == Role::In {
                            first_input = Some((ptr, dtype));
                        }
                    }
                    if matches!(role, Role::Out | Role::Inout) {
                        outs.push((ptr, dtype, len));
                    }
                }
                other => {
                    if let Some(v) = other.as_i64() {
                        ints.push(v);
                    }
                }
            }
        }
        if let Some(m) = self.modules.get_mut(&module_id) {
            m.launches += 1;
            if m.first_len.is_none() {
                m.first_len = outs.first().map(|o| o.2);
            }
        }
        match img.behaviour {
            FakeBehaviour::Hang => return Ok((0.0, true)),
            FakeBehaviour::Fault => {
                self.faulted = true;
                return Ok((0.0, false));
            }
            _ => {}
        }
        let out_lens: Vec<usize> = outs.iter().map(|o| o.2 as usize).collect();
        let mut values = compute::compute(&img.compute, &inputs, &out_lens, &ints);
        if img.behaviour == FakeBehaviour::HardcodedSize
            && first_len.is_some_and(|l| Some(l) != outs.first().map(|o| o.2))
        {
            for v in &mut values {
                v.iter_mut().for_each(|x| *x = 0.0);
            }
        }
        if img.behaviour == FakeBehaviour::IgnoresInputs {
            for v in &mut values {
                for (i, x) in v.iter_mut().enumerate() {
                    *x = (i % 16) as f64 * 0.125 - 1.0;
                }
            }
        }
        let skip_all = img.behaviour == FakeBehaviour::StatefulSkip && launches > 0;
        let (mut written, mut total) = (0usize, 0usize);
        for ((ptr, dtype, len), vals) in outs.iter().zip(&values) {
            let n = elem_size(*dtype);
            let s = sentinel(*dtype);
            for (i, &v) in vals.iter().enumerate().take(*len as usize) {
                total += 1;
                let addr = ptr + (i * n) as u64;
                if skip_all {
                    continue;
                }
                if img.behaviour == FakeBehaviour::SentinelSkip && self.read(addr, n) != Some(&s[..]) {
                    continue;
                }
                written += 1;
                let bytes = encode(v, *dtype);
                if !self.write(addr, &bytes) {
                    self.faulted = true;
                    return Ok((0.0, false));
                }
            }
        }
        if img.behaviour == FakeBehaviour::OobWrite
            && let Some(&(ptr, dtype, len)) = outs.first()
        {
            let n = elem_size(dtype);
            if !self.write(ptr + len * n as u64, &encode(1.0, dtype)) {
                self.faulted = true;
                return Ok((0.0, false));
            }
        }
        if img.behaviour == FakeBehaviour::InputMutation
            && let Some((ptr, dtype)) = first_input
        {
            let old = self
                .read(ptr, elem_size(dtype))
                .map(|d| element(d, dtype, 0))
                .unwrap_or(0.0);
            self.write(ptr, &encode(old + 1.0, dtype));
        }
        let cold = self.persist_reset && self.flushed_bytes as u64 >= 2 * self.device.l2_bytes;
        self.persist_reset = false;
        self.flushed_bytes = 0;
        let work = if total == 0 {
            1.0
        } else {
            (written as f64 / total as f64).max(0.05)
        };
        // The fake device runs scaled-down sizes; its model keeps launches in the tens to
        // hundreds of microseconds, like the real tasks at their timed sizes.
        let base = 50e-6 + bytes_moved as f64 / 1.0e9;
        let speed = match img.behaviour {
            FakeBehaviour::WarmCache if cold => 1.0,
            _ => img.speed,
        };
        let t = img.fixed_s.unwrap_or(base * speed) * work * (img.noise * self.rng.next_normal()).exp();
        Ok((t, false))
    }
}

fn encode(v: f64, dtype: Dtype) -> Vec<u8> {
    use crate::half::{f32_to_bf16, f32_to_f16};
    match dtype {
        Dtype::F32 => (v as f32).to_le_bytes().to_vec(),
        Dtype::F16 => f32_to_f16(v as f32).to_le_bytes().to_vec(),
        Dtype::Bf16 => f32_to_bf16(v as f32).to_le_bytes().to_vec(),
        Dtype::I32 => (v as i32).to_le_bytes().to_vec(),
        Dtype::U32 => (v as u32).to_le_bytes().to_vec(),
        Dtype::I64 => (v as i64).to_le_bytes().to_vec(),
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
        self.rng = SplitMix64::stream(seed, 0xFA4E);
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
            let p = self.alloc_bytes(bytes.len());
            self.write(p, &bytes);
            (p, bytes.len())
        });
        let id = self.next_id;
        self.next_id += 1;
        self.modules.insert(
            id,
            Module {
                image: img,
                launches: 0,
                launch_global,
                first_len: None,
            },
        );
        self.log.push(Call::LoadModule(ModuleId(id)));
        Ok(ModuleId(id))
    }

    fn unload_module(&mut self, module: ModuleId) -> Result<(), BackendError> {
        self.log.push(Call::UnloadModule(module));
        self.fault("cuModuleUnload")?;
        let m = self
            .modules
            .remove(&module.0)
            .ok_or_else(|| Self::driver("cuModuleUnload", "unknown module"))?;
        if let Some((p, _)) = m.launch_global {
            self.mem.remove(&p);
        }
        self.funcs.retain(|_, v| *v != module.0);
        Ok(())
    }

    fn function(&mut self, module: ModuleId, symbol: &str) -> Result<Option<FuncId>, BackendError> {
        self.log.push(Call::Function(module, symbol.to_string()));
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
        self.funcs.insert(id, module.0);
        Ok(Some(FuncId(id)))
    }

    fn global(&mut self, module: ModuleId, symbol: &str) -> Result<Option<(DevPtr, usize)>, BackendError> {
        self.log.push(Call::Global(module, symbol.to_string()));
        self.fault("cuModuleGetGlobal")?;
        let m = self
            .modules
            .get(&module.0)
            .ok_or_else(|| Self::driver("cuModuleGetGlobal", "unknown module"))?;
        Ok((symbol == LAUNCH_SYMBOL).then_some(m.launch_global).flatten())
    }

    fn set_max_dynamic_shared(&mut self, _func: FuncId, bytes: u32) -> Result<(), BackendError> {
        self.log.push(Call::SetShared(bytes));
        self.fault("cuFuncSetAttribute")
    }

    fn alloc(&mut self, bytes: usize) -> Result<DevPtr, BackendError> {
        self.fault("cuMemAlloc")?;
        if bytes as u64 > self.device.total_mem_bytes {
            return Err(BackendError {
                kind: ErrorKind::OutOfMemory,
                call: "cuMemAlloc",
                detail: format!("{bytes} bytes"),
            });
        }
        let p = self.alloc_bytes(bytes);
        self.log.push(Call::Alloc(bytes, p));
        Ok(p)
    }

    fn free(&mut self, ptr: DevPtr) -> Result<(), BackendError> {
        self.log.push(Call::Free(ptr));
        self.fault("cuMemFree")?;
        self.mem
            .remove(&ptr)
            .map(|_| ())
            .ok_or_else(|| Self::driver("cuMemFree", "not an allocation"))
    }

    fn copy_h2d(&mut self, dst: DevPtr, src: &[u8]) -> Result<(), BackendError> {
        self.log.push(Call::CopyH2D(dst, src.len()));
        self.fault("cuMemcpyHtoD")?;
        if self.write(dst, src) {
            Ok(())
        } else {
            Err(Self::driver(
                "cuMemcpyHtoD",
                "destination outside every allocation",
            ))
        }
    }

    fn copy_d2h(&mut self, dst: &mut [u8], src: DevPtr) -> Result<(), BackendError> {
        self.log.push(Call::CopyD2H(src, dst.len()));
        self.fault("cuMemcpyDtoH")?;
        let data = self
            .read(src, dst.len())
            .ok_or_else(|| Self::driver("cuMemcpyDtoH", "source outside every allocation"))?;
        dst.copy_from_slice(data);
        Ok(())
    }

    fn memset_d32(&mut self, dst: DevPtr, value: u32, count: usize) -> Result<(), BackendError> {
        self.log.push(Call::MemsetD32(dst, count));
        self.fault("cuMemsetD32")?;
        let (base, off) = self
            .locate(dst, count * 4)
            .ok_or_else(|| Self::driver("cuMemsetD32", "outside every allocation"))?;
        if let Some(v) = self.mem.get_mut(&base) {
            let word = value.to_le_bytes();
            for c in v[off..off + count * 4].chunks_exact_mut(4) {
                c.copy_from_slice(&word);
            }
        }
        self.flushed_bytes += count * 4;
        Ok(())
    }

    fn reset_persisting_l2(&mut self) -> Result<(), BackendError> {
        self.log.push(Call::ResetL2);
        self.fault("cuCtxResetPersistingL2Cache")?;
        self.persist_reset = true;
        self.flushed_bytes = 0;
        Ok(())
    }

    fn record_event(&mut self, slot: EventSlot) -> Result<(), BackendError> {
        self.log.push(Call::Record(slot));
        self.fault("cuEventRecord")
    }

    fn launch(&mut self, func: FuncId, geometry: &Geometry, args: &[KernelArg]) -> Result<(), BackendError> {
        self.fault("cuLaunchKernel")?;
        let module = *self
            .funcs
            .get(&func.0)
            .ok_or_else(|| Self::driver("cuLaunchKernel", "unknown function"))?;
        self.log.push(Call::Launch(ModuleId(module)));
        let _ = geometry;
        let (t, hang) = self.run_kernel(module, args)?;
        self.pending = Some((t, hang));
        Ok(())
    }

    fn wait_stop(&mut self, timeout_s: f64) -> Result<Wait, BackendError> {
        self.log.push(Call::WaitStop);
        self.fault("cuEventQuery")?;
        if let Some((_, true)) = self.pending {
            std::thread::sleep(std::time::Duration::from_secs_f64(
                timeout_s.min(self.hang_cap_s).max(0.0),
            ));
            return Ok(Wait::TimedOut);
        }
        Ok(Wait::Done)
    }

    fn elapsed_s(&mut self) -> Result<f64, BackendError> {
        self.log.push(Call::Elapsed);
        self.fault("cuEventElapsedTime")?;
        self.pending
            .map(|p| p.0)
            .ok_or_else(|| Self::driver("cuEventElapsedTime", "no launch recorded"))
    }

    fn synchronize(&mut self) -> Result<(), BackendError> {
        self.log.push(Call::Sync);
        self.fault("cuCtxSynchronize")
    }
}
