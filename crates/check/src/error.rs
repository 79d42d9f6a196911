//! The engine's own failures (not a check's verdict: those are leg states). Each carries the
//! file, line, task or leg it concerns.

use std::path::PathBuf;

/// An error of AORLTA's own machinery.
#[derive(Debug, thiserror::Error)]
pub enum CoreError {
    /// A file could not be read or written. The OS error is part of the message, not a
    /// `source()`, so that a chain printed whole (`{:#}`) shows it once.
    #[error("{path}: {error}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        error: std::io::Error,
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
    /// A thread of a scoring run could not start, or ended in a panic.
    #[error("{what}: {message}")]
    Thread {
        /// The thread and what it was doing (`starting worker thread 3 of 8`).
        what: String,
        /// Why: the system's error, or the panic's message.
        message: String,
    },
    /// A scoring run stopped part-way. Its entries so far are in `partial`, what it scored is in
    /// the store, and the previous run's outputs are as they were: running it again resumes.
    #[error(
        "{cause} (the run stopped with {entries} entries written to {partial}; what it scored is \
         stored, so running it again resumes)",
        partial = partial.display()
    )]
    Stopped {
        /// Why it stopped.
        cause: Box<CoreError>,
        /// The partial rewards file.
        partial: PathBuf,
        /// Entries written to it.
        entries: usize,
    },
    /// The result store failed.
    #[error("cache {store}: {message}")]
    Cache {
        /// The store: its file, or its URL without the password.
        store: String,
        /// What failed.
        message: String,
    },
}

/// Result with [`CoreError`].
pub type Result<T, E = CoreError> = std::result::Result<T, E>;

impl CoreError {
    /// An I/O error on a path.
    pub fn io(path: impl Into<PathBuf>, error: std::io::Error) -> Self {
        CoreError::Io {
            path: path.into(),
            error,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_io_error_names_its_path_and_says_the_os_error_once() {
        let e = CoreError::io("/x/y", std::io::Error::from_raw_os_error(20));
        let text = e.to_string();
        assert!(text.starts_with("/x/y: "), "{text}");
        assert_eq!(text.matches("os error 20").count(), 1, "{text}");
        assert!(
            std::error::Error::source(&e).is_none(),
            "a chain printed whole repeats a source"
        );
    }
}
