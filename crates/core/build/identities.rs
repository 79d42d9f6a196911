//! Which sources each kind of result depends on: one list of source prefixes (relative to the
//! workspace's `crates/` folder, see `record/build/sources.rs`) per built-in adapter, one for
//! reward entries, and one for everything. aorlta-core's build script hashes each list into an
//! `AORLTA_SRC_<NAME>` variable that `crate::sources` puts into cache keys, so an edit changes
//! the identity of exactly the results it can change. Included with `#[path]` by the build
//! script and by the tests of `crate::sources`.

/// What every leg and entry depends on: the record types of tasks, legs and entries, task
/// loading, hashing, the adapter interface and the engine that runs the legs.
const COMMON: &[&str] = &[
    "record/src/lib",
    "record/src/leg",
    "record/src/task",
    "record/src/entry",
    "core/src/lib",
    "check/src/error",
    "check/src/hash",
    "check/src/task",
    "check/src/yaml",
    "check/src/lib",
    "check/src/adapter",
    "check/src/reason",
    "core/src/reason",
    "core/src/run/engine",
];

/// The Q&A adapters and answer extraction.
const QA: &[&str] = &[
    "answer/src/lib",
    "answer/src/qa",
    "answer/src/extract",
    "answer/src/reason",
];

/// The normaliser behind `normalised-match`.
const NORMALISE: &[&str] = &["answer/src/normalise"];

/// What compiling a kernel depends on: the kernel task spec and mangler, the kernel tools'
/// set-up (and its bounded seed counters), the compiler driver, its sandbox and diagnostic
/// filter, the source policy, the cubin reader, the fake compiler.
const KERNEL_COMPILE: &[&str] = &[
    "record/src/kernel",
    "kernel/src/lib",
    "kernel/src/reason",
    "kernel/src/config",
    "kernel/src/env",
    "check/src/generations",
    "kernel/src/compile",
    "kernel/src/compiler",
    "kernel/src/elf",
    "kernel/src/amdgpu",
    "kernel/src/fake",
    "kernel/src/hip",
    "kernel/src/lease",
];

/// What running the harness depends on besides compiling (the harness's own sources are in
/// `aorlta_kernel::HARNESS_BUILD`, which the kernel-run and kernel-time identities carry).
const KERNEL_RUN: &[&str] = &["kernel/src/exec", "kernel/src/pool", "kernel/src/run"];

/// What timing depends on besides running: the timing leg and the judge.
const KERNEL_TIME: &[&str] = &["kernel/src/time", "judge/src"];

/// What an entry depends on besides its legs: the reward functions and profiles.
const ENTRY: &[&str] = &["record/src/contract", "core/src/reward", "core/src/profile"];

/// Files of the rule folders that no result depends on (checked by a test, so that a new file
/// there is assigned to a list or named here on purpose).
pub(super) const NEUTRAL: &[&str] = &["kernel/src/direct.rs"];

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
        ("PARSE", join(&[COMMON, QA])),
        ("REFERENCE_MATCH", join(&[COMMON, QA])),
        ("NORMALISED_MATCH", join(&[COMMON, QA, NORMALISE])),
        ("KERNEL_COMPILE", join(&[COMMON, KERNEL_COMPILE])),
        ("KERNEL_RUN", join(&[COMMON, KERNEL_COMPILE, KERNEL_RUN])),
        (
            "KERNEL_TIME",
            join(&[COMMON, KERNEL_COMPILE, KERNEL_RUN, KERNEL_TIME]),
        ),
        ("ENTRY", join(&[COMMON, ENTRY])),
        ("ALL", WATCHED.to_vec()),
    ]
}
