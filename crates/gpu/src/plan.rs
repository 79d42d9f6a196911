//! The pieces both plans share, on any [`Backend`]: loading a kernel and finding its symbol, its
//! geometry, its arguments, freeing buffers, the L2 flush, the harness's device code switched
//! off around a candidate's launch, and one timed launch with a deadline. Job dispatch lives in
//! [`crate::job`]; the plans in [`crate::check`] and [`crate::timing`].
//!
//! A plan never returns an error: everything it finds, its own failures included, becomes a
//! [`Finding`] in the record, with the party whose doing it is. A finding that ends the job
//! returns [`Stop`].

use crate::backend::{
    Backend, BackendError, DevPtr, ErrorKind, EventSlot, FuncId, KernelArg, ModuleId, Wait,
};
use crate::geometry::{LAUNCH_SYMBOL, LAUNCH_SYMBOL_BYTES, check_bounds, parse_launch_symbol, task_geometry};
use crate::layout::BufferSet;
use crate::layout::Layout;
use aorlta_record::{Finding, Geometry, HarnessJob, ImageLaunch, JobReference, KernelImage, Party, TorchJob};
use aorlta_record::{ParamKind, signature_parameters};
use std::time::Instant;

/// What one timed step runs: a kernel launch, or a plan's library operation.
#[derive(Debug, Clone, Copy)]
pub(crate) enum StepCall<'x> {
    /// A kernel with its geometry and arguments.
    Kernel(FuncId, &'x Geometry, &'x [KernelArg]),
    /// A library operation.
    Library(&'x crate::backend::LibraryOp),
}

/// The job ended early; the record holds why.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stop;

/// Dynamic shared memory a kernel may use without opting in.
pub(crate) const DEFAULT_SHARED_LIMIT: u32 = 48 * 1024;

/// A kernel ready to load: its code object, the symbol found in it, its own geometry if any.
#[derive(Debug, Clone)]
pub(crate) struct Kernel {
    /// Whose it is.
    pub party: Party,
    /// The code object's bytes.
    pub image: Vec<u8>,
    /// The symbol that names the kernel in it.
    pub symbol: String,
    /// The geometry from its `aorlta_launch` symbol.
    pub launch: Option<Geometry>,
    /// The launch its compiler decided (a Triton kernel's).
    pub compiled: Option<ImageLaunch>,
}

/// How the reference runs when it is a PyTorch module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Op {
    /// One eager forward (correctness).
    Forward,
    /// One graph replay timed by the reference process's events.
    Time,
}

/// The reference a plan runs.
#[derive(Debug, Clone)]
pub(crate) enum RefSide<'j> {
    /// A reference kernel.
    Kernel(Kernel),
    /// A PyTorch module, run by the trusted reference process ([`crate::torch`]).
    Torch(&'j TorchJob),
}

/// A kernel's module instance and function.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Instance {
    /// The module.
    pub module: ModuleId,
    /// The function.
    pub func: FuncId,
}

/// Times of one launch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct LaunchTimes {
    /// Seconds between the events.
    pub kernel_s: f64,
}

/// How a launch waited for within a limit ended.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Timed {
    /// It finished.
    Done(LaunchTimes),
    /// It was still running after this many seconds (the context is lost).
    Late(f64),
}

/// The parts of the protocol the host's time is counted in ([`Runner::phases`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Phase {
    /// Loading and unloading the kernels' module instances.
    Modules,
    /// Loading and unloading the harness's own device code.
    HarnessCode,
    /// Queuing fills, checks, comparisons and the L2 flush.
    Issue,
    /// Reading the counters back (waiting for the queued work).
    Wait,
    /// The timed launches.
    Launch,
}

impl Phase {
    /// Every phase, in the order of [`Phases`].
    pub(crate) const ALL: [Phase; 5] = [
        Phase::Modules,
        Phase::HarnessCode,
        Phase::Issue,
        Phase::Wait,
        Phase::Launch,
    ];

    /// The name the record uses.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Phase::Modules => "modules",
            Phase::HarnessCode => "harness-code",
            Phase::Issue => "issue",
            Phase::Wait => "wait",
            Phase::Launch => "launch",
        }
    }
}

/// Seconds spent in each phase so far.
pub(crate) type Phases = [f64; 5];

