//! The `{major, minor}` version every document that leaves a process carries (the changelog is
//! the crate's doc).

use serde::{Deserialize, Serialize};

/// A `{major, minor}` version of the record formats. A reader accepts any minor of its major.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
pub struct FormatVersion {
    /// Bumped on an incompatible change.
    pub major: u32,
    /// Bumped when fields are added.
    pub minor: u32,
}

/// The version this build writes.
pub const FORMAT_VERSION: FormatVersion = FormatVersion { major: 1, minor: 1 };

impl Default for FormatVersion {
    fn default() -> Self {
        FORMAT_VERSION
    }
}
