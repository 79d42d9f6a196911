//! `aorlta task generate`: a small set generated with a seed (small shapes, so the CPU computes
//! it in CI), every kept task passing `aorlta task check --fake-gpu`, the report's counts, the
//! training set's Parquet files in verl's layout; a malformed configuration refused naming its
//! file and line. The generator runs modules with a Python that has torch:
//! `$AORLTA_TORCH_PYTHON` (scripts/test sets it and `AORLTA_TORCH_REQUIRED=1`); without one the
//! torch test says it is skipped, and fails when torch is required.

use crate::common;

use common::{aorlta, root};
use std::path::Path;

/// The repository's configuration with small shapes and bounds to match.
fn small_config(dir: &Path) -> std::path::PathBuf {
    let text = std::fs::read_to_string(root().join("examples/generated/generator.yaml")).unwrap();
    let start = text.find("\nshapes:").unwrap();
    let end = text.find("\n# A module's score").unwrap();
    let small = "\nshapes:\n\
        \x20 - {name: square, weight: 2, rows: [256, 512], cols: [256, 512]}\n\
        \x20 - {name: tall, weight: 1, rows: [4096], cols: [64, 128]}\n\
        \x20 - {name: odd, weight: 2, rows: [301, 517], cols: [129, 333]}\n\
        images:\n\
        \x20 - {name: image, weight: 1, batch: [2, 4], channels: [3, 8], side: [17, 32]}\n\
        bounds: {min-bytes: 65536, max-bytes: 67108864, max-flops: 10000000000}\n";
    let path = dir.join("small.yaml");
    std::fs::write(&path, format!("{}{small}{}", &text[..start], &text[end..])).unwrap();
    path
}

/// The Parquet file's rows as JSON.
fn parquet_rows(path: &Path) -> Vec<serde_json::Value> {
    use parquet::file::reader::{FileReader, SerializedFileReader};
    let r = SerializedFileReader::new(std::fs::File::open(path).unwrap()).unwrap();
    r.get_row_iter(None)
        .unwrap()
        .map(|row| row.unwrap().to_json_value())
        .collect()
}

