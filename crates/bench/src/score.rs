//! The scoring-run benchmark (`aorlta bench score`): a pool of many distinct Q&A completions,
//! made from the example pools (each line prefixed with its own sample number, which no answer
//! form reads), scored twice by the real `aorlta score` binary as a child process: a fresh run
//! on an empty store, then the cached rerun. Each run's wall time, CPU time and peak resident
//! memory (the child's `ru_maxrss`, from `wait4`) are measured; the rerun's rewards are checked
//! bit for bit against the first run's. Goals: [`GOAL_PER_SECOND`] candidates per second on the
//! first run, the rerun at most [`GOAL_RERUN_RATIO`] of the first run's time, and peak memory
//! under [`GOAL_PEAK_BYTES`].

use aorlta_check::{CoreError, Result};
use aorlta_core::read_pool;
use std::collections::HashSet;
use std::fmt;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::time::{Duration, Instant};

/// The first run's throughput goal, in candidates per second.
pub(crate) const GOAL_PER_SECOND: f64 = 20_000.0;
/// The cached rerun's goal, as a share of the first run's time.
pub(crate) const GOAL_RERUN_RATIO: f64 = 0.25;
/// The peak resident memory goal of either run, in bytes (200 MB).
pub(crate) const GOAL_PEAK_BYTES: u64 = 200_000_000;

/// A generated pool and the run config that scores it, in a folder of their own.
#[derive(Debug)]
pub struct Workload {
    /// The folder (the pool, the config, the run's `out/`).
    pub dir: PathBuf,
    /// The run config.
    pub config: PathBuf,
    /// Candidates in the pool.
    pub candidates: usize,
    /// Distinct completions among them.
    pub distinct: usize,
}

/// Writes `n` completions over the tasks of `tasks`, cycling through the completions of
/// `sources` (pool files), each prefixed with `Sample <i> of <salt>.` so that every one is
/// distinct (and, for another salt, distinct from another workload's), and a run config scoring
/// them with `profile`, `concurrency` at once, into `dir`. `cache` is the config's `cache:`
/// value (`None`: the default SQLite file under `out/`).
#[allow(clippy::too_many_arguments)]
pub fn write_workload(
    dir: &Path,
    tasks: &Path,
    sources: &[PathBuf],
    profile: &Path,
    n: usize,
    concurrency: usize,
    cache: Option<&str>,
    salt: u64,
) -> Result<Workload> {
    let mut base = Vec::new();
    for s in sources {
        base.extend(read_pool(s)?.0);
    }
    if base.is_empty() {
        return Err(CoreError::invalid(
            sources.first().map(PathBuf::as_path).unwrap_or(Path::new("")),
            "no completions to build the workload from",
        ));
    }
    std::fs::create_dir_all(dir).map_err(|e| CoreError::io(dir, e))?;
    let pool = dir.join("pool.jsonl");
    let file = std::fs::File::create(&pool).map_err(|e| CoreError::io(&pool, e))?;
    let mut w = std::io::BufWriter::new(file);
    let mut seen: HashSet<[u8; 32]> = HashSet::with_capacity(n);
    for i in 0..n {
        let c = &base[i % base.len()];
        let completion = format!("Sample {i} of {salt}.\n\n{}", c.completion);
        seen.insert(*blake3::hash(completion.as_bytes()).as_bytes());
        let line = serde_json::json!({"task": c.task, "completion": completion, "id": format!("s{i}")});
        writeln!(w, "{line}").map_err(|e| CoreError::io(&pool, e))?;
    }
    w.flush().map_err(|e| CoreError::io(&pool, e))?;
    let abs = |p: &Path| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf());
    let mut yaml = format!(
        "tasks: {}\npool: pool.jsonl\nprofile: {}\nout: out\nconcurrency: {concurrency}\n",
        json_str(&abs(tasks)),
        json_str(&abs(profile)),
    );
    if let Some(c) = cache {
        yaml.push_str(&format!("cache: {}\n", serde_json::Value::from(c)));
    }
    let config = dir.join("run.yaml");
    std::fs::write(&config, yaml).map_err(|e| CoreError::io(&config, e))?;
    Ok(Workload {
        dir: dir.to_path_buf(),
        config,
        candidates: n,
        distinct: seen.len(),
    })
}

