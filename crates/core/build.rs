//! Hashes the sources each kind of result depends on (see `build/identities.rs`) into
//! `AORLTA_SRC_<NAME>` variables, read by `src/sources.rs`: an edit changes the cache keys of
//! exactly the results it can change, and an edit elsewhere in the workspace changes none.

#[path = "../record/build/sources.rs"]
mod sources;

// `NEUTRAL` and `RULE_FOLDERS` are read by the tests of `src/sources.rs` only.
#[allow(dead_code)]
#[path = "build/identities.rs"]
mod identities;

use std::path::PathBuf;

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let crates = manifest.parent().expect("crates/core has a parent").to_path_buf();
    for p in identities::WATCHED {
        println!("cargo:rerun-if-changed={}", crates.join(p).display());
    }
    println!("cargo:rerun-if-changed=build/identities.rs");
    println!("cargo:rerun-if-changed=../record/build/sources.rs");
    for (name, prefixes) in identities::sets() {
        let files = sources::files(&crates, &prefixes);
        println!(
            "cargo:rustc-env=AORLTA_SRC_{name}={:016x}",
            sources::hash(&crates, &files)
        );
    }
}
