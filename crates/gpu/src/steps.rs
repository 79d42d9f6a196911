//! The candidate a job runs: one kernel, or a plan of steps (docs/PLANS.md) run whole as the
//! candidate. A plan's kernels are looked up once per job in one module instance of the
//! candidate's code object (kept across the cases, like a single kernel's); at each size every
//! launch step's geometry is evaluated and bounds-checked (blamed on the candidate, it chose
//! it), and the plan's scratch buffers get a buffer set of their own: guard bands around each,
//! filled with the sentinel before every run of the plan, their guards checked after it with
//! the other buffers'. So a scratch buffer carries nothing from one run of the plan (a case, a
//! pair) to the next, and a step that reads a scratch buffer no step wrote reads the sentinel.
//! The steps run in order, each alone between the harness's events; a library step runs through
//! [`Backend::library`] on the step's declared buffers only. The timing job loads a plan's
//! kernels afresh for every timed run ([`timed_plan`]), as it does a single kernel.

use crate::backend::{Backend, FuncId, KernelArg, LibraryOp, ModuleId};
use crate::geometry::check_bounds;
use crate::layout::{BufLayout, BufferSet, Draw, Layout};
use crate::plan::{DEFAULT_SHARED_LIMIT, Instance, Kernel, Phase, Runner, StepCall, Stop, Timed, scalar_arg};
use crate::verify::{Counters, Expect, SetCheck};
use aorlta_record::{GemmStep, Geometry, ImagePlan, KernelImage, LaunchStep, Party, PlanStep, Role};
use aorlta_record::{Param, ParamKind, signature_parameters};
use aorlta_record::{eval_count, eval_expr};
use std::collections::BTreeMap;

/// The job's candidate, loaded.
pub(crate) enum Candidate {
    /// One kernel in its module instance.
    One {
        /// The kernel.
        kernel: Kernel,
        /// Its instance.
        inst: Instance,
    },
    /// A plan's kernels in one module instance.
    Plan(Loaded),
}

/// A plan's module instance and its kernels.
pub(crate) struct Loaded {
    module: ModuleId,
    /// Each kernel by its name in the plan: its function and parameters.
    funcs: BTreeMap<String, (FuncId, Vec<Param>)>,
}

/// The candidate at one size.
pub(crate) enum AtSize {
    /// One kernel: its function and geometry.
    One {
        /// The function.
        func: FuncId,
        /// The geometry.
        g: Geometry,
    },
    /// A plan: each step's geometry (launches only), the scratch buffers' layout and set.
    Plan {
        /// Per step, the launch's geometry.
        geoms: Vec<Option<Geometry>>,
        /// The scratch buffers (role `out`: filled with the sentinel, guards checked).
        scratch: Layout,
        /// Their allocations.
        set: BufferSet,
    },
}

fn plan_of(img: &KernelImage) -> &ImagePlan {
    img.plan.as_ref().expect("a plan candidate has a plan")
}

impl Candidate {
    /// Loads the job's candidate: one kernel probed and instantiated for its geometry at
    /// `first`, or a plan's kernels looked up.
    pub(crate) fn load<B: Backend>(r: &mut Runner<'_, B>, first: &Layout) -> Result<Self, Stop> {
        let job = r.job;
        match &job.candidate.plan {
            None => {
                let kernel = r.probe(&job.candidate, Party::Candidate)?;
                let g = r.geometry(&kernel, first)?;
                let inst = r.instantiate(&kernel, &g)?;
                Ok(Candidate::One { kernel, inst })
            }
            Some(plan) => load_plan(r, &job.candidate, plan).map(Candidate::Plan),
        }
    }

    /// Unloads the candidate's module instance (nothing after a lost context).
    pub(crate) fn release<B: Backend>(self, r: &mut Runner<'_, B>) -> Result<(), Stop> {
        match self {
            Candidate::One { inst, .. } => r.release(inst),
            Candidate::Plan(l) => {
                if r.context_lost {
                    return Ok(());
                }
                r.in_phase(Phase::Modules, |r| {
                    r.b.unload_module(l.module)
                        .map_err(|e| r.backend_err(Party::Harness, e))
                })?
            }
        }
    }

