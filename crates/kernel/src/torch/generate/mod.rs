//! `aorlta task generate`: kernel tasks made by composing PyTorch operators, each kept only if
//! it is checked. Every module is written as a problem file in KernelBench's format
//! (`DIR/problems/`, `ops.rs`) and imported by the importer (`DIR/tasks/`), so a generated task
//! is exactly what an import produces. Then, in order, a task is dropped when:
//!
//! 1. `import`: the importer refuses the problem (its reason, as in IMPORT.md);
//! 2. `measure`: the module cannot be measured (`measure.py`);
//! 3. `too-small` / `too-large`: the bytes it moves or its operations at the timed size are
//!    outside the configuration's bounds (launch-bound, or minutes);
//! 4. `duplicate`: it computes what an earlier task computes (same outputs on fixed inputs at a
//!    small batch, and same sizes), whatever its text;
//! 5. `sanity`: the check the caller gives (`aorlta task check --fake-gpu`'s: the module's real
//!    outputs, on the CPU, told from a kernel computing nothing) fails.
//!
//! The kept tasks stay in `DIR/tasks/`, each labelled with a difficulty from its operators and a
//! split (held out when any of its families is one the configuration holds out);
//! `DIR/tasks.jsonl` lists them, `DIR/train.parquet` and `DIR/held-out.parquet` are the
//! training set in verl's layout (written by `aorlta_app::write_generated_set`), `DIR/GENERATE.md` the counts and every drop.

pub mod config;
mod ops;
pub mod pool;

pub use config::{Dt, Family, GeneratorConfig};
pub use ops::{Generated, generate_one};

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The measuring script, run next to the probe.
const MEASURE: &str = include_str!("measure.py");

/// What `generate` is asked for.
#[derive(Debug, Clone)]
pub struct GenerateOptions {
    /// Tasks to keep: modules are generated, in index order, until this many pass every check.
    pub count: u64,
    /// The seed: the same seed and configuration give the same modules.
    pub seed: u64,
    /// The output folder.
    pub out: PathBuf,
    /// A Python with torch (trusted: it runs the generated modules).
    pub python: PathBuf,
    /// Processes (and checks) run at once.
    pub jobs: usize,
}

/// Why a generated module is not a task of the set.
#[derive(Debug, Clone, PartialEq)]
pub enum Dropped {
    /// The importer refused it.
    Import(String),
    /// It could not be measured.
    Measure(String),
    /// It moves fewer bytes than the lower bound.
    TooSmall(u64),
    /// It moves more bytes, or does more operations, than the upper bounds.
    TooLarge(String),
    /// It computes what the named earlier task computes.
    Duplicate(String),
    /// The sanity check failed.
    Sanity(String),
}

impl Dropped {
    /// The reason's code in the report.
    pub fn code(&self) -> &'static str {
        match self {
            Dropped::Import(_) => "import",
            Dropped::Measure(_) => "measure",
            Dropped::TooSmall(_) => "too-small",
            Dropped::TooLarge(_) => "too-large",
            Dropped::Duplicate(_) => "duplicate",
            Dropped::Sanity(_) => "sanity",
        }
    }

    /// The reason in words.
    pub fn detail(&self) -> String {
        match self {
            Dropped::Import(w) | Dropped::Measure(w) | Dropped::Sanity(w) => w.clone(),
            Dropped::TooSmall(b) => format!("moves {b} bytes"),
            Dropped::TooLarge(w) => w.clone(),
            Dropped::Duplicate(id) => format!("computes what `{id}` computes"),
        }
    }
}

/// The order reasons are counted in.
pub const DROP_CODES: [&str; 6] = [
    "import",
    "measure",
    "too-small",
    "too-large",
    "duplicate",
    "sanity",
];

/// One generated module and what became of it.
#[derive(Debug, Clone)]
pub struct GeneratedRow {
    /// Its index in the set.
    pub index: u64,
    /// The task id.
    pub id: String,
    /// The module.
    pub module: Generated,
    /// The problem file.
    pub problem: PathBuf,
    /// `easy`, `medium` or `hard`.
    pub difficulty: &'static str,
    /// `train` or `held-out`.
    pub split: &'static str,
    /// Bytes read and written at the timed size (when measured).
    pub bytes: Option<u64>,
    /// Floating-point operations at the timed size (when measured).
    pub flops: Option<u64>,
    /// The task file, or why the module was dropped.
    pub outcome: Result<PathBuf, Dropped>,
}

