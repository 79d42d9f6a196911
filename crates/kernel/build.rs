//! Sets `AORLTA_HARNESS_HASH`, the hash of the sources the harness is built from (see
//! `../record/build/sources.rs`), for the harness's build identity, and `AORLTA_LANE_HASH`, the
//! hash of the sources the kernel lane's results depend on (`build/lane.rs`), for the lane's
//! source identity.

#[path = "../record/build/sources.rs"]
mod sources;

#[path = "build/lane.rs"]
mod lane;

fn main() {
    println!("cargo:rerun-if-changed=build/lane.rs");
    sources::emit_harness_hash();
    sources::emit("AORLTA_LANE_HASH", lane::SOURCES);
}
