//! Sets `AORLTA_LANE_HASH`, the hash of the sources the Q&A lane's results depend on
//! (`build/lane.rs`), for the lane's source identity.

#[path = "../record/build/sources.rs"]
mod sources;

#[path = "build/lane.rs"]
mod lane;

fn main() {
    println!("cargo:rerun-if-changed=build/lane.rs");
    sources::emit("AORLTA_LANE_HASH", lane::SOURCES);
}