/// The whole run.
#[derive(Debug, Clone)]
pub struct GenerateReport {
    /// The seed.
    pub seed: u64,
    /// Tasks asked for (`--count`).
    pub asked: u64,
    /// One row per generated module, in order.
    pub rows: Vec<GeneratedRow>,
    /// Seconds the run took.
    pub seconds: f64,
}

impl GenerateReport {
    /// The rows kept.
    pub fn kept(&self) -> impl Iterator<Item = &GeneratedRow> {
        self.rows.iter().filter(|r| r.outcome.is_ok())
    }

    /// Drops per reason code, every code listed.
    pub fn dropped(&self) -> Vec<(&'static str, usize)> {
        DROP_CODES
            .iter()
            .map(|c| {
                (
                    *c,
                    self.rows
                        .iter()
                        .filter(|r| matches!(&r.outcome, Err(d) if d.code() == *c))
                        .count(),
                )
            })
            .collect()
    }

    /// `kept 140 of 200 (import 3, measure 0, too-small 20, ...)`.
    pub fn summary(&self) -> String {
        let drops: Vec<String> = self.dropped().iter().map(|(c, n)| format!("{c} {n}")).collect();
        format!(
            "kept {} of {} generated tasks; dropped: {}",
            self.kept().count(),
            self.rows.len(),
            drops.join(", ")
        )
    }

    /// The report as Markdown: the counts, the kept tasks by family, split and difficulty, then
    /// every drop with its reason.
    pub fn markdown(&self, config_name: &str) -> String {
        let mut s = format!(
            "# Generated tasks\n\n`aorlta task generate --count {} --seed {} --config {config_name}`, {:.0} s.\n\n{}.\n\n",
            self.asked,
            self.seed,
            self.seconds,
            self.summary()
        );
        let mut by: BTreeMap<(String, &str), usize> = BTreeMap::new();
        for r in self.kept() {
            let mut fams: Vec<&str> = r.module.families.iter().map(|f| f.name()).collect();
            fams.sort();
            fams.dedup();
            for f in fams {
                *by.entry((f.to_string(), "tasks")).or_default() += 1;
            }
            *by.entry((format!("split {}", r.split), "tasks")).or_default() += 1;
            *by.entry((format!("difficulty {}", r.difficulty), "tasks"))
                .or_default() += 1;
            *by.entry((format!("dtype {}", r.module.dtype.name()), "tasks"))
                .or_default() += 1;
            *by.entry((format!("shape {}", r.module.shape), "tasks"))
                .or_default() += 1;
        }
        s.push_str("| kept, by | tasks |\n|---|---|\n");
        for ((k, _), n) in &by {
            s.push_str(&format!("| {k} | {n} |\n"));
        }
        s.push_str("\n| module | operators | result |\n|---|---|---|\n");
        for r in &self.rows {
            let result = match &r.outcome {
                Ok(_) => format!("kept ({}, {})", r.difficulty, r.split),
                Err(d) => format!(
                    "dropped, {}: {}",
                    d.code(),
                    d.detail().replace('|', "\\|").replace('\n', " ")
                ),
            };
            s.push_str(&format!(
                "| `{}` | {} | {result} |\n",
                r.id,
                r.module.ops.join(", ")
            ));
        }
        s
    }
}

/// The task id of module `index` of seed `seed`: `gen1_00017_gelu_sum1_softmax`.
pub fn task_id(seed: u64, index: u64, module: &Generated) -> String {
    format!("gen{seed}_{index:05}_{}", module.ops.join("_"))
}

/// The problem file's name of a task id: the id without its `genS_` prefix (the importer names
/// the kernel after the file, without its number).
fn problem_name(id: &str) -> String {
    let rest = id.split_once('_').map_or(id, |(_, r)| r);
    format!("{rest}.py")
}

/// The journal of a run's checks in its folder, a line per module checked, written as each check
/// ends, so that a run stopped part-way resumes without checking again what it had checked
/// (`aorlta task generate --resume`).
pub const CHECK_JOURNAL: &str = "checked.jsonl";

/// At most this many modules per task asked for are generated before the set is given up as
/// short (a configuration whose bounds drop nearly everything).
pub const MODULES_PER_TASK_AT_MOST: u64 = 4;