    /// The candidate at one size: geometries checked, a plan's scratch buffers allocated.
    pub(crate) fn at_size<B: Backend>(&self, r: &mut Runner<'_, B>, layout: &Layout) -> Result<AtSize, Stop> {
        match self {
            Candidate::One { kernel, inst } => Ok(AtSize::One {
                func: inst.func,
                g: r.geometry(kernel, layout)?,
            }),
            Candidate::Plan(_) => plan_at_size(r, layout),
        }
    }
}

/// A plan at one size: every launch's geometry checked (out of bounds is the candidate's: it
/// chose it), the scratch buffers' layout and their set allocated.
pub(crate) fn plan_at_size<B: Backend>(r: &mut Runner<'_, B>, layout: &Layout) -> Result<AtSize, Stop> {
    let job = r.job;
    let plan = &plan_of(&job.candidate).plan;
    let mut geoms = Vec::with_capacity(plan.steps.len());
    for (i, step) in plan.steps.iter().enumerate() {
        let PlanStep::Launch(s) = step else {
            geoms.push(None);
            continue;
        };
        let g =
            step_geometry(s, layout).and_then(|g| check_bounds(&g, r.b.device(), &job.task.caps).map(|()| g));
        match g {
            Ok(g) => geoms.push(Some(g)),
            Err(m) => {
                r.finding(
                    Party::Candidate,
                    "launch-out-of-bounds",
                    format!("plan step {} (launch): {m}", i + 1),
                );
                return Err(Stop);
            }
        }
    }
    let scratch = scratch_layout(plan, layout).map_err(|m| {
        r.finding(Party::Harness, "bad-job", m);
        Stop
    })?;
    let set = r.alloc_set(&scratch)?;
    Ok(AtSize::Plan { geoms, scratch, set })
}