/// Shared state of a running job.
pub(crate) struct Runner<'a, B: Backend> {
    /// The device.
    pub b: &'a mut B,
    /// The job.
    pub job: &'a HarnessJob,
    /// Findings so far.
    pub findings: Vec<Finding>,
    /// Set after a fault or a hang.
    pub context_lost: bool,
    /// True while the harness's device code is loaded.
    pub helpers_loaded: bool,
    /// Host seconds spent in each [`Phase`].
    pub phases: Phases,
    /// Operations of the harness's device code queued but not yet issued: they go to the
    /// device together, in order, before anything else touches it.
    pub pending: Vec<crate::backend::HelperOp>,
}

impl<'a, B: Backend> Runner<'a, B> {
    /// Runs `f`, counting its time in `phase`. Queued operations of the harness's device code
    /// are issued first, so everything reaches the device in the order the plan wrote it.
    pub(crate) fn in_phase<T>(&mut self, phase: Phase, f: impl FnOnce(&mut Self) -> T) -> Result<T, Stop> {
        self.issue()?;
        let t0 = Instant::now();
        let out = f(self);
        self.phases[phase as usize] += t0.elapsed().as_secs_f64();
        Ok(out)
    }

    /// Issues the queued operations of the harness's device code.
    pub(crate) fn issue(&mut self) -> Result<(), Stop> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let ops = std::mem::take(&mut self.pending);
        let t0 = Instant::now();
        // SAFETY: every op the plans queue names regions of allocations made by `alloc_set` or
        // `Counters::new` for the layout in use, which live until the job frees them (frees
        // issue the queue first).
        let out = unsafe { self.b.helpers(&ops) }.map_err(|e| self.backend_err(Party::Harness, e));
        self.phases[Phase::Issue as usize] += t0.elapsed().as_secs_f64();
        out
    }

    /// Adds a finding.
    pub(crate) fn finding(&mut self, party: Party, code: &str, detail: impl Into<String>) {
        self.finding_at(party, code, detail, None, None);
    }

    /// Adds a finding for one size and seed.
    pub(crate) fn finding_at(
        &mut self,
        party: Party,
        code: &str,
        detail: impl Into<String>,
        size: Option<usize>,
        seed: Option<u64>,
    ) {
        self.findings.push(Finding {
            party,
            code: code.to_string(),
            detail: detail.into(),
            size,
            seed,
        });
    }

    /// True when a finding of this party and code exists.
    pub(crate) fn has(&self, party: Party, code: &str) -> bool {
        self.findings.iter().any(|f| f.party == party && f.code == code)
    }

    /// Turns a backend error met while working for `party` into a finding.
    pub(crate) fn backend_err(&mut self, party: Party, e: BackendError) -> Stop {
        let (party, code) = match e.kind {
            ErrorKind::Fault => {
                self.context_lost = true;
                (party, "device-faulted")
            }
            ErrorKind::OutOfMemory => (Party::Harness, "out-of-memory"),
            ErrorKind::BadImage => (party, "module-load-failed"),
            ErrorKind::LaunchRefused => (party, "launch-failed"),
            ErrorKind::Driver => (Party::Harness, "driver-error"),
        };
        self.finding(party, code, e.to_string());
        Stop
    }

    /// The job's reference, ready to run: a kernel probed, or the module the trusted reference
    /// process runs.
    pub(crate) fn reference(&mut self) -> Result<RefSide<'a>, Stop> {
        let job = self.job;
        match &job.reference {
            JobReference::Kernel(img) => Ok(RefSide::Kernel(self.probe(img, Party::Reference)?)),
            JobReference::Torch(t) => Ok(RefSide::Torch(t)),
        }
    }

    /// The reference's geometry at a size (none for a module).
    pub(crate) fn ref_geometry(&mut self, rs: &RefSide<'_>, layout: &Layout) -> Result<Geometry, Stop> {
        match rs {
            RefSide::Kernel(k) => self.geometry(k, layout),
            RefSide::Torch(_) => Ok(Geometry::default()),
        }
    }

    /// The reference once in `set` (filled): a kernel in a fresh module instance, timed alone
    /// between the harness's events; a module by the reference process, eagerly (`Op::Forward`)
    /// or as a timed graph replay (`Op::Time`). Returns the seconds measured.
    pub(crate) fn run_ref(
        &mut self,
        rs: &RefSide<'_>,
        g: &Geometry,
        layout: &Layout,
        set: &BufferSet,
        op: Op,
    ) -> Result<f64, Stop> {
        self.run_ref_after(rs, g, layout, set, op, &mut |_| Ok(()))
    }

    /// [`Runner::run_ref`] with `last` queued just before the timed work: after a kernel's module
    /// is loaded and its arguments built, so that the reference reaches its start event as the
    /// candidate does (the L2 flush the last thing queued before it, the GPU still busy with it
    /// when the event and the launch arrive). A module load between the flush and the event
    /// left the GPU idle there, and the host's launch latency then counted in the reference's time.
    pub(crate) fn run_ref_after(
        &mut self,
        rs: &RefSide<'_>,
        g: &Geometry,
        layout: &Layout,
        set: &BufferSet,
        op: Op,
        last: &mut dyn FnMut(&mut Self) -> Result<(), Stop>,
    ) -> Result<f64, Stop> {
        match rs {
            RefSide::Kernel(k) => {
                let inst = self.instantiate(k, g)?;
                let args = self.args(Party::Reference, layout, set)?;
                last(self)?;
                let t = self.timed_launch(Party::Reference, inst.func, g, &args)?;
                self.release(inst)?;
                Ok(t.kernel_s)
            }
            RefSide::Torch(t) => {
                last(self)?;
                self.torch_run(t, layout, set, op)
            }
        }
    }

    /// Reads a code object, finds its kernel and reads its `aorlta_launch` symbol.
    pub(crate) fn probe(&mut self, img: &KernelImage, party: Party) -> Result<Kernel, Stop> {
        let image = match std::fs::read(&img.path) {
            Ok(b) => b,
            Err(e) => {
                self.finding(Party::Harness, "bad-job", format!("{}: {e}", img.path.display()));
                return Err(Stop);
            }
        };
        let module = self
            .b
            .load_module(&image)
            .map_err(|e| self.backend_err(party, e))?;
        let result = self.probe_module(module, img, party);
        if let Err(e) = self.b.unload_module(module) {
            return Err(self.backend_err(Party::Harness, e));
        }
        let (symbol, launch) = result?;
        Ok(Kernel {
            party,
            image,
            symbol,
            launch,
            compiled: img.launch.clone(),
        })
    }

    fn probe_module(
        &mut self,
        module: ModuleId,
        img: &KernelImage,
        party: Party,
    ) -> Result<(String, Option<Geometry>), Stop> {
        let mut symbol = None;
        for s in &img.symbols {
            if self
                .b
                .function(module, s)
                .map_err(|e| self.backend_err(party, e))?
                .is_some()
            {
                symbol = Some(s.clone());
                break;
            }
        }
        let Some(symbol) = symbol else {
            self.finding(
                party,
                "kernel-not-found",
                format!(
                    "the code object defines none of the kernel symbols {}",
                    img.symbols.join(", ")
                ),
            );
            return Err(Stop);
        };
        let launch = match self
            .b
            .global(module, LAUNCH_SYMBOL)
            .map_err(|e| self.backend_err(party, e))?
        {
            None => None,
            Some((ptr, size)) => {
                if size != LAUNCH_SYMBOL_BYTES {
                    self.finding(
                        party,
                        "launch-out-of-bounds",
                        format!("`{LAUNCH_SYMBOL}` is {size} bytes; it must be seven unsigned ints"),
                    );
                    return Err(Stop);
                }
                let mut bytes = [0u8; LAUNCH_SYMBOL_BYTES];
                // SAFETY: the symbol is `size` (= LAUNCH_SYMBOL_BYTES) bytes of the module.
                unsafe { self.b.copy_d2h(&mut bytes, ptr) }.map_err(|e| self.backend_err(party, e))?;
                match parse_launch_symbol(&bytes) {
                    Ok(g) => Some(g),
                    Err(m) => {
                        self.finding(party, "launch-out-of-bounds", m);
                        return Err(Stop);
                    }
                }
            }
        };
        Ok((symbol, launch))
    }

    /// The kernel's geometry at one size, bounds-checked.
    pub(crate) fn geometry(&mut self, k: &Kernel, layout: &Layout) -> Result<Geometry, Stop> {
        let g = match (&k.compiled, k.launch) {
            (Some(c), _) => match compiled_geometry(c, &layout.vars) {
                Ok(g) => g,
                Err(m) => {
                    self.finding(
                        k.party,
                        "launch-out-of-bounds",
                        format!("the compiled launch: {m}"),
                    );
                    return Err(Stop);
                }
            },
            (None, Some(g)) => g,
            (None, None) => match task_geometry(&self.job.task, &layout.vars) {
                Ok(g) => g,
                Err(m) => {
                    self.finding(Party::Harness, "bad-task", m);
                    return Err(Stop);
                }
            },
        };
        let dev = self.b.device().clone();
        if let Err(m) = check_bounds(&g, &dev, &self.job.task.caps) {
            if k.compiled.is_some() {
                self.finding(
                    k.party,
                    "launch-out-of-bounds",
                    format!("the compiled launch: {m}"),
                );
            } else if g.from_symbol {
                self.finding(k.party, "launch-out-of-bounds", format!("`{LAUNCH_SYMBOL}`: {m}"));
            } else {
                self.finding(Party::Harness, "bad-task", format!("the task's geometry: {m}"));
            }
            return Err(Stop);
        }
        Ok(g)
    }

    /// Loads a fresh module instance of a kernel and lets it use its shared memory.
    pub(crate) fn instantiate(&mut self, k: &Kernel, g: &Geometry) -> Result<Instance, Stop> {
        self.in_phase(Phase::Modules, |r| r.instantiate_now(k, g))?
    }

    fn instantiate_now(&mut self, k: &Kernel, g: &Geometry) -> Result<Instance, Stop> {
        let module = self
            .b
            .load_module(&k.image)
            .map_err(|e| self.backend_err(k.party, e))?;
        let func = match self
            .b
            .function(module, &k.symbol)
            .map_err(|e| self.backend_err(k.party, e))?
        {
            Some(f) => f,
            None => {
                self.finding(
                    Party::Harness,
                    "driver-error",
                    format!("symbol {} vanished on reload", k.symbol),
                );
                return Err(Stop);
            }
        };
        if g.shared_bytes > DEFAULT_SHARED_LIMIT {
            self.b
                .set_max_dynamic_shared(func, g.shared_bytes)
                .map_err(|e| self.backend_err(k.party, e))?;
        }
        Ok(Instance { module, func })
    }

    /// Unloads a module instance (nothing after a lost context, as for [`Runner::free_set`]).
    pub(crate) fn release(&mut self, inst: Instance) -> Result<(), Stop> {
        if self.context_lost {
            return Ok(());
        }
        self.in_phase(Phase::Modules, |r| {
            r.b.unload_module(inst.module)
                .map_err(|e| r.backend_err(Party::Harness, e))
        })?
    }

    /// The arguments of `party`'s kernel: buffers by parameter name, scalars by the task's
    /// expressions, typed by the signature, then the null pointers its compiled launch asks for.
    pub(crate) fn args(
        &mut self,
        party: Party,
        layout: &Layout,
        set: &BufferSet,
    ) -> Result<Vec<KernelArg>, Stop> {
        let image = match party {
            Party::Candidate => Some(&self.job.candidate),
            Party::Reference | Party::Harness => self.job.reference.kernel(),
        };
        let trailing = image
            .and_then(|i| i.launch.as_ref())
            .map_or(0, |l| l.trailing_pointers);
        match build_args(&self.job.task, layout, set) {
            Ok(mut a) => {
                a.extend((0..trailing).map(|_| KernelArg::U64(0)));
                Ok(a)
            }
            Err(m) => {
                self.finding(Party::Harness, "bad-task", m);
                Err(Stop)
            }
        }
    }

    /// Frees allocations. After a lost context nothing is freed: a free waits for the device,
    /// which a hung kernel never lets go, and the process ends after this job anyway.
    pub(crate) fn free_all(&mut self, ptrs: &[DevPtr]) {
        if self.context_lost || self.issue().is_err() {
            return;
        }
        for p in ptrs {
            // SAFETY: every pointer the plans free came from `alloc` and is freed once.
            let _ = unsafe { self.b.free(*p) };
        }
    }

    /// Loads a fresh instance of the harness's device code (after a candidate's launch).
    pub(crate) fn helpers_on(&mut self) -> Result<(), Stop> {
        self.in_phase(Phase::HarnessCode, |r| {
            r.b.load_helpers().map_err(|e| r.backend_err(Party::Harness, e))
        })??;
        self.helpers_loaded = true;
        Ok(())
    }

    /// Unloads the harness's device code (before a candidate's launch).
    pub(crate) fn helpers_off(&mut self) -> Result<(), Stop> {
        if self.helpers_loaded && !self.context_lost {
            self.in_phase(Phase::HarnessCode, |r| {
                r.b.unload_helpers().map_err(|e| r.backend_err(Party::Harness, e))
            })??;
        }
        self.helpers_loaded = false;
        Ok(())
    }

    /// Makes the L2 cold: persisting lines reset, then `scratch` (`words` 32-bit words, at least
    /// twice the L2) overwritten with a pattern that changes with `salt`.
    pub(crate) fn flush_l2(&mut self, scratch: DevPtr, words: usize, salt: u32) -> Result<(), Stop> {
        self.in_phase(Phase::Issue, |r| {
            r.b.reset_persisting_l2()
                .map_err(|e| r.backend_err(Party::Harness, e))?;
            let fill = 0x9E37_79B9u32 ^ salt.wrapping_mul(2_654_435_761);
            // SAFETY: `scratch` is a live allocation of `words` words (made by the plan for this).
            unsafe { r.b.memset_d32(scratch, fill, words) }.map_err(|e| r.backend_err(Party::Harness, e))
        })?
    }

    /// One launch alone between two events, waited for with the job's deadline.
    pub(crate) fn timed_launch(
        &mut self,
        party: Party,
        func: FuncId,
        g: &Geometry,
        args: &[KernelArg],
    ) -> Result<LaunchTimes, Stop> {
        self.timed_launch_within(party, func, g, args, self.job.launch_timeout_s)
            .map(|t| match t {
                Timed::Done(t) => t,
                Timed::Late(_) => unreachable!("the job's launch timeout reports a hang"),
            })
    }

    /// One launch alone between two events, waited for at most `wait_s`; a launch still running
    /// then is `Late` (with the seconds waited) when `wait_s` is below the job's launch timeout,
    /// and `hung` otherwise. Either way the context is lost: the kernel still holds the device.
    pub(crate) fn timed_launch_within(
        &mut self,
        party: Party,
        func: FuncId,
        g: &Geometry,
        args: &[KernelArg],
        wait_s: f64,
    ) -> Result<Timed, Stop> {
        self.timed_call_within(party, StepCall::Kernel(func, g, args), wait_s)
    }

    /// One step (a launch or a plan's library operation) alone between two events, waited for
    /// at most `wait_s`, as [`Runner::timed_launch_within`].
    pub(crate) fn timed_call_within(
        &mut self,
        party: Party,
        call: StepCall<'_>,
        wait_s: f64,
    ) -> Result<Timed, Stop> {
        self.in_phase(Phase::Launch, |r| r.timed_call_now(party, call, wait_s))?
    }

    fn timed_call_now(&mut self, party: Party, call: StepCall<'_>, wait_s: f64) -> Result<Timed, Stop> {
        debug_assert!(
            party != Party::Candidate || !self.helpers_loaded,
            "the harness's device code stays unloaded while a candidate runs"
        );
        let t0 = Instant::now();
        self.b
            .record_event(EventSlot::Start)
            .map_err(|e| self.backend_err(Party::Harness, e))?;
        let queued = match call {
            // SAFETY: `args` were built from the task's signature (or a plan step's declaration)
            // over a buffer set of this layout, whose allocations live until the plan frees them.
            StepCall::Kernel(func, g, args) => unsafe { self.b.launch(func, g, args) },
            // SAFETY: the operation's matrices are buffers of a set of this layout (checked
            // against their lengths by the plan), live until the plan frees them.
            StepCall::Library(op) => unsafe { self.b.library(op) },
        };
        // A library call the backend cannot make is a driver-kind error: the harness's finding.
        queued.map_err(|e| self.backend_err(party, e))?;
        self.b
            .record_event(EventSlot::Stop)
            .map_err(|e| self.backend_err(party, e))?;
        let hang_s = self.job.launch_timeout_s;
        match self
            .b
            .wait_stop(wait_s.min(hang_s))
            .map_err(|e| self.backend_err(party, e))?
        {
            Wait::Done => {}
            Wait::TimedOut if wait_s < hang_s => {
                self.context_lost = true;
                return Ok(Timed::Late(t0.elapsed().as_secs_f64()));
            }
            Wait::TimedOut => {
                self.context_lost = true;
                self.finding(
                    party,
                    "hung",
                    format!(
                        "the kernel was still running after {} s",
                        self.job.launch_timeout_s
                    ),
                );
                return Err(Stop);
            }
        }
        self.b.synchronize().map_err(|e| self.backend_err(party, e))?;
        let kernel_s = self
            .b
            .elapsed_s()
            .map_err(|e| self.backend_err(Party::Harness, e))?;
        Ok(Timed::Done(LaunchTimes { kernel_s }))
    }
}

