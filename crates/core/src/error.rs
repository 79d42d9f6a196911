//! The engine's own failures (not a check's verdict: those are leg states). Each carries the
//! file, line, task or leg it concerns.

use std::path::PathBuf;

/// An error of AORLTA's own machinery.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: std::io::Error,
    },
    /// A YAML or JSON file could not be parsed; names the file, line and key where known.
    #[error("{path}:{line}: {message}")]
    Parse {
        /// The file.
        path: PathBuf,
        /// 1-based line (0 when unknown).
        line: usize,
        /// What is wrong, naming the key where known.
        message: String,
    },
    /// A profile, config or task is well-formed but not valid.
    #[error("{path}: {message}")]
    Invalid {
        /// The file (or a name such as `<inline task>`).
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The operating system gave no random bytes (for the secret that seeds are drawn from).
    #[error("no random bytes from the operating system for the seed secret: {0}")]
    Randomness(String),
    /// The cache failed.
    #[error("cache {path}: {message}")]
    Cache {
        /// The cache file.
        path: PathBuf,
        /// What failed.
        message: String,
    },
}

/// Result with [`CoreError`].
pub type Result<T, E = CoreError> = std::result::Result<T, E>;

impl CoreError {
    /// An I/O error on a path.
    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        CoreError::Io {
            path: path.into(),
            source,
        }
    }

    /// An invalid-content error on a path.
    pub fn invalid(path: impl Into<PathBuf>, message: impl Into<String>) -> Self {
        CoreError::Invalid {
            path: path.into(),
            message: message.into(),
        }
    }
}
