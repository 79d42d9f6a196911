//! The harness job (what the service asks `aorlta-harness` to do) and the harness record (the
//! JSON file it writes back, the only thing the service reads from a harness run), plus the small
//! documents a harness process writes about itself (ready file, device list).
//!
//! # Protocol
//! The service starts one harness process per leased GPU (`aorlta-harness serve --device N
//! --spool DIR`). The process writes `DIR/ready.json` ([`HarnessReady`]) once its context exists,
//! then reads job file paths, one per line, from its standard input; for each it runs the
//! [`HarnessJob`] and writes the job's [`HarnessRecord`] to `job.record` atomically (a temporary
//! file renamed into place). Standard output and error are never read. A process whose record
//! says `context_lost` (a fault) exits after writing it and is replaced, as is one that misses a
//! job's deadline (it is killed).
//!
//! # Format versions (`HARNESS_FORMAT`)
//! - 1.0: first version.
//! - 2.0: the device-resident protocol. `TimeWork` gains `looks` and `judge` (the harness stops
//!   at the first declared look where the judge's verdict is settled); `TimeReport` gains
//!   `settled_at` and `cut`; `TimedPair` gains `wall_s`; `Overhead::launch_median_s` becomes
//!   `outside_median_s` (the harness's time per launch outside the kernel).
//! - 2.1: input families. `CaseReport` gains `families`; `Work` gains `sanity` (the tolerance
//!   sanity of a task, [`SanityWork`]) and the record `sanity`; `DeviceInfo` gains
//!   `persisting_l2_set_aside_bytes`.
//! - 2.2: compiled launches. `KernelImage` gains `launch` ([`ImageLaunch`]): the geometry and
//!   trailing arguments a compiler decided (Triton's `num_warps`, shared memory, scratch
//!   pointers), which the harness uses instead of the task's block.
//! - 2.3: PyTorch references. `HarnessJob::reference` becomes a [`JobReference`]: a kernel's code
//!   object (`{"kernel": {...}}`, as before) or a module the harness's trusted reference process
//!   runs (`{"torch": {...}}`, [`TorchJob`]).
//! - 2.4: one launch for a profiler. `Work` gains `launch` ([`LaunchWork`]: the candidate alone,
//!   launched once on inputs of the typical law, for Nsight Compute to profile) and the record
//!   `launch` ([`LaunchReport`]).
//! - 2.5: kernel plans. `KernelImage` gains `plan` ([`ImagePlan`]): the candidate is a plan of
//!   launches of its kernels and library calls over the task's buffers and scratch buffers,
//!   which the correctness and timing jobs run whole as the candidate (docs/PLANS.md).
//! - 2.6: the reference's own precision. `SanityReport` gains `precision` ([`PrecisionCase`]):
//!   for a PyTorch reference, on each correctness size and each case of input families, where
//!   the module's outputs are furthest from the same module's in double precision.

use super::KernelTask;
use super::plan::ImagePlan;
use crate::version::FormatVersion;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The version of the job, record, ready and device-list documents this build reads and writes.
pub const HARNESS_FORMAT: FormatVersion = FormatVersion { major: 2, minor: 6 };

fn harness_format() -> FormatVersion {
    HARNESS_FORMAT
}

/// What a job's candidate is checked and timed against.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub enum JobReference {
    /// A reference kernel's code object, loaded by the harness like the candidate's.
    Kernel(KernelImage),
    /// A PyTorch module, run by the trusted reference process the harness starts: a separate
    /// Python process that imports the task's module file (checked by its hash) and nothing a
    /// candidate wrote, and reads and writes the harness's buffers in place.
    Torch(TorchJob),
}

impl JobReference {
    /// The reference's code object, when it is a kernel.
    pub fn kernel(&self) -> Option<&KernelImage> {
        match self {
            JobReference::Kernel(k) => Some(k),
            JobReference::Torch(_) => None,
        }
    }
}

