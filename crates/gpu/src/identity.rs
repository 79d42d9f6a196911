//! The harness's build identity, reported when it starts and compared by the service with its
//! own before any job is sent.

/// The harness's build identity: the package version and a hash of the sources the harness is
/// built from (crates/record, crates/judge and crates/gpu; `build.rs`). The harness reports it
/// when it starts; the service compares it with its own `aorlta_kernel::HARNESS_BUILD`
/// (made by the same hashing of the same files) and never
/// uses a harness of another build.
pub const BUILD: &str = concat!(
    "aorlta ",
    env!("CARGO_PKG_VERSION"),
    "+src.",
    env!("AORLTA_HARNESS_HASH")
);