/// Generates modules of `opts.seed` in index order, imports, measures and checks them into
/// `opts.out` until `opts.count` are kept (or [`MODULES_PER_TASK_AT_MOST`] times that many were
/// generated): the first round generates `opts.count`, each next round as many as the keep rate
/// so far says are missing, and the modules after the `opts.count`-th kept one are left out, so
/// the set of a seed is the first `count` modules that pass and a larger set holds a smaller one.
/// `sanity` is the check each remaining task file must pass (called from `opts.jobs` threads);
/// `progress` gets one line per stage and per drop.
pub fn generate(
    config: &GeneratorConfig,
    config_name: &str,
    opts: &GenerateOptions,
    sanity: &(dyn Fn(&Path) -> Result<(), String> + Sync),
    progress: &mut dyn FnMut(&str),
) -> std::io::Result<GenerateReport> {
    let started = std::time::Instant::now();
    let out = &opts.out;
    let (problems_dir, tasks_dir) = (out.join("problems"), out.join("tasks"));
    let ours = out.join("GENERATE.md").exists() || out.join(CHECK_JOURNAL).exists();
    if (problems_dir.exists() || tasks_dir.exists()) && !ours {
        return Err(std::io::Error::other(format!(
            "{}: holds problems/ or tasks/ and neither GENERATE.md nor {CHECK_JOURNAL}: not a folder this command wrote",
            out.display()
        )));
    }
    for d in [&problems_dir, &tasks_dir] {
        if d.exists() {
            std::fs::remove_dir_all(d)?;
        }
        std::fs::create_dir_all(d)?;
    }
    let limit = opts.count.saturating_mul(MODULES_PER_TASK_AT_MOST);
    let mut rows: Vec<GeneratedRow> = Vec::new();
    let mut seen: BTreeMap<String, String> = BTreeMap::new();
    loop {
        let made = rows.len() as u64;
        let kept = rows.iter().filter(|r| r.outcome.is_ok()).count() as u64;
        if kept >= opts.count || made >= limit {
            break;
        }
        let batch = if made == 0 {
            opts.count
        } else {
            // As many as the keep rate so far says are missing, and a tenth more.
            let per_kept = made as f64 / kept.max(1) as f64;
            ((opts.count - kept) as f64 * per_kept * 1.1).ceil() as u64
        }
        .clamp(1, limit - made);
        if made > 0 {
            progress(&format!(
                "kept {kept} of {} asked for: {batch} more modules (from module {made})",
                opts.count
            ));
        }
        let mut round = write_modules(config, opts, made..made + batch, &problems_dir)?;
        import_round(opts, &mut round, &tasks_dir, progress)?;
        measure_round(config, opts, &mut round, &mut seen)?;
        progress(&format!(
            "measured: {} within bounds and distinct",
            round.iter().filter(|r| r.outcome.is_ok()).count()
        ));
        check_round(opts, &mut round, sanity, progress);
        rows.extend(round);
    }
    // The modules after the `count`-th kept one are not part of the set; only kept tasks stay in
    // tasks/, and the importer's report of its last round goes too (GENERATE.md names every
    // import drop of every round).
    let last = rows
        .iter()
        .filter(|r| r.outcome.is_ok())
        .nth(opts.count.saturating_sub(1) as usize)
        .map_or(u64::MAX, |r| r.index);
    let past = rows.iter().filter(|r| r.index > last).count();
    if past > 0 {
        progress(&format!(
            "{past} modules after the {}-th kept one left out of the set",
            opts.count
        ));
    }
    for r in &rows {
        if r.index > last {
            std::fs::remove_file(&r.problem)?;
        }
        let task = tasks_dir.join(format!("{}.yaml", r.id));
        if (r.index > last || r.outcome.is_err()) && task.exists() {
            std::fs::remove_file(task)?;
        }
    }
    rows.retain(|r| r.index <= last);
    let import_report = tasks_dir.join("IMPORT.md");
    if import_report.exists() {
        std::fs::remove_file(import_report)?;
    }
    // The pool: candidates for the kept tasks whose operators are all element-wise.
    let (mut lines, mut pooled, mut written) = (String::new(), 0, 0);
    for r in &rows {
        let (Ok(file), Some(steps)) = (&r.outcome, &r.module.elementwise) else {
            continue;
        };
        match pool::candidates(file, steps) {
            Ok(cands) => {
                pooled += 1;
                written += cands.len();
                for c in &cands {
                    lines.push_str(&pool::pool_line(&r.id, c));
                    lines.push('\n');
                }
            }
            Err(why) => progress(&format!("{}: no pool candidates: {why}", r.id)),
        }
    }
    std::fs::write(out.join("pool.jsonl"), &lines)?;
    progress(&format!(
        "pool: {written} candidates for the {pooled} kept tasks whose operators are all element-wise"
    ));
    let report = GenerateReport {
        seed: opts.seed,
        asked: opts.count,
        rows,
        seconds: started.elapsed().as_secs_f64(),
    };
    std::fs::write(out.join("GENERATE.md"), report.markdown(config_name))?;
    Ok(report)
}