/// How the harness runs a task's PyTorch module.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TorchJob {
    /// The Python interpreter (with torch) the reference process runs on.
    pub python: PathBuf,
    /// The module's file (absolute).
    pub module: PathBuf,
    /// The file's SHA-256 as the task was loaded: the process refuses any other file.
    pub sha256: String,
    /// The `torch.nn.Module` class in the file.
    pub class: String,
    /// The values the module is constructed with.
    #[serde(default)]
    pub init: Vec<serde_json::Value>,
    /// Task buffer name -> the module's parameter it replaces, in place.
    #[serde(default)]
    pub state: std::collections::BTreeMap<String, String>,
    /// The forward's arguments in order (buffer or scalar names).
    pub forward: Vec<String>,
    /// The task's outputs, in the order the forward returns them.
    pub outputs: Vec<String>,
    /// Each buffer's shape as expressions over the size's variables (absent: one dimension).
    #[serde(default)]
    pub shapes: std::collections::BTreeMap<String, Vec<String>>,
    /// Time the module compiled by `torch.compile` (its compile time never counted) instead of
    /// eagerly.
    #[serde(default)]
    pub compile: bool,
}

/// A code object for the harness to load.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KernelImage {
    /// The code object file (a cubin).
    pub path: PathBuf,
    /// Symbols the kernel may have, tried in order (the mangled signature, then the plain name).
    pub symbols: Vec<String>,
    /// The launch its compiler decided (a Triton kernel's); none for CUDA and HIP code objects,
    /// which use the task's geometry or their `aorlta_launch` symbol.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<ImageLaunch>,
    /// The candidate's plan, when it answered with one: the harness runs the plan's steps, the
    /// kernels looked up in this code object, instead of one launch of `symbols`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub plan: Option<ImagePlan>,
}

/// The launch a compiler decided for a code object: the grid as expressions, over the size's
/// variables and [`ImageLaunch::vars`], and the block, shared memory and trailing arguments as
/// compiled. Bounds-checked by the harness like any kernel's own geometry, and blamed on the
/// kernel when out of bounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ImageLaunch {
    /// Grid (x, y, z) as expressions.
    pub grid: [String; 3],
    /// Block (x, y, z): a Triton kernel's `num_warps` × 32 threads.
    pub block: [u32; 3],
    /// Dynamic shared memory bytes the code object needs.
    pub shared_bytes: u32,
    /// Variables the grid sees besides the size's (a Triton kernel's constexprs, `num_warps`).
    #[serde(default)]
    pub vars: std::collections::BTreeMap<String, i64>,
    /// Null pointer arguments passed after the signature's (Triton's scratch pointers, whose
    /// sizes the compile checked are zero).
    #[serde(default)]
    pub trailing_pointers: u32,
}

/// One job for the harness.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessJob {
    /// The format this job follows.
    #[serde(default = "harness_format")]
    pub format: FormatVersion,
    /// The job's id, echoed in its record.
    pub id: String,
    /// The task (buffers, sizes, geometry, tolerance, caps).
    pub task: KernelTask,
    /// The reference: a kernel's code object or a PyTorch module.
    pub reference: JobReference,
    /// The candidate kernel's code object.
    pub candidate: KernelImage,
    /// Where to write the record.
    pub record: PathBuf,
    /// A launch still running after this many seconds is reported `hung` and the process exits.
    pub launch_timeout_s: f64,
    /// What to do.
    pub work: Work,
}

/// What a job does.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Work {
    /// Correctness (`kernel-run`).
    Check(CheckWork),
    /// Interleaved timing (`kernel-time`).
    Time(TimeWork),
    /// The tolerance sanity of a task: the reference alone, its outputs held against what a
    /// kernel that computes nothing could write.
    Sanity(SanityWork),
    /// The candidate alone, launched once, for an external profiler (`kernel-profile`).
    Launch(LaunchWork),
}

impl Work {
    /// The job's kind as its JSON tag writes it: `check`, `time`, `sanity` or `launch`.
    pub fn kind(&self) -> &'static str {
        match self {
            Work::Check(_) => "check",
            Work::Time(_) => "time",
            Work::Sanity(_) => "sanity",
            Work::Launch(_) => "launch",
        }
    }
}

/// A tolerance sanity job: on every listed size, the reference runs once on inputs of the
/// typical law, and each float or integer output is read back and compared, within the task's
/// tolerance, with an all-zero output, the best constant output and a copy of each input of the
/// same type and length.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SanityWork {
    /// Indices into the task's sizes.
    pub sizes: Vec<usize>,
    /// The input seed.
    pub seed: u64,
}

