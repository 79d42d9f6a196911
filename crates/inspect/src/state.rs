//! What the pages are made from: the runs an inspector serves and the path it is served under.

use crate::run::Run;

/// The runs an inspector serves, and the path it is served under (empty at the root, `/ui`
/// inside the service).
#[derive(Debug)]
pub struct Inspector {
    /// The runs, in the order given.
    pub runs: Vec<Run>,
    /// The path prefix of every link (no trailing slash).
    pub base: String,
}
