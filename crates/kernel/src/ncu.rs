//! `kernel-profile`: the candidate's kernel under Nsight Compute (`ncu`), in a job of its own,
//! never during a timed launch. A profile marks the leg `informational` (the loader refuses it
//! otherwise): its figures describe the kernel for the model's feedback and never enter a reward.
//!
//! The leg leases its GPU alone, writes a launch job ([`Work::Launch`]: the candidate alone,
//! launched once on inputs of the typical law at one size) and runs a one-shot harness process
//! (`aorlta-harness run --job FILE`) under `ncu`, which profiles the one launch whose function
//! name is the task's kernel (`--kernel-name-base function --kernel-name regex:^NAME$
//! --launch-count 1`) and writes its metrics as CSV (`--csv --page raw --log-file`). The leg
//! reads the speed-of-light memory and compute throughput, achieved occupancy, registers per
//! thread, shared memory per block and the warp stall reasons, and summarises them.
//!
//! Parameters: `size` (0), `timeout-s` (120: ncu replays the kernel once per metric pass).
//! Unsettled `no-profiler` where no `ncu` is found (config `kernel.ncu`, else `$AORLTA_NCU`,
//! else `ncu` on the PATH, else `/usr/local/cuda/bin/ncu`), `profiler-failed` where it ran and
//! gave no figures (its log's last lines say why: a missing permission to the GPU's counters,
//! `ERR_NVGPUCTRPERM`, is the usual one).

use super::exec::{RefBuilt, compile_both, findings_outcome, image, inputs};
use crate::reason::KernelReason;
use aorlta_check::{Adapter, LegInput, LegOutput, Task};
use aorlta_record::{HARNESS_FORMAT, HarnessJob, HarnessRecord, JobReference, LaunchWork, Work};
use aorlta_record::{LegState, Reason};
use serde_json::{Map, Value, json};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Bumped whenever the profile leg's results can change.
const VERSION: &str = "1";

/// The metrics asked of ncu: what the summary reads, by the name ncu reports it under.
pub(crate) const METRICS: &[(&str, &str)] = &[
    (
        "memory_sol_pct",
        "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed",
    ),
    (
        "compute_sol_pct",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed",
    ),
    (
        "achieved_occupancy_pct",
        "sm__warps_active.avg.pct_of_peak_sustained_active",
    ),
    ("registers_per_thread", "launch__registers_per_thread"),
    (
        "static_shared_bytes_per_block",
        "launch__shared_mem_per_block_static",
    ),
    (
        "dynamic_shared_bytes_per_block",
        "launch__shared_mem_per_block_dynamic",
    ),
    ("duration_ns", "gpu__time_duration.sum"),
];

/// The warp stall reasons asked of ncu (cycles a warp waits per issued instruction, by reason).
pub(crate) const STALLS: &[&str] = &[
    "long_scoreboard",
    "short_scoreboard",
    "barrier",
    "membar",
    "mio_throttle",
    "lg_throttle",
    "math_pipe_throttle",
    "wait",
    "not_selected",
    "dispatch_stall",
    "no_instruction",
    "branch_resolving",
    "drain",
    "imc_miss",
    "tex_throttle",
    "sleeping",
];

fn stall_metric(reason: &str) -> String {
    format!("smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio")
}

/// Every metric name passed to `--metrics`.
pub(crate) fn metric_list() -> Vec<String> {
    METRICS
        .iter()
        .map(|(_, m)| m.to_string())
        .chain(STALLS.iter().map(|s| stall_metric(s)))
        .collect()
}

/// The leg's parameters.
#[derive(Debug, Clone, PartialEq)]
struct Params {
    size: usize,
    timeout_s: f64,
}

