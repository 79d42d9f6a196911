//! `aorlta score` through the real binary: outputs, malformed lines, resume after a kill, the
//! cache on a second run, and the runs that must stop with an error rather than hang or write
//! what they should not.

use crate::common;

use common::ENTRY_ROW_EDITS;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const PROFILE: &str = "name: qa
length: {soft: 3000, hard: 6000}
legs:
  - {name: parse, adapter: parse, on-broke: -1.0, params: {forms: [boxed, statement, latex]}}
  - {name: ref.exact, adapter: reference-match, needs: [parse], informational: true}
  - {name: ref.normalised, adapter: normalised-match, needs: [parse], on-broke: -0.5}
";

fn setup(dir: &Path, pool_lines: usize) -> PathBuf {
    let mut tasks = String::new();
    for i in 0..20 {
        tasks.push_str(&format!(
            "{{\"id\":\"t{i}\",\"prompt\":\"{i}+1?\",\"answer\":\"{}\"}}\n",
            i + 1
        ));
    }
    std::fs::write(dir.join("tasks.jsonl"), tasks).unwrap();
    let mut pool = String::new();
    for j in 0..pool_lines {
        let i = j % 20;
        let answer = if j % 3 == 0 { i + 2 } else { i + 1 };
        pool.push_str(&format!(
            "{{\"task\":\"t{i}\",\"completion\":\"Adding one gives \\\\boxed{{{answer}}}. ({j})\",\"id\":\"c{j}\"}}\n"
        ));
        if j == 5 {
            pool.push_str("{this line is not json\n");
        }
    }
    std::fs::write(dir.join("pool.jsonl"), pool).unwrap();
    std::fs::write(dir.join("profile.yaml"), PROFILE).unwrap();
    let config = dir.join("run.yaml");
    std::fs::write(
        &config,
        "tasks: tasks.jsonl\npool: pool.jsonl\nprofile: profile.yaml\nout: out\nconcurrency: 2\n",
    )
    .unwrap();
    config
}

fn aorlta() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_aorlta"));
    // These runs use the SQLite file under their folder, whatever the caller's environment says.
    c.env_remove(aorlta_store::CACHE_URL_VAR);
    c
}

fn score(config: &Path) -> (String, String) {
    let out = aorlta().args(["score", "--quiet"]).arg(config).output().unwrap();
    let (o, e) = (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    );
    assert!(out.status.success(), "score failed:\n{o}\n{e}");
    (o, e)
}

