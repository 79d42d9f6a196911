//! Hashing source files into a build identity. Shared, through `#[path]`, by the build scripts
//! of aorlta-gpu (the harness reports its identity), aorlta-kernel (which refuses a harness of
//! another identity and puts it into the kernel legs' cache keys), the lanes (aorlta-answer and
//! aorlta-kernel: the identity of their own sources) and aorlta-core (the engine's part of each
//! leg's identity), and by the tests in aorlta-core that show which edit changes which identity. The
//! harness's identity is made where it is used, not in aorlta-record, so an edit of the harness
//! rebuilds the harness and the crates that run it, never every crate.

use std::path::{Path, PathBuf};

/// What the harness is built from, whole (every file of each crate, see [`files`]): the record
/// types, the judge (it stops a timing at a settled look) and the harness crate.
pub(super) const HARNESS: &[&str] = &["record", "judge", "gpu"];

/// For a build script of a crate under `crates/`: watches the harness's sources and sets
/// `AORLTA_HARNESS_HASH` to their hash (hex), the same in every crate that asks.
#[allow(dead_code)] // aorlta-core's build script includes this file for `files` and `hash` only.
pub(super) fn emit_harness_hash() {
    emit("AORLTA_HARNESS_HASH", HARNESS);
}

/// For a build script of a crate under `crates/`: watches the sources `prefixes` name (see
/// [`files`]) and sets the environment variable `var` to their hash (hex).
#[allow(dead_code)] // aorlta-core's build script includes this file for `files` and `hash` only.
pub(super) fn emit(var: &str, prefixes: &[&str]) {
    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let crates = manifest.parent().expect("a crate under crates/").to_path_buf();
    for p in prefixes {
        println!("cargo:rerun-if-changed={}", crates.join(p).display());
    }
    println!("cargo:rerun-if-changed=../record/build/sources.rs");
    let files = files(&crates, prefixes);
    println!("cargo:rustc-env={var}={:016x}", hash(&crates, &files));
}

/// Whether an entry of a folder is left out of every identity: version-control files (`.git`,
/// `.gitignore`, `.hg`, `.svn`, `.jj` …), and a crate's own `target/` folder (build output).
/// Nothing else is: a file of any other name or kind (`.py`, `.cu`, a header, a data file,
/// `build.rs`, `Cargo.toml`, a test) is in the hash, so no list of kinds can miss a new one.
fn skipped(rel: &str, name: &str, is_dir: bool) -> bool {
    const VCS: &[&str] = &[
        ".git",
        ".gitignore",
        ".gitattributes",
        ".gitmodules",
        ".hg",
        ".hgignore",
        ".svn",
        ".jj",
        ".bzr",
    ];
    // `rel` is the folder the entry is in: a crate's own folder has no `/`.
    VCS.contains(&name) || is_dir && name == "target" && !rel.contains('/')
}

fn walk(crates: &Path, rel: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(crates.join(rel)) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let child = format!("{rel}/{name}");
        let is_dir = e.path().is_dir();
        if skipped(rel, &name, is_dir) {
            continue;
        }
        if is_dir {
            walk(crates, &child, out);
        } else {
            out.push(child);
        }
    }
}

/// Every file under `crates` (the workspace's `crates/` folder) that `prefixes` name, as paths
/// relative to it, sorted. A prefix names a folder (`kernel`: the crate's whole tree, its
/// sources of every kind, build script, manifest, tests and data files, all but what
/// [`skipped`] leaves out), a file (`core/build.rs`), or a module (`core/src/judge` names
/// `core/src/judge.rs` and every file under `core/src/judge/`).
pub(super) fn files(crates: &Path, prefixes: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for p in prefixes {
        let file = format!("{p}.rs");
        if crates.join(&file).is_file() {
            out.push(file);
        }
        if crates.join(p).is_file() {
            out.push((*p).to_string());
        }
        walk(crates, p, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// FNV-1a (64 bits: stable across toolchains, no build dependency) over each file's relative
/// path, a zero byte and its content, in order.
pub(super) fn hash(crates: &Path, files: &[String]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in files {
        let content = std::fs::read(crates.join(f)).unwrap_or_default();
        for b in f.bytes().chain([0u8]).chain(content) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    h
}
