//! Reading pool files: one candidate per JSONL line, a JSON object. A malformed line (not JSON,
//! not UTF-8, a JSON array rather than an object, a missing or unknown field) is reported with
//! its `file:line` and skipped; the rest are scored.

use aorlta_check::SkippedLine;
use aorlta_check::{CoreError, Result};
use aorlta_record::{Candidate, PoolLine};
use std::path::Path;

/// Reads a pool. Candidates without an id get `<task>#<line>`.
pub fn read_pool(path: &Path) -> Result<(Vec<Candidate>, Vec<SkippedLine>)> {
    let text = aorlta_check::read_input(path, aorlta_check::TEXT_LIMIT)?;
    let mut cands = Vec::new();
    let mut skipped = Vec::new();
    for (i, raw) in text.split(|&b| b == b'\n').enumerate() {
        match parse_line(path, i + 1, raw) {
            Some(Ok(c)) => cands.push(c),
            Some(Err(s)) => skipped.push(s),
            None => {}
        }
    }
    Ok((cands, skipped))
}

/// Line `number` (1-based) of the pool at `path` as a candidate (without an id it gets
/// `<task>#<number>`), or why it is skipped; `None` when the line is blank.
pub fn parse_line(path: &Path, number: usize, raw: &[u8]) -> Option<Result<Candidate, SkippedLine>> {
    if raw.iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    // The JSON reader checks the text is UTF-8 as it goes; only a failed line is looked at again.
    let err = match serde_json::from_slice::<PoolLine>(raw) {
        Ok(p) if is_object(raw) => return Some(Ok(candidate(p, number))),
        Ok(_) => None,
        Err(e) => Some(e),
    };
    let message = match (std::str::from_utf8(raw), err) {
        (Err(_), _) => "not valid UTF-8".to_string(),
        (Ok(line), _) if line.trim().is_empty() => return None,
        (Ok(_), Some(err)) => err.to_string(),
        (Ok(_), None) => NOT_AN_OBJECT.to_string(),
    };
    Some(Err(SkippedLine {
        place: format!("{}:{number}", path.display()),
        message,
    }))
}

/// Why a line that is a JSON array is skipped (the JSON reader would take its items for the
/// fields in their declared order).
pub const NOT_AN_OBJECT: &str =
    "a pool line is a JSON object ({\"task\": …, \"completion\": …}), not an array";

/// True when the JSON text `raw` is an object (its first byte that is not white space is `{`):
/// what a pool line must be.
pub fn is_object(raw: &[u8]) -> bool {
    raw.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{')
}

/// The candidate of a pool line read from line `number` (without an id it gets
/// `<task>#<number>`).
pub fn candidate(p: PoolLine, number: usize) -> Candidate {
    Candidate {
        id: p.id.unwrap_or_else(|| format!("{}#{number}", p.task)),
        task: p.task,
        completion: p.completion,
    }
}

/// The tasks a pool's lines name, read as scoring reads them ([`parse_line`]) one line at a time;
/// a malformed line names none (it is reported when it is scored).
pub fn task_ids(path: &Path) -> Result<std::collections::BTreeSet<String>> {
    use std::io::BufRead;
    let file = aorlta_check::open_input(path)?;
    let mut ids = std::collections::BTreeSet::new();
    for (i, line) in std::io::BufReader::with_capacity(1 << 20, file)
        .split(b'\n')
        .enumerate()
    {
        let line = line.map_err(|e| CoreError::io(path, e))?;
        if let Some(Ok(c)) = parse_line(path, i + 1, &line) {
            ids.insert(c.task);
        }
    }
    Ok(ids)
}

/// The lines of a pool that are not blank (malformed ones included), read without parsing
/// them: what a progress bar counts to.
pub fn count_lines(path: &Path) -> Result<usize> {
    use std::io::BufRead;
    let file = aorlta_check::open_input(path)?;
    let mut r = std::io::BufReader::with_capacity(1 << 20, file);
    let (mut n, mut blank) = (0, true);
    loop {
        let buf = r.fill_buf().map_err(|e| CoreError::io(path, e))?;
        if buf.is_empty() {
            break;
        }
        let mut start = 0;
        for nl in memchr::memchr_iter(b'\n', buf) {
            if blank {
                blank = buf[start..nl].iter().all(u8::is_ascii_whitespace);
            }
            n += usize::from(!blank);
            blank = true;
            start = nl + 1;
        }
        if blank {
            blank = buf[start..].iter().all(u8::is_ascii_whitespace);
        }
        let len = buf.len();
        r.consume(len);
    }
    Ok(n + usize::from(!blank))
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
        assert_eq!(count_lines(&f).unwrap(), 4);
        std::fs::write(
            &f,
            "[\"a\", \"x\"]\n  [\"a\", \"x\", \"c1\", 3]\n{\"task\":\"a\",\"completion\":\"x\"}\n",
        )
        .unwrap();
        let (c, s) = read_pool(&f).unwrap();
        assert_eq!(c.len(), 1, "arrays are not candidates: {c:?}");
        assert_eq!(s.len(), 2);
        assert!(
            s[0].place.ends_with("p.jsonl:1") && s[0].message == NOT_AN_OBJECT,
            "{s:?}"
        );
        assert!(
            s[1].place.ends_with("p.jsonl:2") && s[1].message == NOT_AN_OBJECT,
            "{s:?}"
        );
        std::fs::write(&f, "\n  \n{}\n\n{}").unwrap();
        assert_eq!(
            count_lines(&f).unwrap(),
            2,
            "blank lines are not counted, a last line without newline is"
        );
    }

    #[test]
    fn a_pools_tasks_are_the_ones_its_readable_lines_name() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("p.jsonl");
        let text = "{\"task\":\"a\",\"completion\":\"x\"}\n{\"task\":1}\nnot json\n\n{\"completion\":\"y\",\"task\":\"b\"}\n{\"task\":\"a\",\"completion\":\"z\"}";
        std::fs::write(&f, text).unwrap();
        let ids: Vec<String> = task_ids(&f).unwrap().into_iter().collect();
        assert_eq!(ids, ["a", "b"]);
        assert!(task_ids(&dir.path().join("missing.jsonl")).is_err());
    }
}