fn rewards(dir: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(dir.join("out/rewards.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The run's `rewards.jsonl` holds the `n` candidates `c0`, `c1` … once each, in input order.
fn assert_whole_in_order(dir: &Path, n: usize) {
    let all = rewards(dir);
    assert_eq!(all.len(), n);
    assert!(all.iter().enumerate().all(|(j, e)| e["id"] == format!("c{j}")));
}

/// The printed summary with what changes from run to run replaced: the run's seconds (the last
/// figure of the headline) and its temporary folder.
fn stable(stdout: &str, dir: &Path) -> String {
    let text = stdout.replace(&dir.display().to_string(), "[dir]");
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    if let Some(head) = lines.first_mut()
        && let Some(cut) = head.rfind("   ")
        && head.ends_with(" s")
    {
        head.replace_range(cut.., "   [elapsed] s");
    }
    lines.join("\n") + "\n"
}

#[test]
fn scores_in_input_order_reports_bad_lines_and_uses_the_cache_on_a_second_run() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 60);
    let (stdout, stderr) = score(&config);
    assert!(
        stderr.contains("pool.jsonl:7"),
        "the malformed line is named: {stderr}"
    );
    insta::assert_snapshot!("first_run", stable(&stdout, dir.path()));
    let first = rewards(dir.path());
    assert_eq!(first.len(), 60);
    for (j, e) in first.iter().enumerate() {
        assert_eq!(e["id"], format!("c{j}"), "input order");
        for key in ["task", "reward", "scored", "parts", "legs"] {
            assert!(e.get(key).is_some(), "entry lacks {key}: {e}");
        }
    }
    for f in ["summary.json", "summary.md"] {
        assert!(dir.path().join("out").join(f).exists(), "{f}");
    }
    let (stdout, _) = score(&config);
    insta::assert_snapshot!("second_run", stable(&stdout, dir.path()));
    let second = rewards(dir.path());
    let strip = |v: &[serde_json::Value]| -> Vec<(serde_json::Value, serde_json::Value)> {
        v.iter().map(|e| (e["id"].clone(), e["reward"].clone())).collect()
    };
    assert_eq!(strip(&first), strip(&second));
}

#[test]
fn a_killed_run_resumes_without_losing_or_redoing_finished_work() {
    let dir = tempfile::tempdir().unwrap();
    let n = 40_000;
    let config = setup(dir.path(), n);
    let mut child = aorlta()
        .args(["score", "--quiet", "--concurrency", "1"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once some, but not all, entries are written: more than the store may hold
    // uncommitted, so that what it kept is checked.
    let rewards_path = dir.path().join("out/rewards.jsonl.partial");
    let start = Instant::now();
    loop {
        let written = std::fs::read_to_string(&rewards_path)
            .map(|s| s.lines().count())
            .unwrap_or(0);
        if written >= 5000 || start.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let partial = std::fs::read_to_string(&rewards_path).unwrap().lines().count();
    assert!(
        partial >= 5000 && partial < n,
        "killed part-way: {partial} of {n}"
    );
    let (stdout, _) = score(&config);
    let hits: u64 = stdout
        .split("cache: ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("hit count printed");
    // The store commits in batches: a kill loses at most the rows it had not committed yet.
    let lost = aorlta_store::MAX_UNCOMMITTED_ROWS;
    assert!(
        hits as usize + lost >= partial,
        "finished work is reused: {hits} hits, {partial} were written, at most {lost} uncommitted"
    );
    assert!((hits as usize) < n, "unfinished work is computed");
    assert_whole_in_order(dir.path(), n);
}

#[test]
fn a_bad_config_names_the_file_line_and_key() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 3);
    std::fs::write(
        &config,
        "tasks: tasks.jsonl\npool: pool.jsonl\nprofile: profile.yaml\nout: out\nworkers: 2\n",
    )
    .unwrap();
    let out = aorlta().arg("score").arg(&config).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("run.yaml:5") && err.contains("workers"), "{err}");
}

#[test]
fn errors_name_the_path_and_say_the_os_error_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 3);
    std::fs::write(dir.path().join("a-file"), "").unwrap();
    std::fs::create_dir(dir.path().join("a-folder")).unwrap();
    // Not a directory (under a file), and is a directory (a pool that is a folder).
    for (key, value) in [
        ("out", "a-file/out"),
        ("cache", "a-file/cache.sqlite"),
        ("pool", "a-folder"),
    ] {
        let text = std::fs::read_to_string(&config).unwrap();
        let text = match key {
            "out" => text.replace("out: out", &format!("out: {value}")),
            "pool" => text.replace("pool: pool.jsonl", &format!("pool: {value}")),
            _ => format!("{text}cache: {value}\n"),
        };
        let bad = dir.path().join(format!("bad-{key}.yaml"));
        std::fs::write(&bad, text).unwrap();
        let out = aorlta().args(["score", "--quiet"]).arg(&bad).output().unwrap();
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        let named = value.split('/').next().unwrap_or(value);
        assert!(err.contains(named), "{key}: the path is named: {err}");
        if key == "pool" {
            // A folder is refused before it is opened, saying what it is.
            assert!(err.contains("is a folder, not a regular file"), "{key}: {err}");
            continue;
        }
        assert_eq!(
            err.matches("os error").count(),
            1,
            "{key}: the OS error once: {err}"
        );
    }
}

