//! The harness's build identity is made twice from the same files: by the harness
//! (`aorlta_gpu::BUILD`, which it reports) and by the kernel lane (`aorlta_kernel::HARNESS_BUILD`,
//! which it accepts). This binary links both, so the two must agree, and both must change when
//! a harness source changes while no other crate's build hashes it.

#[path = "../../../record/build/sources.rs"]
mod sources;

#[test]
fn the_harness_reports_the_build_the_kernel_lane_accepts() {
    assert_eq!(aorlta_gpu::BUILD, aorlta_kernel::HARNESS_BUILD);
    let crates = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let files = sources::files(&crates, sources::HARNESS);
    assert!(files.iter().any(|f| f.starts_with("gpu/src/")), "{files:?}");
    assert!(files.iter().any(|f| f.starts_with("judge/src/")), "{files:?}");
    let hash = format!("{:016x}", sources::hash(&crates, &files));
    assert!(
        aorlta_kernel::HARNESS_BUILD.ends_with(&format!("+src.{hash}")),
        "{hash}"
    );
}
