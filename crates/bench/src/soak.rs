//! The soak of `aorlta serve` (`aorlta bench soak`): distinct Q&A and kernel items sent for a
//! long time while the service's resident memory (VmRSS), that of its harness processes (every
//! process under it, summed) and its work folder (files and bytes, where compiled code objects
//! live) are sampled, to show all stay flat. Every item is distinct, so nothing is answered
//! from a cache or shared: the caches and the seed counters keep filling, and only their
//! bounds keep the service flat.
//!
//! Here are the samplers ([`rss_kib`], [`children_rss_kib`], [`folder_size`]), one sample as a
//! table row ([`SoakRow`]), the load ([`soak_load`]: one keep-alive connection posting until a
//! deadline) and the figures of a whole soak ([`SoakReport`], with the comparison of the first
//! and second halves that says whether the service stayed flat). Linux only (`/proc`).

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde::Serialize;
use std::fmt;
use std::net::SocketAddr;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// The resident memory of process `pid` in KiB (`VmRSS` of `/proc/PID/status`; 0 when the
/// process reports none, as a zombie does).
pub fn rss_kib(pid: u32) -> std::io::Result<u64> {
    let text = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    Ok(text
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0))
}

/// The resident memory of every process under `pid` (its harness processes and theirs), summed,
/// in KiB; a process that ended while it was read counts nothing.
pub fn children_rss_kib(pid: u32) -> u64 {
    let (mut total, mut todo) = (0, vec![pid]);
    while let Some(p) = todo.pop() {
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{p}/task")) else {
            continue;
        };
        let mut kids = Vec::new();
        for t in tasks.flatten() {
            let Ok(text) = std::fs::read_to_string(t.path().join("children")) else {
                continue;
            };
            kids.extend(text.split_whitespace().filter_map(|k| k.parse::<u32>().ok()));
        }
        for k in kids {
            if let Ok(kib) = rss_kib(k) {
                total += kib;
                todo.push(k);
            }
        }
    }
    total
}

/// The files under `path`, at any depth, and their bytes; (0, 0) when it does not exist.
pub fn folder_size(path: &Path) -> (u64, u64) {
    let (mut files, mut bytes) = (0, 0);
    let mut todo = vec![path.to_path_buf()];
    while let Some(dir) = todo.pop() {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            match e.file_type() {
                Ok(t) if t.is_dir() => todo.push(e.path()),
                Ok(t) if t.is_file() => {
                    files += 1;
                    bytes += e.metadata().map_or(0, |m| m.len());
                }
                _ => {}
            }
        }
    }
    (files, bytes)
}

/// One sample of a soak.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SoakRow {
    /// Minutes since the load started.
    pub min: f64,
    /// Q&A items sent so far.
    pub qa_items: u64,
    /// Kernel items sent so far.
    pub kernel_items: u64,
    /// The service's resident memory, MiB.
    pub rss_mib: f64,
    /// The resident memory of every process under the service, summed, MiB.
    pub harness_mib: f64,
    /// Files in the service's work folder.
    pub work_files: u64,
    /// Bytes in the service's work folder, MiB.
    pub work_mib: f64,
}

const MIB: f64 = (1u64 << 20) as f64;

impl SoakRow {
    /// Samples the service `pid` and its work folder `work`, `elapsed` into the load, with the
    /// items sent so far.
    pub fn sample(elapsed: Duration, qa_items: u64, kernel_items: u64, pid: u32, work: &Path) -> Self {
        let (files, bytes) = folder_size(work);
        SoakRow {
            min: elapsed.as_secs_f64() / 60.0,
            qa_items,
            kernel_items,
            rss_mib: rss_kib(pid).unwrap_or(0) as f64 / 1024.0,
            harness_mib: children_rss_kib(pid) as f64 / 1024.0,
            work_files: files,
            work_mib: bytes as f64 / MIB,
        }
    }

    /// The header of the table of samples.
    pub const HEAD: &'static str =
        "   min   qa items  kernel items  rss MiB  harness MiB  work files  work MiB";
}

impl fmt::Display for SoakRow {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:6.1} {:10} {:13} {:8.1} {:12.1} {:11} {:9.2}",
            self.min,
            self.qa_items,
            self.kernel_items,
            self.rss_mib,
            self.harness_mib,
            self.work_files,
            self.work_mib
        )
    }
}

/// The largest figures of one half of a soak.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct HalfMax {
    /// The service's largest resident memory, MiB.
    pub rss_mib: f64,
    /// The harness processes' largest resident memory, MiB.
    pub harness_mib: f64,
    /// The most files in the work folder.
    pub work_files: u64,
}

impl HalfMax {
    fn of<'a>(rows: impl Iterator<Item = &'a SoakRow> + Clone) -> Option<Self> {
        rows.clone().next()?;
        Some(HalfMax {
            rss_mib: rows.clone().map(|r| r.rss_mib).fold(f64::MIN, f64::max),
            harness_mib: rows.clone().map(|r| r.harness_mib).fold(f64::MIN, f64::max),
            work_files: rows.map(|r| r.work_files).max().unwrap_or(0),
        })
    }
}

/// What a soak measured.
#[derive(Debug, Clone, Serialize)]
pub struct SoakReport {
    /// The minutes it was to run.
    pub minutes: f64,
    /// The memory cache's bound, in entries.
    pub cache_entries: u64,
    /// The samples, the first at the start.
    pub rows: Vec<SoakRow>,
    /// Answers other than 200 (a failed connection counts as one).
    pub non_200: u64,
    /// The service's exit code after SIGTERM (minus the signal's number when a signal ended it).
    pub exit: i32,
    /// The largest figures of the first half (the samples before half time, past 0).
    pub first_half: Option<HalfMax>,
    /// The largest figures of the second half (samples from half time on).
    pub second_half: Option<HalfMax>,
}