/// Step 1: modules `indices` of the seed, written as problem files.
fn write_modules(
    config: &GeneratorConfig,
    opts: &GenerateOptions,
    indices: std::ops::Range<u64>,
    problems_dir: &Path,
) -> std::io::Result<Vec<GeneratedRow>> {
    let mut rows = Vec::new();
    for index in indices {
        let module = generate_one(config, opts.seed, index);
        let id = task_id(opts.seed, index, &module);
        let problem = problems_dir.join(problem_name(&id));
        std::fs::write(&problem, &module.text)?;
        let mut fams = module.families.clone();
        fams.sort();
        let split = if fams.iter().any(|f| config.held_out.contains(f)) {
            "held-out"
        } else {
            "train"
        };
        rows.push(GeneratedRow {
            index,
            id,
            difficulty: config.difficulty_of(&module.families),
            split,
            module,
            problem,
            bytes: None,
            flops: None,
            outcome: Err(Dropped::Import("not imported".into())),
        });
    }
    Ok(rows)
}

/// Step 2: the import of a round's problem files.
fn import_round(
    opts: &GenerateOptions,
    rows: &mut [GeneratedRow],
    tasks_dir: &Path,
    progress: &mut dyn FnMut(&str),
) -> std::io::Result<()> {
    let mut ids = BTreeMap::new();
    for r in rows.iter() {
        ids.insert(r.problem.canonicalize()?, r.id.clone());
    }
    let files: Vec<PathBuf> = rows.iter().map(|r| r.problem.clone()).collect();
    let id_of = |p: &Path| {
        p.canonicalize()
            .ok()
            .and_then(|c| ids.get(&c).cloned())
            .unwrap_or_else(|| p.display().to_string())
    };
    let total = files.len();
    let step = (total / 10).max(1);
    let report = super::import::import_problems(
        &opts.python,
        &files,
        super::import::ImportAs::cuda(1),
        tasks_dir,
        opts.jobs,
        &id_of,
        |row, done, total| {
            if done % step == 0 || done == total {
                progress(&format!("[import {done}/{total}] last: {}", row.id));
            }
        },
    )?;
    for (r, i) in rows.iter_mut().zip(&report.rows) {
        r.outcome = match &i.outcome {
            Ok(p) => Ok(p.clone()),
            Err(why) => Err(Dropped::Import(why.clone())),
        };
    }
    let imported = rows.iter().filter(|r| r.outcome.is_ok()).count();
    progress(&format!("imported {imported} of {total}"));
    Ok(())
}

/// Step 3: measure, bound and deduplicate a round's imported modules; `seen` holds the
/// fingerprints of every earlier module kept so far, of this round and the ones before.
fn measure_round(
    config: &GeneratorConfig,
    opts: &GenerateOptions,
    rows: &mut [GeneratedRow],
    seen: &mut BTreeMap<String, String>,
) -> std::io::Result<()> {
    let to_measure: Vec<PathBuf> = rows
        .iter()
        .filter(|r| r.outcome.is_ok())
        .map(|r| r.problem.canonicalize().unwrap_or_else(|_| r.problem.clone()))
        .collect();
    let measured = measure(&opts.python, &to_measure, opts.jobs)?;
    let b = &config.bounds;
    for r in rows.iter_mut().filter(|r| r.outcome.is_ok()) {
        let key = r.problem.canonicalize().unwrap_or_else(|_| r.problem.clone());
        let m = measured
            .get(&key)
            .cloned()
            .unwrap_or_else(|| Err("the measuring process gave no answer".into()));
        let drop = match m {
            Err(why) => Some(Dropped::Measure(why)),
            Ok(m) => {
                r.bytes = Some(m.bytes);
                r.flops = Some(m.flops);
                if m.bytes < b.min_bytes.0 {
                    Some(Dropped::TooSmall(m.bytes))
                } else if m.bytes > b.max_bytes.0 {
                    Some(Dropped::TooLarge(format!("moves {} bytes", m.bytes)))
                } else if m.flops > b.max_flops.0 {
                    Some(Dropped::TooLarge(format!("does {} operations", m.flops)))
                } else if let Some(first) = seen.get(&m.fingerprint) {
                    Some(Dropped::Duplicate(first.clone()))
                } else {
                    seen.insert(m.fingerprint, r.id.clone());
                    None
                }
            }
        };
        if let Some(d) = drop {
            r.outcome = Err(d);
        }
    }
    Ok(())
}

