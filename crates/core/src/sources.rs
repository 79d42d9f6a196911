//! Build identities: the hash of the crates each kind of result goes through, every file of
//! their trees whatever its kind (sources, the Triton driver script, the device helpers, headers,
//! data files, build scripts, manifests), made at build time. A leg's cache key carries its
//! adapter's identity and an entry's key carries [`entry`], so a changed rule is never served
//! from an old cache, while an edit that cannot change a result (a summary table, the service,
//! the cache itself) keeps every key. A leg's identity has two parts:
//! - what every leg depends on, hashed here (`build.rs`, lists in `build/identities.rs`): the
//!   crates `aorlta-record` and `aorlta-check`, and the engine and build inputs of `aorlta-core`;
//! - its lane's own ([`Adapter::sources`]), hashed by the lane's build script: `parse`,
//!   `reference-match` and `normalised-match` the crate `aorlta-answer` (a kernel task's `parse`
//!   the kernel lane's, through its identity), `kernel-compile` the crate `aorlta-kernel`,
//!   `kernel-run` and `kernel-time` that and the harness (`aorlta-gpu` and `aorlta-judge`,
//!   through [`aorlta_kernel::HARNESS_BUILD`]).
//!
//! An entry adds core's reward functions and profiles. An adapter that answers no sources (one a
//! user registers) gets [`all`]. Dependencies' versions are not hashed: an upgrade that changes
//! a result must bump the adapter's version.

use aorlta_check::Adapter;

/// The package version, first in every identity.
const PKG: &str = env!("CARGO_PKG_VERSION");

/// The AORLTA version string reward entries and the service report: the package version and a
/// hash of the record, core and harness sources. Cache keys carry narrower identities (of an
/// adapter's legs, of entries), so an edit changes only the keys of the results it can change.
pub const AORLTA_VERSION: &str = concat!(
    "aorlta ",
    env!("CARGO_PKG_VERSION"),
    "+src.",
    env!("AORLTA_SRC_ALL")
);

/// The identity of everything: the package version and a hash of the record, core, lane and
/// harness sources (what [`AORLTA_VERSION`] shows).
pub(crate) fn all() -> String {
    format!("{PKG}+all.{}", env!("AORLTA_SRC_ALL"))
}

/// The source identity of an adapter's results: what every leg depends on and the sources the
/// adapter answers (its lane's); [`all`] for an adapter that answers none.
pub(crate) fn of_adapter(adapter: &dyn Adapter) -> String {
    match adapter.sources() {
        Some(own) => format!("{PKG}+legs.{};{own}", env!("AORLTA_SRC_LEGS")),
        None => all(),
    }
}

/// The source identity of reward entries (besides their legs' identities).
pub(crate) fn entry() -> String {
    format!("{PKG}+entry.{}", env!("AORLTA_SRC_ENTRY"))
}

#[cfg(test)]
#[path = "../../record/build/sources.rs"]
mod hashing;

#[cfg(test)]
#[path = "../build/identities.rs"]
mod identities;

#[cfg(test)]
#[path = "../../answer/build/lane.rs"]
mod answer_lane;

#[cfg(test)]
#[path = "../../kernel/build/lane.rs"]
mod kernel_lane;

