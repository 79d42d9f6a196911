//! Clients that misbehave, on loopback, bounded in count and time: bodies that trickle in (a
//! slow-body flood), answers their clients never read (memory, the write time limit), and a
//! shutdown that such clients must not hold up.

use super::client::{self, Server, head, item, read_response};
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

/// A `/v1/score` request of `n` identical Q&A items: computed once, answered `n` times, so a
/// small request (40 bytes an item) gets a large answer (about 920 bytes an entry).
fn amplified(n: usize) -> Vec<u8> {
    let items: Vec<Value> = (0..n).map(|_| item("qa-001", "\\boxed{391}")).collect();
    json!({ "items": items }).to_string().into_bytes()
}

/// Sends `body` to `/v1/score` on a fresh connection and reads only the status line of the
/// answer: its client then stops reading. Answers the connection and the status.
fn send_and_stop_reading(s: &Server, body: &[u8]) -> (TcpStream, u16) {
    let mut c = TcpStream::connect(s.addr).unwrap();
    c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    c.write_all(head("POST", "/v1/score", body.len()).as_bytes())
        .unwrap();
    c.write_all(body).unwrap();
    let mut line = [0u8; 12];
    c.read_exact(&mut line).unwrap();
    let status = String::from_utf8_lossy(&line[9..12]).parse().unwrap();
    (c, status)
}

/// A connection whose client takes little at a time (an 8 KiB receive buffer), so the
/// kernel's buffers take little of an answer it does not read.
fn small_window(addr: std::net::SocketAddr) -> TcpStream {
    let sock = socket2::Socket::new(socket2::Domain::IPV4, socket2::Type::STREAM, None).unwrap();
    sock.set_recv_buffer_size(8 << 10).unwrap();
    sock.connect(&addr.into()).unwrap();
    sock.into()
}