/// One timed run of a plan for the timing job: its kernels in a fresh module instance (as a
/// single kernel's timed launch has), `before` (the L2 flush) run just before the first step,
/// then every step in order, waited for at most `cut_s` in all. `Late` when the plan was still
/// running then (the context is lost).
pub(crate) fn timed_plan<B: Backend>(
    r: &mut Runner<'_, B>,
    at: &AtSize,
    layout: &Layout,
    set: &BufferSet,
    cut_s: f64,
    before: impl FnOnce(&mut Runner<'_, B>) -> Result<(), Stop>,
) -> Result<Timed, Stop> {
    let job = r.job;
    let loaded = load_plan(r, &job.candidate, plan_of(&job.candidate))?;
    before(r)?;
    let t = run_steps(r, &loaded, at, layout, set, Some(cut_s))?;
    if let Timed::Done(_) = t {
        Candidate::Plan(loaded).release(r)?;
    }
    Ok(t)
}

/// Every step of a plan in order in `set` and the plan's scratch set, each alone between the
/// harness's events. With `budget`, the whole plan is waited for at most that long (`Late`
/// past it); without, each step at most the job's launch timeout (`hung` past it). The time
/// is the steps' own, summed.
fn run_steps<B: Backend>(
    r: &mut Runner<'_, B>,
    l: &Loaded,
    at: &AtSize,
    layout: &Layout,
    set: &BufferSet,
    budget: Option<f64>,
) -> Result<Timed, Stop> {
    let AtSize::Plan {
        geoms,
        scratch,
        set: sset,
    } = at
    else {
        unreachable!("a plan's sizes come from a plan")
    };
    let job = r.job;
    let plan = &plan_of(&job.candidate).plan;
    let bufs = Bufs {
        layout,
        set,
        scratch,
        sset,
    };
    let mut total = 0.0;
    for (i, step) in plan.steps.iter().enumerate() {
        let wait_s = match budget {
            Some(b) => (b - total).max(1e-6),
            None => job.launch_timeout_s,
        };
        let timed = match step {
            PlanStep::Launch(s) => {
                let Some((func, params)) = l.funcs.get(&s.kernel) else {
                    return Err(bad_job(r, i, step, format!("no kernel `{}` loaded", s.kernel)));
                };
                let args =
                    launch_args(s, params, &job.task.scalars, &bufs).map_err(|m| bad_job(r, i, step, m))?;
                let g = geoms[i].unwrap_or_default();
                if g.shared_bytes > DEFAULT_SHARED_LIMIT {
                    r.b.set_max_dynamic_shared(*func, g.shared_bytes)
                        .map_err(|e| r.backend_err(Party::Candidate, e))?;
                }
                r.timed_call_within(Party::Candidate, StepCall::Kernel(*func, &g, &args), wait_s)?
            }
            PlanStep::Gemm(gm) => {
                let op = gemm_op(gm, &bufs).map_err(|m| bad_job(r, i, step, m))?;
                r.timed_call_within(Party::Candidate, StepCall::Library(&op), wait_s)?
            }
        };
        match timed {
            Timed::Done(t) => total += t.kernel_s,
            Timed::Late(waited) => return Ok(Timed::Late(total + waited)),
        }
    }
    Ok(Timed::Done(crate::plan::LaunchTimes { kernel_s: total }))
}

impl AtSize {
    /// The geometry a case reports: the kernel's, or the plan's first launch's.
    pub(crate) fn geometry(&self) -> Geometry {
        match self {
            AtSize::One { g, .. } => *g,
            AtSize::Plan { geoms, .. } => geoms.iter().flatten().next().copied().unwrap_or_default(),
        }
    }

    /// Fills a plan's scratch buffers (guards, the sentinel) before a run of the plan.
    pub(crate) fn fill<B: Backend>(&self, r: &mut Runner<'_, B>, draw: Draw) -> Result<(), Stop> {
        match self {
            AtSize::One { .. } => Ok(()),
            AtSize::Plan { scratch, set, .. } => r.fill_set(scratch, set, draw, false),
        }
    }

    /// Runs the candidate once in `set` (the harness's device code unloaded): the kernel, or
    /// every step of the plan in order. Returns the seconds its launches took, together.
    pub(crate) fn run<B: Backend>(
        &self,
        r: &mut Runner<'_, B>,
        cand: &Candidate,
        layout: &Layout,
        set: &BufferSet,
    ) -> Result<f64, Stop> {
        match (self, cand) {
            (AtSize::One { func, g }, _) => {
                let args = r.args(Party::Candidate, layout, set)?;
                Ok(r.timed_launch(Party::Candidate, *func, g, &args)?.kernel_s)
            }
            (AtSize::Plan { .. }, Candidate::Plan(l)) => match run_steps(r, l, self, layout, set, None)? {
                Timed::Done(t) => Ok(t.kernel_s),
                Timed::Late(_) => unreachable!("the job's launch timeout reports a hang"),
            },
            (AtSize::Plan { .. }, Candidate::One { .. }) => unreachable!("a plan's sizes come from a plan"),
        }
    }

    /// Queues the checks of a plan's scratch buffers after a run (their guards).
    pub(crate) fn check<B: Backend>(
        &self,
        r: &mut Runner<'_, B>,
        counters: &mut Counters,
        draw: Draw,
    ) -> Result<Option<(SetCheck, &Layout)>, Stop> {
        match self {
            AtSize::One { .. } => Ok(None),
            AtSize::Plan { scratch, set, .. } => Ok(Some((
                r.check_set(counters, scratch, set, draw, Expect::Written)?,
                scratch,
            ))),
        }
    }

    /// Frees a plan's scratch buffers.
    pub(crate) fn free<B: Backend>(&self, r: &mut Runner<'_, B>) {
        if let AtSize::Plan { set, .. } = self {
            r.free_set(set);
        }
    }
}

/// Refuses a plan candidate in a job that runs one kernel only (`what`: "a launch job"): a
/// harness finding, so the leg is unsettled and names why.
pub(crate) fn one_kernel<B: Backend>(r: &mut Runner<'_, B>, what: &str) -> Result<(), Stop> {
    if r.job.candidate.plan.is_some() {
        r.finding(
            Party::Harness,
            "bad-job",
            format!("{what} runs one kernel; running a plan there is not supported yet"),
        );
        return Err(Stop);
    }
    Ok(())
}

fn bad_job<B: Backend>(r: &mut Runner<'_, B>, i: usize, step: &PlanStep, m: String) -> Stop {
    r.finding(
        Party::Harness,
        "bad-job",
        format!("plan step {} ({}): {m}", i + 1, step.kind()),
    );
    Stop
}

fn load_plan<B: Backend>(r: &mut Runner<'_, B>, img: &KernelImage, plan: &ImagePlan) -> Result<Loaded, Stop> {
    let image = match std::fs::read(&img.path) {
        Ok(b) => b,
        Err(e) => {
            r.finding(Party::Harness, "bad-job", format!("{}: {e}", img.path.display()));
            return Err(Stop);
        }
    };
    let module = r.in_phase(Phase::Modules, |r| {
        r.b.load_module(&image)
            .map_err(|e| r.backend_err(Party::Candidate, e))
    })??;
    let mut funcs = BTreeMap::new();
    for (name, k) in &plan.kernels {
        let found = (|| {
            let params = match signature_parameters(&k.declaration) {
                Ok(p) => p,
                Err(e) => {
                    r.finding(
                        Party::Harness,
                        "bad-job",
                        format!("the plan's kernel `{name}`: {}", e.message),
                    );
                    return Err(Stop);
                }
            };
            for s in &k.symbols {
                if let Some(f) =
                    r.b.function(module, s)
                        .map_err(|e| r.backend_err(Party::Candidate, e))?
                {
                    return Ok((f, params));
                }
            }
            r.finding(
                Party::Candidate,
                "kernel-not-found",
                format!(
                    "the code object defines none of the symbols of the plan's kernel `{name}`: {}",
                    k.symbols.join(", ")
                ),
            );
            Err(Stop)
        })();
        match found {
            Ok(f) => {
                funcs.insert(name.clone(), f);
            }
            Err(stop) => {
                if !r.context_lost {
                    let _ = r.b.unload_module(module);
                }
                return Err(stop);
            }
        }
    }
    Ok(Loaded { module, funcs })
}

/// A launch step's geometry at one size (the candidate's choice: out of bounds is its fault).
fn step_geometry(s: &LaunchStep, layout: &Layout) -> Result<Geometry, String> {
    let dim = |e: &str, what: &str| -> Result<u32, String> {
        let v = eval_count(e, &layout.vars).map_err(|err| format!("{what} `{e}`: {err}"))?;
        u32::try_from(v).map_err(|_| format!("{what} `{e}` is {v}, over 2^32"))
    };
    let mut g = Geometry {
        from_symbol: true,
        ..Geometry::default()
    };
    for i in 0..3 {
        g.grid[i] = dim(&s.grid[i], "grid")?;
        g.block[i] = dim(&s.block[i], "block")?;
    }
    g.shared_bytes = dim(&s.shared_bytes, "shared_bytes")?;
    Ok(g)
}

/// The scratch buffers of a plan at one size: role `out`, so that they start as the sentinel
/// and only their guards are checked.
fn scratch_layout(plan: &aorlta_record::Plan, layout: &Layout) -> Result<Layout, String> {
    let mut bufs = Vec::with_capacity(plan.scratch.len());
    for s in &plan.scratch {
        let len = eval_count(&s.len, &layout.vars).map_err(|e| format!("scratch `{}`: {e}", s.name))?;
        let data_bytes = usize::try_from(len)
            .ok()
            .and_then(|l| l.checked_mul(crate::draw::elem_size(s.dtype)))
            .filter(|n| *n <= (1usize << 40))
            .ok_or_else(|| format!("scratch `{}` of {len} elements is too large", s.name))?;
        bufs.push(BufLayout {
            name: format!("scratch {}", s.name),
            dtype: s.dtype,
            role: Role::Out,
            len,
            data_bytes,
            init: Default::default(),
            families: Vec::new(),
            special: 0,
            row: 1,
        });
    }
    Ok(Layout {
        vars: layout.vars.clone(),
        bufs,
    })
}

/// The buffers a step may name: the task's (in the candidate's set) and the plan's scratch.
struct Bufs<'x> {
    layout: &'x Layout,
    set: &'x BufferSet,
    scratch: &'x Layout,
    sset: &'x BufferSet,
}