impl SoakReport {
    /// The report of `rows`, each half's largest figures taken.
    pub fn new(minutes: f64, cache_entries: u64, rows: Vec<SoakRow>, non_200: u64, exit: i32) -> Self {
        let half = minutes / 2.0;
        let first_half = HalfMax::of(rows.iter().filter(|r| r.min < half && r.min > 0.0));
        let second_half = HalfMax::of(rows.iter().filter(|r| r.min >= half));
        SoakReport {
            minutes,
            cache_entries,
            rows,
            non_200,
            exit,
            first_half,
            second_half,
        }
    }

    /// The line that compares the two halves (flat when the second half's figures are the
    /// first's), with the non-200 answers and the exit code; `None` when a half has no sample.
    pub fn verdict(&self) -> Option<String> {
        let (a, b) = (self.first_half.as_ref()?, self.second_half.as_ref()?);
        Some(format!(
            "rss MiB: max {:.1} in the first half, {:.1} in the second; harness MiB: max {:.1} then {:.1}; \
             work files: max {} then {}; non-200 answers: {}; exit {}",
            a.rss_mib,
            b.rss_mib,
            a.harness_mib,
            b.harness_mib,
            a.work_files,
            b.work_files,
            self.non_200,
            self.exit
        ))
    }

    /// True when every answer was 200 and the service exited cleanly.
    pub fn ok(&self) -> bool {
        self.exit == 0 && self.non_200 == 0
    }
}

/// Posts `body(n)` (its `per_request` items numbered from `n`) to `/v1/score` on `addr` over one
/// keep-alive connection until `stop`, pausing `pause` after each answer; adds the items of
/// each request to `sent` and each answer other than 200 to `non_200`. A failed connection
/// counts one non-200 answer and ends the load with the error.
pub async fn soak_load(
    addr: SocketAddr,
    per_request: u64,
    body: impl Fn(u64) -> String,
    stop: Instant,
    pause: Duration,
    sent: &AtomicU64,
    non_200: &AtomicU64,
) -> std::io::Result<()> {
    let fail = |e: String| {
        non_200.fetch_add(1, Ordering::Relaxed);
        std::io::Error::other(e)
    };
    let stream = tokio::net::TcpStream::connect(addr)
        .await
        .map_err(|e| fail(format!("connecting to {addr}: {e}")))?;
    stream.set_nodelay(true)?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| fail(format!("connecting to {addr}: {e}")))?;
    tokio::spawn(async move {
        let _ = conn.await;
    });
    let host = addr.to_string();
    let mut n = 0;
    while Instant::now() < stop {
        let req = Request::post("/v1/score")
            .header("host", &host)
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from(body(n))))
            .map_err(std::io::Error::other)?;
        n += per_request;
        let answer = async {
            sender.ready().await?;
            let resp = sender.send_request(req).await?;
            let status = resp.status().as_u16();
            resp.into_body().collect().await?;
            Ok::<_, hyper::Error>(status)
        }
        .await;
        let status = answer.map_err(|e| fail(format!("connection failed: {e}")))?;
        if status != 200 {
            non_200.fetch_add(1, Ordering::Relaxed);
        }
        sent.fetch_add(per_request, Ordering::Relaxed);
        tokio::time::sleep(pause).await;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(min: f64, rss: f64, files: u64) -> SoakRow {
        SoakRow {
            min,
            qa_items: 64,
            kernel_items: 4,
            rss_mib: rss,
            harness_mib: rss / 10.0,
            work_files: files,
            work_mib: 0.5,
        }
    }

    #[test]
    fn the_halves_leave_out_a_sample_at_0_and_split_at_half_time() {
        let r = SoakReport::new(
            10.0,
            100,
            vec![
                row(0.0, 500.0, 900),
                row(2.0, 80.0, 10),
                row(5.0, 90.0, 12),
                row(10.0, 85.0, 11),
            ],
            0,
            0,
        );
        assert_eq!(
            r.verdict().unwrap(),
            "rss MiB: max 80.0 in the first half, 90.0 in the second; harness MiB: max 8.0 then 9.0; \
             work files: max 10 then 12; non-200 answers: 0; exit 0"
        );
        assert!(r.ok());
        assert!(
            SoakReport::new(10.0, 100, vec![row(0.0, 1.0, 1), row(6.0, 1.0, 1)], 0, 0)
                .verdict()
                .is_none()
        );
        assert!(!SoakReport::new(1.0, 1, vec![], 1, 0).ok());
        assert!(!SoakReport::new(1.0, 1, vec![], 0, -15).ok());
    }

    #[test]
    fn a_row_lines_up_under_the_header() {
        let line = row(5.0, 86.6, 2463).to_string();
        assert_eq!(line.len(), SoakRow::HEAD.len(), "{line}\n{}", SoakRow::HEAD);
        assert_eq!(
            line,
            "   5.0         64             4     86.6          8.7        2463      0.50"
        );
    }

    #[test]
    fn this_process_and_a_folder_are_sampled() {
        let me = std::process::id();
        assert!(rss_kib(me).unwrap() > 0);
        let mut child = std::process::Command::new("sleep").arg("5").spawn().unwrap();
        assert!(children_rss_kib(me) > 0);
        child.kill().unwrap();
        child.wait().unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("a")).unwrap();
        std::fs::write(dir.path().join("a/x"), b"12345").unwrap();
        std::fs::write(dir.path().join("y"), b"1").unwrap();
        assert_eq!(folder_size(dir.path()), (2, 6));
        assert_eq!(folder_size(&dir.path().join("none")), (0, 0));
    }
}
