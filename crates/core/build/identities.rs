//! Which sources the engine's part of each result depends on: the crates it goes through, whole
//! (relative to the workspace's `crates/` folder; every file of a crate's tree, whatever its kind,
//! see `record/build/sources.rs`): one list for every leg, one for reward entries, and one for
//! everything. What a leg depends on beyond the first is its lane's own identity, hashed by the
//! lane's build script from the lane's list (`answer/build/lane.rs`, `kernel/build/lane.rs`) and
//! answered by its adapters (`Adapter::sources`). Of `aorlta-core` (the engine) only the engine
//! proper, the reward functions and profiles, and its build inputs (manifest, build script and
//! these lists) are named: the pool reader changes no result. aorlta-core's build script hashes
//! each list into an `AORLTA_SRC_<NAME>` variable that `crate::sources` puts into cache keys, so an
//! edit of a crate (a `.rs`, a `.py`, a `.cu`, a header, a data file, its `Cargo.toml`) changes the
//! identity of every result that goes through it, and an edit of what no result goes through (the
//! service, the store, the CLI, the application layer of `aorlta-app`: runs, summaries, datasets)
//! changes none. Included with `#[path]` by the build script and by the tests of `crate::sources`.

/// What every leg and entry depends on: the whole of `aorlta-record` (tasks, legs, entries,
/// the kernel spec) and of `aorlta-check` (task loading, hashing, the adapter interface), the
/// engine that runs the legs (the part of `aorlta-core` a leg's result goes through) and
/// core's build inputs.
const COMMON: &[&str] = &[
    "record",
    "check",
    "core/Cargo.toml",
    "core/build.rs",
    "core/build",
    "core/src/lib",
    "core/src/reason",
    "core/src/run/engine",
];

/// What an entry depends on besides its legs: the reward functions and profiles of
/// `aorlta-core` (the rest of it, the pool reader, changes no entry).
const ENTRY: &[&str] = &["core/src/reward", "core/src/profile"];

/// Files of the rule folders that no result depends on (checked by a test, so that a new file
/// there is assigned to a list or named here on purpose).
pub(super) const NEUTRAL: &[&str] = &[];

/// The folders whose every file must be in a list or in [`NEUTRAL`].
pub(super) const RULE_FOLDERS: &[&str] = &[
    "record",
    "check",
    "answer",
    "kernel",
    "judge",
    "gpu",
    "core/src/reward",
];

/// The folders the build script watches, whole.
pub(super) const WATCHED: &[&str] = &["record", "judge", "check", "answer", "kernel", "core", "gpu"];

/// Each identity's name (the suffix of its `AORLTA_SRC_` variable) and its prefixes.
pub(super) fn sets() -> Vec<(&'static str, Vec<&'static str>)> {
    let join = |parts: &[&[&'static str]]| -> Vec<&'static str> { parts.concat() };
    vec![
        ("LEGS", COMMON.to_vec()),
        ("ENTRY", join(&[COMMON, ENTRY])),
        ("ALL", WATCHED.to_vec()),
    ]
}
