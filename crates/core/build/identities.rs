//! Which sources each kind of result depends on: the crates it goes through, whole (relative to
//! the workspace's `crates/` folder, see `record/build/sources.rs`), per built-in adapter, one
//! list for reward entries, and one for everything. `aorlta-core` holds the engine beside runs
//! and summaries, so of it only the engine and the reward functions are named. aorlta-core's
//! build script hashes each list into an `AORLTA_SRC_<NAME>` variable that `crate::sources` puts
//! into cache keys, so an edit of a crate changes the identity of every result that goes
//! through it, and an edit of what no result goes through (the service, the store, the CLI,
//! core's runs and summaries) changes none. Included with `#[path]` by the build script and by
//! the tests of `crate::sources`.

/// What every leg and entry depends on: the whole of `aorlta-record` (tasks, legs, entries,
/// the kernel spec) and of `aorlta-check` (task loading, hashing, the adapter interface), and
/// the engine that runs the legs (the part of `aorlta-core` a leg's result goes through).
const COMMON: &[&str] = &[
    "record/src",
    "check/src",
    "core/src/lib",
    "core/src/reason",
    "core/src/run/engine",
];

/// The answer lane: the whole of `aorlta-answer` (extraction, the normaliser, the adapters).
const ANSWER: &[&str] = &["answer/src"];

/// The kernel lane: the whole of `aorlta-kernel` (the compile seam, the harness seam, the three
/// adapters). The harness's own sources are in `aorlta_kernel::HARNESS_BUILD`, which the
/// kernel-run and kernel-time identities carry.
const KERNEL: &[&str] = &["kernel/src"];

/// What timing adds: the whole of `aorlta-judge`.
const JUDGE: &[&str] = &["judge/src"];

/// What an entry depends on besides its legs: the reward functions and profiles of
/// `aorlta-core` (the rest of it, runs and summaries, changes no entry).
const ENTRY: &[&str] = &["core/src/reward", "core/src/profile"];

/// Files of the rule folders that no result depends on (checked by a test, so that a new file
/// there is assigned to a list or named here on purpose).
pub(super) const NEUTRAL: &[&str] = &[];

/// The folders whose every file must be in a list or in [`NEUTRAL`].
pub(super) const RULE_FOLDERS: &[&str] = &[
    "record/src",
    "check/src",
    "answer/src",
    "kernel/src",
    "judge/src",
    "core/src/reward",
];

/// The folders the build script watches.
pub(super) const WATCHED: &[&str] = &[
    "record/src",
    "judge/src",
    "check/src",
    "answer/src",
    "kernel/src",
    "core/src",
    "gpu/src",
];

/// Each identity's name (the suffix of its `AORLTA_SRC_` variable) and its prefixes.
pub(super) fn sets() -> Vec<(&'static str, Vec<&'static str>)> {
    let join = |parts: &[&[&'static str]]| -> Vec<&'static str> { parts.concat() };
    vec![
        ("PARSE", join(&[COMMON, ANSWER])),
        ("REFERENCE_MATCH", join(&[COMMON, ANSWER])),
        ("NORMALISED_MATCH", join(&[COMMON, ANSWER])),
        ("KERNEL_COMPILE", join(&[COMMON, KERNEL])),
        ("KERNEL_RUN", join(&[COMMON, KERNEL])),
        ("KERNEL_TIME", join(&[COMMON, KERNEL, JUDGE])),
        ("ENTRY", join(&[COMMON, ENTRY])),
        ("ALL", WATCHED.to_vec()),
    ]
}
