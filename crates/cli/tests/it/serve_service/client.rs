//! The test side of the wire: a running `aorlta serve` on a free loopback port, and a few lines
//! of HTTP/1.1 over a `TcpStream`, so a test can send exactly the bytes it means (junk, half a
//! body, a lying `Content-Length`).

use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The Q&A example's folder.
pub(crate) fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/qa")
}

/// A running `aorlta serve` on a free loopback port; killed if a test leaves it running.
pub(crate) struct Server {
    /// The process.
    pub child: Child,
    /// Where it listens.
    pub addr: SocketAddr,
    dir: tempfile::TempDir,
}

/// A service config over the Q&A example, with `extra` config lines.
fn qa_config(extra: &str) -> String {
    let ex = examples();
    format!(
        "tasks: {}\nprofiles: [{}]\n{extra}",
        ex.join("tasks.jsonl").display(),
        ex.join("profile.yaml").display()
    )
}

impl Server {
    /// Starts the service over the Q&A example with extra config lines.
    pub(crate) fn start(extra: &str) -> Server {
        Server::start_with(&qa_config(extra))
    }

    /// Starts the service with a whole config.
    pub(crate) fn start_with(config_text: &str) -> Server {
        Server::start_full(config_text, None, &[])
    }

    /// Starts the service over the Q&A example with extra config lines and environment.
    pub(crate) fn start_with_env(extra: &str, env: &[(&str, &str)]) -> Server {
        Server::start_full(&qa_config(extra), None, env)
    }

    /// Starts the service over the Q&A example with at most `nofile` open file descriptors
    /// (`ulimit -n`).
    pub(crate) fn start_with_fd_limit(extra: &str, nofile: u32) -> Server {
        Server::start_full(&qa_config(extra), Some(nofile), &[])
    }