impl Bufs<'_> {
    /// A buffer by name: its address, element type, length and role (a scratch buffer's is
    /// `out`).
    fn get(&self, name: &str) -> Option<(u64, &BufLayout)> {
        if let Some(k) = self.layout.bufs.iter().position(|b| b.name == name) {
            return Some((self.set.data(k), &self.layout.bufs[k]));
        }
        let scratch = format!("scratch {name}");
        let j = self.scratch.bufs.iter().position(|b| b.name == scratch)?;
        Some((self.sset.data(j), &self.scratch.bufs[j]))
    }
}

fn launch_args(
    s: &LaunchStep,
    params: &[Param],
    scalars: &std::collections::BTreeMap<String, String>,
    bufs: &Bufs<'_>,
) -> Result<Vec<KernelArg>, String> {
    if params.len() != s.args.len() {
        return Err(format!(
            "{} arguments for {} parameters",
            s.args.len(),
            params.len()
        ));
    }
    let mut out = Vec::with_capacity(params.len());
    for (p, a) in params.iter().zip(&s.args) {
        out.push(match p.kind {
            ParamKind::Pointer => {
                let (ptr, b) = bufs.get(a).ok_or_else(|| format!("`{a}` is no buffer"))?;
                let konst = p.pointee.as_ref().is_some_and(|e| e.konst);
                KernelArg::Buffer {
                    ptr,
                    dtype: b.dtype,
                    len: b.len,
                    // What the kernel may write through it: nothing through a `const` pointer.
                    role: if konst { Role::In } else { b.role },
                }
            }
            _ => {
                let expr = scalars.get(a).map_or(a.as_str(), String::as_str);
                let v = eval_expr(expr, &bufs.layout.vars).map_err(|e| e.to_string())?;
                scalar_arg(p, v)?
            }
        });
    }
    Ok(out)
}

