//! The kernel lane's feedback for the model, leg by leg: the compiler's diagnostics on the
//! candidate's own lines (the compile step keeps no other); for correctness, the size that
//! failed with its values, the input family each input drew in words, where the first mismatch
//! is (row and column for an output with rows) with the expected and the written value, or the
//! guard band or input that was written; for timing, the verdict, the speedup with its
//! interval, both times, and the bandwidth and FLOP/s achieved against the GPU's peak (from the
//! bytes and flops the task declares, [`traffic_bytes`], [`traffic_flops`]; an unknown GPU gets no
//! comparison). Never a seed: the seeds in the legs' details are not read.

use crate::task::KernelTaskDef;
use aorlta_check::Task;
use aorlta_record::{Family, Special};
use aorlta_record::{KernelTask, eval_count, last_factor, traffic_bytes, traffic_flops};
use aorlta_record::{LegResult, LegState};
use serde_json::Value;
use std::collections::BTreeMap;

/// Longest compiler output quoted, in characters (the profile's budget cuts further).
const DIAGNOSTICS_CHARS: usize = 4000;

/// A GPU model's peaks: memory bandwidth in bytes/s, dense FP32 (non-tensor) in FLOP/s.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Peak {
    /// What the device name must contain (the first match in [`PEAKS`] wins).
    pub model: &'static str,
    /// Memory bandwidth, bytes per second.
    pub bytes_per_s: f64,
    /// FP32 arithmetic, operations per second.
    pub flops_per_s: f64,
}

/// Vendors' data-sheet peaks, most specific name first.
pub(crate) const PEAKS: &[Peak] = &[
    Peak {
        model: "H200",
        bytes_per_s: 4.8e12,
        flops_per_s: 67.0e12,
    },
    Peak {
        model: "H100 PCIe",
        bytes_per_s: 2.0e12,
        flops_per_s: 51.0e12,
    },
    Peak {
        model: "H100",
        bytes_per_s: 3.35e12,
        flops_per_s: 67.0e12,
    },
    Peak {
        model: "A100-SXM4-80GB",
        bytes_per_s: 2.039e12,
        flops_per_s: 19.5e12,
    },
    Peak {
        model: "A100",
        bytes_per_s: 1.555e12,
        flops_per_s: 19.5e12,
    },
    Peak {
        model: "L40S",
        bytes_per_s: 0.864e12,
        flops_per_s: 91.6e12,
    },
    Peak {
        model: "RTX 4090",
        bytes_per_s: 1.008e12,
        flops_per_s: 82.6e12,
    },
    Peak {
        model: "MI300X",
        bytes_per_s: 5.3e12,
        flops_per_s: 163.4e12,
    },
    Peak {
        model: "MI250X",
        bytes_per_s: 3.2e12,
        flops_per_s: 47.9e12,
    },
];

/// The peaks of a device by its name, when the table knows its model.
pub(crate) fn peak_of(device: &str) -> Option<Peak> {
    PEAKS.iter().copied().find(|p| device.contains(p.model))
}

/// The text for one leg run by an adapter of this lane (`None` for any other adapter).
pub fn leg_feedback(leg: &LegResult, task: &Task) -> Option<String> {
    let spec = KernelTaskDef::of(task).map(|k| &k.spec);
    match leg.adapter.as_str() {
        // The shared `parse` leg, for a task of this lane: what was taken as the kernel.
        "parse" => spec.map(|_| parse(leg)),
        "kernel-compile" => Some(compile(leg)),
        "kernel-run" => Some(correctness(leg, spec)),
        "kernel-time" => Some(timing(leg, spec)),
        "kernel-profile" => Some(profiled(leg, spec)),
        _ => None,
    }
}