#[test]
fn a_generated_set_is_kept_only_checked_and_every_kept_task_passes_task_check() {
    let Some(python) = common::torch_python("task generate test") else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let config = small_config(dir.path());
    let out = dir.path().join("set");
    let generate = |extra: &[&str]| {
        aorlta()
            .args(["task", "generate", "--count", "24", "--seed", "1", "--jobs", "2"])
            .args(extra)
            .arg("--config")
            .arg(&config)
            .arg("--out")
            .arg(&out)
            .arg("--python")
            .arg(&python)
            .current_dir(root())
            .output()
            .unwrap()
    };
    let o = generate(&[]);
    let (stdout, stderr) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert_eq!(o.status.code(), Some(0), "{stdout}\n{stderr}");
    // kept 24 of M generated tasks; dropped: import a, measure b, ...: the set holds the 24
    // asked for, the first modules of the seed that pass, and ends at the 24th kept one.
    let line = stdout
        .lines()
        .find(|l| l.starts_with("kept "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let kept: usize = words[1].parse().unwrap();
    let made: usize = words[3].parse().unwrap();
    assert_eq!(kept, 24, "{line}\n{stderr}");
    let dropped: usize = line
        .split("dropped: ")
        .nth(1)
        .unwrap()
        .split(", ")
        .map(|d| {
            d.split_whitespace()
                .nth(1)
                .unwrap()
                .trim_end_matches(|c: char| !c.is_ascii_digit())
                .parse::<usize>()
                .unwrap()
        })
        .sum();
    assert_eq!(kept + dropped, made, "{line}");
    assert!(made > kept, "some module of the sample is dropped: {line}");
    assert!(
        stderr.contains("[check ") && stderr.contains("imported "),
        "progress lines:\n{stderr}"
    );
    // A second round made up the first round's drops.
    assert!(
        stderr.contains("kept ") && stderr.contains(" more modules (from module 24)"),
        "{stderr}"
    );

    // Only the kept tasks are in tasks/, and each passes `task check` on the fake device.
    let tasks: Vec<_> = std::fs::read_dir(out.join("tasks"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml"))
        .collect();
    assert_eq!(tasks.len(), kept);
    let check = aorlta()
        .args(["task", "check", "--fake-gpu"])
        .arg(out.join("tasks"))
        .env("AORLTA_TORCH_PYTHON", &python)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&check.stdout).into_owned();
    assert_eq!(check.status.code(), Some(0), "{text}");
    assert!(text.contains(&format!("{kept} of {kept} tasks pass")), "{text}");

    // The report names every module and why each drop was dropped.
    let report = std::fs::read_to_string(out.join("GENERATE.md")).unwrap();
    let summary = line.split(" in ").next().unwrap();
    assert!(report.contains(summary), "{summary}\n{report}");
    assert_eq!(report.matches("| `gen1_").count(), made, "{report}");
    assert!(report.contains("--count 24 --seed 1"), "{report}");
    let last_row = report.lines().rfind(|l| l.starts_with("| `gen1_")).unwrap();
    assert!(
        last_row.contains("| kept ("),
        "the set ends at its last kept module: {last_row}"
    );
    assert_eq!(
        std::fs::read_dir(out.join("problems"))
            .unwrap()
            .filter(|e| e.as_ref().unwrap().path().extension().is_some_and(|x| x == "py"))
            .count(),
        made,
        "the problems of modules past the set are removed"
    );
    assert!(!out.join("tasks/IMPORT.md").exists());

    // The training set: every kept task once, in verl's layout, split by family.
    let mut ids = Vec::new();
    for split in ["train", "held-out"] {
        for row in parquet_rows(&out.join(format!("{split}.parquet"))) {
            let id = row["reward_model"]["ground_truth"].as_str().unwrap().to_string();
            assert_eq!(row["extra_info"]["aorlta_task"], id.as_str(), "{row}");
            assert_eq!(row["extra_info"]["split"], split, "{row}");
            assert_eq!(row["data_source"], "aorlta-generated", "{row}");
            assert_eq!(row["prompt"][0]["role"], "user", "{row}");
            let prompt = row["prompt"][0]["content"].as_str().unwrap();
            let task = std::fs::read_to_string(out.join("tasks").join(format!("{id}.yaml"))).unwrap();
            assert!(task.contains("torch: ../problems/"), "{task}");
            assert!(prompt.contains("class Model(nn.Module)"), "{prompt}");
            let families = row["extra_info"]["families"].as_str().unwrap();
            let held = families.split(',').any(|f| f == "scan" || f == "loss");
            assert_eq!(held, split == "held-out", "{row}");
            ids.push(id);
        }
    }
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), kept);

    // The pool: eight candidates for each kept task whose operators are all element-wise.
    let elementwise: Vec<String> = std::fs::read_to_string(out.join("tasks.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .filter(|t| t["families"] == serde_json::json!(["elementwise"]))
        .map(|t| t["id"].as_str().unwrap().to_string())
        .collect();
    let pool: Vec<serde_json::Value> = std::fs::read_to_string(out.join("pool.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert!(!elementwise.is_empty(), "no element-wise module in the sample");
    assert_eq!(pool.len(), 8 * elementwise.len(), "{elementwise:?}");
    for c in &pool {
        let task = c["task"].as_str().unwrap();
        assert!(elementwise.iter().any(|e| e == task), "{c}");
        assert!(ids.iter().any(|k| k == task), "{c}");
        assert!(c["completion"].as_str().unwrap().starts_with("```cuda\n"), "{c}");
    }
    assert!(
        stderr.contains(&format!("pool: {} candidates", pool.len())),
        "{stderr}"
    );
    compile_with_nvcc(&pool, dir.path());

    // The journal: a line per module checked. Run again with --resume, its checks are reused
    // (a check edited in it decides that module), and a line that does not read is reported and
    // skipped.
    let journal = out.join("checked.jsonl");
    let mut lines: Vec<serde_json::Value> = std::fs::read_to_string(&journal)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    // Every module of the set that reached the check, and any checked past the set's last one.
    let sanity_drops = report.matches("| dropped, sanity:").count();
    let checked = lines.len();
    assert!(checked >= kept + sanity_drops, "{report}");
    let first = lines.iter_mut().find(|l| l["kept"] == true).unwrap();
    let flipped = first["id"].as_str().unwrap().to_string();
    first["kept"] = false.into();
    first["why"] = "recorded in the journal".into();
    let mut text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    text.push_str("not a line of the journal\n");
    std::fs::write(&journal, text).unwrap();
    let again = generate(&["--resume"]);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(
        stderr.contains(&format!("resuming: {checked} checks")),
        "{stderr}"
    );
    assert!(
        stderr.contains(&format!("checked.jsonl:{}: skipped", checked + 1)),
        "{stderr}"
    );
    let report = std::fs::read_to_string(out.join("GENERATE.md")).unwrap();
    let row = report
        .lines()
        .find(|l| l.starts_with(&format!("| `{flipped}`")))
        .unwrap();
    assert!(
        row.ends_with("| dropped, sanity: recorded in the journal |"),
        "{row}"
    );
    assert!(report.contains("kept 24 of "), "{report}");
}

/// Every candidate of `pool` compiles with nvcc for sm_90 (`AORLTA_NVCC`, set by scripts/test;
/// without it the check says it is skipped, and fails under `CI`).
fn compile_with_nvcc(pool: &[serde_json::Value], scratch: &Path) {
    let Some(nvcc) = std::env::var_os("AORLTA_NVCC").filter(|p| Path::new(p).is_file()) else {
        assert!(
            std::env::var_os("CI").is_none(),
            "AORLTA_NVCC is not set under CI"
        );
        eprintln!("skipped: the pool's candidates are not compiled (no AORLTA_NVCC)");
        return;
    };
    for c in pool {
        let text = c["completion"].as_str().unwrap();
        let source = &text["```cuda\n".len()..text.len() - "```\n".len()];
        let file = scratch.join("candidate.cu");
        std::fs::write(&file, source).unwrap();
        let o = std::process::Command::new(&nvcc)
            .args(["--cubin", "-arch=sm_90", "-o"])
            .arg(scratch.join("candidate.cubin"))
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{}: {}\n{source}",
            c["id"],
            String::from_utf8_lossy(&o.stderr)
        );
    }
}

#[test]
fn a_malformed_configuration_line_is_an_error_naming_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let text = std::fs::read_to_string(root().join("examples/generated/generator.yaml")).unwrap();
    let bad = text.replace("min-bytes: 16777216", "min-bytes: -3");
    let line = bad.lines().position(|l| l.contains("min-bytes: -3")).unwrap() + 1;
    let path = dir.path().join("bad.yaml");
    std::fs::write(&path, bad).unwrap();
    let o = aorlta()
        .args(["task", "generate", "--count", "3", "--out"])
        .arg(dir.path().join("out"))
        .arg("--config")
        .arg(&path)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains(&format!("bad.yaml:{line}:")) && err.contains("at least 1"),
        "{err}"
    );
    assert!(!dir.path().join("out").exists(), "nothing written");
}

/// `--gpu` checks every module on a GPU; where there is none it stops before writing anything
/// (CI has no GPU; on a GPU machine the test says it is skipped).
#[test]
fn a_set_checked_on_a_gpu_is_refused_where_there_is_none() {
    if Path::new("/dev/nvidia0").exists() {
        eprintln!("skipped: this machine has a GPU");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let o = aorlta()
        .args(["task", "generate", "--count", "3", "--gpu", "--out"])
        .arg(dir.path().join("out"))
        .current_dir(root())
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("--gpu: no GPU to check on"), "{err}");
    assert!(!dir.path().join("out").exists(), "nothing written");
}
