//! `aorlta timeline FILE…`: the summary of each timeline the kernel lane wrote, one after the
//! other; a line that is not a span is an error naming the file and the line.

use crate::common;

use common::aorlta;

#[test]
fn each_file_is_summarised_and_a_bad_line_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let spans = [
        r#"{"k":"compile","l":"vector_add","t0":0.0,"t1":2.0,"th":"w0"}"#,
        r#"{"k":"job","l":"check/vector_add harness_ms=1.5","t0":2.0,"t1":4.0,"th":"w0"}"#,
        r#"{"k":"job","l":"time/vector_add harness_ms=3.0","t0":6.0,"t1":10.0,"th":"w0"}"#,
    ];
    let first = dir.path().join("a.jsonl");
    std::fs::write(&first, spans.join("\n") + "\n\n").unwrap();
    let empty = dir.path().join("b.jsonl");
    std::fs::write(&empty, "").unwrap();
    let out = aorlta().arg("timeline").arg(&first).arg(&empty).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], format!("== {}: 3 spans over 10.0 ms", first.display()));
    assert_eq!(
        lines[4],
        "GPU busy (at least one job running): 6.0 ms = 60.0% of the wall"
    );
    assert!(lines.contains(&"  harness time of time jobs: 1, total 3.0 ms, median 3.00 ms, p90 3.00 ms"));
    assert_eq!(
        lines.last().copied(),
        Some(format!("{}: empty", empty.display()).as_str())
    );

    let bad = dir.path().join("c.jsonl");
    std::fs::write(&bad, format!("{}\nnot a span\n", spans[0])).unwrap();
    let out = aorlta().arg("timeline").arg(&bad).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.starts_with(&format!("Error: {}:2: ", bad.display())), "{err}");
}
