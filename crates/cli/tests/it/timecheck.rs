//! `aorlta timecheck` on the fake device: `--pool` times every kernel completion of a pool, one
//! row each and a summary table, reports a malformed line with its number and skips it; relative
//! paths are the caller's; `--candidate` and `--pool` exclude each other and one is required.

use crate::common;

use common::aorlta;
use std::path::Path;

/// A folder with the CUDA `vector_add` task (its file and its reference, as the task expects
/// them) and a pool of six lines, the third malformed.
fn setup(dir: &Path) {
    let reference = common::copy_kernel_task(dir, "vector_add");
    std::fs::write(dir.join("kernel.cu"), &reference).unwrap();
    let line = |task: &str, completion: String, id: Option<&str>| {
        let mut v = serde_json::json!({"task": task, "completion": completion});
        if let Some(id) = id {
            v["id"] = id.into();
        }
        v.to_string() + "\n"
    };
    let fenced = |code: &str| format!("Here it is:\n\n```cuda\n{code}```\n");
    let mut pool = String::new();
    pool.push_str(&line("vector_add", fenced(&reference), Some("va/naive")));
    pool.push_str(&line(
        "vector_add",
        "Launch one thread per element.".into(),
        Some("va/prose"),
    ));
    pool.push_str("{\"task\": \"vector_add\", this is not json\n");
    pool.push_str(&line(
        "vector_add",
        fenced(&format!("#include \"/etc/passwd\"\n{reference}")),
        Some("va/include"),
    ));
    pool.push_str(&line("no_such_task", fenced(&reference), Some("nt/naive")));
    pool.push_str(&line("vector_add", fenced(&reference), None));
    std::fs::write(dir.join("pool.jsonl"), pool).unwrap();
}

fn timecheck(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let out = aorlta()
        .arg("timecheck")
        .args(args)
        .current_dir(dir)
        .output()
        .expect("aorlta runs");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn words(line: &str) -> Vec<&str> {
    line.split_whitespace().collect()
}

#[test]
fn a_pool_is_timed_row_by_row_with_a_summary() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let (code, out, err) = timecheck(
        dir.path(),
        &["--fake-gpu", "--tasks", "tasks", "--pool", "pool.jsonl"],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    // The malformed line, by its number, on stderr; the other five get a row each, in order.
    assert!(
        err.contains("skipped ") && err.contains("pool.jsonl:3: "),
        "{err}"
    );
    let all: Vec<&str> = out.lines().collect();
    // The fake device's times are said to be a model's before any is printed.
    assert!(
        all[0].starts_with("fake device: ") && all[0].ends_with("not measurements"),
        "{out}"
    );
    let lines = &all[1..];
    assert!(lines[0].starts_with("timecheck ") && lines[0].ends_with("pool.jsonl: 5 completions"));
    assert_eq!(
        words(lines[1]),
        ["ID", "TASK", "LEG", "STATE", "VERDICT", "S", "RATIO", "PAIRS"]
    );
    let rows: Vec<Vec<&str>> = lines[2..7].iter().map(|l| words(l)).collect();
    let ids: Vec<&str> = rows.iter().map(|r| r[0]).collect();
    assert_eq!(
        ids,
        ["va/naive", "va/prose", "va/include", "nt/naive", "vector_add#6"]
    );
    // The reference against itself: timed, at about 1.00 (not-faster, or within-noise at worst).
    for r in [&rows[0], &rows[4]] {
        assert_eq!(r[1..3], ["vector_add", "time"], "{r:?}");
        assert!(["not-faster", "within-noise"].contains(&r[4]), "{r:?}");
        let s: f64 = r[5].parse().unwrap();
        assert!((0.9..=1.1).contains(&s), "{r:?}");
        assert_eq!(r[6], "1.10");
    }
    assert_eq!(
        rows[1][1..6],
        ["vector_add", "parse", "broke", "no-code-block", "-"]
    );
    assert_eq!(
        rows[2][1..6],
        ["vector_add", "compile", "broke", "include-forbidden", "-"]
    );
    assert_eq!(rows[3][1..6], ["no_such_task", "task", "skipped", "no-task", "-"]);
    // The summary: one line per deciding leg and verdict, the timed ones with their speedups.
    let at = lines
        .iter()
        .position(|l| l.starts_with("summary:"))
        .expect("a summary");
    assert_eq!(
        lines[at],
        "summary: 5 completions, 2 timed; 1 malformed line skipped"
    );
    assert_eq!(
        words(lines[at + 1]),
        [
            "LEG", "VERDICT", "STATE", "COUNT", "S", "MEDIAN", "S", "MIN", "S", "MAX"
        ]
    );
    let table: Vec<Vec<&str>> = lines[at + 2..].iter().map(|l| words(l)).collect();
    let counts: usize = table.iter().map(|r| r[3].parse::<usize>().unwrap()).sum();
    assert_eq!(counts, 5, "{table:?}");
    assert!(
        table
            .iter()
            .any(|r| r[..4] == ["parse", "no-code-block", "broke", "1"])
    );
    assert!(
        table
            .iter()
            .any(|r| r[..4] == ["compile", "include-forbidden", "broke", "1"])
    );
    assert!(
        table
            .iter()
            .any(|r| r[..4] == ["task", "no-task", "skipped", "1"])
    );
    assert!(table.iter().any(|r| r[0] == "time" && r[4] != "-"));
    // --task keeps one task's lines.
    let (code, out, _) = timecheck(
        dir.path(),
        &[
            "--fake-gpu",
            "--tasks",
            "tasks",
            "--pool",
            "pool.jsonl",
            "--task",
            "no_such_task",
        ],
    );
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("1 completions of task no_such_task"), "{out}");
}

