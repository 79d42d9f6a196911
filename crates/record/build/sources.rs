//! Hashing source files into a build identity. Shared, through `#[path]`, by the build scripts
//! of aorlta-record (the harness's identity) and aorlta-core (each leg's identity), and by the
//! tests in aorlta-core that show which edit changes which identity.

use std::path::Path;

/// Whether a file is a test module (`tests.rs`, `*_tests.rs`): compiled only under `cfg(test)`,
/// so it never changes a result.
fn is_test_module(name: &str) -> bool {
    name == "tests.rs" || name.ends_with("_tests.rs")
}

fn walk(crates: &Path, rel: &str, out: &mut Vec<String>) {
    let Ok(entries) = std::fs::read_dir(crates.join(rel)) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let child = format!("{rel}/{name}");
        if e.path().is_dir() {
            walk(crates, &child, out);
        } else if name.ends_with(".rs") && !is_test_module(&name) {
            out.push(child);
        }
    }
}

/// The `.rs` files under `crates` (the workspace's `crates/` folder) that `prefixes` name, as
/// paths relative to it, sorted: a prefix `core/src/judge` names `core/src/judge.rs` and every
/// file under `core/src/judge/`. Test modules are left out.
pub fn files(crates: &Path, prefixes: &[&str]) -> Vec<String> {
    let mut out = Vec::new();
    for p in prefixes {
        let file = format!("{p}.rs");
        if crates.join(&file).is_file() {
            out.push(file);
        }
        walk(crates, p, &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// FNV-1a (64 bits: stable across toolchains, no build dependency) over each file's relative
/// path, a zero byte and its content, in order.
pub fn hash(crates: &Path, files: &[String]) -> u64 {
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
