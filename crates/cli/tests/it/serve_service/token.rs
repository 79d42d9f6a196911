//! The bearer token: required on the scoring and task routes once configured (from
//! `auth.token-file` or `AORLTA_TOKEN`), never on `/healthz` and `/metrics`, never logged; and
//! no service listens beyond loopback without one.

use super::client::{Server, examples, item, request_with};
use serde_json::json;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

const TOKEN: &str = "a-token-for-the-tests-5f1c2e";

/// `aorlta:TOKEN` in base64.
const TOKEN_AS_BASIC: &str = "YW9ybHRhOmEtdG9rZW4tZm9yLXRoZS10ZXN0cy01ZjFjMmU=";

#[test]
fn a_configured_token_is_required_on_every_route_but_health_and_metrics() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("token");
    std::fs::write(&file, format!("{TOKEN}\n")).unwrap();
    let s = Server::start_with_env(
        &format!("auth: {{token-file: {}}}\n", file.display()),
        &[("RUST_LOG", "debug")],
    );
    let batch = json!({"items": [item("qa-001", "\\boxed{391}")]}).to_string();
    let send = |path: &str, auth: &[&str]| {
        let (method, body) = match path {
            "/v1/score" => ("POST", batch.as_str()),
            "/get_reward" => ("POST", r#"{"query": ["\\boxed{391}"], "labels": ["qa-001"]}"#),
            _ => ("GET", ""),
        };
        request_with(s.addr, method, path, body.as_bytes(), auth)
    };
    let right = format!("Authorization: Bearer {TOKEN}");
    for path in ["/v1/score", "/get_reward", "/v1/tasks", "/v1/profiles"] {
        for wrong in [
            vec![],
            vec!["Authorization: Bearer not-the-token-of-this-service".to_string()],
            vec![format!("Authorization: Basic {TOKEN}")],
            vec![format!("Authorization: Bearer {TOKEN}x")],
            vec!["Authorization: Basic YW9ybHRhOndyb25n".to_string()],
        ] {
            let wrong: Vec<&str> = wrong.iter().map(String::as_str).collect();
            let r = send(path, &wrong);
            r.assert_error(401, "unauthorized");
            assert_eq!(r.header("www-authenticate"), Some("Bearer"), "{path}");
        }
        assert_eq!(send(path, &[&right]).status, 200, "{path}");
    }
    let r = send("/v1/score", &[&format!("authorization: bearer {TOKEN}")]);
    assert_eq!(r.results()[0]["reward"], 1.0, "the scheme is case-insensitive");
    // What an HTTP library sends for `http://aorlta:TOKEN@HOST/get_reward` (OpenRLHF's remote
    // reward URL): Basic authentication with the token as the password.
    let basic = format!("Authorization: Basic {TOKEN_AS_BASIC}");
    assert_eq!(send("/get_reward", &[&basic]).status, 200);
    assert_eq!(send("/healthz", &[]).status, 200);
    assert_eq!(send("/metrics", &[]).status, 200);
    assert_eq!(
        s.metric("aorlta_requests_total{route=\"/v1/score\",status=\"401\"}"),
        5.0
    );
    assert!(!s.log().contains(TOKEN), "the token is never logged");
}

#[test]
fn the_token_can_come_from_the_environment() {
    let s = Server::start_with_env("", &[("AORLTA_TOKEN", TOKEN)]);
    let body = json!({"items": [item("qa-001", "\\boxed{391}")]}).to_string();
    request_with(s.addr, "POST", "/v1/score", body.as_bytes(), &[]).assert_error(401, "unauthorized");
    let auth = format!("Authorization: Bearer {TOKEN}");
    let r = request_with(s.addr, "POST", "/v1/score", body.as_bytes(), &[&auth]);
    assert_eq!(r.results().len(), 1);
}

/// `aorlta serve` with `config` and `args`, without a token in its environment: its exit status
/// and stderr, within a time limit (it must refuse before listening).
fn serve_refused(config: &str, args: &[&str], env: &[(&str, &str)]) -> (Option<i32>, String) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("serve.yaml");
    let ex = examples();
    std::fs::write(
        &path,
        format!(
            "tasks: {}\nprofiles: [{}]\n{config}",
            ex.join("tasks.jsonl").display(),
            ex.join("profile.yaml").display()
        ),
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_aorlta"))
        .args(["serve", "--config"])
        .arg(&path)
        .args(args)
        .env_remove("AORLTA_TOKEN")
        .envs(env.iter().copied())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t0.elapsed() > Duration::from_secs(20) {
            let _ = child.kill();
            panic!("aorlta serve {args:?} did not refuse to start");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let out = child.wait_with_output().unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_service_beyond_loopback_refuses_to_start_without_a_token() {
    // It refuses before it binds: nothing listens on another address.
    for (config, args) in [
        ("", &["--bind", "0.0.0.0:0"][..]),
        ("bind: 0.0.0.0:0\n", &[][..]),
        ("", &["--bind", "[::]:0"][..]),
    ] {
        let (code, stderr) = serve_refused(config, args, &[]);
        assert_eq!(code, Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("without a token"), "{stderr}");
        assert!(
            stderr.contains("auth.token-file") && stderr.contains("AORLTA_TOKEN"),
            "{stderr}"
        );
    }
    // A token that is too short is refused too, without being shown.
    let (code, stderr) = serve_refused("", &["--bind", "127.0.0.1:0"], &[("AORLTA_TOKEN", "abc123")]);
    assert_eq!(code, Some(1), "{stderr}");
    assert!(
        stderr.contains("at least 16") && !stderr.contains("abc123"),
        "{stderr}"
    );
}