#[test]
fn a_relative_candidate_is_the_callers_and_the_inputs_exclude_each_other() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let (code, out, err) = timecheck(
        dir.path(),
        &[
            "--fake-gpu",
            "--tasks",
            "tasks",
            "--task",
            "vector_add",
            "--candidate",
            "kernel.cu",
        ],
    );
    assert_eq!(code, 0, "{out}\n{err}");
    let (notice, rest) = out.split_once('\n').unwrap();
    assert!(notice.starts_with("fake device: "), "{out}");
    assert!(
        rest.starts_with("vector_add ") && rest.contains("kernel.cu: "),
        "{out}"
    );
    assert!(rest.contains("\"fake_gpu\": true"), "{out}");
    let (code, _, err) = timecheck(
        dir.path(),
        &[
            "--fake-gpu",
            "--task",
            "vector_add",
            "--candidate",
            "kernel.cu",
            "--pool",
            "pool.jsonl",
        ],
    );
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("cannot be used with"), "{err}");
    let (code, _, err) = timecheck(dir.path(), &["--fake-gpu", "--tasks", "tasks"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("required"), "{err}");
    let (code, _, err) = timecheck(dir.path(), &["--fake-gpu", "--candidate", "kernel.cu"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--task"), "{err}");
    // A missing pool is an error naming it, as the caller wrote it.
    let (code, _, err) = timecheck(
        dir.path(),
        &["--fake-gpu", "--tasks", "tasks", "--pool", "nope.jsonl"],
    );
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("nope.jsonl"), "{err}");
}

#[test]
fn a_task_with_several_timed_sizes_is_judged_on_their_geometric_mean() {
    let dir = tempfile::tempdir().unwrap();
    setup(dir.path());
    let task = dir.path().join("tasks/vector_add.yaml");
    let text = std::fs::read_to_string(&task).unwrap();
    std::fs::write(&task, format!("{text}timed_sizes: [0, 1]\n")).unwrap();
    let args = [
        "--fake-gpu",
        "--tasks",
        "tasks",
        "--task",
        "vector_add",
        "--candidate",
        "kernel.cu",
    ];
    let (code, out, err) = timecheck(dir.path(), &args);
    assert!(code == 0 || code == 3, "{out}\n{err}");
    let json = &out[out.find("\n{").expect("the record") + 1..];
    let d: serde_json::Value = serde_json::from_str(json).unwrap();
    assert_eq!(d["timed_sizes"], serde_json::json!([0, 1]), "{d}");
    let sizes = d["sizes"].as_array().unwrap();
    assert_eq!(sizes.len(), 2);
    let each: Vec<f64> = sizes.iter().map(|x| x["s"].as_f64().unwrap()).collect();
    assert_eq!(sizes[0]["size"], 0);
    assert_eq!(sizes[1]["size"], 1);
    // Every size was timed on its own seeds and judged on its own pairs.
    assert_ne!(sizes[0]["input_seed"], sizes[1]["input_seed"]);
    assert!(
        sizes
            .iter()
            .all(|x| x["verdict"].is_string() && x["pairs"].as_u64() >= Some(10))
    );
    let geomean = (each[0] * each[1]).sqrt();
    let s = d["s"].as_f64().unwrap();
    assert!((s - geomean).abs() < 1e-12, "{s} vs {geomean} from {each:?}");
    // The reference against itself is never faster.
    assert!(
        ["not-faster", "within-noise"].contains(&d["verdict"].as_str().unwrap()),
        "{d}"
    );
    assert!(
        d["detail"]
            .as_str()
            .unwrap()
            .starts_with("geometric mean over 2 sizes"),
        "{d}"
    );
    // A timed size the task does not have is refused when the task loads, naming the field.
    std::fs::write(&task, format!("{text}timed_sizes: [0, 9]\n")).unwrap();
    let (code, out, err) = timecheck(dir.path(), &args);
    assert_ne!(code, 0, "{out}");
    assert!(
        err.contains("vector_add.yaml") && err.contains("timed_sizes") && err.contains("size 9"),
        "{err}"
    );
}
