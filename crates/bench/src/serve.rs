//! The load generator behind `aorlta bench serve`: a fixed number of requests sent over a fixed
//! number of keep-alive HTTP/1.1 connections (hyper's client, one request at a time on each),
//! timing each request from the first byte sent to the last byte of its answer. Bodies are
//! built before the clock starts, so the generator spends its time on the wire, not on JSON.
//!
//! Latency percentiles are nearest-rank over every request of a run. Requests are built from a
//! pool's completions (as a model writes them) or from short made-up ones, each made distinct.

use crate::percentile::percentile;
use aorlta_answer::QaTaskDef;
use aorlta_check::TaskSet;
use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::json;
use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// What one load run measured.
#[derive(Debug, Clone)]
pub struct LoadReport {
    /// Items per request.
    pub batch: usize,
    /// Requests sent.
    pub requests: usize,
    /// Connections used.
    pub connections: usize,
    /// Wall time of the run.
    pub elapsed: Duration,
    /// Requests per status code (0: the connection failed).
    pub statuses: BTreeMap<u16, usize>,
    /// Every request's latency, sorted.
    pub latencies: Vec<Duration>,
    /// Answers whose item count was checked (the first answer on each connection).
    pub checked: usize,
}

impl LoadReport {
    /// Requests answered 200.
    pub fn ok(&self) -> usize {
        self.statuses.get(&200).copied().unwrap_or(0)
    }

    /// Items answered 200 per second.
    pub fn items_per_s(&self) -> f64 {
        (self.ok() * self.batch) as f64 / self.elapsed.as_secs_f64()
    }

    /// Requests per second (any status).
    pub fn requests_per_s(&self) -> f64 {
        self.requests as f64 / self.elapsed.as_secs_f64()
    }

    /// The nearest-rank percentile `p` (0..=100) of the latencies.
    pub fn percentile(&self, p: f64) -> Duration {
        latency_percentile(&self.latencies, p)
    }
}

/// Nearest-rank percentile of sorted latencies ([`percentile`]); zero when empty.
fn latency_percentile(sorted: &[Duration], p: f64) -> Duration {
    percentile(sorted, p).unwrap_or(Duration::ZERO)
}

/// A (task id, completion) pair to build requests from.
pub type Sample = (String, String);

/// Samples from a pool file (JSONL lines with `task` and `completion`), e.g. the Q&A example's
/// `after.jsonl`: completions as a model writes them.
pub fn pool_samples(path: &std::path::Path) -> std::io::Result<Vec<Sample>> {
    let text = std::fs::read_to_string(path)?;
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).map_err(std::io::Error::other)?;
            match (v["task"].as_str(), v["completion"].as_str()) {
                (Some(t), Some(c)) => Ok((t.to_string(), c.to_string())),
                _ => Err(std::io::Error::other(format!(
                    "{}: a line without `task` and `completion`",
                    path.display()
                ))),
            }
        })
        .collect()
}

/// Short made-up samples over the Q&A tasks of `tasks`, two thirds of them right.
pub fn task_samples(tasks: &TaskSet) -> Vec<Sample> {
    tasks
        .iter()
        .filter_map(|t| QaTaskDef::of(t).map(|q| (t.id.clone(), q.task.answer.clone())))
        .enumerate()
        .map(|(n, (id, answer))| {
            let said = if n % 3 == 2 {
                "a wrong guess".to_string()
            } else {
                answer
            };
            (
                id,
                format!("Working it through step by step.\nThe final answer is \\boxed{{{said}}}."),
            )
        })
        .collect()
}

/// `/v1/score` bodies: `requests` bodies of `batch` items each, cycling through `samples`. Each
/// completion gets a line naming its run, request and item, so every completion sent is
/// distinct and neither the cache nor sharing answers for the work. Empty when there are no
/// samples.
pub fn score_bodies(samples: &[Sample], batch: usize, requests: usize, run: &str) -> Vec<Bytes> {
    if samples.is_empty() {
        return Vec::new();
    }
    let mut n = 0usize;
    (0..requests)
        .map(|r| {
            let items: Vec<serde_json::Value> = (0..batch)
                .map(|i| {
                    let (task, completion) = &samples[n % samples.len()];
                    n += 1;
                    json!({
                        "id": format!("{run}-{r}-{i}"),
                        "task": task,
                        "completion": format!("{completion}\n(attempt {run}-{r}-{i})"),
                    })
                })
                .collect();
            Bytes::from(json!({ "items": items }).to_string())
        })
        .collect()
}

/// Sends every body once to `path` on `addr` over `connections` keep-alive connections.
pub async fn run_load(
    addr: SocketAddr,
    path: &str,
    bodies: Vec<Bytes>,
    batch: usize,
    connections: usize,
    token: Option<&str>,
) -> std::io::Result<LoadReport> {
    let authorization = token.map(|t| format!("Bearer {t}"));
    let requests = bodies.len();
    let bodies = Arc::new(bodies);
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let mut tasks = Vec::new();
    for _ in 0..connections.max(1) {
        let bodies = Arc::clone(&bodies);
        let next = Arc::clone(&next);
        let path = path.to_string();
        let authorization = authorization.clone();
        tasks.push(tokio::spawn(async move {
            connection(addr, &path, &bodies, &next, batch, authorization.as_deref()).await
        }));
    }
    let mut statuses = BTreeMap::new();
    let mut latencies = Vec::with_capacity(requests);
    let mut checked = 0;
    for t in tasks {
        let one = t.await.map_err(std::io::Error::other)??;
        for (s, n) in one.statuses {
            *statuses.entry(s).or_insert(0) += n;
        }
        latencies.extend(one.latencies);
        checked += one.checked;
    }
    let elapsed = start.elapsed();
    latencies.sort();
    Ok(LoadReport {
        batch,
        requests,
        connections,
        elapsed,
        statuses,
        latencies,
        checked,
    })
}