fn parse_params(value: &Value) -> Result<Params, String> {
    let mut p = Params {
        size: 0,
        timeout_s: 120.0,
    };
    let map = match value {
        Value::Null => return Ok(p),
        Value::Object(m) => m,
        _ => return Err("parameters must be a mapping".into()),
    };
    for (k, v) in map {
        match k.as_str() {
            "size" => p.size = v.as_u64().ok_or("`size` must be a whole number")? as usize,
            "timeout-s" => {
                p.timeout_s = v
                    .as_f64()
                    .filter(|t| *t > 0.0)
                    .ok_or("`timeout-s` must be a positive number")?
            }
            other => return Err(format!("unknown parameter `{other}` (known: size, timeout-s)")),
        }
    }
    Ok(p)
}

/// Nsight Compute: the configured path, else `$AORLTA_NCU`, else `ncu` on the PATH, else the
/// CUDA toolkit's.
pub(crate) fn find_ncu(configured: Option<&Path>) -> Option<PathBuf> {
    if let Some(p) = configured {
        return p.is_file().then(|| p.to_path_buf());
    }
    if let Some(p) = std::env::var_os("AORLTA_NCU") {
        let p = PathBuf::from(p);
        return p.is_file().then_some(p);
    }
    crate::compiler::find_on_path("ncu").or_else(|| {
        let p = PathBuf::from("/usr/local/cuda/bin/ncu");
        p.is_file().then_some(p)
    })
}

/// One profiled launch's metrics, by ncu's name: value and unit.
pub(crate) type Metrics = Map<String, Value>;

/// Reads ncu's `--csv --page raw` log: a header row of column names, a row of units, then one
/// row per profiled launch (the first is taken). Lines before the header (ncu's own `==PROF==`
/// messages) are skipped. Numbers may carry thousands separators.
pub(crate) fn parse_csv(text: &str) -> Result<Metrics, String> {
    let mut rows = text
        .lines()
        .skip_while(|l| !l.starts_with("\"ID\""))
        .map(split_csv_line);
    let header = rows.next().ok_or("no metrics table in ncu's output")?;
    let units = rows.next().ok_or("ncu's table has no units row")?;
    let values = rows.next().ok_or("ncu profiled no launch of the kernel")?;
    let mut out = Map::new();
    for (i, name) in header.iter().enumerate() {
        let raw = values.get(i).map(String::as_str).unwrap_or("");
        let unit = units.get(i).map(String::as_str).unwrap_or("");
        let number = raw.replace(',', "").parse::<f64>().ok();
        let value = match number {
            Some(x) => json!(x),
            None => json!(raw),
        };
        out.insert(name.clone(), json!({"value": value, "unit": unit}));
    }
    Ok(out)
}

fn split_csv_line(line: &str) -> Vec<String> {
    let mut cells = Vec::new();
    let mut cell = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                cell.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => cells.push(std::mem::take(&mut cell)),
            (c, _) => cell.push(c),
        }
    }
    cells.push(cell);
    cells
}

/// The summary a person and a model read: speed of light, occupancy, resources, the three
/// largest stall reasons.
pub(crate) fn summarise(m: &Metrics) -> Value {
    let num = |name: &str| m.get(name).and_then(|v| v.get("value")).and_then(Value::as_f64);
    let mut s = Map::new();
    for (key, metric) in METRICS {
        if let Some(x) = num(metric) {
            s.insert((*key).into(), json!(x));
        }
    }
    let mut stalls: Vec<(&str, f64)> = STALLS
        .iter()
        .filter_map(|r| num(&stall_metric(r)).map(|x| (*r, x)))
        .filter(|(_, x)| *x > 0.0)
        .collect();
    stalls.sort_by(|a, b| b.1.total_cmp(&a.1));
    s.insert(
        "top_stalls".into(),
        json!(
            stalls
                .iter()
                .take(3)
                .map(|(r, x)| json!({"reason": r.replace('_', " "), "cycles_per_issue": x}))
                .collect::<Vec<_>>()
        ),
    );
    Value::Object(s)
}

/// `kernel-profile`.
pub struct KernelProfile;

