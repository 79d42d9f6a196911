//! Where a harness job's host time goes, call by call: with `AORLTA_HARNESS_PROFILE=<file>` set,
//! the CUDA backend times each driver call it makes, and every job appends one JSON line to the
//! file: the job's kind, its time, and per call its count and seconds. Unset, a timed call costs
//! one load of a `OnceLock`. For performance work only; nothing reads the file back.

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

/// The profile file and the running job's counts and seconds per call.
type Sink = Mutex<(std::fs::File, BTreeMap<&'static str, (u64, f64)>)>;

fn sink() -> Option<&'static Sink> {
    static SINK: OnceLock<Option<Sink>> = OnceLock::new();
    SINK.get_or_init(|| {
        let path = std::env::var_os("AORLTA_HARNESS_PROFILE")?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .ok()?;
        Some(Mutex::new((file, BTreeMap::new())))
    })
    .as_ref()
}

/// Runs `f`, adding its time to `call`'s when profiling.
pub(crate) fn timed<T>(call: &'static str, f: impl FnOnce() -> T) -> T {
    if sink().is_none() {
        return f();
    }
    let t = Instant::now();
    let out = f();
    add(call, t.elapsed().as_secs_f64());
    out
}

/// Adds `seconds` to `call`'s time (a step timed elsewhere: the reference process's own start)
/// when profiling.
pub(crate) fn add(call: &'static str, seconds: f64) {
    let Some(s) = sink() else { return };
    if let Ok(mut g) = s.lock() {
        let e = g.1.entry(call).or_insert((0, 0.0));
        e.0 += 1;
        e.1 += seconds;
    }
}

/// Appends the job's line and starts the next job's counts.
pub(crate) fn end_job(kind: &str, elapsed_s: f64) {
    let Some(s) = sink() else { return };
    if let Ok(mut g) = s.lock() {
        let calls: BTreeMap<&str, serde_json::Value> = std::mem::take(&mut g.1)
            .into_iter()
            .map(|(k, (n, t))| (k, serde_json::json!([n, t])))
            .collect();
        let line = serde_json::json!({"kind": kind, "elapsed_s": elapsed_s, "calls": calls});
        let _ = writeln!(g.0, "{line}");
    }
}
