//! Build identities: the hash of the crates each kind of result goes through, made at build
//! time by `build.rs` from the lists in `build/identities.rs`. A leg's cache key carries its
//! adapter's identity and an entry's key carries [`entry`], so a changed rule is never served
//! from an old cache, while an edit that cannot change a result (a summary table, the service,
//! the cache itself) keeps every key:
//! - `parse`, `reference-match`, `normalised-match`: the crate `aorlta-answer`;
//! - `kernel-compile`: the crate `aorlta-kernel`;
//! - `kernel-run`: that and the harness (`aorlta-gpu`, through [`aorlta_kernel::HARNESS_BUILD`]);
//! - `kernel-time`: those and the crate `aorlta-judge`;
//! - every one of them: the crates `aorlta-record` and `aorlta-check`, and the engine of
//!   `aorlta-core`; an entry adds core's reward functions and profiles.
//!
//! An adapter outside this list (one a user registers) gets [`all`]. Dependencies' versions are
//! not hashed: an upgrade that changes a result must bump the adapter's version.

/// The package version, first in every identity.
const PKG: &str = env!("CARGO_PKG_VERSION");

/// The identity of everything: the package version and a hash of the record, core and harness
/// sources (what [`crate::AORLTA_VERSION`] shows).
pub fn all() -> String {
    format!("{PKG}+all.{}", env!("AORLTA_SRC_ALL"))
}

/// The source identity of a built-in adapter's results, by the adapter's name; [`all`] for any
/// other name.
pub fn of_adapter(name: &str) -> String {
    let harness = aorlta_kernel::HARNESS_BUILD;
    match name {
        "parse" => format!("{PKG}+parse.{}", env!("AORLTA_SRC_PARSE")),
        "reference-match" => format!("{PKG}+reference-match.{}", env!("AORLTA_SRC_REFERENCE_MATCH")),
        "normalised-match" => format!("{PKG}+normalised-match.{}", env!("AORLTA_SRC_NORMALISED_MATCH")),
        "kernel-compile" => format!("{PKG}+kernel-compile.{}", env!("AORLTA_SRC_KERNEL_COMPILE")),
        "kernel-run" => format!("{PKG}+kernel-run.{};{harness}", env!("AORLTA_SRC_KERNEL_RUN")),
        "kernel-time" => format!("{PKG}+kernel-time.{};{harness}", env!("AORLTA_SRC_KERNEL_TIME")),
        _ => all(),
    }
}

/// The source identity of reward entries (besides their legs' identities).
pub fn entry() -> String {
    format!("{PKG}+entry.{}", env!("AORLTA_SRC_ENTRY"))
}

#[cfg(test)]
#[path = "../../record/build/sources.rs"]
mod hashing;

#[cfg(test)]
#[path = "../build/identities.rs"]
mod identities;

#[cfg(test)]
mod tests {
    use super::{hashing, identities};
    use std::collections::BTreeMap;
    use std::path::{Path, PathBuf};

    fn crates() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
    }

    /// A copy of the watched sources in a temporary `crates/` folder.
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

    fn identities_of(crates: &Path) -> BTreeMap<&'static str, u64> {
        identities::sets()
            .into_iter()
            .map(|(name, prefixes)| (name, hashing::hash(crates, &hashing::files(crates, &prefixes))))
            .collect()
    }

    /// The identities an edit of `file` changes.
    fn changed_by(file: &str) -> Vec<&'static str> {
        let tree = copy_tree();
        let before = identities_of(tree.path());
        let path = tree.path().join(file);
        assert!(path.is_file(), "{file} is not in the tree");
        let mut text = std::fs::read_to_string(&path).unwrap();
        text.push_str("\n// an edit\n");
        std::fs::write(&path, text).unwrap();
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
        assert_eq!(format!("{:016x}", now["PARSE"]), env!("AORLTA_SRC_PARSE"));
        assert_eq!(
            format!("{:016x}", now["KERNEL_TIME"]),
            env!("AORLTA_SRC_KERNEL_TIME")
        );
        assert_eq!(format!("{:016x}", now["ENTRY"]), env!("AORLTA_SRC_ENTRY"));
    }

    #[test]
    fn an_edit_changes_exactly_the_identities_that_depend_on_it() {
        let answer = &["PARSE", "REFERENCE_MATCH", "NORMALISED_MATCH", "ALL"][..];
        let kernel = &["KERNEL_COMPILE", "KERNEL_RUN", "KERNEL_TIME", "ALL"][..];
        let every = &[
            "PARSE",
            "REFERENCE_MATCH",
            "NORMALISED_MATCH",
            "KERNEL_COMPILE",
            "KERNEL_RUN",
            "KERNEL_TIME",
            "ENTRY",
            "ALL",
        ][..];
        let cases: [(&str, &[&str]); 10] = [
            ("answer/src/extract/fence.rs", answer),
            ("answer/src/normalise/number.rs", answer),
            ("kernel/src/compiler/nvcc.rs", kernel),
            ("kernel/src/time.rs", kernel),
            ("record/src/kernel/mangle.rs", every),
            ("check/src/task.rs", every),
            ("judge/src/decide.rs", &["KERNEL_TIME", "ALL"]),
            ("core/src/reward/speedup.rs", &["ENTRY", "ALL"]),
            ("core/src/run/summary.rs", &["ALL"]),
            ("core/src/run/engine.rs", every),
        ];
        for (file, expected) in cases {
            let mut want = expected.to_vec();
            want.sort();
            let mut got = changed_by(file);
            got.sort();
            assert_eq!(got, want, "an edit of {file}");
        }
    }

    #[test]
    fn the_harness_identity_follows_the_harness_and_not_core() {
        let tree = copy_tree();
        let harness = |t: &Path| hashing::hash(t, &hashing::files(t, &["record/src", "gpu/src"]));
        let before = harness(tree.path());
        for (file, changes) in [("kernel/src/exec.rs", false), ("gpu/src/lib.rs", true)] {
            let p = tree.path().join(file);
            let mut text = std::fs::read_to_string(&p).unwrap();
            text.push_str("\n// an edit\n");
            std::fs::write(&p, text).unwrap();
            assert_eq!(harness(tree.path()) != before, changes, "an edit of {file}");
        }
    }

    #[test]
    fn every_file_of_the_rule_folders_is_in_an_identity_or_named_neutral() {
        let listed: Vec<String> = identities::sets()
            .into_iter()
            .filter(|(name, _)| *name != "ALL")
            .flat_map(|(_, prefixes)| hashing::files(&crates(), &prefixes))
            .collect();
        for f in hashing::files(&crates(), identities::RULE_FOLDERS) {
            assert!(
                listed.contains(&f) || identities::NEUTRAL.contains(&f.as_str()),
                "{f} is in no identity list of build/identities.rs and not named neutral"
            );
        }
    }

    #[test]
    fn built_in_adapters_have_their_own_identity_and_others_get_all() {
        for name in crate::adapters().names() {
            assert_ne!(super::of_adapter(name), super::all(), "{name}");
        }
        assert_eq!(super::of_adapter("my-adapter"), super::all());
        assert_ne!(super::of_adapter("parse"), super::of_adapter("kernel-time"));
    }
}