/// The `kernel-profile` leg: Nsight Compute's figures for one launch, in a sentence.
fn profiled(leg: &LegResult, spec: Option<&KernelTask>) -> String {
    let d = leg.detail.as_ref();
    let Some(s) = d
        .and_then(|d| d.get("summary"))
        .filter(|_| leg.state == LegState::Clean)
    else {
        return match leg.state {
            LegState::Skipped => "Not profiled: an earlier check failed.".into(),
            _ => "Not profiled this time (no profiler here; not your fault).".into(),
        };
    };
    let num = |k: &str| s.get(k).and_then(Value::as_f64);
    let size = d.and_then(|d| d.get("size")).and_then(Value::as_u64).unwrap_or(0) as usize;
    let mut parts = Vec::new();
    if let (Some(m), Some(c)) = (num("memory_sol_pct"), num("compute_sol_pct")) {
        parts.push(format!(
            "memory throughput {m:.1}% and compute throughput {c:.1}% of the GPU's peak"
        ));
    }
    if let Some(o) = num("achieved_occupancy_pct") {
        parts.push(format!("achieved occupancy {o:.1}%"));
    }
    if let Some(r) = num("registers_per_thread") {
        parts.push(format!("{r:.0} registers per thread"));
    }
    let shared = num("static_shared_bytes_per_block").unwrap_or(0.0)
        + num("dynamic_shared_bytes_per_block").unwrap_or(0.0);
    if shared > 0.0 {
        parts.push(format!(
            "{} of shared memory per block",
            human_bytes(shared as u64)
        ));
    }
    let stalls: Vec<String> = s
        .get("top_stalls")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|x| {
            let r = x.get("reason")?.as_str()?;
            let c = x.get("cycles_per_issue")?.as_f64()?;
            Some(format!("{r} ({c:.1} cycles per instruction)"))
        })
        .collect();
    if !stalls.is_empty() {
        parts.push(format!("warps mostly waiting on {}", stalls.join(", ")));
    }
    format!(
        "Profile (Nsight Compute, one launch at {}): {}.",
        size_values(spec, size),
        parts.join("; ")
    )
}

/// The `parse` leg of a kernel task: the source found, or why none was.
fn parse(leg: &LegResult) -> String {
    match leg.state {
        LegState::Clean => match leg
            .detail
            .as_ref()
            .and_then(|d| d.get("bytes"))
            .and_then(|b| b.as_u64())
        {
            Some(n) => format!("The kernel source was found in your last code block ({n} bytes)."),
            None => "The kernel source was found.".into(),
        },
        LegState::Broke => match leg.first_code().unwrap_or("") {
            "no-code-block" => "No fenced code block was found in your answer.".into(),
            "kernel-not-found" => "No code block defines the kernel the task asks for.".into(),
            code => format!("The kernel could not be taken from your text ({code})."),
        },
        LegState::Unsettled => "Your text could not be read this time (not your fault).".into(),
        LegState::Skipped => "not run: an earlier check failed.".into(),
    }
}

fn first_detail(leg: &LegResult) -> &str {
    leg.reasons.first().map_or("", |r| r.detail.as_str())
}

fn compile(leg: &LegResult) -> String {
    let code = leg.first_code().unwrap_or("");
    match leg.state {
        LegState::Clean => "It compiled.".into(),
        LegState::Broke => match code {
            "compile-error" => format!(
                "It did not compile. The compiler said, on your lines:\n{}",
                cut(first_detail(leg).trim(), DIAGNOSTICS_CHARS)
            ),
            "compile-timeout" => "It did not compile within the time limit.".into(),
            "compile-memory" => "The compiler ran out of its memory limit on it.".into(),
            "source-too-large" => "The source is over the size limit.".into(),
            "include-forbidden" => format!("It includes a header that is not allowed: {}", first_detail(leg)),
            "kernel-not-found" => {
                "The compiled code does not define the kernel of the task's signature.".into()
            }
            "device-printf" => "The kernel calls printf on the device, which is not allowed.".into(),
            "signature-mismatch" => format!(
                "The kernel's parameters are not the task's: {}",
                first_detail(leg)
            ),
            _ => format!("It did not compile ({code}): {}", first_detail(leg)),
        },
        LegState::Skipped => "Not compiled: an earlier check failed.".into(),
        LegState::Unsettled => "It could not be compiled this time (not your fault).".into(),
    }
}