/// What a sanity job found for one output at one size.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SanityCase {
    /// Size index.
    pub size: usize,
    /// The output buffer.
    pub output: String,
    /// Elements.
    pub len: u64,
    /// The largest magnitude among the reference's finite elements.
    pub max_abs: f64,
    /// The reference's elements that are NaN or infinite.
    pub non_finite: u64,
    /// True when every element is exactly zero or an all-zero output matches within tolerance.
    pub zero_passes: bool,
    /// A constant that matches every element within tolerance although the elements differ.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub constant_passes: Option<f64>,
    /// Inputs whose copy matches within tolerance although it differs from the output.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub copy_passes: Vec<String>,
}

/// Where a PyTorch reference's outputs, computed in the module's own precision, are furthest
/// from the same module's computed in double precision on the same inputs (one case of input
/// families at one size). A tolerance this rounding exceeds holds no kernel to the module: a
/// kernel more exact than the module fails it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PrecisionCase {
    /// Size index.
    pub size: usize,
    /// The family each input was drawn from: `x top, w typical`.
    pub inputs: String,
    /// The output of the worst element.
    pub output: String,
    /// Its index.
    pub index: u64,
    /// |own - double| / (atol + rtol |double|) there; `None` when one of the two is finite and
    /// the other is not.
    pub worst: Option<f64>,
    /// The module's value there (`None` when not finite).
    pub own: Option<f64>,
    /// The double-precision value there (`None` when not finite).
    pub double: Option<f64>,
}

/// What a sanity job found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SanityReport {
    /// One case per output per size, in order.
    pub cases: Vec<SanityCase>,
    /// For a PyTorch reference: one case per case of input families per correctness size.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub precision: Vec<PrecisionCase>,
}

/// A launch job: on one size, the candidate's module loaded, its buffers filled with inputs of
/// the typical law drawn from `seed`, and the candidate launched once, alone (no reference, no
/// timing, no L2 flush), so that a profiler wrapping the harness sees that one launch of it.
/// Nothing is verified: the `kernel-run` leg did that; the set is scrubbed before it is freed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchWork {
    /// Index into the task's sizes.
    pub size: usize,
    /// The input seed.
    pub seed: u64,
}

/// What a launch job did.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchReport {
    /// The size launched at.
    pub size: usize,
    /// The candidate's geometry at that size.
    pub geometry: Geometry,
}

/// A correctness job: every listed size on every seed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckWork {
    /// Indices into the task's sizes.
    pub sizes: Vec<usize>,
    /// Input seeds (drawn by the service from a secret; never shown to a candidate in advance).
    pub seeds: Vec<u64>,
}

/// A timing job: pairs of launches on one size, by the per-launch protocol of docs/VALIDATION.md.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimeWork {
    /// Index into the task's sizes (0, the primary size, by default).
    #[serde(default)]
    pub size: usize,
    /// Pairs to take when the budget allows.
    pub pairs: usize,
    /// Pairs needed for a verdict; fewer when the budget runs out means too slow to measure.
    pub min_pairs: usize,
    /// Wall-clock budget of the timing loop, in seconds.
    pub budget_s: f64,
    /// Seed of the order within each pair.
    pub order_seed: u64,
    /// Seed of the inputs (each pair draws fresh inputs from it).
    pub input_seed: u64,
    /// Keep every launch's sample (kernel and wall times) in the record.
    #[serde(default)]
    pub keep_launches: bool,
    /// Pair counts at which the judge looks; the loop stops at the first look where the verdict
    /// is settled (empty: only the full budget).
    #[serde(default)]
    pub looks: Vec<usize>,
    /// The timing judge's parameters, as the timing leg has them (read by the judge).
    #[serde(default)]
    pub judge: serde_json::Value,
    /// Both sides of every pair under the same conditions: the reference's timed launch, like
    /// the candidate's, with the harness's device code unloaded before it and loaded afresh
    /// after; and each pair's two buffer sets given to the candidate and the reference by a
    /// seeded coin, so that neither side keeps one memory placement. The timing leg sets it
    /// unless its profile says `symmetric: false` (without it the candidate's side was measured
    /// up to 2.3% slower with the same kernel on both); absent on the wire, it is off.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub symmetric: bool,
}

