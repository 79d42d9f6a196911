//! Reading pool files: one candidate per JSONL line. A malformed line is reported with its
//! `file:line` and skipped; the rest are scored.

use crate::error::{CoreError, Result};
use crate::task::SkippedLine;
use aorlta_record::{Candidate, PoolLine};
use std::path::Path;

/// Reads a pool. Candidates without an id get `<task>#<line>`.
pub fn read_pool(path: &Path) -> Result<(Vec<Candidate>, Vec<SkippedLine>)> {
    let text = std::fs::read(path).map_err(|e| CoreError::io(path, e))?;
    let mut cands = Vec::new();
    let mut skipped = Vec::new();
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        let place = || format!("{}:{}", path.display(), i + 1);
        let Ok(line) = std::str::from_utf8(raw) else {
            skipped.push(SkippedLine {
                place: place(),
                message: "not valid UTF-8".into(),
            });
            continue;
        };
        if line.trim().is_empty() {
            continue;
        }
        match serde_json::from_str::<PoolLine>(line) {
            Ok(p) => cands.push(Candidate {
                id: p.id.unwrap_or_else(|| format!("{}#{}", p.task, i + 1)),
                task: p.task,
                completion: p.completion,
            }),
            Err(e) => skipped.push(SkippedLine {
                place: place(),
                message: e.to_string(),
            }),
        }
    }
    Ok((cands, skipped))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_lines_are_reported_and_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p.jsonl");
        let mut bytes = b"{\"task\":\"a\",\"completion\":\"x\"}\n{\"task\":1}\n".to_vec();
        bytes.extend_from_slice(b"\xff\xfe\n{\"task\":\"b\",\"completion\":\"y\",\"id\":\"c9\"}\n");
        std::fs::write(&f, bytes).unwrap();
        let (c, s) = read_pool(&f).unwrap();
        assert_eq!(c.len(), 2);
        assert_eq!(c[0].id, "a#1");
        assert_eq!(c[1].id, "c9");
        assert_eq!(s.len(), 2);
        assert!(s[0].place.ends_with("p.jsonl:2"));
        assert!(s[1].place.ends_with("p.jsonl:3") && s[1].message.contains("UTF-8"));
    }
}
