//! `aorlta bench soak` for a few seconds: the service started over the examples on the fake
//! device, loaded with distinct Q&A and kernel items, sampled into a table, the halves set side
//! by side, the figures written as JSON.

use crate::common::{aorlta, root};

#[test]
fn a_short_soak_prints_its_table_and_halves_and_writes_json() {
    let dir = tempfile::tempdir().unwrap();
    let json = dir.path().join("soak.json");
    let out = aorlta()
        .args(["bench", "soak", "--minutes", "0.05", "--samples", "2", "--json"])
        .arg(&json)
        .current_dir(root())
        .output()
        .expect("aorlta runs");
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{text}\n{err}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0], "aorlta soak: 0.05 min, distinct Q&A and kernel items (fake device), memory cache of 20000",
        "{text}"
    );
    assert_eq!(
        lines[1],
        "   min   qa items  kernel items  rss MiB  harness MiB  work files  work MiB"
    );
    // The start and two samples, each row under its header.
    let rows: Vec<Vec<f64>> = lines[2..5]
        .iter()
        .map(|l| {
            assert_eq!(l.len(), lines[1].len(), "{l}");
            l.split_whitespace().map(|c| c.parse().unwrap()).collect()
        })
        .collect();
    assert!(rows.iter().all(|r| r.len() == 7), "{text}");
    assert!(rows[2][1] > 0.0, "Q&A items were sent: {text}");
    assert!(rows[2][3] > 0.0, "the service's memory was read: {text}");
    assert!(
        lines[5].starts_with("rss MiB: max ") && lines[5].contains(" in the first half, "),
        "{text}"
    );
    assert!(lines[5].ends_with("; non-200 answers: 0; exit 0"), "{text}");
    assert_eq!(lines.len(), 6, "{text}");
    let v: serde_json::Value = serde_json::from_slice(&std::fs::read(&json).unwrap()).unwrap();
    assert_eq!(v["rows"].as_array().map(Vec::len), Some(3), "{v}");
    assert_eq!(v["rows"][2]["qa_items"].as_f64(), Some(rows[2][1]));
    assert_eq!((v["non_200"].as_u64(), v["exit"].as_i64()), (Some(0), Some(0)));
    assert!(v["first_half"]["rss_mib"].as_f64().unwrap() > 0.0, "{v}");
    assert!(v["second_half"]["work_files"].is_u64(), "{v}");
}

#[test]
fn a_soak_of_no_time_is_refused() {
    let out = aorlta()
        .args(["bench", "soak", "--minutes", "0"])
        .current_dir(root())
        .output()
        .expect("aorlta runs");
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("more than 0 minutes"), "{err}");
}