#[test]
fn a_second_run_on_the_same_output_folder_is_refused_while_the_first_runs() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 20_000);
    let first = aorlta()
        .args(["score", "--quiet"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut first = first;
    // Wait until the first run holds its folder (its partial rewards file exists).
    let t0 = Instant::now();
    while !dir.path().join("out/rewards.jsonl.partial").exists() {
        assert!(t0.elapsed() < Duration::from_secs(30));
        std::thread::sleep(Duration::from_millis(5));
    }
    let second = aorlta().args(["score", "--quiet"]).arg(&config).output().unwrap();
    let still_running = first.try_wait().unwrap().is_none();
    assert!(first.wait().unwrap().success());
    if still_running {
        assert!(!second.status.success(), "the second run is refused");
        let err = String::from_utf8_lossy(&second.stderr);
        assert!(err.contains("another `aorlta score`"), "{err}");
    }
    // Whatever the timing, the first run's rewards are whole.
    let lines = rewards(dir.path());
    assert_eq!(lines.len(), 20_000);
}

#[test]
fn a_folder_it_may_not_write_is_named_with_permission_denied_once() {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    use std::os::unix::process::CommandExt;
    let dir = tempfile::tempdir().unwrap();
    std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = setup(dir.path(), 3);
    let locked = dir.path().join("locked");
    std::fs::create_dir(&locked).unwrap();
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o555)).unwrap();
    let text = std::fs::read_to_string(&config)
        .unwrap()
        .replace("out: out", "out: locked/out");
    std::fs::write(&config, text).unwrap();
    let mut cmd = aorlta();
    // Root ignores permission bits: the run is then made as `nobody`, for whom they hold.
    if std::fs::metadata(dir.path()).unwrap().uid() == 0 {
        cmd.uid(65534).gid(65534);
    }
    let out = cmd.args(["score", "--quiet"]).arg(&config).output().unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("Permission denied"), "{err}");
    assert!(err.contains("locked/out"), "the path is named: {err}");
    assert_eq!(err.matches("os error").count(), 1, "the OS error once: {err}");
}

/// Two `aorlta score` processes at once over the same pool, each with its own output folder and
/// both on one PostgreSQL database (a throwaway server; skipped, saying why, where there are no
/// server binaries and `CI` is unset): both finish with the same rewards, and a third run is
/// served wholly from what they stored.
#[test]
fn two_runs_at_once_share_a_postgres_store() {
    let Some(server) = aorlta_pg_server::TempServer::for_tests() else {
        return;
    };
    let url = server.create_db("shared").unwrap();
    let dir = tempfile::tempdir().unwrap();
    let n = 6000;
    let base = setup(dir.path(), n);
    let text = std::fs::read_to_string(&base).unwrap();
    let configs: Vec<PathBuf> = ["a", "b", "c"]
        .iter()
        .map(|name| {
            let c = dir.path().join(format!("run-{name}.yaml"));
            let body = text.replace("out: out", &format!("out: out-{name}")) + &format!("cache: \"{url}\"\n");
            std::fs::write(&c, body).unwrap();
            c
        })
        .collect();
    let runs: Vec<_> = configs[..2]
        .iter()
        .map(|c| {
            aorlta()
                .args(["score", "--quiet"])
                .arg(c)
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let read = |name: &str| -> Vec<(serde_json::Value, serde_json::Value)> {
        std::fs::read_to_string(dir.path().join(format!("out-{name}/rewards.jsonl")))
            .unwrap()
            .lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                (v["id"].clone(), v["reward"].clone())
            })
            .collect()
    };
    for r in runs {
        let out = r.wait_with_output().unwrap();
        assert!(
            out.status.success(),
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(
            String::from_utf8_lossy(&out.stdout).contains(&url),
            "the store is named"
        );
    }
    let (a, b) = (read("a"), read("b"));
    assert_eq!(a.len(), n);
    assert_eq!(a, b, "both runs give the same rewards");
    let (stdout, _) = score(&configs[2]);
    assert!(
        stdout.contains(&format!("cache: {n} hits, 0 misses")),
        "a third run is served from the shared store: {stdout}"
    );
    assert_eq!(read("c"), a);
}

/// Waits for `child` for at most `limit`: its output, or a failure saying it hangs (the child
/// is killed first).
fn within(mut child: std::process::Child, limit: Duration) -> std::process::Output {
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            child.kill().unwrap();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}: it hangs\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The number printed before ` hits` on the summary's cache line.
fn hits(stdout: &str) -> u64 {
    stdout
        .split("cache: ")
        .nth(1)
        .and_then(|s| s.split(' ').next())
        .and_then(|s| s.parse().ok())
        .expect("hit count printed")
}

#[test]
fn a_run_whose_output_cannot_be_written_exits_with_the_error_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let n = 20_000;
    let config = setup(dir.path(), n);
    let out = dir.path().join("out");
    std::fs::create_dir(&out).unwrap();
    // Writes to /dev/full fail as on a full disk (ENOSPC), the partial file's and, for a run
    // that writes its rewards file directly, that one's.
    for name in ["rewards.jsonl.partial", "rewards.jsonl"] {
        std::os::unix::fs::symlink("/dev/full", out.join(name)).unwrap();
    }
    let child = aorlta()
        .args(["score", "--quiet"])
        .arg(&config)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let done = within(child, Duration::from_secs(20));
    let err = String::from_utf8_lossy(&done.stderr);
    assert!(
        !done.status.success(),
        "a run that could not write succeeded: {err}"
    );
    assert!(
        err.contains("No space left on device"),
        "the cause is said: {err}"
    );
    assert!(err.contains("rewards.jsonl.partial"), "the file is named: {err}");
    assert!(err.contains("running it again resumes"), "{err}");
    assert!(!out.join("summary.json").exists(), "no summary of a failed run");
    for name in ["rewards.jsonl.partial", "rewards.jsonl"] {
        std::fs::remove_file(out.join(name)).unwrap();
    }
    let (stdout, _) = score(&config);
    assert!(
        hits(&stdout) > 0,
        "what it scored before failing is reused: {stdout}"
    );
    assert_whole_in_order(dir.path(), n);
}