/// A compiled launch's geometry at one size: its grid expressions over the size's variables and
/// its own, its block and shared memory as compiled.
fn compiled_geometry(
    c: &ImageLaunch,
    vars: &std::collections::BTreeMap<String, i64>,
) -> Result<Geometry, String> {
    let mut all = vars.clone();
    all.extend(c.vars.iter().map(|(k, v)| (k.clone(), *v)));
    let mut grid = [0u32; 3];
    for (i, e) in c.grid.iter().enumerate() {
        let v = aorlta_record::eval_count(e, &all).map_err(|err| format!("grid `{e}`: {err}"))?;
        grid[i] = u32::try_from(v).map_err(|_| format!("grid `{e}` is {v}, over 2^32"))?;
    }
    Ok(Geometry {
        grid,
        block: c.block,
        shared_bytes: c.shared_bytes,
        from_symbol: true,
    })
}

fn build_args(
    task: &aorlta_record::KernelTask,
    layout: &Layout,
    set: &BufferSet,
) -> Result<Vec<KernelArg>, String> {
    let params = signature_parameters(&task.signature).map_err(|e| e.to_string())?;
    let mut args = Vec::with_capacity(params.len());
    for p in &params {
        if let Some(k) = layout.bufs.iter().position(|b| b.name == p.name) {
            if p.kind != ParamKind::Pointer {
                return Err(format!(
                    "parameter `{}` names a buffer but is not a pointer",
                    p.name
                ));
            }
            let b = &layout.bufs[k];
            args.push(KernelArg::Buffer {
                ptr: set.data(k),
                dtype: b.dtype,
                len: b.len,
                role: b.role,
            });
            continue;
        }
        let Some(expr) = task.scalars.get(&p.name) else {
            return Err(format!(
                "parameter `{}` is neither a buffer nor a scalar of the task",
                p.name
            ));
        };
        let v = layout.eval(expr)?;
        let arg = scalar_arg(p, v)?;
        args.push(arg);
    }
    Ok(args)
}

/// A scalar parameter's argument of value `v`, typed by the parameter; the error names it.
pub(crate) fn scalar_arg(p: &aorlta_record::Param, v: i64) -> Result<KernelArg, String> {
    let range = |ok: bool| {
        if ok {
            Ok(())
        } else {
            Err(format!("scalar `{}` = {v} does not fit its type", p.name))
        }
    };
    Ok(match p.kind {
        ParamKind::Scalar("i") => {
            range(i32::try_from(v).is_ok())?;
            KernelArg::I32(v as i32)
        }
        ParamKind::Scalar("j") => {
            range(u32::try_from(v).is_ok())?;
            KernelArg::U32(v as u32)
        }
        ParamKind::Scalar("l" | "x") => KernelArg::I64(v),
        ParamKind::Scalar("m" | "y") => {
            range(v >= 0)?;
            KernelArg::U64(v as u64)
        }
        ParamKind::Scalar("f") => KernelArg::F32(v as f32),
        ParamKind::Scalar("d") => KernelArg::F64(v as f64),
        _ => {
            return Err(format!(
                "parameter `{}` has a type a task scalar cannot have",
                p.name
            ));
        }
    })
}