impl Adapter for KernelProfile {
    fn sources(&self) -> Option<String> {
        Some(crate::identity::with_harness())
    }
    fn name(&self) -> &'static str {
        "kernel-profile"
    }
    fn version(&self) -> &'static str {
        VERSION
    }
    fn check_params(&self, p: &Value) -> Result<(), String> {
        parse_params(p).map(|_| ())
    }
    fn informational_only(&self) -> bool {
        true
    }
    fn identity(&self, task: &Task, _params: &Value, env: &aorlta_check::Env) -> String {
        super::run::harness_identity(task, env)
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        crate::exec::labelled(input, profile_leg(input))
    }
}

fn profile_leg(input: &LegInput<'_>) -> LegOutput {
    let p = match parse_params(input.params) {
        Ok(p) => p,
        Err(e) => return LegOutput::unsettled(KernelReason::BadParams, e),
    };
    let i = match inputs(input) {
        Ok(i) => i,
        Err(o) => return o,
    };
    let Some(ncu) = find_ncu(i.env.config().ncu.as_deref()) else {
        return LegOutput::unsettled(
            KernelReason::NoProfiler,
            "no Nsight Compute: set `kernel.ncu` or $AORLTA_NCU, or put `ncu` on the PATH",
        );
    };
    if p.size >= i.task.spec.sizes.len() {
        return LegOutput::unsettled(
            KernelReason::BadParams,
            format!("size {}: the task has {}", p.size, i.task.spec.sizes.len()),
        );
    }
    let (reference, candidate) = match compile_both(&i) {
        Ok(c) => c,
        Err(o) => return o,
    };
    let env = i.env;
    let leases = match env.leases() {
        Ok(l) => l,
        Err(e) => return LegOutput::unsettled(KernelReason::NoGpu, e),
    };
    let wait = Duration::from_secs_f64(env.config().lease_wait_s);
    // The profiler replays the kernel and reads the GPU's counters: the GPU is its alone.
    let lease = match leases.acquire_as(wait, crate::lease::Use::Alone) {
        Ok(l) => l,
        Err(e) => return LegOutput::unsettled(KernelReason::NoGpuLease, e.to_string()),
    };
    let dir = match tempfile::Builder::new()
        .prefix("profile-")
        .tempdir_in(env.work_dir())
    {
        Ok(d) => d,
        Err(e) => return LegOutput::unsettled(KernelReason::WorkDirError, e.to_string()),
    };
    let task = if env.is_fake() {
        crate::exec::shrink_for_fake(&i.task.spec)
    } else {
        i.task.spec.clone()
    };
    let seed = env.next_seed(&format!(
        "{}/{}/profile",
        i.task.spec.id,
        aorlta_check::hash_str(i.source)
    ));
    let job = HarnessJob {
        format: HARNESS_FORMAT,
        id: format!("{}-{}", i.task.spec.id, env.next_job()),
        task,
        reference: match &reference {
            RefBuilt::Kernel(c) => JobReference::Kernel(image(c)),
            RefBuilt::Torch(t) => JobReference::Torch(t.clone()),
        },
        candidate: image(&candidate),
        record: dir.path().join("record.json"),
        launch_timeout_s: 10.0,
        work: Work::Launch(LaunchWork { size: p.size, seed }),
    };
    let job_path = dir.path().join("job.json");
    let written = serde_json::to_vec(&job)
        .map_err(|e| e.to_string())
        .and_then(|t| std::fs::write(&job_path, t).map_err(|e| format!("{}: {e}", job_path.display())));
    if let Err(e) = written {
        return LegOutput::unsettled(KernelReason::WorkDirError, e);
    }
    let log = dir.path().join("ncu.csv");
    let harness = env.harness_command("run");
    let mut cmd = Command::new(&ncu);
    cmd.args(["--csv", "--page", "raw", "--target-processes", "all"])
        .args(["--kernel-name-base", "function", "--launch-count", "1"])
        .arg("--kernel-name")
        .arg(format!("regex:^{}$", i.task.kernel_name()))
        .arg("--metrics")
        .arg(metric_list().join(","))
        .arg("--log-file")
        .arg(&log)
        .arg(harness.get_program())
        .args(harness.get_args())
        .arg("--device")
        .arg(lease.gpu().to_string())
        .arg("--job")
        .arg(&job_path);
    for (k, v) in harness.get_envs() {
        match v {
            Some(v) => cmd.env(k, v),
            None => cmd.env_remove(k),
        };
    }
    let started = Instant::now();
    let ran = run_with_timeout(
        cmd,
        Duration::from_secs_f64(p.timeout_s),
        &dir.path().join("ncu.out"),
    );
    drop(lease);
    let elapsed_s = started.elapsed().as_secs_f64();
    let facts = json!({
        "size": p.size,
        "kernel": i.task.kernel_name(),
        "profiler": ncu.display().to_string(),
        "profile_s": elapsed_s,
    });
    let tail = |extra: &str| {
        let text = std::fs::read_to_string(dir.path().join("ncu.out")).unwrap_or_default()
            + &std::fs::read_to_string(&log).unwrap_or_default();
        let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
        format!(
            "{extra}; its last lines: {}",
            lines[lines.len().saturating_sub(4)..].join(" | ")
        )
    };
    match ran {
        Ok(status) if status.success() => {}
        Ok(status) => {
            return LegOutput::unsettled(
                KernelReason::ProfilerFailed,
                tail(&format!("ncu exited with {status}")),
            )
            .with_detail(facts);
        }
        Err(e) => return LegOutput::unsettled(KernelReason::ProfilerFailed, e).with_detail(facts),
    }
    let record: Option<HarnessRecord> = std::fs::read(&job.record)
        .ok()
        .and_then(|b| serde_json::from_slice(&b).ok());
    let Some(record) = record else {
        return LegOutput::unsettled(
            KernelReason::HarnessIncomplete,
            tail("the profiled harness wrote no record"),
        )
        .with_detail(facts);
    };
    if let Some(o) = findings_outcome(&record) {
        // Reported, never rewarded: a launch that failed here says so as unsettled.
        let detail = o.reasons.first().map(|r| format!("{}: {}", r.code, r.detail));
        return LegOutput::unsettled(
            KernelReason::ProfilerFailed,
            format!(
                "the profiled launch did not complete: {}",
                detail.unwrap_or_default()
            ),
        )
        .with_detail(facts);
    }
    let text = std::fs::read_to_string(&log).unwrap_or_default();
    let metrics = match parse_csv(&text) {
        Ok(m) => m,
        Err(e) => {
            return LegOutput::unsettled(KernelReason::ProfilerFailed, tail(&e)).with_detail(facts);
        }
    };
    let summary = summarise(&metrics);
    let mut detail = facts;
    detail["summary"] = summary;
    detail["geometry"] = json!(record.launch.map(|l| l.geometry));
    detail["metrics"] = Value::Object(metrics);
    LegOutput {
        state: LegState::Clean,
        reasons: vec![Reason::new(
            "profiled",
            format!("Nsight Compute profiled one launch at size {}", p.size),
        )],
        detail: Some(detail),
        extracted: None,
    }
}