/// A path as a YAML scalar (JSON's string quoting is valid YAML).
fn json_str(p: &Path) -> String {
    serde_json::Value::from(p.display().to_string()).to_string()
}

/// What one child process cost.
#[derive(Debug, Clone)]
pub struct ProcessCost {
    /// How it ended.
    pub status: ExitStatus,
    /// Wall-clock time from spawn to exit.
    pub wall: Duration,
    /// User plus system CPU time.
    pub cpu: Duration,
    /// Peak resident set size, in bytes.
    pub peak_rss: u64,
    /// What it wrote on standard output.
    pub stdout: String,
}

/// Runs `cmd` to its end (standard error passes through, standard output is captured) and
/// measures it through `wait4`.
pub fn run_measured(cmd: &mut Command) -> std::io::Result<ProcessCost> {
    use std::io::Read;
    use std::os::unix::process::ExitStatusExt;
    let start = Instant::now();
    let mut child = cmd.stdout(Stdio::piped()).stdin(Stdio::null()).spawn()?;
    let mut stdout = String::new();
    if let Some(mut out) = child.stdout.take() {
        out.read_to_string(&mut stdout)?;
    }
    // libc, not rustix: rustix's waitpid reports no resource usage, and wait4 is what does.
    let pid = child.id() as libc::pid_t;
    let mut status: libc::c_int = 0;
    // SAFETY: an all-zero `rusage` is a valid value of that plain C struct.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: `pid` is our own unreaped child (std's `Child` has not waited for it), and both
    // pointers are to live locals of the types `wait4` writes.
    let r = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    if r < 0 {
        return Err(std::io::Error::last_os_error());
    }
    let wall = start.elapsed();
    let tv = |t: libc::timeval| Duration::new(t.tv_sec as u64, (t.tv_usec as u32) * 1000);
    Ok(ProcessCost {
        status: ExitStatus::from_raw(status),
        wall,
        cpu: tv(usage.ru_utime) + tv(usage.ru_stime),
        // Linux reports ru_maxrss in KiB.
        peak_rss: usage.ru_maxrss as u64 * 1024,
        stdout,
    })
}

/// The cache hits and misses a run wrote in its `summary.json`.
pub fn run_cache_counts(out: &Path) -> Result<(u64, u64)> {
    let path = out.join("summary.json");
    let text = std::fs::read_to_string(&path).map_err(|e| CoreError::io(&path, e))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| CoreError::invalid(&path, format!("not JSON: {e}")))?;
    let get = |k: &str| v["cache"][k].as_u64();
    match (get("hits"), get("misses")) {
        (Some(h), Some(m)) => Ok((h, m)),
        _ => Err(CoreError::invalid(&path, "no `cache.hits` and `cache.misses`")),
    }
}

/// Compares two `rewards.jsonl` files line by line: the number of lines whose `id`, `reward`
/// (bit for bit) or `scored` differ, and the lines read from the first.
pub fn compare_rewards(a: &Path, b: &Path) -> Result<(usize, usize)> {
    let open = |p: &Path| {
        std::fs::File::open(p)
            .map(std::io::BufReader::new)
            .map_err(|e| CoreError::io(p, e))
    };
    let (ra, rb) = (open(a)?, open(b)?);
    let mut lb = rb.lines();
    let (mut differ, mut n) = (0, 0);
    for la in ra.lines() {
        let la = la.map_err(|e| CoreError::io(a, e))?;
        n += 1;
        let Some(Ok(lb)) = lb.next() else {
            differ += 1;
            continue;
        };
        let key = |l: &str| {
            serde_json::from_str::<serde_json::Value>(l).ok().map(|v| {
                (
                    v["id"].as_str().map(str::to_string),
                    v["reward"].as_f64().map(f64::to_bits),
                    v["scored"].as_bool(),
                )
            })
        };
        if key(&la).is_none() || key(&la) != key(&lb) {
            differ += 1;
        }
    }
    differ += lb.count();
    Ok((differ, n))
}

