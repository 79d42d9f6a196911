//! `aorlta inspect` through the real binary: a run scored by `aorlta score`, given by its config,
//! served on 127.0.0.1 at the address it prints, with the completions of its pool; a folder
//! without a run is an error that names it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::{Command, Stdio};

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_aorlta")
}

/// `GET path` over plain HTTP/1.1; the status line and the body.
fn get(addr: &str, path: &str) -> (String, String) {
    let mut s = TcpStream::connect(addr).unwrap();
    write!(
        s,
        "GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut text = String::new();
    s.read_to_string(&mut text).unwrap();
    let (head, body) = text.split_once("\r\n\r\n").unwrap();
    (head.lines().next().unwrap().to_string(), body.to_string())
}

fn write_run(dir: &Path) -> std::path::PathBuf {
    std::fs::write(
        dir.join("tasks.jsonl"),
        "{\"id\":\"t1\",\"prompt\":\"1+1?\",\"answer\":\"2\"}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("pool.jsonl"),
        "{\"task\":\"t1\",\"completion\":\"it is \\\\boxed{2}\",\"id\":\"right\"}\n{\"task\":\"t1\",\"completion\":\"<b>3</b> \\\\boxed{3}\",\"id\":\"wrong\"}\n",
    )
    .unwrap();
    std::fs::write(
        dir.join("profile.yaml"),
        "name: qa\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n  - {name: ref, adapter: normalised-match, needs: [parse], on-broke: -0.5}\n",
    )
    .unwrap();
    let config = dir.join("run.yaml");
    std::fs::write(
        &config,
        "tasks: tasks.jsonl\npool: pool.jsonl\nprofile: profile.yaml\nout: out\n",
    )
    .unwrap();
    let st = Command::new(bin())
        .args(["score", "--quiet"])
        .arg(&config)
        .output()
        .unwrap();
    assert!(st.status.success(), "{}", String::from_utf8_lossy(&st.stderr));
    config
}

#[test]
fn inspect_serves_a_scored_run_on_loopback_at_the_address_it_prints() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_run(dir.path());
    let mut child = Command::new(bin())
        .arg("inspect")
        .arg(&config)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut lines = Vec::new();
    let addr = loop {
        let mut line = String::new();
        assert!(out.read_line(&mut line).unwrap() > 0, "stopped after {lines:?}");
        if let Some(rest) = line.trim().strip_prefix("inspector at http://") {
            break rest.trim_end_matches('/').to_string();
        }
        lines.push(line);
    };
    assert!(addr.starts_with("127.0.0.1:"), "{addr}");
    assert!(lines[0].starts_with("out: 2 entries loaded in "), "{lines:?}");
    let (status, body) = get(&addr, "/api/runs");
    assert_eq!(status, "HTTP/1.1 200 OK");
    let v: serde_json::Value = serde_json::from_str(&body).unwrap();
    assert_eq!(
        (v[0]["entries"].as_u64(), v[0]["summary"]["passed"].as_u64()),
        (Some(2), Some(1))
    );
    assert_eq!(v[0]["has_completions"], true);
    let (status, body) = get(&addr, "/run/0/entry/1");
    assert_eq!(status, "HTTP/1.1 200 OK");
    assert!(body.contains("&lt;b&gt;3&lt;/b&gt; \\boxed{3}"), "{body}");
    let (_, body) = get(&addr, "/run/0/task/t1");
    assert!(body.contains("1+1?"));
    child.kill().unwrap();
    child.wait().unwrap();
}

#[test]
fn inspect_names_a_folder_without_a_run_and_takes_a_fixed_port() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(bin())
        .arg("inspect")
        .arg(dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("loading the run") && err.contains("rewards.jsonl"),
        "{err}"
    );
    // A port already taken is refused with the address.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port();
    let config = write_run(dir.path());
    let out = Command::new(bin())
        .args(["inspect", "--port", &port.to_string()])
        .arg(&config)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains(&format!("binding 127.0.0.1:{port}")), "{err}");
}