#[test]
fn a_concurrency_past_the_maximum_is_refused_before_anything_starts() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 3);
    let out = aorlta()
        .args(["score", "--quiet", "--concurrency", "3000"])
        .arg(&config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "--concurrency 3000 ran: {err}");
    assert!(err.contains("--concurrency: 3000 is more than"), "{err}");
    assert!(err.contains("256"), "the maximum is said: {err}");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, text.replace("concurrency: 2", "concurrency: 3000")).unwrap();
    let out = aorlta().args(["score", "--quiet"]).arg(&config).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "concurrency: 3000 ran: {err}");
    assert!(err.contains("run.yaml:5: field `concurrency`: 3000"), "{err}");
    assert!(!dir.path().join("out").exists(), "nothing is written: {err}");
}

#[test]
fn a_killed_run_leaves_the_previous_runs_outputs_whole_and_beside_each_other() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 30);
    score(&config);
    let summary_count = || -> u64 {
        let text = std::fs::read_to_string(dir.path().join("out/summary.json")).unwrap();
        let v: serde_json::Value = serde_json::from_str(&text).unwrap();
        v["summary"]["count"].as_u64().unwrap()
    };
    assert_eq!(summary_count(), 30);
    let n = 40_000;
    setup(dir.path(), n);
    let mut child = aorlta()
        .args(["score", "--quiet", "--concurrency", "1"])
        .arg(&config)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let lines = |name: &str| {
        std::fs::read_to_string(dir.path().join("out").join(name))
            .map(|s| s.lines().count())
            .unwrap_or(0)
    };
    let start = Instant::now();
    while lines("rewards.jsonl.partial") < 1000 && lines("rewards.jsonl") < 1000 {
        assert!(start.elapsed() < Duration::from_secs(60), "the run wrote nothing");
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert_eq!(
        lines("rewards.jsonl") as u64,
        summary_count(),
        "the rewards beside the summary are the ones it describes"
    );
    assert_eq!(lines("rewards.jsonl"), 30, "the previous run's rewards are whole");
    let partial = lines("rewards.jsonl.partial");
    assert!(
        (1000..n).contains(&partial),
        "the killed run's entries so far: {partial}"
    );
    score(&config);
    assert_eq!(lines("rewards.jsonl"), n);
    assert_eq!(summary_count(), n as u64);
    assert!(!dir.path().join("out/rewards.jsonl.partial").exists());
}

