//! A summary of a kernel-lane timeline (`aorlta timeline FILE…`): the file `AORLTA_TIMELINE`
//! names, where `aorlta-kernel` appends one JSON line per span of work (`{"k": kind, "l": label,
//! "t0": ms, "t1": ms, "th": thread}`). Per kind of span its count, total, median, 90th percentile
//! (nearest rank, rounded down) and longest; then the GPU's job coverage over the run (the union
//! of the job spans), the harness's own share of each job (its `harness_ms=` note), and what the
//! gaps between consecutive jobs held (a harness starting, a tolerance sanity, or nothing of the
//! GPU). Figures are milliseconds; a figure with nothing to measure is `nan`.

use aorlta_check::CoreError;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::path::Path;

/// One span as the timeline holds it.
#[derive(Debug, Deserialize)]
struct Span {
    /// Its kind (`compile`, `lease`, `harness-start`, `job`, `sanity`).
    k: String,
    /// Its label (a job's starts with its work, `check/…` or `time/…`).
    l: String,
    /// Start, in milliseconds since the process's first span.
    t0: f64,
    /// End.
    t1: f64,
}

/// `x` with `digits` decimals, `nan`, `inf` and `-inf` spelled in lower case.
fn num(x: f64, digits: usize) -> String {
    if x.is_nan() {
        "nan".into()
    } else if x.is_infinite() {
        if x > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{x:.digits$}")
    }
}

/// The middle value of `xs` (the mean of the two middle ones for an even count); NaN when empty.
fn median(xs: &[f64]) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => v[n / 2],
        _ => (v[n / 2 - 1] + v[n / 2]) / 2.0,
    }
}

/// The value at rank `q × n` (rounded down) of `xs` sorted, the largest at most; NaN when empty.
fn rank(xs: &[f64], q: f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    if v.is_empty() {
        return f64::NAN;
    }
    v[((q * v.len() as f64) as usize).min(v.len() - 1)]
}

/// The number after the first `harness_ms=` of a label that has one.
fn harness_ms(label: &str) -> Option<f64> {
    label.match_indices("harness_ms=").find_map(|(at, key)| {
        let rest = &label[at + key.len()..];
        let end = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        (end > 0).then(|| rest[..end].parse().ok()).flatten()
    })
}

/// The summary of the timeline at `path` (named as given), as printed.
pub fn timeline_summary(path: &Path) -> Result<String, CoreError> {
    let text = std::fs::read_to_string(path).map_err(|error| CoreError::Io {
        path: path.to_path_buf(),
        error,
    })?;
    let mut ev = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        ev.push(serde_json::from_str::<Span>(line).map_err(|e| CoreError::Parse {
            path: path.to_path_buf(),
            line: i + 1,
            message: e.to_string(),
        })?);
    }
    Ok(summarise(&path.display().to_string(), &ev))
}