/// Launch geometry: grid, block and dynamic shared memory.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Geometry {
    /// Grid dimensions (x, y, z).
    pub grid: [u32; 3],
    /// Block dimensions (x, y, z).
    pub block: [u32; 3],
    /// Dynamic shared memory bytes.
    pub shared_bytes: u32,
    /// True when the kernel set it (its `aorlta_launch` symbol, or its compiled launch), not
    /// the task: a geometry out of bounds is then the kernel's fault.
    #[serde(default)]
    pub from_symbol: bool,
}

/// The device a harness process runs on.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DeviceInfo {
    /// The device ordinal.
    pub index: u32,
    /// `cuda` or `fake`.
    pub backend: String,
    /// Model name (`NVIDIA H200`).
    pub name: String,
    /// `GPU-…` UUID.
    pub uuid: String,
    /// Driver version string (`570.133.20`), or the CUDA driver API version when the
    /// management library is missing.
    pub driver: String,
    /// CUDA driver API version (`13000`).
    pub cuda_driver_api: i32,
    /// Compute capability (major, minor).
    pub compute_capability: [i32; 2],
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// L2 cache bytes.
    pub l2_bytes: u64,
    /// Most bytes of L2 that may be set persisting.
    pub persisting_l2_max_bytes: u64,
    /// Bytes of L2 the harness's context sets aside for persisting accesses (it sets zero;
    /// absent where the device has no such thing or the harness predates the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persisting_l2_set_aside_bytes: Option<u64>,
    /// Device memory bytes.
    pub total_mem_bytes: u64,
    /// Most threads per block.
    pub max_threads_per_block: u32,
    /// Most block dimensions (x, y, z).
    pub max_block: [u32; 3],
    /// Most grid dimensions (x, y, z).
    pub max_grid: [u32; 3],
    /// Most dynamic shared memory per block a kernel may opt in to.
    pub max_shared_optin: u32,
    /// The compiler's name for the device's architecture (`sm_90`, `gfx942`), where known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arch: Option<String>,
}

/// Clocks and throttle state read from the management library, where it is present.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Clocks {
    /// SM clock, MHz.
    pub sm_mhz: u32,
    /// Memory clock, MHz.
    pub mem_mhz: u32,
    /// Raw throttle-reason bit mask (`nvmlClocksEventReasons`).
    pub throttle_reasons: u64,
    /// GPU temperature, degrees C.
    pub temperature_c: u32,
}

/// Who a finding is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Party {
    /// The candidate kernel: its findings make the leg `broke`.
    Candidate,
    /// The reference kernel: its findings make the leg `unsettled` (`reference-broken`).
    Reference,
    /// The harness or the driver: its findings make the leg `unsettled`.
    Harness,
}

/// Something the harness found. Codes: `output-mismatch`, `guard-overwritten`,
/// `input-mutated`, `device-faulted`, `hung`, `launch-out-of-bounds`, `kernel-not-found`,
/// `module-load-failed`, `launch-failed`, `timed-launch-mismatch` (candidate or reference);
/// `out-of-memory`, `driver-error`, `bad-job` (harness).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Finding {
    /// Whose doing it is.
    pub party: Party,
    /// Kebab-case code.
    pub code: String,
    /// A sentence for a person.
    pub detail: String,
    /// The size index, where one applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<usize>,
    /// The input seed, where one applies.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
}

/// The first element that differs from the reference.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Mismatch {
    /// The buffer's name.
    pub buffer: String,
    /// Element index.
    pub index: u64,
    /// The reference's value, as text.
    pub expected: String,
    /// The candidate's value, as text.
    pub got: String,
}