#[test]
fn a_pool_that_is_the_runs_own_rewards_is_refused_and_left_whole() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 10);
    score(&config);
    let before = std::fs::read(dir.path().join("out/rewards.jsonl")).unwrap();
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        text.replace("pool: pool.jsonl", "pool: out/rewards.jsonl"),
    )
    .unwrap();
    let out = aorlta().args(["score", "--quiet"]).arg(&config).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "the run read its own output: {err}");
    assert!(err.contains("run.yaml:2: field `pool`"), "{err}");
    assert!(err.contains("this run's own output"), "{err}");
    assert_eq!(
        std::fs::read(dir.path().join("out/rewards.jsonl")).unwrap(),
        before
    );
}

#[test]
fn a_pool_line_that_is_a_json_array_is_reported_and_skipped() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 3);
    let pool = std::fs::read_to_string(dir.path().join("pool.jsonl")).unwrap();
    std::fs::write(
        dir.path().join("pool.jsonl"),
        format!("[\"t1\", \"\\\\boxed{{2}}\"]\n{pool}"),
    )
    .unwrap();
    let (_, stderr) = score(&config);
    assert!(
        stderr.contains("pool.jsonl:1: a pool line is a JSON object"),
        "the array is named: {stderr}"
    );
    let ids: Vec<_> = rewards(dir.path()).iter().map(|e| e["id"].clone()).collect();
    assert_eq!(ids, ["c0", "c1", "c2"]);
}

#[test]
fn a_conninfo_is_never_shown_with_its_password() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 3);
    let out = aorlta()
        .env(
            aorlta_store::CACHE_URL_VAR,
            "host=/nowhere password=s3cret dbname=x",
        )
        .args(["score", "--quiet"])
        .arg(&config)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(err.contains("host=/nowhere password=… dbname=x"), "{err}");
    assert!(!err.contains("s3cret"), "{err}");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!("{text}cache: \"host=/nowhere password=s3cret\"\n"),
    )
    .unwrap();
    let out = aorlta().args(["score", "--quiet"]).arg(&config).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        err.contains("field `cache`") && err.contains("password=…"),
        "{err}"
    );
    assert!(!err.contains("s3cret"), "{err}");
}

/// The store's `cache` counts in a run's `summary.json`: (hits, misses, rejected).
fn cache_counts(dir: &Path) -> (u64, u64, u64) {
    let text = std::fs::read_to_string(dir.join("out/summary.json")).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    let n = |k: &str| {
        v["cache"][k]
            .as_u64()
            .unwrap_or_else(|| panic!("no cache.{k} in {v}"))
    };
    (n("hits"), n("misses"), n("rejected"))
}

/// Rows of the run's SQLite store edited between runs: a reward out of range, a reward edited
/// within its range (text, column and parts alike: only the row's checksum tells), a flipped
/// bit. Each time the next run does not use the row: it scores the candidate again, writes the
/// true reward, counts one rejected result, and stores the true entry in its place.
#[test]
fn an_edited_or_damaged_store_row_is_scored_again_and_counted_as_rejected() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 6);
    score(&config);
    // What a served entry must give back: its id, reward and parts.
    let outcome = |v: Vec<serde_json::Value>| -> Vec<[serde_json::Value; 3]> {
        v.into_iter()
            .map(|e| [e["id"].clone(), e["reward"].clone(), e["parts"].clone()])
            .collect()
    };
    let truth = rewards(dir.path());
    // Candidate c1 (task t1) is right: 1.0; c3 (task t3) is wrong: -0.5.
    assert_eq!(
        (truth[1]["reward"].as_f64(), truth[3]["reward"].as_f64()),
        (Some(1.0), Some(-0.5))
    );
    let db = dir.path().join("out/cache.sqlite");
    let edit = |task: &str, sql: &str| {
        let c = rusqlite::Connection::open(&db).unwrap();
        let n = c
            .execute(&format!("{sql} WHERE value LIKE '%\"task\":\"{task}\"%'"), [])
            .unwrap();
        assert_eq!(n, 1, "one row edited: {sql}");
    };
    let tasks = ["t1", "t3", "t4"];
    let edits = tasks
        .into_iter()
        .zip(ENTRY_ROW_EDITS)
        .map(|(t, (sql, what))| (t, sql, what));
    for (task, sql, what) in edits {
        edit(task, sql);
        let (stdout, stderr) = score(&config);
        assert_eq!(
            outcome(rewards(dir.path())),
            outcome(truth.clone()),
            "{what}: the true rewards"
        );
        assert_eq!(cache_counts(dir.path()), (5, 1, 1), "{what}");
        assert!(
            stdout.contains("5 hits, 1 misses (83.3% hit rate), 1 stored results rejected"),
            "{what}: {stdout}"
        );
        assert_eq!(
            stderr.matches("not used:").count(),
            1,
            "{what}: warned once: {stderr}"
        );
        // The true entry took the row's place.
        score(&config);
        assert_eq!(cache_counts(dir.path()), (6, 0, 0), "{what}: replaced");
    }
}

