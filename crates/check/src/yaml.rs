//! Reading YAML files (profiles, kernel tasks, run configs, the `kernel:` section, validation
//! suites) into their types, with every error a [`CoreError::Parse`] that names the file, the
//! 1-based line (0 when the parser knows none) and, for an unknown or mistyped key, the key.
//! The one place YAML errors are mapped, so every loader reports them alike.

use crate::error::{CoreError, Result};
use serde::de::DeserializeOwned;
use std::path::Path;

/// A YAML error as a [`CoreError::Parse`] naming `path` and the line.
pub fn error(path: &Path, e: &serde_norway::Error) -> CoreError {
    CoreError::Parse {
        path: path.to_path_buf(),
        line: e.location().map(|l| l.line()).unwrap_or(0),
        message: e.to_string(),
    }
}

/// Parses `text`; `origin` names it in errors.
pub fn from_str<T: DeserializeOwned>(text: &str, origin: &Path) -> Result<T> {
    serde_norway::from_str(text).map_err(|e| error(origin, &e))
}

/// Reads and parses a file.
pub fn load<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let text = std::fs::read_to_string(path).map_err(|e| CoreError::io(path, e))?;
    from_str(&text, path)
}

/// Reads section `name` of a document already parsed from `origin` into its type; the error
/// names the file and the section.
pub fn section<T: DeserializeOwned>(value: &serde_norway::Value, origin: &Path, name: &str) -> Result<T> {
    serde_norway::from_value(value.clone()).map_err(|e| {
        let mut err = error(origin, &e);
        if let CoreError::Parse { message, .. } = &mut err {
            *message = format!("section `{name}`: {message}");
        }
        err
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    #[allow(dead_code)]
    struct Two {
        a: u32,
        b: u32,
    }

    #[test]
    fn an_unknown_key_names_the_file_the_line_and_the_key() {
        let e = from_str::<Two>("a: 1\nb: 2\nc: 3\n", Path::new("x.yaml"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.yaml:3:"), "{e}");
        assert!(e.contains("`c`"), "{e}");
    }

    #[test]
    fn a_section_error_names_the_section_and_a_missing_file_is_io() {
        let v: serde_norway::Value = serde_norway::from_str("a: x\n").unwrap();
        let e = section::<Two>(&v, Path::new("run.yaml"), "kernel")
            .unwrap_err()
            .to_string();
        assert!(
            e.starts_with("run.yaml:") && e.contains("section `kernel`"),
            "{e}"
        );
        let e = load::<Two>(Path::new("/no/such/file.yaml")).unwrap_err();
        assert!(matches!(e, CoreError::Io { .. }), "{e}");
    }
}
