//! Hashes the sources that can change a result (crates/record, crates/core, crates/gpu) into
//! `AORLTA_SOURCE_HASH`, part of every cache key: a rebuilt engine never reuses results that an
//! older build computed, even when nobody bumped an adapter's version.

use std::path::{Path, PathBuf};

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let mut all = Vec::new();
    for krate in ["src", "../core/src", "../gpu/src"] {
        let dir = root.join(krate);
        println!("cargo:rerun-if-changed={}", dir.display());
        files(&dir, &mut all);
    }
    all.sort();
    // FNV-1a, 64 bits: stable across toolchains, no build dependency.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for f in &all {
        let rel = f.strip_prefix(&root).unwrap_or(f).to_string_lossy().into_owned();
        for b in rel
            .bytes()
            .chain([0u8])
            .chain(std::fs::read(f).unwrap_or_default())
        {
            h ^= b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    println!("cargo:rustc-env=AORLTA_SOURCE_HASH={h:016x}");
}