/// Dataset rows in verl's layout: each `(answer, response)` a row with its index.
fn dataset_rows(rows: &[(&str, &str)]) -> String {
    rows.iter()
        .enumerate()
        .map(|(i, (answer, response))| {
            format!(
                "{}\n",
                serde_json::json!({"prompt": "q?", "reward_model": {"ground_truth": answer},
                    "extra_info": {"index": i}, "response": response})
            )
        })
        .collect()
}

/// `aorlta eval --config run.yaml --before B --after A` in `d`, which must succeed: its report
/// and each side's (count, pass rate).
fn eval_sides(d: &Path, before: &str, after: &str) -> (serde_json::Value, [(u64, f64); 2]) {
    let out = aorlta()
        .current_dir(d)
        .args([
            "eval", "--config", "run.yaml", "--before", before, "--after", after,
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{text}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("out-eval/report.json")).unwrap()).unwrap();
    let side = |i: usize| {
        (
            report[i]["summary"]["count"].as_u64().unwrap(),
            report[i]["pass_rate"]["point"].as_f64().unwrap(),
        )
    };
    let sides = [side(0), side(1)];
    (report, sides)
}

#[test]
fn eval_with_a_dataset_config_compares_the_two_sides_alone() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("profile.yaml"), PROFILE).unwrap();
    // The config's own dataset: every answer wrong. It must be in neither side.
    std::fs::write(d.join("train.jsonl"), dataset_rows(&[("1", "\\boxed{9}"); 4])).unwrap();
    std::fs::write(
        d.join("run.yaml"),
        "dataset: {file: train.jsonl}\nprofile: profile.yaml\nout: out\n",
    )
    .unwrap();
    let before = [
        ("1", "\\boxed{1}"),
        ("2", "\\boxed{3}"),
        ("3", "\\boxed{4}"),
        ("4", "\\boxed{5}"),
    ];
    let after = [
        ("1", "\\boxed{1}"),
        ("2", "\\boxed{2}"),
        ("3", "\\boxed{3}"),
        ("4", "\\boxed{5}"),
    ];
    std::fs::write(d.join("before.jsonl"), dataset_rows(&before)).unwrap();
    std::fs::write(d.join("after.jsonl"), dataset_rows(&after)).unwrap();
    let (report, side) = eval_sides(d, "before.jsonl", "after.jsonl");
    assert_eq!(side[0], (4, 0.25), "{report}");
    assert_eq!(side[1], (4, 0.75), "{report}");
    // A side that gives nothing to score is an error, not an empty comparison.
    std::fs::write(d.join("empty.jsonl"), "not json\n").unwrap();
    let out = aorlta()
        .current_dir(d)
        .args([
            "eval",
            "--config",
            "run.yaml",
            "--before",
            "before.jsonl",
            "--after",
            "empty.jsonl",
        ])
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{text}");
    assert!(text.contains("empty.jsonl"), "{text}");
}