/// One store's two runs.
#[derive(Debug, Clone)]
pub struct StoreRow {
    /// The store, as people name it (`sqlite`, `postgres`).
    pub store: String,
    /// Candidates in the pool.
    pub candidates: usize,
    /// Distinct completions.
    pub distinct: usize,
    /// The fresh run.
    pub first: ProcessCost,
    /// The cached rerun.
    pub rerun: ProcessCost,
    /// The rerun's cache hits and misses.
    pub rerun_cache: (u64, u64),
    /// Rerun reward lines that differ from the first run's.
    pub differing: usize,
    /// Whether the goals are this store's (the embedded default's); another store's figures
    /// are reported beside it.
    pub goals: bool,
    /// The machine's 1-minute load average just before the first run (other work on the
    /// machine slows both runs).
    pub load: Option<f64>,
}

/// The 1-minute load average, from `/proc/loadavg`.
pub fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg")
        .ok()?
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

impl StoreRow {
    /// First-run candidates per second.
    pub fn per_second(&self) -> f64 {
        rate(self.candidates, self.first.wall)
    }

    /// Rerun time over first-run time.
    pub fn ratio(&self) -> f64 {
        let f = self.first.wall.as_secs_f64();
        if f > 0.0 {
            self.rerun.wall.as_secs_f64() / f
        } else {
            0.0
        }
    }

    /// The larger of the two runs' peaks, in bytes.
    pub fn peak(&self) -> u64 {
        self.first.peak_rss.max(self.rerun.peak_rss)
    }

    /// Whether every goal is met (always, for a store the goals are not for, but that its
    /// rerun's rewards are the first run's).
    pub fn meets_goals(&self) -> bool {
        if !self.goals {
            return self.differing == 0;
        }
        self.per_second() >= GOAL_PER_SECOND
            && self.ratio() <= GOAL_RERUN_RATIO
            && self.peak() < GOAL_PEAK_BYTES
            && self.differing == 0
    }
}

fn rate(n: usize, d: Duration) -> f64 {
    let s = d.as_secs_f64();
    if s > 0.0 { n as f64 / s } else { 0.0 }
}

/// The benchmark's figures: one row per store.
#[derive(Debug, Clone)]
pub struct ScoreBenchReport {
    /// Candidates scored at once.
    pub concurrency: usize,
    /// CPUs the machine has.
    pub cpus: usize,
    /// One row per store, in the order run.
    pub rows: Vec<StoreRow>,
}

fn mib(b: u64) -> String {
    format!("{:.1}", b as f64 / (1 << 20) as f64)
}

fn met(ok: bool) -> &'static str {
    if ok { "met" } else { "NOT met" }
}

