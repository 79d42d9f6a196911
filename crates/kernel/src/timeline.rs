//! A timeline of the kernel lane's work, for finding where a run's wall time goes: with
//! `AORLTA_TIMELINE=<file>` set, every compile, GPU lease wait, harness start, harness job and
//! tolerance sanity appends one JSON line `{"k": kind, "l": label, "t0": ms, "t1": ms, "th":
//! thread}` (milliseconds since the process's first span). Unset, a span costs one load of a
//! `OnceLock`. `aorlta timeline FILE` summarises a file.

use std::io::Write;
use std::sync::{Mutex, OnceLock};
use std::time::Instant;

struct Sink {
    epoch: Instant,
    file: Mutex<std::fs::File>,
}

fn sink() -> Option<&'static Sink> {
    static SINK: OnceLock<Option<Sink>> = OnceLock::new();
    SINK.get_or_init(|| {
        let path = std::env::var_os("AORLTA_TIMELINE")?;
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| eprintln!("aorlta: AORLTA_TIMELINE {}: {e}", path.to_string_lossy()))
            .ok()?;
        Some(Sink {
            epoch: Instant::now(),
            file: Mutex::new(file),
        })
    })
    .as_ref()
}

/// One span of work, written when dropped.
pub(crate) struct Span {
    kind: &'static str,
    label: String,
    t0: Instant,
}

/// Starts a span of `kind`; `label` is only built when the timeline is on.
pub(crate) fn span(kind: &'static str, label: impl FnOnce() -> String) -> Option<Span> {
    sink()?;
    Some(Span {
        kind,
        label: label(),
        t0: Instant::now(),
    })
}

impl Span {
    /// Appends ` text` to the span's label.
    pub(crate) fn note(span: &mut Option<Span>, text: impl FnOnce() -> String) {
        if let Some(s) = span {
            s.label.push(' ');
            s.label.push_str(&text());
        }
    }
}

impl Drop for Span {
    fn drop(&mut self) {
        let Some(s) = sink() else { return };
        let ms = |t: Instant| t.saturating_duration_since(s.epoch).as_secs_f64() * 1e3;
        let line = serde_json::json!({
            "k": self.kind,
            "l": self.label,
            "t0": ms(self.t0),
            "t1": ms(Instant::now()),
            "th": std::thread::current().name().unwrap_or("?"),
        });
        if let Ok(mut f) = s.file.lock() {
            let _ = writeln!(f, "{line}");
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_span_is_nothing_when_the_timeline_is_off() {
        // The tests never set AORLTA_TIMELINE.
        if std::env::var_os("AORLTA_TIMELINE").is_none() {
            assert!(super::span("job", || unreachable!("the label is not built")).is_none());
        }
    }
}