/// One (size, seed) case of a correctness job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseReport {
    /// Size index.
    pub size: usize,
    /// Input seed.
    pub seed: u64,
    /// The input family each input buffer drew, by name.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub families: std::collections::BTreeMap<String, super::inputs::Family>,
    /// The candidate's geometry.
    pub candidate: Geometry,
    /// The reference's geometry.
    pub reference: Geometry,
    /// Output elements outside tolerance (or NaN where the reference is not, or the reverse).
    pub mismatches: u64,
    /// The largest absolute difference over finite elements.
    pub max_abs_err: f64,
    /// The first mismatch, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_mismatch: Option<Mismatch>,
    /// Guard bands overwritten (names of buffers).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub guards_broken: Vec<String>,
    /// Input buffers changed (names).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub inputs_changed: Vec<String>,
}

/// What a correctness job found per case.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct CheckReport {
    /// Cases run, in order (stops at the first fault).
    pub cases: Vec<CaseReport>,
}

/// One timed pair.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TimedPair {
    /// The candidate launch, seconds between its two events.
    pub candidate_s: f64,
    /// The reference launch, seconds.
    pub reference_s: f64,
    /// True when the candidate ran first in this pair.
    pub candidate_first: bool,
    /// Seconds the whole pair took on the host: fills, flushes, module loads, both launches,
    /// their checks and the comparison.
    #[serde(default)]
    pub wall_s: f64,
}

/// One launch's sample, kept on request.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaunchSample {
    /// True for the candidate.
    pub candidate: bool,
    /// Seconds between the launch's events.
    pub kernel_s: f64,
    /// Seconds of the whole step: module load, resets, L2 flush, launch, wait, verification.
    pub step_s: f64,
    /// Seconds from just before the start event to the stop event's completion seen on the host.
    pub launch_wall_s: f64,
}

/// Why the timing loop stopped early.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BudgetStop {
    /// The fastest candidate launch seen, seconds (a lower bound on a launch's time).
    pub candidate_lower_bound_s: f64,
    /// Median reference launch, seconds.
    pub reference_median_s: f64,
    /// Candidate launches done.
    pub launches_done: usize,
}

/// Where the harness's own time per launch goes, outside the kernel.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct Overhead {
    /// Median seconds of a whole launch step.
    pub step_median_s: f64,
    /// Median seconds per launch outside the kernels: half of a pair's wall time less its two
    /// kernel times (fills, L2 flush, module loads, checks, the comparison, an untimed
    /// reference launch when the reference went first).
    pub outside_median_s: f64,
    /// Median seconds of the kernel itself.
    pub kernel_median_s: f64,
    /// Mean seconds per pair the host spent in each part of the protocol: `modules` (loading
    /// and unloading the kernels' module instances), `harness-code` (the harness's own device
    /// code, unloaded around every candidate launch), `issue` (queuing fills, checks, the
    /// comparison and the L2 flush), `wait` (reading the counters back, which waits for the
    /// queued work on the device), `launch` (the timed launches, start event to stop seen).
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub phases: std::collections::BTreeMap<String, f64>,
}

/// What a timing job measured.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, Default)]
#[serde(deny_unknown_fields)]
pub struct TimeReport {
    /// The timed pairs, in order.
    pub pairs: Vec<TimedPair>,
    /// Size index timed.
    pub size: usize,
    /// Order seed.
    pub order_seed: u64,
    /// Input seed.
    pub input_seed: u64,
    /// The budget, seconds.
    pub budget_s: f64,
    /// Seconds the timing loop used.
    pub budget_used_s: f64,
    /// Set when the budget ran out before `min_pairs` pairs.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget_stop: Option<BudgetStop>,
    /// Clocks before the first launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks_start: Option<Clocks>,
    /// Clocks after the last launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clocks_end: Option<Clocks>,
    /// A thermal or power-brake throttle was seen at the start or the end.
    pub throttled: bool,
    /// Launches verified after their stop event (every timed launch).
    pub verified_launches: usize,
    /// Bytes written to flush L2 before each launch.
    pub l2_flush_bytes: u64,
    /// The candidate's geometry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub candidate_geometry: Option<Geometry>,
    /// The reference's geometry.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_geometry: Option<Geometry>,
    /// The harness's overhead per launch.
    pub overhead: Overhead,
    /// The pair count of the look at which the judge's verdict was settled, when the loop
    /// stopped there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settled_at: Option<usize>,
    /// True when a candidate launch was cut for outlasting the budget's share of a pair (the
    /// kernel was still running; the process is replaced).
    #[serde(default)]
    pub cut: bool,
    /// Every launch, when asked for.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub launches: Vec<LaunchSample>,
}

