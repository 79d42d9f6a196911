//! `aorlta serve` through the real binary on loopback: a normal batch, the OpenRLHF shape, bad
//! requests of every kind (each refused clearly while the service keeps serving), a flood past
//! the queue, per-item time limits, sharing of identical items, SIGTERM mid-batch, entries
//! identical to `aorlta score` for the same pool, and store rows edited under the service;
//! clients that misbehave (`misbehaving`) and the bearer token (`token`).

mod client;
mod episodes;
mod misbehaving;
mod token;

use crate::common;

use client::{Server, examples, head, item, read_response, request, strip_timings};
use common::ENTRY_ROW_EDITS;
use serde_json::{Value, json};
use std::io::{Read, Write};
use std::net::TcpStream;
use std::process::Command;
use std::time::{Duration, Instant};

#[test]
fn a_normal_batch_and_the_read_only_endpoints() {
    let s = Server::start("");
    s.assert_healthy();
    let tasks = s.get("/v1/tasks").json();
    let tasks = tasks["tasks"].as_array().unwrap();
    assert_eq!(tasks.len(), 60);
    assert_eq!(tasks[0]["id"], "qa-001");
    assert_eq!(tasks[0]["kind"], "qa");
    assert!(
        tasks.iter().all(|t| t.get("answer").is_none()),
        "answers stay secret"
    );
    let profiles = s.get("/v1/profiles").json();
    assert_eq!(profiles["default"], "qa");
    assert_eq!(
        profiles["profiles"][0]["profile"]["legs"]
            .as_array()
            .unwrap()
            .len(),
        3
    );

    let batch = json!({"items": [
        {"id": "a", "task": "qa-001", "completion": "17 × 23 = 391, so the answer is \\boxed{391}."},
        item("qa-002", "I think it is \\boxed{27}."),
        {"id": "c", "task": {"id": "mine", "prompt": "1+1?", "answer": "2"}, "completion": "\\boxed{2}"},
        item("qa-003", "no idea"),
    ]});
    let results = s.post_json("/v1/score", &batch).results();
    assert_eq!(results.len(), 4);
    let ids: Vec<&str> = results.iter().map(|e| e["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a", "qa-002#1", "c", "qa-003#3"], "item order, default ids");
    let tasks: Vec<&str> = results.iter().map(|e| e["task"].as_str().unwrap()).collect();
    assert_eq!(tasks, ["qa-001", "qa-002", "mine", "qa-003"]);
    for e in &results {
        assert_eq!(e["profile"], "qa");
        let legs: Vec<&str> = e["legs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["name"].as_str().unwrap())
            .collect();
        assert_eq!(legs, ["parse", "ref.exact", "ref.normalised"], "{e}");
        assert_eq!(e["scored"], true, "{e}");
    }
    // Right, wrong (-27 expected), right (inline task), no answer at all.
    let rewards: Vec<f64> = results.iter().map(|e| e["reward"].as_f64().unwrap()).collect();
    assert_eq!(rewards, [1.0, -0.5, 1.0, -1.0]);
    assert_eq!(results[1]["legs"][2]["reasons"][0]["code"], "wrong-answer");
    assert_eq!(results[3]["legs"][0]["reasons"][0]["code"], "no-answer");
    assert_eq!(results[3]["legs"][2]["state"], "skipped");
    assert_eq!(
        s.metric("aorlta_requests_total{route=\"/v1/score\",status=\"200\"}"),
        1.0
    );
    let text = s.get("/metrics").text();
    let parse_legs: f64 = text
        .lines()
        .filter(|l| l.starts_with("aorlta_items_total{leg=\"parse\","))
        .map(|l| l.rsplit(' ').next().unwrap().parse::<f64>().unwrap())
        .sum();
    assert_eq!(
        parse_legs, 4.0,
        "every answered item's parse leg is counted once:\n{text}"
    );
}

#[test]
fn the_openrlhf_shape() {
    let s = Server::start("");
    let prompt = "<|user|>What is 17 × 23?<|assistant|>";
    let body = json!({
        "query": [
            format!("{prompt}17 × 23 = 391. \\boxed{{391}}<|endoftext|>"),
            format!("{prompt}\\boxed{{390}}"),
            "a query whose prompt is missing \\boxed{391}",
            format!("{}\\boxed{{391}}</s>", &prompt[8..]),
        ],
        "prompts": [prompt, prompt, prompt, prompt],
        "labels": ["qa-001", "qa-001", "qa-001", "qa-001"],
    });
    let r = s.post_json("/get_reward", &body);
    assert_eq!(r.status, 200, "{}", r.text());
    let v = r.json();
    let nums = |x: &Value| -> Vec<f64> {
        x.as_array()
            .unwrap()
            .iter()
            .map(|x| x.as_f64().unwrap())
            .collect()
    };
    let rewards = nums(&v["rewards"]);
    let logs = &v["extra_logs"];
    assert_eq!(logs["timed_out"].as_array().unwrap().len(), 4);
    // The prompt is not a prefix (2): unscored, reported, the profile's unscored-value. A
    // left-truncated prompt (3) still finds its completion; end tokens are not part of it.
    assert_eq!(nums(&logs["unscored"]), [0.0, 0.0, 1.0, 0.0]);
    assert_eq!(nums(&logs["scored"]), [1.0, 1.0, 0.0, 1.0]);
    assert_eq!(rewards, [1.0, -0.5, 0.0, 1.0], "right, wrong, unscored, right");
    assert_eq!(
        nums(&v["scores"]),
        [1.0, 0.0, 0.0, 1.0],
        "scores are correctness in [0, 1], not the signed reward"
    );
    // The same completions through /v1/score give the same rewards.
    let same = s
        .post_json(
            "/v1/score",
            &json!({"items": [
                item("qa-001", "17 × 23 = 391. \\boxed{391}"),
                item("qa-001", "\\boxed{390}"),
            ]}),
        )
        .results();
    for (i, e) in same.iter().enumerate() {
        assert_eq!(e["reward"].as_f64().unwrap(), rewards[i]);
    }
    let r = s.post_json("/get_reward", &json!({"query": ["a", "b"], "labels": ["qa-001"]}));
    r.assert_error(422, "length-mismatch");
    let r = s.post_json(
        "/get_reward?profile=nope",
        &json!({"query": ["a"], "labels": ["qa-001"]}),
    );
    r.assert_error(422, "unknown-profile");
    // An unknown or empty label is refused, never answered with a stand-in.
    for label in ["no-such-task", ""] {
        let r = s.post_json(
            "/get_reward",
            &json!({"query": ["x", "y"], "labels": ["qa-001", label]}),
        );
        r.assert_error(422, "unknown-label");
        assert!(r.text().contains("labels[1]"), "{}", r.text());
    }
    s.assert_healthy();
}

#[test]
fn get_reward_waits_for_room_instead_of_refusing_at_once() {
    // OpenRLHF sends one sample per request, thousands at once, and does not read
    // Retry-After: a full queue makes it wait, not fail.
    let s = Server::start(
        "cache: {kind: none}\nlanes:\n  qa: {workers: 1, queue-items: 1, item-timeout: 60s}\n\
         limits: {max-requests-in-flight: 2, queue-wait: 60s}\n",
    );
    let addr = s.addr;
    let padding = "Let me think about this carefully. ".repeat(200);
    let threads: Vec<_> = (0..16)
        .map(|t| {
            let padding = padding.clone();
            std::thread::spawn(move || {
                (0..8)
                    .map(|r| {
                        let body = json!({
                            "query": [format!("Q: {padding} ({t}-{r}) \\boxed{{{r}}}")],
                            "prompts": ["Q: "],
                            "labels": [format!("qa-{:03}", 1 + (t * 8 + r) % 60)],
                        });
                        request(addr, "POST", "/get_reward", body.to_string().as_bytes()).status
                    })
                    .collect::<Vec<u16>>()
            })
        })
        .collect();
    let statuses: Vec<u16> = threads.into_iter().flat_map(|t| t.join().unwrap()).collect();
    assert_eq!(statuses.len(), 128);
    assert!(statuses.iter().all(|&st| st == 200), "{statuses:?}");
    assert_eq!(s.metric("aorlta_requests_shed_total"), 0.0);
}

#[test]
fn bad_requests_get_clear_errors_and_the_service_keeps_serving() {
    let s = Server::start("limits: {max-items: 100}\n");
    s.post("/v1/score", b"{\"items\": [")
        .assert_error(400, "malformed-json");
    s.assert_healthy();
    s.post("/v1/score", b"").assert_error(400, "malformed-json");
    s.post("/v1/score", b"{\"items\": []} trailing")
        .assert_error(400, "malformed-json");
    let junk: Vec<u8> = (0..4096u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    s.post("/v1/score", &junk).assert_error(400, "malformed-json");
    s.post(
        "/v1/score",
        b"{\"items\": [{\"task\": \"qa-001\", \"completion\": \"\xff\xfe\"}]}",
    )
    .assert_error(400, "malformed-json");
    s.assert_healthy();

    let r = s.post_json("/v1/score", &json!({"items": "all of them"}));
    r.assert_error(422, "invalid-request");
    assert!(r.text().contains("`items`"), "{}", r.text());
    let r = s.post_json(
        "/v1/score",
        &json!({"items": [{"task": "qa-001", "completion": 42}]}),
    );
    r.assert_error(422, "invalid-request");
    assert!(r.text().contains("items[0].completion"), "{}", r.text());
    s.post_json("/v1/score", &json!({"items": [{"task": "qa-001"}]}))
        .assert_error(422, "invalid-request");
    s.post_json("/v1/score", &json!({"itemz": []}))
        .assert_error(422, "invalid-request");
    s.post_json("/v1/score", &json!({"items": []}))
        .assert_error(422, "empty-batch");
    s.post_json(
        "/v1/score",
        &json!({"profile": "nope", "items": [item("qa-001", "\\boxed{391}")]}),
    )
    .assert_error(422, "unknown-profile");
    let many: Vec<Value> = (0..101)
        .map(|i| item("qa-001", &format!("\\boxed{{{i}}}")))
        .collect();
    s.post_json("/v1/score", &json!({"items": many}))
        .assert_error(413, "too-many-items");
    s.assert_healthy();

    // A body past the limit is refused from its Content-Length, before it is sent.
    let mut conn = TcpStream::connect(s.addr).unwrap();
    conn.write_all(head("POST", "/v1/score", 64 << 20).as_bytes())
        .unwrap();
    let r = read_response(&mut conn);
    r.assert_error(413, "body-too-large");

    // Per-item errors: a 10 MiB completion, an unknown task, a bad inline task and an inline
    // kernel task (off by default) each get their own entry; the rest is scored.
    let huge = "9".repeat(10 << 20);
    let r = s.post_json(
        "/v1/score",
        &json!({"items": [
            item("qa-001", &huge),
            item("qa-404", "\\boxed{1}"),
            {"task": {"id": "x", "prompt": "p"}, "completion": "\\boxed{1}"},
            {"task": {"id": "k", "prompt": "p", "signature": "void k(float* a)"}, "completion": "x"},
            item("qa-001", "\\boxed{391}"),
        ]}),
    );
    let results = r.results();
    let codes: Vec<&str> = results[..4]
        .iter()
        .map(|e| e["reasons"][0]["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "completion-too-long",
            "unknown-task",
            "invalid-task",
            "inline-task-disabled"
        ]
    );
    for e in &results[..4] {
        assert_eq!(e["scored"], false, "{e}");
        assert!(e["reward"].is_null(), "{e}");
    }
    assert_eq!(results[1]["task"], "qa-404");
    assert_eq!(
        results[4]["legs"].as_array().unwrap().len(),
        3,
        "the good item is scored"
    );

    s.get("/v2/nothing").assert_error(404, "not-found");
    s.get("/v1/score").assert_error(405, "method-not-allowed");
    s.assert_healthy();
    assert_eq!(
        s.metric("aorlta_requests_total{route=\"/v1/score\",status=\"422\"}"),
        6.0
    );
    assert_eq!(
        s.metric("aorlta_requests_total{route=\"/v1/score\",status=\"400\"}"),
        5.0
    );
    assert_eq!(
        s.metric("aorlta_requests_total{route=\"/v1/score\",status=\"413\"}"),
        2.0
    );
}

#[test]
fn a_flood_past_the_queue_is_shed_with_503_and_every_accepted_item_is_answered() {
    let s = Server::start(
        "cache: {kind: none}\nlanes:\n  qa: {workers: 1, queue-items: 64, item-timeout: 60s}\n\
         limits: {max-items: 64}\n",
    );
    let addr = s.addr;
    let padding = "Let me think about this carefully. ".repeat(100);
    let threads: Vec<_> = (0..12)
        .map(|t| {
            let padding = padding.clone();
            std::thread::spawn(move || {
                let mut out = Vec::new();
                for r in 0..15 {
                    let items: Vec<Value> = (0..64)
                        .map(|i| {
                            json!({
                                "id": format!("{t}-{r}-{i}"),
                                "task": format!("qa-{:03}", 1 + i % 60),
                                "completion": format!("{padding} ({t}-{r}-{i}) \\boxed{{{i}}}"),
                            })
                        })
                        .collect();
                    let body = json!({ "items": items }).to_string();
                    out.push((t, r, request(addr, "POST", "/v1/score", body.as_bytes())));
                }
                out
            })
        })
        .collect();
    let (mut ok, mut shed) = (0, 0);
    for th in threads {
        for (t, r, resp) in th.join().unwrap() {
            match resp.status {
                200 => {
                    let results = resp.results();
                    assert_eq!(results.len(), 64);
                    for (i, e) in results.iter().enumerate() {
                        assert_eq!(e["id"], format!("{t}-{r}-{i}"));
                        assert_eq!(e["legs"].as_array().unwrap().len(), 3, "{e}");
                    }
                    ok += 1;
                }
                503 => {
                    resp.assert_error(503, "overloaded");
                    let after: u64 = resp.header("retry-after").expect("Retry-After").parse().unwrap();
                    assert!(after >= 1);
                    shed += 1;
                }
                other => panic!("unexpected {other}: {}", resp.text()),
            }
        }
    }
    eprintln!("flood: {ok} requests admitted, {shed} shed");
    assert!(ok > 0, "some requests are admitted");
    assert!(shed > 0, "a flood past 64 queued items is shed ({ok} admitted)");
    s.assert_healthy();
    assert_eq!(s.metric("aorlta_requests_shed_total"), shed as f64);
    assert_eq!(s.metric("aorlta_queue_depth{lane=\"qa\"}"), 0.0);
    assert_eq!(s.metric("aorlta_items_computed_total"), (ok * 64) as f64);
}

#[test]
fn items_past_their_time_limit_are_unsettled_timed_out() {
    let s = Server::start(
        "cache: {kind: none}\nlanes:\n  qa: {workers: 1, queue-items: 8192, item-timeout: 1ms}\n",
    );
    let items: Vec<Value> = (0..3000)
        .map(|i| {
            item(
                &format!("qa-{:03}", 1 + i % 60),
                &format!("step {i}: \\boxed{{{i}}}"),
            )
        })
        .collect();
    let results = s.post_json("/v1/score", &json!({ "items": items })).results();
    assert_eq!(results.len(), 3000);
    let timed_out: Vec<&Value> = results
        .iter()
        .filter(|e| e["reasons"][0]["code"] == "timed-out")
        .collect();
    assert!(!timed_out.is_empty(), "3000 items cannot all finish within 1 ms");
    for e in &timed_out {
        assert_eq!(e["scored"], false);
        assert!(e["reward"].is_null());
        let legs = e["legs"].as_array().unwrap();
        assert_eq!(legs.len(), 3);
        assert!(
            legs.iter()
                .all(|l| l["state"] == "unsettled" && l["reasons"][0]["code"] == "timed-out")
        );
    }
    for (i, e) in results.iter().enumerate() {
        assert_eq!(e["id"], format!("qa-{:03}#{i}", 1 + i % 60));
    }
    assert_eq!(s.metric("aorlta_items_timed_out_total"), timed_out.len() as f64);
    s.assert_healthy();
}

#[test]
fn identical_items_in_flight_are_computed_once() {
    let s = Server::start("cache: {kind: none}\n");
    let mut items: Vec<Value> = (0..50)
        .map(|i| json!({"id": format!("same-{i}"), "task": "qa-001", "completion": "\\boxed{391}"}))
        .collect();
    items.push(json!({"id": "other", "task": "qa-001", "completion": "\\boxed{390}"}));
    let results = s.post_json("/v1/score", &json!({ "items": items })).results();
    assert_eq!(results.len(), 51);
    assert_eq!(s.metric("aorlta_items_computed_total"), 2.0);
    assert_eq!(s.metric("aorlta_items_shared_total"), 49.0);
    let first = strip_timings(results[0].clone());
    for (i, e) in results[..50].iter().enumerate() {
        assert_eq!(e["id"], format!("same-{i}"));
        let mut e = strip_timings(e.clone());
        e["id"] = first["id"].clone();
        assert_eq!(e, first);
    }
    assert_eq!(results[50]["id"], "other");
}

#[test]
fn sigterm_mid_batch_answers_accepted_items_then_exits_0() {
    let mut s = Server::start(
        "cache: {kind: none}\nlanes:\n  qa: {workers: 1, queue-items: 100000, item-timeout: 60s}\n\
         limits: {max-items: 50000}\n",
    );
    let batch = |tag: &str, n: usize| -> Vec<u8> {
        let items: Vec<Value> = (0..n)
            .map(|i| {
                json!({"id": format!("{tag}-{i}"), "task": format!("qa-{:03}", 1 + i % 60),
                       "completion": format!("attempt {tag} {i}: \\boxed{{{i}}}")})
            })
            .collect();
        json!({ "items": items }).to_string().into_bytes()
    };
    // One request is half sent when SIGTERM arrives; two more are fully sent just before it.
    let half = batch("half", 2000);
    let mut conn = TcpStream::connect(s.addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
    conn.write_all(head("POST", "/v1/score", half.len()).as_bytes())
        .unwrap();
    conn.write_all(&half[..half.len() / 2]).unwrap();
    let full: Vec<_> = (0..2)
        .map(|k| {
            let body = batch(&format!("full{k}"), 20_000);
            let mut c = TcpStream::connect(s.addr).unwrap();
            c.set_read_timeout(Some(Duration::from_secs(60))).unwrap();
            c.write_all(head("POST", "/v1/score", body.len()).as_bytes())
                .unwrap();
            c.write_all(&body).unwrap();
            std::thread::spawn(move || read_response(&mut c))
        })
        .collect();
    // Every request is accepted (being read or scored, or already answered) before the signal.
    let t0 = Instant::now();
    loop {
        let busy = s.metric("aorlta_requests_in_flight") + s.metric("aorlta_bodies_reading");
        let done = s.metric_or(
            "aorlta_requests_total{route=\"/v1/score\",status=\"200\"}",
            Some(0.0),
        );
        if busy + done >= 3.0 {
            break;
        }
        assert!(t0.elapsed() < Duration::from_secs(30), "requests not accepted");
        std::thread::sleep(Duration::from_millis(5));
    }
    s.terminate();
    std::thread::sleep(Duration::from_millis(300));
    assert!(
        s.child.try_wait().unwrap().is_none(),
        "the service waits for the request it is reading"
    );
    assert!(
        TcpStream::connect(s.addr).is_err(),
        "no new connection is accepted while draining"
    );
    conn.write_all(&half[half.len() / 2..]).unwrap();
    let r = read_response(&mut conn);
    let results = r.results();
    assert_eq!(results.len(), 2000);
    assert!(
        results
            .iter()
            .enumerate()
            .all(|(i, e)| e["id"] == format!("half-{i}"))
    );
    for (k, t) in full.into_iter().enumerate() {
        let results = t.join().unwrap().results();
        assert_eq!(results.len(), 20_000);
        assert_eq!(results[19_999]["id"], format!("full{k}-19999"));
    }
    let status = s.wait_exit(Duration::from_secs(30));
    assert_eq!(status.code(), Some(0), "{status}");
}

#[test]
fn entries_are_identical_to_aorlta_score_for_the_same_pool() {
    let dir = tempfile::tempdir().unwrap();
    let ex = examples();
    let run = dir.path().join("run.yaml");
    std::fs::write(
        &run,
        format!(
            "tasks: {}\npool: {}\nprofile: {}\nout: out\nconcurrency: 2\n",
            ex.join("tasks.jsonl").display(),
            ex.join("after.jsonl").display(),
            ex.join("profile.yaml").display()
        ),
    )
    .unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_aorlta"))
        .args(["score", "--quiet"])
        .arg(&run)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let scored: Vec<Value> = std::fs::read_to_string(dir.path().join("out/rewards.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let pool: Vec<Value> = std::fs::read_to_string(ex.join("after.jsonl"))
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(scored.len(), pool.len());
    let s = Server::start("cache: {kind: none}\n");
    let mut served = Vec::new();
    for chunk in pool.chunks(128) {
        let items: Vec<Value> = chunk
            .iter()
            .map(|p| json!({"id": p["id"], "task": p["task"], "completion": p["completion"]}))
            .collect();
        served.extend(s.post_json("/v1/score", &json!({ "items": items })).results());
    }
    assert_eq!(served.len(), scored.len());
    for (a, b) in served.into_iter().zip(scored) {
        assert_eq!(strip_timings(a), strip_timings(b));
    }
}

#[test]
fn a_body_that_stops_arriving_is_refused_with_408() {
    let s = Server::start("limits: {read-timeout: 300ms}\n");
    let mut conn = TcpStream::connect(s.addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    conn.write_all(head("POST", "/v1/score", 100).as_bytes()).unwrap();
    conn.write_all(b"{\"items\": [").unwrap();
    read_response(&mut conn).assert_error(408, "body-timeout");
    assert_eq!(
        s.metric("aorlta_requests_in_flight"),
        0.0,
        "its slot is free again"
    );
    s.assert_healthy();
}

#[test]
fn a_head_that_never_ends_is_cut_off() {
    let s = Server::start("limits: {header-read-timeout: 300ms}\n");
    let mut silent = TcpStream::connect(s.addr).unwrap();
    let mut partial = TcpStream::connect(s.addr).unwrap();
    partial
        .write_all(b"POST /v1/score HTTP/1.1\r\nHost: test\r\n")
        .unwrap();
    for conn in [&mut silent, &mut partial] {
        conn.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let t0 = Instant::now();
        let mut buf = Vec::new();
        let closed = conn.read_to_end(&mut buf).is_ok();
        assert!(
            closed,
            "the service closes a connection whose head does not arrive"
        );
        assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    }
    s.assert_healthy();
}

#[test]
fn a_flood_of_idle_connections_does_not_starve_healthz() {
    // 600 connections that never send a byte, against a process allowed 256 descriptors.
    let s = client::Server::start_with_fd_limit("", 256);
    let flood: Vec<TcpStream> = (0..600).map(|_| TcpStream::connect(s.addr).unwrap()).collect();
    std::thread::sleep(Duration::from_millis(200));
    let t0 = Instant::now();
    let mut conn = TcpStream::connect(s.addr).unwrap();
    conn.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\nConnection: close\r\n\r\n")
        .unwrap();
    let r = read_response(&mut conn);
    assert_eq!(r.status, 200, "{}", r.text());
    assert!(t0.elapsed() < Duration::from_secs(5), "{:?}", t0.elapsed());
    let metrics = s.get("/metrics").text();
    assert!(
        s.metric("aorlta_connections_closed_at_cap_total") > 0.0,
        "{metrics}"
    );
    assert!(s.metric("aorlta_connections") <= 192.0, "the cap is 3/4 of 256");
    drop(flood);
}

#[test]
fn a_kernel_profile_is_served_through_the_harness_on_the_fake_device() {
    let kernels = examples().join("../kernels");
    let s = client::Server::start_with(&format!(
        // Its own lease folder (beside the config): the fake GPU 0 of other runs on this host
        // is not this test's to wait for.
        "tasks: {k}/tasks\nprofiles: [{k}/profile.yaml]\ngpus: [0]\nkernel: {{fake-gpu: true, lease-dir: leases}}\n",
        k = kernels.display()
    ));
    let reference = std::fs::read_to_string(kernels.join("reference/vector_add.cu")).unwrap();
    let batch = json!({"items": [
        item("vector_add", &format!("Here is the kernel.\n```cuda\n{reference}```\n")),
        item("vector_add", "I would loop over the elements."),
    ]});
    let results = s.post_json("/v1/score", &batch).results();
    let legs = |e: &Value| -> Vec<(String, String)> {
        e["legs"]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| {
                (
                    l["name"].as_str().unwrap().to_string(),
                    l["state"].as_str().unwrap().to_string(),
                )
            })
            .collect()
    };
    let pairs = |v: &[(&str, &str)]| -> Vec<(String, String)> {
        v.iter().map(|(a, b)| (a.to_string(), b.to_string())).collect()
    };
    assert_eq!(
        legs(&results[0]),
        pairs(&[("parse", "clean"), ("compile", "clean"), ("ref.native", "clean")]),
        "{}",
        results[0]
    );
    assert_eq!(results[0]["reward"], 1.0, "{}", results[0]);
    assert_eq!(results[1]["legs"][0]["reasons"][0]["code"], "no-code-block");
    assert_eq!(results[1]["reward"], -1.0);
    assert_eq!(
        s.metric("aorlta_gpu_leases_held"),
        0.0,
        "leases are given back after the job"
    );
}

/// Two services on one PostgreSQL store (`cache: postgres://…` in their configs; a throwaway
/// server, skipped, saying why, where there are no server binaries and `CI` is unset): what one
/// computed, the other serves from the store, entry for entry.
#[test]
fn two_services_share_a_postgres_store() {
    let Some(pg) = aorlta_pg_server::TempServer::for_tests() else {
        return;
    };
    let url = pg.create_db("service").unwrap();
    let cfg = format!("cache: \"{url}\"\n");
    let (a, b) = (Server::start(&cfg), Server::start(&cfg));
    let batch = json!({"items": [
        item("qa-001", "17 × 23 = 391, so \\boxed{391}."),
        item("qa-002", "I think it is \\boxed{27}."),
    ]});
    let all_cached = |r: &[Value]| {
        r.iter()
            .all(|e| e["legs"].as_array().unwrap().iter().all(|l| l["cached"] == true))
    };
    let first = a.post_json("/v1/score", &batch).results();
    assert!(!all_cached(&first), "computed by the first service");
    // The first service commits its batch a moment after answering; ask until it is there.
    let t0 = Instant::now();
    let second = loop {
        let r = b.post_json("/v1/score", &batch).results();
        if all_cached(&r) {
            break r;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(10),
            "never served from the store: {r:?}"
        );
        std::thread::sleep(Duration::from_millis(50));
    };
    let strip = |v: Vec<Value>| v.into_iter().map(strip_timings).collect::<Vec<_>>();
    assert_eq!(strip(first), strip(second));
    assert!(b.metric("aorlta_cache_hits_total") >= 2.0);
}

/// Rows of the service's SQLite store edited while it runs: a reward of 7.0, a reward edited
/// within its range (text, column and parts alike: only the row's checksum tells), a flipped
/// bit. None is served: the item is scored again and answered with its true reward, the row is
/// counted on `aorlta_cache_rejected_total`, and the true entry takes its place.
#[test]
fn an_edited_or_damaged_store_row_is_scored_again_not_served() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("cache.sqlite");
    let s = Server::start(&format!("cache: {{kind: sqlite, path: \"{}\"}}\n", db.display()));
    // Right (1.0) and wrong (-0.5, the answer is 3.25).
    let batch = json!({"items": [
        item("qa-002", "It is \\boxed{-27}."),
        item("qa-003", "It is \\boxed{3.2}."),
    ]});
    let outcome = |r: &[Value]| -> Vec<(Value, Value)> {
        r.iter()
            .map(|e| (e["reward"].clone(), e["parts"].clone()))
            .collect()
    };
    let served = |r: &[Value]| -> Vec<bool> {
        r.iter()
            .map(|e| e["legs"].as_array().unwrap().iter().all(|l| l["cached"] == true))
            .collect()
    };
    let truth = s.post_json("/v1/score", &batch).results();
    let rewards: Vec<f64> = truth.iter().map(|e| e["reward"].as_f64().unwrap()).collect();
    assert_eq!(rewards, [1.0, -0.5]);
    assert_eq!(served(&s.post_json("/v1/score", &batch).results()), [true, true]);
    let tasks = ["qa-002", "qa-003", "qa-002"];
    let edits = tasks
        .into_iter()
        .zip(ENTRY_ROW_EDITS)
        .map(|(t, (sql, what))| (t, sql, what));
    for (n, (task, sql, what)) in edits.into_iter().enumerate() {
        // The service commits an answer's rows before it sends the answer.
        let c = rusqlite::Connection::open(&db).unwrap();
        c.busy_timeout(Duration::from_secs(10)).unwrap();
        let edited = c
            .execute(&format!("{sql} WHERE value LIKE '%\"task\":\"{task}\"%'"), [])
            .unwrap();
        assert_eq!(edited, 1, "{what}");
        drop(c);
        let again = s.post_json("/v1/score", &batch).results();
        assert_eq!(outcome(&again), outcome(&truth), "{what}: the true rewards");
        let edited_first = task == "qa-002";
        assert_eq!(
            served(&again),
            [!edited_first, edited_first],
            "{what}: scored again"
        );
        assert_eq!(s.metric("aorlta_cache_rejected_total"), (n + 1) as f64, "{what}");
        // The true entry took the row's place.
        let third = s.post_json("/v1/score", &batch).results();
        assert_eq!(served(&third), [true, true], "{what}: stored again");
        assert_eq!(outcome(&third), outcome(&truth), "{what}");
        assert_eq!(s.metric("aorlta_cache_rejected_total"), (n + 1) as f64);
    }
}
