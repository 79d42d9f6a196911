//! Stable, machine-readable types that cross a process or file boundary: the task and pool
//! formats, the leg results and reward entries the service answers with, and (in `kernel`) the
//! kernel task spec, the harness job and the harness record. Nothing here runs a check.
//!
//! # Format version
//! Every document that leaves a process carries a [`FormatVersion`].
//! - 1.0: first version: leg results, reward entries, Q&A tasks, pools, kernel tasks, harness
//!   jobs and records.
//! - 1.1: reward entries carry `feedback`; kernel tasks may declare `bytes` and `flops`;
//!   episodes (their settings, turns and the lines `aorlta score --episodes` replays).

mod contract;
mod entry;
mod episode;
mod kernel;
mod leg;
mod task;
mod version;

pub use crate::contract::{REWARD_MAX, REWARD_MIN, check_entry, parts_in_range};
pub use crate::entry::{Parts, RewardEntry, VersionIdentity};
pub use crate::episode::{Episode, EpisodeHead, EpisodeLine, Turn, TurnReward};
pub use crate::kernel::expr::{ExprError, eval_count, eval_expr, last_factor};
pub use crate::kernel::fake::{FAKE_MAGIC, FakeBehaviour, FakeImage, FakeKernel};
pub use crate::kernel::harness::{
    BudgetStop, CaseReport, CheckReport, CheckWork, Clocks, DeviceInfo, DeviceList, Finding, Geometry,
    HARNESS_FORMAT, HarnessError, HarnessJob, HarnessReady, HarnessRecord, ImageLaunch, JobReference,
    KernelImage, LaunchReport, LaunchSample, LaunchWork, Mismatch, Overhead, Party, PrecisionCase,
    SanityCase, SanityReport, SanityWork, TimeReport, TimeWork, TimedPair, TorchJob, Work,
};
pub use crate::kernel::inputs::{
    Family, Precision, Special, allowed_families, family_for_case, init_domain, is_float, mix64, rtol_fits,
};
pub use crate::kernel::mangle::{
    MangleError, Param, ParamKind, Pointee, Signature, mangle, signature_parameters,
};
pub use crate::kernel::plan::{
    GemmStep, ImagePlan, LaunchStep, LibraryKind, Plan, PlanKernel, PlanLimits, PlanStep, ScratchSpec,
};
pub use crate::kernel::traffic::{check_traffic, traffic_bytes, traffic_flops};
pub use crate::kernel::{
    BufferSpec, Dtype, Init, KernelLanguage, KernelTask, LaunchCaps, Reference, Role, TimedInputs, Tolerance,
    TorchReference, TritonSpec,
};
pub use crate::leg::{LegResult, LegState, Reason};
pub use crate::task::{Candidate, PoolLine, QaTask};
pub use crate::version::{FORMAT_VERSION, FormatVersion};