#[test]
fn a_device_or_a_fifo_as_a_task_file_pool_or_dataset_is_refused_by_name_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let config = setup(dir.path(), 3);
    let fifo = dir.path().join("fifo.jsonl");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let text = std::fs::read_to_string(&config).unwrap();
    for (edit, named, what) in [
        (
            text.replace("tasks: tasks.jsonl", "tasks: /dev/zero"),
            "/dev/zero",
            "character device",
        ),
        (
            text.replace("pool: pool.jsonl", "pool: /dev/zero"),
            "/dev/zero",
            "character device",
        ),
        (
            text.replace("pool: pool.jsonl", "pool: fifo.jsonl"),
            "fifo.jsonl",
            "FIFO",
        ),
        (
            text.replace("pool: pool.jsonl", "dataset: {file: fifo.jsonl}"),
            "fifo.jsonl",
            "FIFO",
        ),
    ] {
        let bad = dir.path().join("bad.yaml");
        std::fs::write(&bad, &edit).unwrap();
        let started = Instant::now();
        let out = aorlta().args(["score", "--quiet"]).arg(&bad).output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{edit}: {err}");
        assert!(err.contains(named) && err.contains(what), "{edit}: {err}");
        assert!(started.elapsed() < Duration::from_secs(20), "{edit}: at once");
    }
}

/// A Parquet file in verl's layout (`reward_model.ground_truth`, `response`), one row group.
fn parquet_rows(path: &Path, rows: &[(&str, &str)]) {
    use parquet::data_type::{ByteArray, ByteArrayType};
    use parquet::file::properties::WriterProperties;
    use parquet::file::writer::SerializedFileWriter;
    use std::sync::Arc;
    let schema = parquet::schema::parser::parse_message_type(
        "message s { required group reward_model { required binary ground_truth (UTF8); } \
         required binary response (UTF8); }",
    )
    .unwrap();
    let out = std::fs::File::create(path).unwrap();
    let props = Arc::new(WriterProperties::builder().build());
    let mut w = SerializedFileWriter::new(out, Arc::new(schema), props).unwrap();
    let mut rg = w.next_row_group().unwrap();
    for column in 0..2 {
        let values: Vec<ByteArray> = rows
            .iter()
            .map(|(answer, response)| ByteArray::from(if column == 0 { *answer } else { *response }))
            .collect();
        let mut c = rg.next_column().unwrap().unwrap();
        c.typed::<ByteArrayType>()
            .write_batch(&values, None, None)
            .unwrap();
        c.close().unwrap();
    }
    rg.close().unwrap();
    w.close().unwrap();
}

#[test]
fn eval_reads_parquet_sides_as_parquet_and_never_the_configs_pool() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    // The config's own pool (60 lines) must be in neither side.
    setup(d, 60);
    parquet_rows(
        &d.join("before.parquet"),
        &[
            ("1", "\\boxed{1}"),
            ("2", "\\boxed{3}"),
            ("3", "\\boxed{4}"),
            ("4", "\\boxed{5}"),
        ],
    );
    parquet_rows(
        &d.join("after.parquet"),
        &[
            ("1", "\\boxed{1}"),
            ("2", "\\boxed{2}"),
            ("3", "\\boxed{3}"),
            ("4", "\\boxed{5}"),
        ],
    );
    let (report, side) = eval_sides(d, "before.parquet", "after.parquet");
    assert_eq!((side[0], side[1]), ((4, 0.25), (4, 0.75)), "{report}");
}