struct ConnReport {
    statuses: BTreeMap<u16, usize>,
    latencies: Vec<Duration>,
    checked: usize,
}

async fn connection(
    addr: SocketAddr,
    path: &str,
    bodies: &[Bytes],
    next: &AtomicUsize,
    batch: usize,
    authorization: Option<&str>,
) -> std::io::Result<ConnReport> {
    let mut report = ConnReport {
        statuses: BTreeMap::new(),
        latencies: Vec::new(),
        checked: 0,
    };
    let stream = tokio::net::TcpStream::connect(addr).await?;
    stream.set_nodelay(true)?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(std::io::Error::other)?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let host = addr.to_string();
    loop {
        let i = next.fetch_add(1, Ordering::Relaxed);
        let Some(body) = bodies.get(i) else { break };
        let mut req = Request::post(path)
            .header("host", &host)
            .header("content-type", "application/json");
        if let Some(a) = authorization {
            req = req.header("authorization", a);
        }
        let req = req.body(Full::new(body.clone())).map_err(std::io::Error::other)?;
        let t0 = Instant::now();
        let answer = async {
            sender.ready().await?;
            let resp = sender.send_request(req).await?;
            let status = resp.status().as_u16();
            let bytes = resp.into_body().collect().await?.to_bytes();
            Ok::<_, hyper::Error>((status, bytes))
        }
        .await;
        let elapsed = t0.elapsed();
        let (status, bytes) = match answer {
            Ok(a) => a,
            Err(e) => {
                *report.statuses.entry(0).or_insert(0) += 1;
                report.latencies.push(elapsed);
                return Err(std::io::Error::other(format!("connection failed: {e}")));
            }
        };
        *report.statuses.entry(status).or_insert(0) += 1;
        report.latencies.push(elapsed);
        if status == 200 && report.checked == 0 {
            let v: serde_json::Value = serde_json::from_slice(&bytes).map_err(std::io::Error::other)?;
            let n = v["results"].as_array().map_or(0, Vec::len);
            if n != batch {
                return Err(std::io::Error::other(format!(
                    "an answer had {n} results for {batch} items"
                )));
            }
            report.checked += 1;
        }
    }
    Ok(report)
}

/// `GET path` on `addr`: the body as text (any status).
pub async fn get_text(addr: SocketAddr, path: &str) -> std::io::Result<String> {
    let stream = tokio::net::TcpStream::connect(addr).await?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(std::io::Error::other)?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let req = Request::get(path)
        .header("host", addr.to_string())
        .body(Full::new(Bytes::new()))
        .map_err(std::io::Error::other)?;
    let resp = sender.send_request(req).await.map_err(std::io::Error::other)?;
    let bytes = resp
        .into_body()
        .collect()
        .await
        .map_err(std::io::Error::other)?
        .to_bytes();
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// The value of an unlabelled sample in Prometheus text.
pub fn metric(text: &str, name: &str) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|l| l.strip_prefix(name)?.strip_prefix(' ')?.trim().parse().ok())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let v: Vec<Duration> = (1..=100).map(Duration::from_millis).collect();
        assert_eq!(latency_percentile(&v, 50.0), Duration::from_millis(50));
        assert_eq!(latency_percentile(&v, 99.0), Duration::from_millis(99));
        assert_eq!(latency_percentile(&v, 100.0), Duration::from_millis(100));
        assert_eq!(latency_percentile(&v[..1], 99.0), Duration::from_millis(1));
        assert_eq!(latency_percentile(&[], 50.0), Duration::ZERO);
    }

    #[test]
    fn reads_unlabelled_samples() {
        let text = "# HELP a_total x\na_total 12\na_total_more 3\nb{l=\"x\"} 4\n";
        assert_eq!(metric(text, "a_total"), Some(12.0));
        assert_eq!(metric(text, "a_total_more"), Some(3.0));
        assert_eq!(metric(text, "b"), None);
    }

    #[test]
    fn bodies_have_distinct_completions() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.jsonl");
        std::fs::write(
            &f,
            "{\"id\":\"a\",\"prompt\":\"1+1?\",\"answer\":\"2\"}\n{\"id\":\"b\",\"prompt\":\"2+2?\",\"answer\":\"4\"}\n",
        )
        .unwrap();
        let (tasks, _) = TaskSet::load(&f, &aorlta_core::lanes()).unwrap();
        let samples = task_samples(&tasks);
        assert_eq!(samples.len(), 2);
        assert!(samples[0].1.ends_with("\\boxed{2}."), "{}", samples[0].1);
        let bodies = score_bodies(&samples, 3, 4, "x");
        assert_eq!(bodies.len(), 4);
        let mut seen = std::collections::HashSet::new();
        for b in &bodies {
            let v: serde_json::Value = serde_json::from_slice(b).unwrap();
            let items = v["items"].as_array().unwrap();
            assert_eq!(items.len(), 3);
            for it in items {
                assert!(seen.insert(it["completion"].as_str().unwrap().to_string()));
            }
        }
        assert!(score_bodies(&[], 3, 4, "x").is_empty());
        let pool = dir.path().join("pool.jsonl");
        std::fs::write(&pool, "{\"task\":\"a\",\"completion\":\"c\",\"id\":\"1\"}\n\n").unwrap();
        assert_eq!(
            pool_samples(&pool).unwrap(),
            vec![("a".to_string(), "c".to_string())]
        );
        std::fs::write(&pool, "{\"task\":\"a\"}\n").unwrap();
        assert!(pool_samples(&pool).is_err());
    }
}