/// Waits until `cond` holds (a panic after `limit`).
fn wait_for(limit: Duration, what: &str, mut cond: impl FnMut() -> bool) {
    let t0 = Instant::now();
    while !cond() {
        assert!(t0.elapsed() < limit, "{what}: not within {limit:?}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn a_slow_body_flood_leaves_scoring_answering() {
    // 256 connections (the default `max-requests-in-flight`) each send a head and one byte of
    // their body, then nothing.
    let s = Server::start("");
    let flood: Vec<TcpStream> = (0..256)
        .map(|_| {
            let mut c = TcpStream::connect(s.addr).unwrap();
            c.write_all(head("POST", "/v1/score", 1000).as_bytes()).unwrap();
            c.write_all(b"{").unwrap();
            c
        })
        .collect();
    let t0 = Instant::now();
    // Every flood body taken up: being read, or already refused for its rate (on a loaded
    // machine the first ones can pass their first second before the last ones connect).
    wait_for(Duration::from_secs(20), "the flood's bodies being read", || {
        s.metric_or("aorlta_bodies_reading", Some(0.0))
            + s.metric("aorlta_requests_in_flight")
            + s.metric_or(
                "aorlta_requests_total{route=\"/v1/score\",status=\"408\"}",
                Some(0.0),
            )
            >= 256.0
    });
    let r = s.post_json(
        "/v1/score",
        &json!({"items": [item("qa-001", "\\boxed{391}"), item("qa-002", "no idea")]}),
    );
    assert_eq!(r.results().len(), 2, "scoring answers under the flood");
    assert_eq!(s.metric("aorlta_requests_shed_total"), 0.0);
    // Each trickling body falls behind the minimum rate after its first second and is answered
    // 408, long before `read-timeout` (60 s).
    for mut c in flood {
        c.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        read_response(&mut c).assert_error(408, "body-too-slow");
    }
    assert!(t0.elapsed() < Duration::from_secs(30), "{:?}", t0.elapsed());
    assert_eq!(s.metric("aorlta_bodies_reading"), 0.0);
    assert_eq!(s.metric("aorlta_body_bytes_reading"), 0.0);
    s.assert_healthy();
}

#[test]
fn a_body_at_the_minimum_rate_is_read_and_a_slower_one_is_not() {
    // 2 KiB a second is allowed: a body sent at 4 KiB a second passes, one at 256 bytes a second
    // is cut once its first second is spent.
    let s = Server::start("limits: {min-body-rate: 2 KiB}\n");
    let body = json!({"items": [item("qa-001", &format!("{} \\boxed{{391}}", "x".repeat(6000)))]})
        .to_string()
        .into_bytes();
    let send = |piece: usize| {
        let mut c = TcpStream::connect(s.addr).unwrap();
        c.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        c.write_all(head("POST", "/v1/score", body.len()).as_bytes())
            .unwrap();
        for chunk in body.chunks(piece) {
            if c.write_all(chunk).is_err() {
                break; // refused and closed
            }
            std::thread::sleep(Duration::from_millis(250));
        }
        read_response(&mut c)
    };
    assert_eq!(send(1024).results().len(), 1);
    send(64).assert_error(408, "body-too-slow");
}

#[test]
fn sigterm_with_unread_answers_exits_within_the_drain_timeout() {
    let mut s = Server::start(
        "cache: {kind: none}\nlanes: {qa: {queue-items: 20000, item-timeout: 10s}}\n\
         limits: {max-items: 20000, drain-timeout: 2s, write-timeout: 10m}\n",
    );
    // Answers of 15 MB, more than the socket buffers take, that their clients never read.
    let body = amplified(16_384);
    let unread: Vec<TcpStream> = (0..3)
        .map(|_| {
            let (c, status) = send_and_stop_reading(&s, &body);
            assert_eq!(status, 200);
            c
        })
        .collect();
    s.terminate();
    let t0 = Instant::now();
    let status = s.wait_exit(Duration::from_secs(2 + 10));
    let took = t0.elapsed();
    assert!(
        took >= Duration::from_millis(1900),
        "it waited for the answers until the deadline: {took:?}"
    );
    assert_eq!(status.code(), Some(1), "a drain cut short exits 1");
    let log = s.log();
    assert!(log.contains("drain-timeout"), "{log}");
    drop(unread);
}

#[test]
fn a_second_signal_ends_the_drain_at_once_and_the_store_keeps_what_it_committed() {
    let dir = tempfile::tempdir().unwrap();
    let cache = dir.path().join("cache.sqlite");
    let cfg = format!(
        "cache: {{kind: sqlite, path: {}}}\nlanes: {{qa: {{queue-items: 20000, item-timeout: 10s}}}}\n\
         limits: {{max-items: 20000, drain-timeout: 10m, write-timeout: 10m}}\n",
        cache.display()
    );
    let mut s = Server::start(&cfg);
    let (unread, status) = send_and_stop_reading(&s, &amplified(16_384));
    assert_eq!(status, 200);
    s.terminate();
    std::thread::sleep(Duration::from_millis(500));
    assert!(
        s.child.try_wait().unwrap().is_none(),
        "the first signal drains: the unread answer holds it"
    );
    s.signal("INT");
    let t0 = Instant::now();
    let status = s.wait_exit(Duration::from_secs(8));
    assert!(t0.elapsed() < Duration::from_secs(6), "{:?}", t0.elapsed());
    assert_eq!(status.code(), Some(1));
    drop(unread);
    // The next service on the same store finds the entry.
    let next = Server::start(&cfg);
    let e = &next
        .post_json("/v1/score", &json!({"items": [item("qa-001", "\\boxed{391}")]}))
        .results()[0];
    assert!(
        e["legs"].as_array().unwrap().iter().all(|l| l["cached"] == true),
        "{e}"
    );
}

#[test]
fn two_hundred_clients_that_never_read_leave_memory_bounded() {
    // Each client asks for a 3.8 MB answer and reads only its status line: 760 MB of answers
    // if all were held (its small receive window leaves most of the answer to the service).
    // They are held within `max-unsent-bytes` (32 MiB): past it, the connections whose answers
    // made no progress for longest are closed.
    // Identical items each take a place in the queue: room for the four requests at once.
    let s = Server::start(
        "cache: {kind: none}\nlanes: {qa: {queue-items: 16384, item-timeout: 10s}}\n\
         limits: {max-unsent-bytes: 32 MiB, write-timeout: 10m}\n",
    );
    let body = std::sync::Arc::new(amplified(4096));
    let addr = s.addr;
    let threads: Vec<_> = (0..4)
        .map(|_| {
            let body = std::sync::Arc::clone(&body);
            std::thread::spawn(move || {
                (0..50)
                    .map(|_| {
                        let mut c = small_window(addr);
                        c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
                        c.write_all(head("POST", "/v1/score", body.len()).as_bytes())
                            .unwrap();
                        c.write_all(&body).unwrap();
                        let mut line = [0u8; 12];
                        c.read_exact(&mut line).unwrap();
                        assert_eq!(&line[9..12], b"200");
                        c
                    })
                    .collect::<Vec<TcpStream>>()
            })
        })
        .collect();
    let unread: Vec<TcpStream> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    assert_eq!(unread.len(), 200);
    let rss = s.rss();
    eprintln!("200 unread answers of 3.8 MB: service RSS {} MiB", rss >> 20);
    assert!(rss < 256 << 20, "RSS {} MiB", rss >> 20);
    let held = s.metric("aorlta_unsent_bytes");
    let closed = s.metric("aorlta_connections_closed_unread_total");
    eprintln!("{held} bytes of answers held; {closed} connections closed to make room");
    assert!(held <= (32 << 20) as f64 + 4e6, "{held} bytes held");
    assert!(closed >= 150.0, "{closed}");
    // A client that reads is answered as ever.
    let r = s.post_json("/v1/score", &json!({"items": [item("qa-002", "\\boxed{-27}")]}));
    assert_eq!(r.results()[0]["reward"], 1.0);
    s.assert_healthy();
    drop(unread);
}

#[test]
fn a_client_that_stops_reading_is_closed_after_the_write_timeout() {
    let s = Server::start(
        "cache: {kind: none}\nlanes: {qa: {queue-items: 20000, item-timeout: 10s}}\nlimits: {max-items: 20000, write-timeout: 1s}\n",
    );
    let (mut c, status) = send_and_stop_reading(&s, &amplified(16_384));
    assert_eq!(status, 200);
    assert!(s.metric("aorlta_unsent_bytes") > 0.0, "the answer is held");
    wait_for(Duration::from_secs(10), "the stalled answer dropped", || {
        s.metric("aorlta_unsent_bytes") == 0.0
    });
    // Its connection is closed: what the client reads now ends short of the answer.
    let mut rest = Vec::new();
    let _ = c.read_to_end(&mut rest);
    assert!(rest.len() < 15_000_000, "{} bytes", rest.len());
    wait_for(
        Duration::from_secs(5),
        "only the scrape's own connection open",
        || s.metric("aorlta_connections") == 1.0,
    );
    s.assert_healthy();
}

#[test]
fn a_body_that_needs_more_than_the_reading_budget_is_refused_and_its_connection_kept() {
    let s = Server::start("limits: {max-body-bytes: 4 MiB, max-reading-bytes: 4 MiB}\n");
    // One body holds 3 MiB of the budget and stops there (3 MiB pays for minutes at the
    // default rate, so it is still being read).
    let mut holder = TcpStream::connect(s.addr).unwrap();
    holder
        .write_all(head("POST", "/v1/score", 4 << 20).as_bytes())
        .unwrap();
    holder.write_all(&vec![b' '; 3 << 20]).unwrap();
    wait_for(Duration::from_secs(20), "the holder's bytes read", || {
        s.metric("aorlta_body_bytes_reading") >= (3 << 20) as f64
    });
    // A keep-alive connection is refused while its 2 MB body arrives, then used again: the
    // refusal drained the body instead of closing on it.
    let body = json!({"items": [item("qa-001", &"x".repeat(2 << 20))]}).to_string();
    let mut conn = TcpStream::connect(s.addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    for _ in 0..2 {
        let mut writer = conn.try_clone().unwrap();
        let request = format!(
            "POST /v1/score HTTP/1.1\r\nHost: test\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n{body}",
            body.len()
        );
        let sender = std::thread::spawn(move || writer.write_all(request.as_bytes()));
        let r = client::read_one(&mut conn);
        sender.join().unwrap().unwrap();
        r.assert_error(503, "overloaded");
        assert!(r.header("retry-after").is_some());
        assert_ne!(r.header("connection"), Some("close"), "the body was drained");
    }
    conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n")
        .unwrap();
    assert_eq!(client::read_one(&mut conn).status, 200);
    drop(holder);
}