fn gemm_op(g: &GemmStep, bufs: &Bufs<'_>) -> Result<LibraryOp, String> {
    let dim = |e: &str| eval_count(e, &bufs.layout.vars).map_err(|err| format!("`{e}`: {err}"));
    let (m, n, k) = (dim(&g.m)?, dim(&g.n)?, dim(&g.k)?);
    let mut ptrs = [0u64; 3];
    for (i, (name, want)) in [(&g.a, m * k), (&g.b, k * n), (&g.c, m * n)].iter().enumerate() {
        let (ptr, b) = bufs.get(name).ok_or_else(|| format!("`{name}` is no buffer"))?;
        if b.dtype != g.dtype || b.len < *want {
            return Err(format!(
                "`{name}` is {:?} of {} elements; the product uses {want} of {:?}",
                b.dtype, b.len, g.dtype
            ));
        }
        if i == 2 && b.role == Role::In {
            return Err(format!("`{name}` is an input"));
        }
        ptrs[i] = ptr;
    }
    Ok(LibraryOp::Gemm {
        a: ptrs[0],
        b: ptrs[1],
        c: ptrs[2],
        m,
        n,
        k,
        trans_a: g.trans_a,
        trans_b: g.trans_b,
        alpha: g.alpha,
        beta: g.beta,
        dtype: g.dtype,
    })
}