fn summarise(name: &str, ev: &[Span]) -> String {
    let mut out = String::new();
    if ev.is_empty() {
        let _ = writeln!(out, "{name}: empty");
        return out;
    }
    let t_start = ev.iter().map(|e| e.t0).fold(f64::INFINITY, f64::min);
    let t_end = ev.iter().map(|e| e.t1).fold(f64::NEG_INFINITY, f64::max);
    let wall = t_end - t_start;
    let _ = writeln!(out, "== {name}: {} spans over {} ms", ev.len(), num(wall, 1));
    let _ = writeln!(
        out,
        "{:<14}{:>7}{:>11}{:>10}{:>10}{:>10}",
        "KIND", "COUNT", "TOTAL MS", "MEDIAN", "P90", "MAX"
    );
    let mut kinds: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for e in ev {
        kinds.entry(&e.k).or_default().push(e.t1 - e.t0);
    }
    for (k, xs) in &kinds {
        let max = xs.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let _ = writeln!(
            out,
            "{k:<14}{:>7}{:>11}{:>10}{:>10}{:>10}",
            xs.len(),
            num(xs.iter().sum(), 1),
            num(median(xs), 2),
            num(rank(xs, 0.9), 2),
            num(max, 2)
        );
    }
    let mut jobs: Vec<&Span> = ev.iter().filter(|e| e.k == "job").collect();
    jobs.sort_by(|a, b| a.t0.total_cmp(&b.t0));
    let (Some(first), Some(last)) = (jobs.first(), jobs.last()) else {
        return out;
    };
    // The harness's own time of the jobs that note it, paired with the jobs in order.
    let inside: Vec<f64> = jobs.iter().filter_map(|j| harness_ms(&j.l)).collect();
    let span: f64 = jobs.iter().map(|j| j.t1 - j.t0).sum();
    let (mut union, mut end) = (0.0, None::<f64>);
    for j in &jobs {
        match end {
            Some(e) if j.t0 <= e => {
                if j.t1 > e {
                    union += j.t1 - e;
                    end = Some(j.t1);
                }
            }
            _ => {
                union += j.t1 - j.t0;
                end = Some(j.t1);
            }
        }
    }
    let _ = writeln!(
        out,
        "GPU busy (at least one job running): {} ms = {}% of the wall",
        num(union, 1),
        num(100.0 * union / wall, 1)
    );
    let _ = writeln!(
        out,
        "jobs: first starts at {} ms, last ends at {} ms",
        num(first.t0 - t_start, 1),
        num(last.t1 - t_start, 1)
    );
    let own: f64 = inside.iter().sum();
    let outside: Vec<f64> = jobs.iter().zip(&inside).map(|(j, h)| j.t1 - j.t0 - h).collect();
    let _ = writeln!(
        out,
        "job spans sum to {} ms = {}% of the wall; the harness's own time {} ms = {}%; outside the harness per job: median {} ms",
        num(span, 1),
        num(100.0 * span / wall, 1),
        num(own, 1),
        num(100.0 * own / wall, 1),
        num(median(&outside), 3)
    );
    // Gaps between consecutive jobs and what ran in them, in order of first appearance.
    let mut gaps: Vec<(String, Vec<f64>)> = Vec::new();
    for w in jobs.windows(2) {
        let (g0, g1) = (w[0].t1, w[1].t0);
        if g1 <= g0 {
            continue;
        }
        let busy: BTreeSet<&str> = ev
            .iter()
            .filter(|e| (e.k == "harness-start" || e.k == "sanity") && e.t0 < g1 && e.t1 > g0)
            .map(|e| e.k.as_str())
            .collect();
        let key = match busy.is_empty() {
            true => "nothing of the GPU".to_string(),
            false => busy.into_iter().collect::<Vec<_>>().join("+"),
        };
        match gaps.iter_mut().find(|(k, _)| *k == key) {
            Some((_, xs)) => xs.push(g1 - g0),
            None => gaps.push((key, vec![g1 - g0])),
        }
    }
    let _ = writeln!(out, "before the first job: {} ms", num(first.t0 - t_start, 1));
    // Most time first; a stable sort keeps ties in order of first appearance.
    gaps.sort_by(|a, b| {
        let (sa, sb): (f64, f64) = (a.1.iter().sum(), b.1.iter().sum());
        sb.total_cmp(&sa)
    });
    for (k, xs) in &gaps {
        let _ = writeln!(
            out,
            "  gaps between jobs during {k:<28} {:>5} gaps, {:>9} ms, median {} ms",
            xs.len(),
            num(xs.iter().sum(), 1),
            num(median(xs), 3)
        );
    }
    let mut by: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (j, h) in jobs.iter().zip(&inside) {
        let kind = j.l.split('/').next().unwrap_or_default();
        by.entry(kind).or_default().push(*h);
    }
    for (k, xs) in &by {
        let _ = writeln!(
            out,
            "  harness time of {k} jobs: {}, total {} ms, median {} ms, p90 {} ms",
            xs.len(),
            num(xs.iter().sum(), 1),
            num(median(xs), 2),
            num(rank(xs, 0.9), 2)
        );
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(k: &str, l: &str, t0: f64, t1: f64) -> Span {
        Span {
            k: k.into(),
            l: l.into(),
            t0,
            t1,
        }
    }

    #[test]
    fn jobs_their_union_gaps_and_the_harness_share_are_summarised() {
        let ev = [
            span("compile", "vector_add", 0.0, 10.0),
            span("job", "check/vector_add harness_ms=2.5", 10.0, 14.0),
            span("harness-start", "gpu0", 14.5, 15.5),
            span("job", "time/vector_add harness_ms=1.0", 16.0, 20.0),
            span("job", "time/vector_add harness_ms=3.0", 18.0, 22.0),
            span("job", "check/vector_add", 30.0, 31.0),
        ];
        let text = summarise("t.jsonl", &ev);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "== t.jsonl: 6 spans over 31.0 ms");
        assert_eq!(
            lines[1],
            "KIND            COUNT   TOTAL MS    MEDIAN       P90       MAX"
        );
        assert_eq!(
            lines[2],
            "compile             1       10.0     10.00     10.00     10.00"
        );
        assert_eq!(
            lines[3],
            "harness-start       1        1.0      1.00      1.00      1.00"
        );
        assert_eq!(
            lines[4],
            "job                 4       13.0      4.00      4.00      4.00"
        );
        // Jobs 10-14, 16-22 and 30-31: 11 ms of the 31.
        assert_eq!(
            lines[5],
            "GPU busy (at least one job running): 11.0 ms = 35.5% of the wall"
        );
        assert_eq!(lines[6], "jobs: first starts at 10.0 ms, last ends at 31.0 ms");
        assert!(lines[7].starts_with(
            "job spans sum to 13.0 ms = 41.9% of the wall; the harness's own time 6.5 ms = 21.0%"
        ));
        assert_eq!(lines[8], "before the first job: 10.0 ms");
        assert!(
            lines[9].starts_with("  gaps between jobs during nothing of the GPU"),
            "{}",
            lines[9]
        );
        assert!(
            lines[9].contains("    1 gaps,       8.0 ms, median 8.000 ms"),
            "{}",
            lines[9]
        );
        assert!(
            lines[10].starts_with("  gaps between jobs during harness-start "),
            "{}",
            lines[10]
        );
        assert_eq!(
            lines[11],
            "  harness time of check jobs: 1, total 2.5 ms, median 2.50 ms, p90 2.50 ms"
        );
        assert_eq!(
            lines[12],
            "  harness time of time jobs: 2, total 4.0 ms, median 2.00 ms, p90 3.00 ms"
        );
    }

    #[test]
    fn an_empty_timeline_and_figures_of_nothing_say_so() {
        assert_eq!(summarise("e", &[]), "e: empty\n");
        assert_eq!(num(median(&[]), 3), "nan");
        assert_eq!(harness_ms("x harness_ms= harness_ms=4.5 y"), Some(4.5));
        assert_eq!(harness_ms("x"), None);
    }
}