/// The record a harness writes for one job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessRecord {
    /// The format this record follows.
    #[serde(default = "harness_format")]
    pub format: FormatVersion,
    /// The job's id.
    pub job: String,
    /// The device it ran on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceInfo>,
    /// What went wrong (empty when nothing did).
    #[serde(default)]
    pub findings: Vec<Finding>,
    /// True when the context can no longer be used (a fault, a hang): the process exits.
    #[serde(default)]
    pub context_lost: bool,
    /// Correctness results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub check: Option<CheckReport>,
    /// Timing results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub time: Option<TimeReport>,
    /// Tolerance sanity results.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sanity: Option<SanityReport>,
    /// What a launch job did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub launch: Option<LaunchReport>,
    /// Seconds the job took inside the harness.
    pub elapsed_s: f64,
}

/// A failure of the harness itself (not of a kernel).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessError {
    /// `no-gpu`, `driver-error`, `bad-device`.
    pub code: String,
    /// A sentence for a person.
    pub detail: String,
}

/// Written once by a serving harness process: its device, or why it could not start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HarnessReady {
    /// The format.
    #[serde(default = "harness_format")]
    pub format: FormatVersion,
    /// The process id.
    pub pid: u32,
    /// The device, when the context was created.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub device: Option<DeviceInfo>,
    /// Why not, otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<HarnessError>,
    /// Seconds from the process's start to the context's creation.
    pub start_s: f64,
    /// The harness's build identity (`aorlta_gpu::BUILD`); the service refuses a harness of
    /// another build.
    #[serde(default)]
    pub build: String,
}

/// The host's devices (`aorlta-harness devices`), for leases and the host fingerprint.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DeviceList {
    /// The format.
    #[serde(default = "harness_format")]
    pub format: FormatVersion,
    /// Every visible device.
    pub devices: Vec<DeviceInfo>,
    /// Why none could be listed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<HarnessError>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_round_trips_and_rejects_unknown_keys() {
        let rec = HarnessRecord {
            format: HARNESS_FORMAT,
            job: "j1".into(),
            device: Some(DeviceInfo {
                name: "NVIDIA H200".into(),
                ..DeviceInfo::default()
            }),
            findings: vec![Finding {
                party: Party::Candidate,
                code: "guard-overwritten".into(),
                detail: "c: 4 bytes after the end".into(),
                size: Some(1),
                seed: Some(7),
            }],
            context_lost: false,
            check: Some(CheckReport::default()),
            time: None,
            sanity: None,
            launch: None,
            elapsed_s: 0.25,
        };
        insta::assert_json_snapshot!("harness_record", rec);
        let text = serde_json::to_string(&rec).unwrap();
        let back: HarnessRecord = serde_json::from_str(&text).unwrap();
        assert_eq!(back, rec);
        let bad = text.replacen("\"job\"", "\"jobb\"", 1);
        assert!(serde_json::from_str::<HarnessRecord>(&bad).is_err());
    }

    #[test]
    fn work_is_tagged_by_kind() {
        let w: Work = serde_json::from_str(r#"{"kind":"check","sizes":[0,1],"seeds":[3]}"#).unwrap();
        assert_eq!(
            w,
            Work::Check(CheckWork {
                sizes: vec![0, 1],
                seeds: vec![3]
            })
        );
        let t: Work = serde_json::from_str(
            r#"{"kind":"time","pairs":30,"min_pairs":10,"budget_s":5.0,"order_seed":1,"input_seed":2}"#,
        )
        .unwrap();
        assert!(matches!(
            t,
            Work::Time(TimeWork {
                size: 0,
                pairs: 30,
                keep_launches: false,
                ..
            })
        ));
        // `kind()` says what the JSON tag says.
        let s: Work = serde_json::from_str(r#"{"kind":"sanity","sizes":[0],"seed":4}"#).unwrap();
        for work in [&w, &t, &s] {
            assert_eq!(serde_json::to_value(work).unwrap()["kind"], work.kind());
        }
    }
}