#[cfg(test)]
mod tests {
    use super::{answer_lane, hashing, identities, kernel_lane};
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    fn crates() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// A copy of the watched crates, whole, in a temporary `crates/` folder.
    fn copy_tree() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let all = hashing::files(&crates(), identities::WATCHED);
        assert!(all.len() > 50, "{} files", all.len());
        for f in all {
            let to = dir.path().join(&f);
            std::fs::create_dir_all(to.parent().unwrap()).unwrap();
            std::fs::copy(crates().join(&f), to).unwrap();
        }
        dir
    }

    /// The lanes' lists of sources, and the harness's.
    fn lane_lists() -> [(&'static str, &'static [&'static str]); 3] {
        [
            ("ANSWER", answer_lane::SOURCES),
            ("KERNEL", kernel_lane::SOURCES),
            ("HARNESS", hashing::HARNESS),
        ]
    }

    /// Every identity of `build/identities.rs`, the lanes' (`ANSWER`, `KERNEL`) and the
    /// harness's (`HARNESS`).
    fn identities_of(crates: &Path) -> BTreeMap<&'static str, u64> {
        let mut ids: BTreeMap<&'static str, u64> = identities::sets()
            .into_iter()
            .map(|(name, prefixes)| (name, hashing::hash(crates, &hashing::files(crates, &prefixes))))
            .collect();
        for (name, list) in lane_lists() {
            ids.insert(name, hashing::hash(crates, &hashing::files(crates, list)));
        }
        ids
    }

    /// The identities changed by writing `text` at the end of `file` (made when it is not
    /// there) in a copy of the tree, sorted.
    fn changed_by(file: &str) -> Vec<&'static str> {
        let tree = copy_tree();
        let before = identities_of(tree.path());
        let path = tree.path().join(file);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let mut bytes = std::fs::read(&path).unwrap_or_default();
        bytes.extend_from_slice(b"\n// an edit\n");
        std::fs::write(&path, bytes).unwrap();
        let after = identities_of(tree.path());
        before
            .keys()
            .filter(|k| before[*k] != after[*k])
            .copied()
            .collect()
    }

    #[test]
    fn the_build_script_hashed_the_same_lists() {
        let now = identities_of(&crates());
        for (name, built) in [
            ("LEGS", env!("AORLTA_SRC_LEGS")),
            ("ENTRY", env!("AORLTA_SRC_ENTRY")),
            ("ALL", env!("AORLTA_SRC_ALL")),
        ] {
            assert_eq!(format!("{:016x}", now[name]), built, "{name}");
        }
        // The lanes' build scripts hashed their own lists, and the harness's its.
        for (name, built) in [
            ("ANSWER", aorlta_answer::SOURCES),
            ("KERNEL", aorlta_kernel::SOURCES),
            ("HARNESS", aorlta_kernel::HARNESS_BUILD),
        ] {
            assert!(built.ends_with(&format!("{:016x}", now[name])), "{name}: {built}");
        }
    }

    #[test]
    fn a_crate_is_hashed_whole_whatever_the_kind_of_its_files() {
        let kernel = hashing::files(&crates(), &["kernel"]);
        for f in [
            "kernel/Cargo.toml",
            "kernel/build.rs",
            "kernel/src/compiler/triton_compile.py",
            "kernel/src/hip/hip_runtime.h",
            "kernel/src/tests.rs",
        ] {
            assert!(
                kernel.iter().any(|k| k == f),
                "{f} is not in the kernel crate's files"
            );
        }
        let gpu = hashing::files(&crates(), hashing::HARNESS);
        assert!(gpu.iter().any(|f| f == "gpu/src/device/helpers.cu"));
        // Version-control files and a crate's build output are left out, nothing else.
        let tree = copy_tree();
        for f in [
            "kernel/target/debug/x",
            "kernel/.gitignore",
            "kernel/src/target/x.rs",
        ] {
            let p = tree.path().join(f);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, "x").unwrap();
        }
        let files = hashing::files(tree.path(), &["kernel"]);
        assert!(
            !files
                .iter()
                .any(|f| f.starts_with("kernel/target/") || f.ends_with(".gitignore"))
        );
        assert!(
            files.iter().any(|f| f == "kernel/src/target/x.rs"),
            "a source folder named target"
        );
    }

    #[test]
    fn an_edit_changes_exactly_the_identities_that_depend_on_it() {
        let answer = &["ANSWER", "ALL"][..];
        let kernel = &["KERNEL", "ALL"][..];
        let harness = &["HARNESS", "ALL"][..];
        let every = &["LEGS", "ENTRY", "ALL"][..];
        let every_and_harness = &[every, &["HARNESS"]].concat();
        let cases: Vec<(&str, &[&str])> = vec![
            // Rust sources.
            ("answer/src/extract/spans.rs", answer),
            ("kernel/src/extract/fence.rs", kernel),
            ("answer/src/normalise/number.rs", answer),
            ("kernel/src/compiler/nvcc.rs", kernel),
            ("kernel/src/time.rs", kernel),
            ("record/src/kernel/mangle.rs", every_and_harness),
            ("check/src/task.rs", every),
            ("judge/src/decide.rs", harness),
            ("gpu/src/lib.rs", harness),
            ("core/src/reward/speedup.rs", &["ENTRY", "ALL"]),
            ("core/src/run/pool.rs", &["ALL"]),
            ("core/src/run/engine.rs", every),
            // Files of other kinds: the Triton driver (`.py`), the device helpers (`.cu`), the
            // HIP portability headers, a manifest, a build script, a test.
            ("kernel/src/compiler/triton_compile.py", kernel),
            ("gpu/src/device/helpers.cu", harness),
            ("kernel/src/hip/hip_runtime.h", kernel),
            ("kernel/src/hip/hip_fp16.h", kernel),
            ("answer/Cargo.toml", answer),
            ("kernel/build.rs", kernel),
            ("kernel/build/lane.rs", kernel),
            ("answer/build.rs", answer),
            ("gpu/build.rs", harness),
            ("core/Cargo.toml", every),
            ("core/tests/integration/engine.rs", &["ALL"]),
            // New files no list names: a data file, a header, a script.
            ("kernel/src/compiler/prelude.h", kernel),
            ("answer/src/normalise/units.txt", answer),
            ("gpu/src/device/extra.cuh", harness),
            ("core/src/run/engine/table.bin", every),
            // What no result goes through.
            ("server/src/lib.rs", &[]),
            ("app/src/summary.rs", &[]),
            ("kernel/target/release/build-output", &[]),
            ("kernel/.gitignore", &[]),
        ];
        for (file, expected) in cases {
            let mut want = expected.to_vec();
            want.sort();
            assert_eq!(changed_by(file), want, "an edit of {file}");
        }
    }

    #[test]
    fn every_file_of_the_rule_folders_is_in_an_identity_or_named_neutral() {
        let listed: Vec<String> = identities::sets()
            .into_iter()
            .filter(|(name, _)| *name != "ALL")
            .map(|(_, prefixes)| prefixes)
            .chain(lane_lists().into_iter().map(|(_, list)| list.to_vec()))
            .flat_map(|prefixes| hashing::files(&crates(), &prefixes))
            .collect();
        for f in hashing::files(&crates(), identities::RULE_FOLDERS) {
            assert!(
                listed.contains(&f) || identities::NEUTRAL.contains(&f.as_str()),
                "{f} is in no identity list of build/identities.rs and not named neutral"
            );
        }
    }

    #[test]
    fn built_in_adapters_have_their_lanes_identity_and_others_get_all() {
        let adapters = crate::lanes::adapters();
        let of = |name: &str| super::of_adapter(adapters.get(name).unwrap().as_ref());
        for name in adapters.names() {
            assert_ne!(of(name), super::all(), "{name}");
        }
        assert!(of("normalised-match").ends_with(aorlta_answer::SOURCES));
        assert!(of("kernel-compile").ends_with(aorlta_kernel::SOURCES));
        assert!(of("kernel-time").ends_with(aorlta_kernel::HARNESS_BUILD));
        assert!(of("kernel-profile").ends_with(aorlta_kernel::HARNESS_BUILD));
        assert_ne!(of("parse"), of("kernel-time"));
        /// An adapter registered from outside that answers no sources.
        struct Mine;
        impl aorlta_check::Adapter for Mine {
            fn name(&self) -> &'static str {
                "my-adapter"
            }
            fn version(&self) -> &'static str {
                "1"
            }
            fn check_params(&self, _: &serde_json::Value) -> Result<(), String> {
                Ok(())
            }
            fn run(&self, _: &aorlta_check::LegInput<'_>) -> aorlta_check::LegOutput {
                aorlta_check::LegOutput::clean()
            }
        }
        assert_eq!(super::of_adapter(&Mine), super::all());
        // A task's `parse` carries its lane's sources in its identity.
        let parse = adapters.get("parse").unwrap();
        let env = aorlta_check::Env::default();
        let qa = aorlta_answer::qa_task(aorlta_record::QaTask {
            id: "q".into(),
            prompt: "p".into(),
            answer: "1".into(),
        });
        let id = parse.identity(&qa, &serde_json::Value::Null, &env);
        assert_eq!(id, format!("lane={}", aorlta_answer::SOURCES));
    }
}