impl fmt::Display for ScoreBenchReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        writeln!(
            f,
            "aorlta score, Q&A profile, concurrency {}, {} CPUs: a fresh run, then the cached rerun",
            self.concurrency, self.cpus
        )?;
        let head = [
            "store",
            "candidates",
            "distinct",
            "load",
            "first s",
            "first cand/s",
            "first CPU s",
            "rerun s",
            "rerun CPU s",
            "rerun/first",
            "rerun hits",
            "peak MiB first",
            "peak MiB rerun",
            "rerun rewards",
        ];
        let rows: Vec<[String; 14]> = self
            .rows
            .iter()
            .map(|r| {
                [
                    r.store.clone(),
                    r.candidates.to_string(),
                    r.distinct.to_string(),
                    r.load.map_or("-".into(), |l| format!("{l:.2}")),
                    format!("{:.2}", r.first.wall.as_secs_f64()),
                    format!("{:.0}", r.per_second()),
                    format!("{:.2}", r.first.cpu.as_secs_f64()),
                    format!("{:.2}", r.rerun.wall.as_secs_f64()),
                    format!("{:.2}", r.rerun.cpu.as_secs_f64()),
                    format!("{:.1}%", 100.0 * r.ratio()),
                    format!(
                        "{:.1}%",
                        100.0 * r.rerun_cache.0 as f64 / (r.rerun_cache.0 + r.rerun_cache.1).max(1) as f64
                    ),
                    mib(r.first.peak_rss),
                    mib(r.rerun.peak_rss),
                    if r.differing == 0 {
                        "identical".to_string()
                    } else {
                        format!("{} differ", r.differing)
                    },
                ]
            })
            .collect();
        let widths: Vec<usize> = (0..head.len())
            .map(|i| {
                rows.iter()
                    .map(|r| r[i].len())
                    .chain([head[i].len()])
                    .max()
                    .unwrap_or(0)
            })
            .collect();
        let line = |f: &mut fmt::Formatter<'_>, cells: &[&str]| -> fmt::Result {
            let mut s = String::from(" ");
            for (i, c) in cells.iter().enumerate() {
                if i == 0 {
                    s.push_str(&format!(" {c:<w$}", w = widths[i]));
                } else {
                    s.push_str(&format!("  {c:>w$}", w = widths[i]));
                }
            }
            writeln!(f, "{}", s.trim_end())
        };
        line(f, &head)?;
        for r in &rows {
            line(f, &r.iter().map(String::as_str).collect::<Vec<_>>())?;
        }
        writeln!(f)?;
        for r in self.rows.iter().filter(|r| r.goals) {
            writeln!(
                f,
                "  {}: first run {:.0} cand/s (goal >= {:.0}: {}), rerun {:.1}% of it (goal <= {:.0}%: {}), \
                 peak {} MiB (goal < {:.0} MB = {} MiB: {})",
                r.store,
                r.per_second(),
                GOAL_PER_SECOND,
                met(r.per_second() >= GOAL_PER_SECOND),
                100.0 * r.ratio(),
                100.0 * GOAL_RERUN_RATIO,
                met(r.ratio() <= GOAL_RERUN_RATIO),
                mib(r.peak()),
                GOAL_PEAK_BYTES as f64 / 1e6,
                mib(GOAL_PEAK_BYTES),
                met(r.peak() < GOAL_PEAK_BYTES),
            )?;
        }
        for r in self.rows.iter().filter(|r| !r.goals) {
            writeln!(
                f,
                "  {}: first run {:.0} cand/s, rerun {:.1}% of it, peak {} MiB (reported beside SQLite: \
                 the goals are the embedded default's)",
                r.store,
                r.per_second(),
                100.0 * r.ratio(),
                mib(r.peak()),
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_workload_is_distinct_and_keeps_every_answer() {
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("src.jsonl");
        std::fs::write(
            &src,
            "{\"task\":\"a\",\"completion\":\"so \\\\boxed{2}\"}\n{\"task\":\"b\",\"completion\":\"so \\\\boxed{3}\"}\n",
        )
        .unwrap();
        let w = write_workload(
            &dir.path().join("w"),
            Path::new("t.jsonl"),
            std::slice::from_ref(&src),
            Path::new("p.yaml"),
            5,
            2,
            Some("postgres://u@h/db"),
            7,
        )
        .unwrap();
        assert_eq!((w.candidates, w.distinct), (5, 5));
        let (cands, skipped) = read_pool(&w.dir.join("pool.jsonl")).unwrap();
        assert!(skipped.is_empty());
        assert_eq!(cands.len(), 5);
        assert_eq!(cands[3].task, "b");
        assert_eq!(cands[3].completion, "Sample 3 of 7.\n\nso \\boxed{3}");
        let cfg = std::fs::read_to_string(&w.config).unwrap();
        assert!(
            cfg.contains("concurrency: 2") && cfg.contains("cache: \"postgres://u@h/db\""),
            "{cfg}"
        );
    }

    #[test]
    fn a_child_is_measured_and_rewards_are_compared() {
        let m = run_measured(Command::new("sh").args(["-c", "echo hi"])).unwrap();
        assert!(m.status.success());
        assert_eq!(m.stdout, "hi\n");
        assert!(m.peak_rss > 0);
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a"), dir.path().join("b"));
        std::fs::write(&a, "{\"id\":\"x\",\"reward\":0.1,\"scored\":true}\n").unwrap();
        std::fs::write(&b, "{\"id\":\"x\",\"reward\":0.1,\"scored\":true}\n").unwrap();
        assert_eq!(compare_rewards(&a, &b).unwrap(), (0, 1));
        std::fs::write(
            &b,
            "{\"id\":\"x\",\"reward\":0.10000000000000002,\"scored\":true}\n",
        )
        .unwrap();
        assert_eq!(compare_rewards(&a, &b).unwrap(), (1, 1));
    }
}