/// Runs `cmd` in a process group of its own with its output to `out`; kills the group at the
/// timeout.
fn run_with_timeout(
    mut cmd: Command,
    timeout: Duration,
    out: &Path,
) -> Result<std::process::ExitStatus, String> {
    use std::os::unix::process::CommandExt;
    let file = std::fs::File::create(out).map_err(|e| format!("{}: {e}", out.display()))?;
    let err = file.try_clone().map_err(|e| e.to_string())?;
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(file)
        .stderr(err)
        .process_group(0)
        .spawn()
        .map_err(|e| format!("cannot start ncu: {e}"))?;
    let deadline = Instant::now() + timeout;
    loop {
        match child.try_wait() {
            Ok(Some(status)) => return Ok(status),
            Ok(None) if Instant::now() >= deadline => {
                // SAFETY: signalling the process group the child leads (`process_group(0)`).
                unsafe { libc::kill(-(child.id() as i32), libc::SIGKILL) };
                let _ = child.wait();
                return Err(format!("ncu ran past {} s and was killed", timeout.as_secs_f64()));
            }
            Ok(None) => std::thread::sleep(Duration::from_millis(20)),
            Err(e) => return Err(e.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// ncu's raw page as it writes it: its messages, the header, the units, one launch.
    pub(crate) const SAMPLE: &str = "==PROF== Connected to process 4242 (/opt/aorlta-harness)\n\
        ==PROF== Profiling \"vector_add\": 0%....50%....100% - 9 passes\n\
        \"ID\",\"Process ID\",\"Process Name\",\"Kernel Name\",\"gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed\",\"sm__throughput.avg.pct_of_peak_sustained_elapsed\",\"sm__warps_active.avg.pct_of_peak_sustained_active\",\"launch__registers_per_thread\",\"launch__shared_mem_per_block_static\",\"launch__shared_mem_per_block_dynamic\",\"gpu__time_duration.sum\",\"smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio\",\"smsp__average_warps_issue_stalled_barrier_per_issue_active.ratio\",\"smsp__average_warps_issue_stalled_wait_per_issue_active.ratio\",\"smsp__average_warps_issue_stalled_not_selected_per_issue_active.ratio\"\n\
        \"\",\"\",\"\",\"\",\"%\",\"%\",\"%\",\"register/thread\",\"byte/block\",\"byte/block\",\"nsecond\",\"ratio\",\"ratio\",\"ratio\",\"ratio\"\n\
        \"0\",\"4242\",\"aorlta-harness\",\"vector_add\",\"91.52\",\"12.07\",\"83.4\",\"16\",\"0\",\"1,024\",\"12,480\",\"24.31\",\"0\",\"1.92\",\"0.41\"\n";

    #[test]
    fn the_raw_csv_page_is_read_after_ncus_messages_with_units_and_separators() {
        let m = parse_csv(SAMPLE).unwrap();
        let v = |k: &str| m[k]["value"].clone();
        assert_eq!(v("Kernel Name"), json!("vector_add"));
        assert_eq!(v("launch__shared_mem_per_block_dynamic"), json!(1024.0));
        assert_eq!(v("gpu__time_duration.sum"), json!(12480.0));
        assert_eq!(m["gpu__time_duration.sum"]["unit"], json!("nsecond"));
        let s = summarise(&m);
        assert_eq!(s["memory_sol_pct"], json!(91.52));
        assert_eq!(s["compute_sol_pct"], json!(12.07));
        assert_eq!(s["achieved_occupancy_pct"], json!(83.4));
        assert_eq!(s["registers_per_thread"], json!(16.0));
        // The largest stalls first, a zero one left out.
        assert_eq!(
            s["top_stalls"],
            json!([
                {"reason": "long scoreboard", "cycles_per_issue": 24.31},
                {"reason": "wait", "cycles_per_issue": 1.92},
                {"reason": "not selected", "cycles_per_issue": 0.41},
            ])
        );
    }

    #[test]
    fn a_table_without_a_launch_or_a_header_is_an_error() {
        assert!(
            parse_csv("==PROF== No kernels were profiled.\n")
                .unwrap_err()
                .contains("no metrics table")
        );
        let head_only: String = SAMPLE.lines().take(4).map(|l| format!("{l}\n")).collect();
        assert!(parse_csv(&head_only).unwrap_err().contains("no launch"));
    }

    #[test]
    fn every_metric_is_asked_once_and_parameters_are_checked() {
        let list = metric_list();
        let unique: std::collections::BTreeSet<&String> = list.iter().collect();
        assert_eq!(unique.len(), list.len());
        assert_eq!(list.len(), METRICS.len() + STALLS.len());
        assert_eq!(
            parse_params(&json!({"size": 1, "timeout-s": 30})).unwrap().size,
            1
        );
        assert!(
            parse_params(&json!({"sizes": 1}))
                .unwrap_err()
                .contains("unknown parameter `sizes`")
        );
        assert!(parse_params(&json!({"timeout-s": 0})).is_err());
    }

    #[test]
    fn quoted_cells_keep_their_commas_and_quotes() {
        assert_eq!(
            split_csv_line(r#""a,b","say ""hi""",3"#),
            vec!["a,b".to_string(), "say \"hi\"".into(), "3".into()]
        );
    }
}
