//! Sets `AORLTA_HARNESS_HASH`, the hash of the sources the harness is built from (see
//! `../record/build/sources.rs`), for the harness's build identity.

#[path = "../record/build/sources.rs"]
mod sources;

fn main() {
    sources::emit_harness_hash();
}