#[test]
fn a_dataset_with_no_usable_row_says_so_in_the_configs_own_fields() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("profile.yaml"), PROFILE).unwrap();
    std::fs::write(
        d.join("rows.jsonl"),
        "{\"prompt\": \"q\", \"response\": \"x\"}\nnot json\n",
    )
    .unwrap();
    std::fs::write(
        d.join("run.yaml"),
        "dataset: {file: rows.jsonl}\nprofile: profile.yaml\nout: out\n",
    )
    .unwrap();
    let out = aorlta()
        .current_dir(d)
        .args(["score", "--quiet", "run.yaml"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(
        err.contains("field `dataset`: no row of")
            && err.contains("2 skipped")
            && err.contains("reward_model.ground_truth"),
        "{err}"
    );
    assert!(!err.contains("field `tasks`"), "the config has no `tasks`: {err}");
}

#[test]
fn a_run_on_the_fake_device_says_so_in_its_summary_and_its_entries() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let kernels = common::root().join("examples/kernels");
    // Three vector_add completions of the example pool, scored on the fake device.
    let pool: String = std::fs::read_to_string(kernels.join("pool.jsonl"))
        .unwrap()
        .lines()
        .filter(|l| l.starts_with("{\"task\": \"vector_add\""))
        .take(3)
        .map(|l| format!("{l}\n"))
        .collect();
    assert_eq!(pool.lines().count(), 3);
    std::fs::write(d.join("pool.jsonl"), pool).unwrap();
    let config = d.join("run.yaml");
    std::fs::write(
        &config,
        format!(
            "tasks: {k}/tasks\npool: pool.jsonl\nprofile: {k}/profile.yaml\nout: out\n\
             kernel: {{fake-gpu: true, lease-dir: leases}}\n",
            k = kernels.display()
        ),
    )
    .unwrap();
    let (stdout, _) = score(&config);
    let notice = "fake device: the kernel legs of this run ran on the CPU-simulated fake device";
    assert!(stdout.starts_with(notice), "{stdout}");
    let md = std::fs::read_to_string(d.join("out/summary.md")).unwrap();
    assert!(md.contains(&format!("> **{notice}")), "{md}");
    let json: serde_json::Value =
        serde_json::from_slice(&std::fs::read(d.join("out/summary.json")).unwrap()).unwrap();
    assert_eq!(json["summary"]["fake_gpu"], true, "{json}");
    let entries = rewards(d);
    assert_eq!(entries.len(), 3);
    for e in &entries {
        let kernel_legs: Vec<&serde_json::Value> = e["legs"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|l| l["adapter"].as_str().unwrap().starts_with("kernel-") && l["state"] != "skipped")
            .collect();
        assert!(!kernel_legs.is_empty(), "{e}");
        for l in kernel_legs {
            assert_eq!(l["detail"]["fake_gpu"], true, "{l}");
        }
    }
}

#[test]
fn the_tolerance_sanity_checks_the_tasks_the_pool_names_and_refuses_an_unsound_one() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    let kernels = common::root().join("examples/kernels");
    common::copy_example_folders(d, &["tasks", "reference"]);
    // softmax's outputs are at most 1: with atol 1 a kernel writing zeros would pass it.
    common::replace_in(
        &d.join("tasks/softmax.yaml"),
        "tolerance: {atol: 1.0e-6, rtol: 1.0e-4}",
        "tolerance: {atol: 1.0, rtol: 1.0e-4}",
    );
    let pool_of = |task: &str| -> String {
        std::fs::read_to_string(kernels.join("pool.jsonl"))
            .unwrap()
            .lines()
            .filter(|l| l.starts_with(&format!("{{\"task\": \"{task}\"")))
            .take(1)
            .map(|l| format!("{l}\n"))
            .collect()
    };
    let run = |pool: String, out: &str| {
        std::fs::write(d.join("pool.jsonl"), pool).unwrap();
        let config = d.join("run.yaml");
        std::fs::write(
            &config,
            format!(
                "tasks: tasks\npool: pool.jsonl\nprofile: {k}/profile.yaml\nout: {out}\n\
                 kernel: {{fake-gpu: true, lease-dir: leases}}\n",
                k = kernels.display()
            ),
        )
        .unwrap();
        aorlta().args(["score", "--quiet"]).arg(&config).output().unwrap()
    };
    // A pool of vector_add alone is scored: the unsound task beside it is not the pool's.
    let ok = run(pool_of("vector_add"), "out");
    assert!(ok.status.success(), "{}", String::from_utf8_lossy(&ok.stderr));
    assert_eq!(rewards(d).len(), 1);
    // A pool naming softmax is refused before anything is scored, naming the file.
    let refused = run(pool_of("softmax"), "out2");
    let err = String::from_utf8_lossy(&refused.stderr);
    assert_eq!(refused.status.code(), Some(1), "{err}");
    assert!(
        err.contains("tolerance sanity") && err.contains("softmax.yaml"),
        "{err}"
    );
    assert!(!d.join("out2/rewards.jsonl").exists());
}
