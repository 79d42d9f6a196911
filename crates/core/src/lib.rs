//! AORLTA's engine, what `serve` and `score` share: the engine and its one door for legs, the
//! reward functions and their contract, profiles, and the legs' identities (the keys of the
//! result store, which is `aorlta-store`), over the lanes' adapters (`aorlta-answer`,
//! `aorlta-kernel`) and their interface (`aorlta-check`). Nothing here knows about HTTP, writes
//! a run's outputs or runs a GPU in-process (the commands over it are `aorlta-app`'s); kernel
//! legs call the `aorlta-harness` binary and read its record file.

mod lanes;
mod profile;
mod reason;
mod reward;
mod run;
mod sources;

pub use lanes::{adapters, lanes};
pub use profile::feedback::FeedbackSpec;
pub use profile::{
    DEFAULT_ON_BROKE, DEFAULT_TIMING_ON_BROKE, LegSpec, LengthLimits, LoadedProfile, Profile, RewardCheck,
};
pub use reason::EngineReason;
pub use reward::base::{BaseReward, ladder};
pub use reward::feedback::{render as render_feedback, seeds_of};
pub use reward::speedup::SpeedupReward;
pub use reward::{
    BROKE_HEALTHY, RewardFn, RewardInput, RewardOutcome, RewardRegistry, apply, broke_healthy, length_penalty,
};
pub use run::engine::leg::{Leg, LegStore, Legs, run_leg};
pub use run::engine::{Engine, EngineParts, MAX_COMPLETION_BYTES, Scored};
pub use run::pool::{
    NOT_AN_OBJECT, candidate as pool_candidate, count_lines as count_pool_lines, is_object as is_json_object,
    parse_line as parse_pool_line, read_pool, task_ids as pool_task_ids,
};
pub use sources::AORLTA_VERSION;