/// Step 4: the sanity check of a round's remaining tasks, `opts.jobs` at a time.
fn check_round(
    opts: &GenerateOptions,
    rows: &mut [GeneratedRow],
    sanity: &(dyn Fn(&Path) -> Result<(), String> + Sync),
    progress: &mut dyn FnMut(&str),
) {
    let pending: Vec<usize> = (0..rows.len()).filter(|i| rows[*i].outcome.is_ok()).collect();
    let results = std::sync::Mutex::new(Vec::new());
    let next = std::sync::atomic::AtomicUsize::new(0);
    let (tx, rx) = std::sync::mpsc::channel::<String>();
    let shared: &[GeneratedRow] = rows;
    std::thread::scope(|s| {
        for _ in 0..opts.jobs.max(1) {
            let tx = tx.clone();
            let (pending, results, next) = (&pending, &results, &next);
            s.spawn(move || {
                loop {
                    let k = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(&i) = pending.get(k) else { break };
                    let Ok(file) = &shared[i].outcome else { continue };
                    let r = sanity(file);
                    let line = match &r {
                        Ok(()) => format!("{}: kept", shared[i].id),
                        Err(why) => format!("{}: dropped, sanity: {why}", shared[i].id),
                    };
                    results.lock().unwrap_or_else(|p| p.into_inner()).push((i, r));
                    let _ = tx.send(line);
                }
            });
        }
        drop(tx);
        let n = pending.len();
        for (done, line) in rx.iter().enumerate() {
            progress(&format!("[check {}/{n}] {line}", done + 1));
        }
    });
    for (i, r) in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
        if let Err(why) = r {
            rows[i].outcome = Err(Dropped::Sanity(why));
        }
    }
}

/// What `measure.py` says of one module.
#[derive(Debug, Clone)]
struct Measured {
    bytes: u64,
    flops: u64,
    fingerprint: String,
}

#[derive(serde::Deserialize)]
struct MeasureLine {
    file: String,
    bytes: Option<u64>,
    flops: Option<u64>,
    fingerprint: Option<String>,
    error: Option<String>,
}

/// Runs `measure.py` over `files` in `jobs` processes; each file's measure or why not.
fn measure(
    python: &Path,
    files: &[PathBuf],
    jobs: usize,
) -> std::io::Result<BTreeMap<PathBuf, Result<Measured, String>>> {
    let dir = tempfile::tempdir()?;
    std::fs::write(dir.path().join("probe.py"), super::PROBE)?;
    let script = dir.path().join("measure.py");
    std::fs::write(&script, MEASURE)?;
    let jobs = jobs.clamp(1, files.len().max(1));
    let chunks: Vec<Vec<PathBuf>> = (0..jobs)
        .map(|j| files.iter().skip(j).step_by(jobs).cloned().collect())
        .collect();
    let answers = std::thread::scope(|s| {
        let handles: Vec<_> = chunks
            .iter()
            .filter(|c| !c.is_empty())
            .map(|chunk| {
                let script = &script;
                s.spawn(move || {
                    let mut got = Vec::new();
                    let child = Command::new(python)
                        .arg(script)
                        .args(chunk)
                        .stdin(Stdio::null())
                        .stdout(Stdio::piped())
                        .stderr(Stdio::null())
                        .spawn();
                    let mut child = match child {
                        Ok(c) => c,
                        Err(e) => {
                            for f in chunk {
                                got.push((f.clone(), Err(format!("cannot start {}: {e}", python.display()))));
                            }
                            return got;
                        }
                    };
                    if let Some(stdout) = child.stdout.take() {
                        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                            let Ok(m) = serde_json::from_str::<MeasureLine>(&line) else {
                                continue;
                            };
                            let r = match (m.bytes, m.flops, m.fingerprint, m.error) {
                                (_, _, _, Some(e)) => Err(e),
                                (Some(bytes), Some(flops), Some(fingerprint), None) => Ok(Measured {
                                    bytes,
                                    flops,
                                    fingerprint,
                                }),
                                _ => Err("the answer holds no measure".into()),
                            };
                            got.push((PathBuf::from(m.file), r));
                        }
                    }
                    let _ = child.wait();
                    got
                })
            })
            .collect();
        handles
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect::<Vec<_>>()
    });
    Ok(answers.into_iter().collect())
}

#[cfg(test)]
mod tests;
