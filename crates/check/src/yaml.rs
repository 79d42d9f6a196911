//! Reading YAML files (profiles, a lane's task files, run configs and their sections, validation
//! suites) into their types, with every error a [`CoreError::Parse`] that names the file, the
//! 1-based line (0 when the parser knows none) and, for an unknown or mistyped key, the key.
//! The one place YAML errors are mapped, so every loader reports them alike.

use crate::error::{CoreError, Result};
use serde::de::DeserializeOwned;
use std::path::Path;

/// A YAML error as a [`CoreError::Parse`] naming `path` and the line.
pub fn yaml_error(path: &Path, e: &serde_norway::Error) -> CoreError {
    CoreError::Parse {
        path: path.to_path_buf(),
        line: e.location().map(|l| l.line()).unwrap_or(0),
        message: e.to_string(),
    }
}

/// Parses `text`; `origin` names it in errors.
pub fn parse_yaml<T: DeserializeOwned>(text: &str, origin: &Path) -> Result<T> {
    serde_norway::from_str(text).map_err(|e| yaml_error(origin, &e))
}

/// Reads and parses a file.
pub fn load_yaml<T: DeserializeOwned>(path: &Path) -> Result<T> {
    let text = crate::input::read_input_text(path, crate::input::TEXT_LIMIT)?;
    parse_yaml(&text, path)
}

/// Reads section `name` (a top-level key) of a document already parsed from `origin` into its
/// type; the error names the file, the section and the line in the file. (A parsed value keeps
/// no lines, so on an error the section is read again from the file's text, where the parser
/// knows them; where that text is not at hand the line is 0.)
pub fn yaml_section<T: DeserializeOwned>(
    value: &serde_norway::Value,
    origin: &Path,
    name: &str,
) -> Result<T> {
    serde_norway::from_value(value.clone()).map_err(|e| {
        let located = std::fs::read_to_string(origin)
            .ok()
            .and_then(|text| section_from_text::<T>(&text, name).err())
            .filter(|l| l.location().is_some());
        let mut err = yaml_error(origin, located.as_ref().unwrap_or(&e));
        if let CoreError::Parse { message, .. } = &mut err {
            *message = format!("section `{name}`: {message}");
        }
        err
    })
}

/// Section `name` of a YAML document's text, read into `T` (the other keys are passed over),
/// so that an error carries its place in the text.
fn section_from_text<T: DeserializeOwned>(
    text: &str,
    name: &str,
) -> std::result::Result<Option<T>, serde_norway::Error> {
    use serde::de::{DeserializeSeed, IgnoredAny, MapAccess, Visitor};
    use std::marker::PhantomData;

    struct Section<'a, T>(&'a str, PhantomData<T>);

    impl<'de, T: DeserializeOwned> Visitor<'de> for Section<'_, T> {
        type Value = Option<T>;
        fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
            f.write_str("a mapping")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> std::result::Result<Option<T>, A::Error> {
            let mut found = None;
            while let Some(key) = map.next_key::<String>()? {
                if key == self.0 {
                    found = Some(map.next_value::<T>()?);
                } else {
                    map.next_value::<IgnoredAny>()?;
                }
            }
            Ok(found)
        }
    }

    impl<'de, T: DeserializeOwned> DeserializeSeed<'de> for Section<'_, T> {
        type Value = Option<T>;
        fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> std::result::Result<Option<T>, D::Error> {
            d.deserialize_map(self)
        }
    }

    Section(name, PhantomData).deserialize(serde_norway::Deserializer::from_str(text))
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
        let e = parse_yaml::<Two>("a: 1\nb: 2\nc: 3\n", Path::new("x.yaml"))
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("x.yaml:3:"), "{e}");
        assert!(e.contains("`c`"), "{e}");
    }

    #[test]
    fn a_section_error_names_the_section_and_a_missing_file_is_io() {
        let v: serde_norway::Value = serde_norway::from_str("a: x\n").unwrap();
        let e = yaml_section::<Two>(&v, Path::new("run.yaml"), "lane")
            .unwrap_err()
            .to_string();
        assert!(e.starts_with("run.yaml:") && e.contains("section `lane`"), "{e}");
        let e = load_yaml::<Two>(Path::new("/no/such/file.yaml")).unwrap_err();
        assert!(matches!(e, CoreError::Io { .. }), "{e}");
    }

    #[test]
    fn a_nested_section_error_names_its_line_in_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.yaml");
        let text = "name: x\nlane:\n  a: 1\n  b: 2\n  c: 3\nafter: [1, 2]\n";
        std::fs::write(&path, text).unwrap();
        let doc: serde_norway::Value = load_yaml(&path).unwrap();
        let e = yaml_section::<Two>(&doc["lane"], &path, "lane").unwrap_err();
        let CoreError::Parse { line, message, .. } = &e else {
            panic!("{e}")
        };
        assert_eq!(*line, 5, "{e}");
        assert!(
            message.contains("section `lane`") && message.contains("`c`"),
            "{e}"
        );
        let text = "lane:\n  a: 1\n  b: nine\n";
        std::fs::write(&path, text).unwrap();
        let doc: serde_norway::Value = load_yaml(&path).unwrap();
        let e = yaml_section::<Two>(&doc["lane"], &path, "lane").unwrap_err();
        assert!(
            e.to_string().starts_with(&format!("{}:3:", path.display())),
            "{e}"
        );
        let good = yaml_section::<Two>(&serde_norway::from_str("a: 1\nb: 2\n").unwrap(), &path, "lane");
        assert!(good.is_ok());
    }
}
