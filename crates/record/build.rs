//! Hashes the harness's sources (crates/record and crates/gpu) into `AORLTA_SOURCE_HASH`, the
//! hash in [`BUILD`](src/lib.rs): the harness reports it and the service refuses a harness built
//! from other sources, and the kernel legs that run the harness carry it in their identity.
//! Each leg's own identity is made in aorlta-core's build script.

#[path = "build/sources.rs"]
mod sources;

use std::path::PathBuf;

/// What the harness is built from: the record types and the harness crate.
const HARNESS: &[&str] = &["record/src", "gpu/src"];

fn main() {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let crates = manifest
        .parent()
        .expect("crates/record has a parent")
        .to_path_buf();
    for p in HARNESS {
        println!("cargo:rerun-if-changed={}", crates.join(p).display());
    }
    println!("cargo:rerun-if-changed=build/sources.rs");
    let files = sources::files(&crates, HARNESS);
    println!(
        "cargo:rustc-env=AORLTA_SOURCE_HASH={:016x}",
        sources::hash(&crates, &files)
    );
}