    fn start_full(config_text: &str, nofile: Option<u32>, env: &[(&str, &str)]) -> Server {
        let dir = tempfile::tempdir().unwrap();
        let config = dir.path().join("serve.yaml");
        std::fs::write(&config, config_text).unwrap();
        let ready = dir.path().join("addr");
        let mut cmd = match nofile {
            None => Command::new(env!("CARGO_BIN_EXE_aorlta")),
            Some(n) => {
                let mut c = Command::new("sh");
                c.arg("-c")
                    .arg(format!("ulimit -n {n} && exec \"$0\" \"$@\""))
                    .arg(env!("CARGO_BIN_EXE_aorlta"));
                c
            }
        };
        let child = cmd
            .args(["serve", "--bind", "127.0.0.1:0", "--config"])
            .arg(&config)
            .arg("--ready-file")
            .arg(&ready)
            .env("RUST_LOG", "warn")
            // The config names the store and the token, whatever the caller's environment says.
            .env_remove(aorlta_store::CACHE_URL_VAR)
            .env_remove("AORLTA_TOKEN")
            .envs(env.iter().copied())
            .stderr(Stdio::from(
                std::fs::File::create(dir.path().join("stderr.log")).unwrap(),
            ))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap();
        let mut server = Server {
            child,
            addr: "127.0.0.1:1".parse().unwrap(),
            dir,
        };
        let t0 = Instant::now();
        loop {
            if let Ok(text) = std::fs::read_to_string(&ready) {
                server.addr = text.trim().parse().unwrap();
                return server;
            }
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("aorlta serve exited with {status} before listening");
            }
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "aorlta serve did not start"
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// `POST path` with raw bytes.
    pub(crate) fn post(&self, path: &str, body: &[u8]) -> Resp {
        request(self.addr, "POST", path, body)
    }

    /// `POST path` with a JSON body.
    pub(crate) fn post_json(&self, path: &str, body: &Value) -> Resp {
        self.post(path, body.to_string().as_bytes())
    }

    /// `GET path`.
    pub(crate) fn get(&self, path: &str) -> Resp {
        request(self.addr, "GET", path, b"")
    }

    /// A sample's value from `/metrics` (a panic when absent).
    pub(crate) fn metric(&self, name: &str) -> f64 {
        self.metric_or(name, None)
    }

    /// A sample's value; `default` when the sample is absent (a panic when that is `None`).
    pub(crate) fn metric_or(&self, name: &str, default: Option<f64>) -> f64 {
        let text = self.get("/metrics").text();
        text.lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
            .or(default)
            .unwrap_or_else(|| panic!("no sample `{name}` in\n{text}"))
    }

    /// `/healthz` answers 200 `ok`.
    pub(crate) fn assert_healthy(&self) {
        let r = self.get("/healthz");
        assert_eq!(r.status, 200, "{}", r.text());
        assert_eq!(r.json()["status"], "ok");
    }

    /// Sends SIGTERM.
    pub(crate) fn terminate(&self) {
        self.signal("TERM");
    }

    /// Sends a signal (`TERM`, `INT`).
    pub(crate) fn signal(&self, name: &str) {
        let ok = Command::new("kill")
            .args([&format!("-{name}"), &self.child.id().to_string()])
            .status()
            .unwrap();
        assert!(ok.success());
    }

    /// What the service wrote to stderr so far.
    pub(crate) fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("stderr.log")).unwrap_or_default()
    }

    /// The service's resident memory (`VmRSS` of `/proc/PID/status`), in bytes.
    pub(crate) fn rss(&self) -> u64 {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).unwrap();
        let kib: u64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .expect("VmRSS");
        kib << 10
    }

    /// Waits for the process to exit (a panic past `limit`).
    pub(crate) fn wait_exit(&mut self, limit: Duration) -> ExitStatus {
        let t0 = Instant::now();
        loop {
            if let Some(s) = self.child.try_wait().unwrap() {
                return s;
            }
            assert!(t0.elapsed() < limit, "aorlta serve did not exit in {limit:?}");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if self.child.try_wait().ok().flatten().is_none() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// An answer.
#[derive(Debug)]
pub(crate) struct Resp {
    /// The status code.
    pub status: u16,
    /// The headers, in order.
    pub headers: Vec<(String, String)>,
    /// The body (de-chunked).
    pub body: Vec<u8>,
}

impl Resp {
    /// The body as text.
    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// The body as JSON (a panic when it is not).
    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }

    /// A header's value, by case-insensitive name.
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Asserts an error answer: its status, its JSON error code, and the status in the body.
    pub(crate) fn assert_error(&self, status: u16, code: &str) {
        assert_eq!(self.status, status, "{}", self.text());
        let v = self.json();
        assert_eq!(v["error"]["code"], code, "{v}");
        assert_eq!(v["error"]["status"], status, "{v}");
        assert!(
            v["error"]["message"].as_str().is_some_and(|m| !m.is_empty()),
            "{v}"
        );
    }

    /// The `results` of a 200 answer.
    pub(crate) fn results(&self) -> Vec<Value> {
        assert_eq!(self.status, 200, "{}", self.text());
        self.json()["results"].as_array().expect("results").clone()
    }
}

/// A request head with `Content-Length: len` and `Connection: close`.
pub(crate) fn head(method: &str, path: &str, len: usize) -> String {
    format!(
        "{method} {path} HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
         Content-Length: {len}\r\nConnection: close\r\n\r\n"
    )
}

/// One request on a fresh connection.
pub(crate) fn request(addr: SocketAddr, method: &str, path: &str, body: &[u8]) -> Resp {
    request_with(addr, method, path, body, &[])
}

/// One request on a fresh connection, with extra header lines (`Name: value`).
pub(crate) fn request_with(
    addr: SocketAddr,
    method: &str,
    path: &str,
    body: &[u8],
    headers: &[&str],
) -> Resp {
    let mut s = TcpStream::connect(addr).unwrap();
    s.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    let mut h = head(method, path, body.len());
    h.truncate(h.len() - 2);
    for line in headers {
        h.push_str(line);
        h.push_str("\r\n");
    }
    h.push_str("\r\n");
    s.write_all(h.as_bytes()).unwrap();
    s.write_all(body).unwrap();
    read_response(&mut s)
}

/// Reads one answer (head, then `Content-Length` bytes of body), leaving the connection open.
pub(crate) fn read_one(s: &mut TcpStream) -> Resp {
    let mut raw = Vec::new();
    let mut byte = [0u8; 1];
    while !raw.ends_with(b"\r\n\r\n") {
        let n = s.read(&mut byte).expect("reading an answer's head");
        assert!(
            n == 1,
            "the connection closed before an answer's head: {:?}",
            String::from_utf8_lossy(&raw)
        );
        raw.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&raw).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let len: usize = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .map(|(_, v)| v.parse().unwrap())
        .expect("Content-Length");
    let mut body = vec![0u8; len];
    s.read_exact(&mut body).unwrap();
    Resp {
        status,
        headers,
        body,
    }
}

/// Reads an answer to the end of the connection.
pub(crate) fn read_response(s: &mut TcpStream) -> Resp {
    let mut raw = Vec::new();
    s.read_to_end(&mut raw).unwrap();
    let split = raw
        .windows(4)
        .position(|w| w == b"\r\n\r\n")
        .unwrap_or_else(|| panic!("no header end in {:?}", String::from_utf8_lossy(&raw)));
    let head = String::from_utf8_lossy(&raw[..split]).into_owned();
    let mut lines = head.split("\r\n");
    let status = lines.next().unwrap().split(' ').nth(1).unwrap().parse().unwrap();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect();
    let mut body = raw[split + 4..].to_vec();
    let chunked = headers
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"));
    if chunked {
        body = dechunk(&body);
    }
    Resp {
        status,
        headers,
        body,
    }
}

fn dechunk(mut b: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let eol = b.windows(2).position(|w| w == b"\r\n").unwrap();
        let n = usize::from_str_radix(String::from_utf8_lossy(&b[..eol]).trim(), 16).unwrap();
        if n == 0 {
            return out;
        }
        out.extend_from_slice(&b[eol + 2..eol + 2 + n]);
        b = &b[eol + 4 + n..];
    }
}

/// A score item without an id.
pub(crate) fn item(task: &str, completion: &str) -> Value {
    json!({"task": task, "completion": completion})
}

/// An entry without its timings and cache flags, for comparing entries computed apart.
pub(crate) fn strip_timings(mut e: Value) -> Value {
    if let Some(o) = e.as_object_mut() {
        o.remove("elapsed_s");
    }
    if let Some(legs) = e["legs"].as_array_mut() {
        for l in legs {
            if let Some(o) = l.as_object_mut() {
                o.remove("elapsed_s");
                o.remove("cached");
            }
        }
    }
    e
}