/// The size's values, `n = 4096, m = 64`.
fn size_values(spec: Option<&KernelTask>, size: usize) -> String {
    match spec.and_then(|s| s.sizes.get(size)) {
        Some(vars) if !vars.is_empty() => vars
            .iter()
            .map(|(k, v)| format!("{k} = {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        _ => format!("size {size}"),
    }
}

/// A family in words, with the specials the buffer declares.
fn family_words(f: Family, specials: &[Special]) -> String {
    match f {
        Family::Typical => "values from the task's usual distribution".into(),
        Family::Top => "values near the top of the domain".into(),
        Family::Bottom => "values near the bottom of the domain".into(),
        Family::RowWindow => "each row in a narrow window of values of its own".into(),
        Family::ConstantRuns => "runs of equal values".into(),
        Family::Signs => "structured signs (alternating, per row or block, all one sign)".into(),
        Family::Magnitudes => "magnitudes spread over many orders".into(),
        Family::Specials => {
            let names: Vec<&str> = specials
                .iter()
                .map(|s| match s {
                    Special::Zero => "zeros",
                    Special::Subnormal => "subnormals",
                    Special::Inf => "infinities",
                    Special::Nan => "NaNs",
                })
                .collect();
            if names.is_empty() {
                "special values mixed in".into()
            } else {
                format!("{} mixed in", names.join(", "))
            }
        }
    }
}

fn correctness(leg: &LegResult, spec: Option<&KernelTask>) -> String {
    let code = leg.first_code().unwrap_or("");
    let detail = leg.detail.as_ref();
    match leg.state {
        LegState::Clean => {
            let sizes = detail
                .and_then(|d| d.get("sizes"))
                .and_then(Value::as_array)
                .map_or(0, Vec::len);
            let cases = detail
                .and_then(|d| d.get("cases"))
                .and_then(Value::as_u64)
                .unwrap_or(0);
            format!("Correct: every output matched the reference on {sizes} sizes ({cases} input sets).")
        }
        LegState::Skipped => "Not checked for correctness: an earlier check failed.".into(),
        LegState::Unsettled => "Correctness could not be checked this time (not your fault).".into(),
        LegState::Broke => {
            let failure = detail
                .and_then(|d| d.get("first_failure"))
                .filter(|f| !f.is_null());
            let Some(f) = failure else {
                return match code {
                    "hung" => "The kernel did not finish (it hung).".into(),
                    "device-faulted" => {
                        "The kernel faulted on the device (an illegal address or instruction).".into()
                    }
                    "launch-out-of-bounds" => {
                        format!("Its launch geometry is out of bounds: {}", first_detail(leg))
                    }
                    _ => format!("Wrong ({code}): {}", first_detail(leg)),
                };
            };
            let size = f.get("size").and_then(Value::as_u64).unwrap_or(0) as usize;
            let families: BTreeMap<String, Family> = f
                .get("families")
                .and_then(|v| serde_json::from_value(v.clone()).ok())
                .unwrap_or_default();
            let inputs = families
                .iter()
                .map(|(b, fam)| {
                    let specials = spec
                        .and_then(|s| s.buffers.iter().find(|x| &x.name == b))
                        .map(|x| x.special.clone())
                        .unwrap_or_default();
                    format!("`{b}` held {}", family_words(*fam, &specials))
                })
                .collect::<Vec<_>>()
                .join("; ");
            let mut text = format!("Wrong at size {} ({})", size, size_values(spec, size));
            if !inputs.is_empty() {
                text.push_str(&format!(", where {inputs}"));
            }
            text.push_str(": ");
            let names = |k: &str| -> Vec<String> {
                f.get(k)
                    .and_then(Value::as_array)
                    .map(|a| a.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
                    .unwrap_or_default()
            };
            let guards = names("guards_broken");
            let changed = names("inputs_changed");
            if !guards.is_empty() {
                text.push_str(&format!(
                    "it wrote outside its buffers (the guard bands of {}).",
                    guards.join(", ")
                ));
            } else if !changed.is_empty() {
                text.push_str(&format!(
                    "it changed its inputs {}, which must stay unchanged.",
                    changed.join(", ")
                ));
            } else if let Some(m) = f.get("mismatch").filter(|m| !m.is_null()) {
                let buffer = m.get("buffer").and_then(Value::as_str).unwrap_or("?");
                let index = m.get("index").and_then(Value::as_u64).unwrap_or(0);
                let expected = m.get("expected").and_then(Value::as_str).unwrap_or("?");
                let got = m.get("got").and_then(Value::as_str).unwrap_or("?");
                let mismatches = f.get("mismatches").and_then(Value::as_u64);
                text.push_str(&format!(
                    "the first mismatch is {}: expected {expected}, got {got}",
                    place(spec, size, buffer, index)
                ));
                if let Some(n) = mismatches {
                    text.push_str(&format!(" ({n} elements outside tolerance)"));
                }
                text.push('.');
            } else {
                text.push_str(&format!("{code}."));
            }
            text
        }
    }
}

/// Where element `index` of `buffer` is: row and column when the buffer has rows.
fn place(spec: Option<&KernelTask>, size: usize, buffer: &str, index: u64) -> String {
    let rows = spec.and_then(|s| {
        let b = s.buffers.iter().find(|b| b.name == buffer)?;
        let vars = s.sizes.get(size)?;
        let len = eval_count(&b.len, vars).ok()?;
        let row = eval_count(&b.row_expr(), vars).ok()?;
        let has_rows = b.row.is_some() || last_factor(&b.len).is_some();
        (has_rows && row > 0 && row < len).then_some(row)
    });
    match rows {
        Some(row) => format!(
            "in `{buffer}` at row {}, column {} (element {index})",
            index / row,
            index % row
        ),
        None => format!("in `{buffer}` at element {index}"),
    }
}

/// A time in the unit that suits it.
fn time(s: f64) -> String {
    if s >= 1.0 {
        format!("{s:.3} s")
    } else if s >= 1e-3 {
        format!("{:.3} ms", s * 1e3)
    } else {
        format!("{:.1} µs", s * 1e6)
    }
}

/// A rate with an SI prefix: `1.23 TB/s`.
fn rate(v: f64, unit: &str) -> String {
    let (d, p) = [(1e15, "P"), (1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")]
        .into_iter()
        .find(|(d, _)| v >= *d)
        .unwrap_or((1.0, ""));
    format!("{:.2} {p}{unit}", v / d)
}

fn timing(leg: &LegResult, spec: Option<&KernelTask>) -> String {
    let code = leg.first_code().unwrap_or("");
    let d = leg.detail.as_ref();
    let num = |k: &str| d.and_then(|d| d.get(k)).and_then(Value::as_f64);
    let verdict = match code {
        "faster" => "faster than the reference".to_string(),
        "not-faster" => "not faster than the reference".to_string(),
        "too-slow-to-measure" => "too slow to measure within the budget".to_string(),
        "candidate-noisy" => "too erratic to time (its own times vary too much)".to_string(),
        "timed-launch-mismatch" => "wrong in a timed launch".to_string(),
        _ => match leg.state {
            LegState::Skipped => return "Not timed: an earlier check failed.".into(),
            LegState::Unsettled => format!("not decided this time ({code}; not your fault)"),
            _ => code.to_string(),
        },
    };
    let mut text = format!("Timing: {verdict}.");
    if let Some(s) = num("s") {
        text.push_str(&format!(" Speedup s = {s:.3}"));
        if let (Some(lo), Some(hi)) = (num("ci_low"), num("ci_high")) {
            text.push_str(&format!(" (interval {lo:.3} to {hi:.3})"));
        }
        if let Some(r) = num("ratio") {
            text.push_str(&format!(", needed {r:.2}"));
        }
        text.push('.');
    }
    if let Some(sizes) = d.and_then(|d| d.get("sizes")).and_then(Value::as_array) {
        // Several timed sizes: the speedup above is their geometric mean; each size's own.
        text.push_str(&format!(" The geometric mean over {} sizes:", sizes.len()));
        for x in sizes {
            let n = |k: &str| x.get(k).and_then(Value::as_f64);
            let size = x.get("size").and_then(Value::as_u64).unwrap_or(0) as usize;
            text.push_str(&format!(" at {}", size_values(spec, size)));
            if let Some(s) = n("s") {
                text.push_str(&format!(" s = {s:.3}"));
            }
            if let (Some(c), Some(r)) = (n("median_candidate"), n("median_reference")) {
                text.push_str(&format!(" (reference {}, yours {})", time(r), time(c)));
            }
            text.push(';');
        }
        text.pop();
        text.push('.');
        return text;
    }
    let (cand, refr) = (num("median_candidate"), num("median_reference"));
    if let (Some(c), Some(r)) = (cand, refr) {
        text.push_str(&format!(" Reference {}, yours {} (medians).", time(r), time(c)));
    }
    let Some(c) = cand.filter(|c| *c > 0.0) else {
        return text;
    };
    let size = d.and_then(|d| d.get("size")).and_then(Value::as_u64).unwrap_or(0) as usize;
    let Some(spec) = spec else {
        return text;
    };
    let Some(vars) = spec.sizes.get(size) else {
        return text;
    };
    let device = d
        .and_then(|d| d.get("device"))
        .and_then(|x| x.get("name"))
        .and_then(Value::as_str)
        .unwrap_or("");
    let peak = peak_of(device);
    if let Ok(bytes) = traffic_bytes(spec, vars) {
        let bw = bytes as f64 / c;
        text.push_str(&format!(
            " At {}: {} moved, {}",
            size_values(Some(spec), size),
            human_bytes(bytes),
            rate(bw, "B/s")
        ));
        if let Some(p) = peak {
            text.push_str(&format!(
                " ({:.1}% of the {}'s {})",
                100.0 * bw / p.bytes_per_s,
                p.model,
                rate(p.bytes_per_s, "B/s")
            ));
        }
        if let Some(Ok(flops)) = traffic_flops(spec, vars) {
            let fs = flops as f64 / c;
            text.push_str(&format!(", {}", rate(fs, "FLOP/s")));
            if let Some(p) = peak {
                text.push_str(&format!(
                    " ({:.1}% of its FP32 peak {})",
                    100.0 * fs / p.flops_per_s,
                    rate(p.flops_per_s, "FLOP/s")
                ));
            }
        }
        text.push('.');
    }
    text
}

fn human_bytes(b: u64) -> String {
    rate(b as f64, "B")
}

/// The first `n` characters of `s`, with an ellipsis when cut.
fn cut(s: &str, n: usize) -> String {
    match s.char_indices().nth(n) {
        Some((at, _)) => format!("{}…", &s[..at]),
        None => s.to_string(),
    }
}

/// What `kernel-run`'s detail keeps of the first failing case for the feedback: its size, the
/// family each input drew, the first mismatch, the guards and inputs written; never its seed.
pub(crate) fn first_failure(cases: &[aorlta_record::CaseReport]) -> Value {
    cases
        .iter()
        .find(|c| c.mismatches > 0 || !c.guards_broken.is_empty() || !c.inputs_changed.is_empty())
        .map_or(Value::Null, |c| {
            serde_json::json!({
                "size": c.size,
                "families": c.families,
                "mismatches": c.mismatches,
                "mismatch": c.first_mismatch,
                "guards_broken": c.guards_broken,
                "inputs_changed": c.inputs_changed,
            })
        })
}
