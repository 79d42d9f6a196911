//! `aorlta task import kernelbench DIR`: each problem file becomes a kernel task whose reference
//! is the problem's module, written into an output folder with a report of what imported and
//! why the rest did not. Nothing of the problems is copied: a task names its problem file by a
//! path relative to the task.
//!
//! The probe (`probe.py`, in the trusted Python) reads each problem; this file turns what it
//! read into a [`KernelTask`]: the signature from the module's inputs, parameters and outputs
//! (pointers, then the sizes as `int`s), buffer lengths as products of the size variables (a
//! dimension that follows no variable is a variable of its own, `out_d2`, with its value at
//! every size), the problem's own size first (timed) and smaller ones for correctness, input
//! laws from how the problem draws, the tolerance from the element types. From level 2 on (a
//! chain of operators), a task also allows plans (docs/PLANS.md): at most one step per operator
//! and one more, scratch up to twice the largest tensor the forward computes, and the library
//! steps of the menu that compute one of its operators (`gemm` for a linear layer or a matrix
//! product by a matrix).

mod plans;

pub use plans::PlanSummary;

use super::prompt;
use aorlta_record::{
    BufferSpec, Dtype, Init, KernelLanguage, KernelTask, LibraryKind, Reference, Role, Tolerance,
    TorchReference, TritonSpec,
};
use plans::{gemm_example, plans_of};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Component, Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::mpsc;

/// What an import makes of each problem: tasks of its KernelBench level, for kernels in one
/// language. A Triton task (level 1 only: a plan launches CUDA kernels) binds a `BLOCK`
/// constexpr and a grid of one program per `BLOCK` output elements; its id ends in `_triton`, so
/// that a pool can hold both languages' tasks of one problem.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ImportAs {
    /// The KernelBench level (1 to 4).
    pub level: u32,
    /// The language candidates write (`cuda` or `triton`).
    pub language: KernelLanguage,
}

impl ImportAs {
    /// Level `level`'s tasks for CUDA kernels.
    pub fn cuda(level: u32) -> ImportAs {
        ImportAs {
            level,
            language: KernelLanguage::Cuda,
        }
    }

    /// Refuses what no task can be: a Triton task of level 2 on, or a HIP import.
    pub fn check(&self) -> Result<(), String> {
        match self.language {
            KernelLanguage::Cuda => Ok(()),
            KernelLanguage::Triton if self.level == 1 => Ok(()),
            KernelLanguage::Triton => Err(format!(
                "level {} imports plan tasks, whose kernels are CUDA; Triton tasks are imported from level 1",
                self.level
            )),
            other => Err(format!(
                "`{}` is not a language of imported tasks (cuda or triton)",
                other.as_str()
            )),
        }
    }
}

/// The constexpr a Triton task binds: the output elements one program covers, the default first.
const TRITON_BLOCKS: [i64; 5] = [1024, 256, 512, 2048, 4096];

/// One problem's outcome.
#[derive(Debug, Clone)]
pub struct ImportRow {
    /// The problem file.
    pub problem: PathBuf,
    /// The task id given to it.
    pub id: String,
    /// The task file written, or why the problem was not imported.
    pub outcome: Result<PathBuf, String>,
    /// What the task allows of plans, when it allows them (an imported problem of level 2 on).
    pub plans: Option<PlanSummary>,
}

/// Every problem's outcome, in the problems' order.
#[derive(Debug, Clone, Default)]
pub struct ImportReport {
    /// One row per problem.
    pub rows: Vec<ImportRow>,
}

impl ImportReport {
    /// How many problems became tasks.
    pub fn imported(&self) -> usize {
        self.rows.iter().filter(|r| r.outcome.is_ok()).count()
    }

    /// How many problems became tasks that allow plans.
    pub fn plan_tasks(&self) -> usize {
        self.rows
            .iter()
            .filter(|r| r.outcome.is_ok() && r.plans.is_some())
            .count()
    }

    /// How many problems became tasks whose plans may call the library's `kind`.
    pub fn with_library(&self, kind: LibraryKind) -> usize {
        self.rows
            .iter()
            .filter(|r| r.outcome.is_ok())
            .filter(|r| r.plans.as_ref().is_some_and(|p| p.limits.library.contains(&kind)))
            .count()
    }

    /// The report as Markdown: a summary line, then one row per problem.
    pub fn markdown(&self) -> String {
        let plans = if self.plan_tasks() > 0 {
            format!(
                " {} of them allow plans, {} with the library's `gemm`.",
                self.plan_tasks(),
                self.with_library(LibraryKind::Gemm)
            )
        } else {
            String::new()
        };
        let mut s = format!(
            "# KernelBench import\n\n{} of {} problems imported as tasks.{plans}\n\n| problem | task | result |\n|---|---|---|\n",
            self.imported(),
            self.rows.len()
        );
        for r in &self.rows {
            let name = r
                .problem
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            let result = match &r.outcome {
                Ok(p) => {
                    let file = p.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
                    match &r.plans {
                        Some(plans) => format!("imported: `{file}`, {}", plans.text().replace('|', "\\|")),
                        None => format!("imported: `{file}`"),
                    }
                }
                Err(why) => format!("not imported: {}", why.replace('|', "\\|").replace('\n', " ")),
            };
            s.push_str(&format!("| {name} | `{}` | {result} |\n", r.id));
        }
        s
    }
}

/// The problem files of a KernelBench checkout (`DIR/KernelBench/level1`, `DIR/level1`) or of a
/// folder of them, ordered by their leading number (`2_...` before `10_...`).
pub fn problems_in(dir: &Path, level: u32) -> std::io::Result<Vec<PathBuf>> {
    let level_dir = format!("level{level}");
    let folder = [dir.join("KernelBench").join(&level_dir), dir.join(&level_dir)]
        .into_iter()
        .find(|d| d.is_dir())
        .unwrap_or_else(|| dir.to_path_buf());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py") && p.is_file())
        .collect();
    files.sort_by_key(|p| {
        let stem = p
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let n: u64 = stem
            .split('_')
            .next()
            .and_then(|x| x.parse().ok())
            .unwrap_or(u64::MAX);
        (n, stem)
    });
    Ok(files)
}

/// Imports `problems` (KernelBench level `level`) into `out`, running the probe in `jobs`
/// processes of `python`; `progress` is called after each problem with (row, done, total).
/// The report is also written to `out/IMPORT.md`.
pub fn import_kernelbench(
    python: &Path,
    problems: &[PathBuf],
    as_: ImportAs,
    out: &Path,
    jobs: usize,
    progress: impl FnMut(&ImportRow, usize, usize),
) -> std::io::Result<ImportReport> {
    import_problems(python, problems, as_, out, jobs, &|p| task_id(p, as_), progress)
}

/// [`import_kernelbench`] with the task ids given by `id_of` (a problem file's id).
pub(crate) fn import_problems(
    python: &Path,
    problems: &[PathBuf],
    as_: ImportAs,
    out: &Path,
    jobs: usize,
    id_of: &dyn Fn(&Path) -> String,
    mut progress: impl FnMut(&ImportRow, usize, usize),
) -> std::io::Result<ImportReport> {
    std::fs::create_dir_all(out)?;
    let out = out.canonicalize()?;
    let probe_dir = tempfile::tempdir()?;
    let probe = probe_dir.path().join("probe.py");
    std::fs::write(&probe, super::PROBE)?;
    let problems: Vec<PathBuf> = problems
        .iter()
        .map(|p| p.canonicalize().unwrap_or_else(|_| p.clone()))
        .collect();
    let (tx, rx) = mpsc::channel::<(usize, Result<ProbeResult, String>)>();
    let jobs = jobs.clamp(1, problems.len().max(1));
    let chunks: Vec<Vec<(usize, PathBuf)>> = (0..jobs)
        .map(|j| {
            problems
                .iter()
                .cloned()
                .enumerate()
                .skip(j)
                .step_by(jobs)
                .collect()
        })
        .collect();
    let mut workers = Vec::new();
    for chunk in chunks.into_iter().filter(|c| !c.is_empty()) {
        let tx = tx.clone();
        let (python, probe) = (python.to_path_buf(), probe.clone());
        workers.push(std::thread::spawn(move || {
            run_probe(&python, &probe, &chunk, &tx)
        }));
    }
    drop(tx);
    let mut results: Vec<Option<ImportRow>> = vec![None; problems.len()];
    let mut done = 0;
    for (i, probed) in rx {
        let problem = &problems[i];
        let id = id_of(problem);
        let written = probed.and_then(|p| write_task(&p, problem, &id, as_, &out));
        let (outcome, plans) = match written {
            Ok((path, plans)) => (Ok(path), plans),
            Err(why) => (Err(why), None),
        };
        let row = ImportRow {
            problem: problem.clone(),
            id,
            outcome,
            plans,
        };
        done += 1;
        progress(&row, done, problems.len());
        results[i] = Some(row);
    }
    for w in workers {
        let _ = w.join();
    }
    let report = ImportReport {
        rows: results
            .into_iter()
            .zip(&problems)
            .map(|(r, p)| {
                r.unwrap_or_else(|| ImportRow {
                    problem: p.clone(),
                    id: id_of(p),
                    outcome: Err("the probe gave no answer for this file".into()),
                    plans: None,
                })
            })
            .collect(),
    };
    std::fs::write(out.join("IMPORT.md"), report.markdown())?;
    Ok(report)
}

/// Runs one probe process over `chunk`, sending each file's result as its line arrives; files it
/// never answered (the process died) are sent as failures with its standard error's last line.
fn run_probe(
    python: &Path,
    probe: &Path,
    chunk: &[(usize, PathBuf)],
    tx: &mpsc::Sender<(usize, Result<ProbeResult, String>)>,
) {
    let mut cmd = Command::new(python);
    cmd.arg(probe)
        .args(chunk.iter().map(|(_, p)| p))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = match cmd.spawn() {
        Ok(c) => c,
        Err(e) => {
            for (i, _) in chunk {
                let _ = tx.send((*i, Err(format!("cannot start {}: {e}", python.display()))));
            }
            return;
        }
    };
    let stderr = child.stderr.take().map(|s| {
        std::thread::spawn(move || {
            let mut text = String::new();
            let _ = std::io::Read::read_to_string(&mut std::io::Read::take(s, 1 << 20), &mut text);
            text
        })
    });
    let mut answered = std::collections::BTreeSet::new();
    if let Some(stdout) = child.stdout.take() {
        for line in BufReader::new(stdout).lines().map_while(Result::ok) {
            let Ok(line) = serde_json::from_str::<ProbeLine>(&line) else {
                continue;
            };
            let Some((i, _)) = chunk.iter().find(|(_, p)| Path::new(&line.file) == p) else {
                continue;
            };
            answered.insert(*i);
            let result = match (line.ok, line.refused) {
                (Some(ok), _) => Ok(ok),
                (None, Some(why)) => Err(why),
                (None, None) => Err("the probe's answer holds neither `ok` nor `refused`".into()),
            };
            let _ = tx.send((*i, result));
        }
    }
    let status = child.wait();
    let err = stderr.and_then(|h| h.join().ok()).unwrap_or_default();
    let last = err
        .lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
        .trim()
        .to_string();
    for (i, _) in chunk.iter().filter(|(i, _)| !answered.contains(i)) {
        let why = match &status {
            Ok(s) if last.contains("No module named 'torch'") => {
                format!(
                    "no torch in {} ({s}); give --python or AORLTA_TORCH_PYTHON",
                    python.display()
                )
            }
            Ok(s) => format!("the probe stopped ({s}): {last}"),
            Err(e) => format!("the probe could not be waited for: {e}"),
        };
        let _ = tx.send((*i, Err(why)));
    }
}

#[derive(Deserialize)]
struct ProbeLine {
    file: String,
    ok: Option<ProbeResult>,
    refused: Option<String>,
}

/// What the probe read from one problem (`probe.py`'s `probe`).
#[derive(Debug, Clone, Deserialize)]
struct ProbeResult {
    class: String,
    init: Vec<serde_json::Value>,
    inputs: Vec<ProbeInput>,
    state: Vec<ProbeState>,
    outputs: Vec<ProbeOutput>,
    sizes: Vec<ProbeSize>,
    /// The operators the forward calls that compute a tensor, in order (at the timed size).
    #[serde(default)]
    ops: Vec<String>,
    /// Its matrix products (at the timed size).
    #[serde(default)]
    products: Vec<ProbeProduct>,
}

/// One matrix product of the forward.
#[derive(Debug, Clone, Deserialize)]
struct ProbeProduct {
    /// The operator (`linear`, `matmul`, `bmm` …).
    op: String,
    /// One `gemm` step computes it.
    gemm: bool,
    /// The left operand's task buffer, when it is one.
    a: Option<String>,
    /// The right operand's task buffer, when it is one.
    b: Option<String>,
    /// `b` is read transposed (a linear layer's weight, `w.T`).
    trans_b: bool,
}

#[derive(Debug, Clone, Deserialize)]
struct ProbeInput {
    name: String,
    kind: String,
    dtype: String,
    init: Option<ProbeLaw>,
    value: Option<serde_json::Value>,
}

#[derive(Debug, Clone, Deserialize)]
struct ProbeState {
    name: String,
    module_name: String,
    dtype: String,
    shape: Vec<i64>,
    init: ProbeLaw,
}

#[derive(Debug, Clone, Deserialize)]
struct ProbeOutput {
    name: String,
    dtype: String,
}

#[derive(Debug, Clone, Deserialize)]
struct ProbeSize {
    vars: BTreeMap<String, i64>,
    inputs: BTreeMap<String, Vec<i64>>,
    outputs: Vec<Vec<i64>>,
    /// Each tensor the forward computes: its shape and element size in bytes, in order.
    #[serde(default)]
    values: Vec<(Vec<i64>, i64)>,
    timed: bool,
    /// Each output's root mean square, where this size was computed for real (the correctness
    /// sizes on a CPU; the timed size where the probe's torch has a GPU); `None` for an integer
    /// output or one with a value that is not finite.
    #[serde(default)]
    scales: Option<Vec<Option<f64>>>,
}

#[derive(Debug, Clone, Copy, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
enum ProbeLaw {
    Uniform { lo: f64, hi: f64 },
    Normal { mean: f64, std: f64 },
}

impl From<ProbeLaw> for Init {
    fn from(l: ProbeLaw) -> Init {
        match l {
            ProbeLaw::Uniform { lo, hi } => Init::Uniform { lo, hi },
            ProbeLaw::Normal { mean, std } => Init::Normal { mean, std },
        }
    }
}

fn dtype_of(name: &str) -> Result<Dtype, String> {
    match name {
        "f32" => Ok(Dtype::F32),
        "f16" => Ok(Dtype::F16),
        "bf16" => Ok(Dtype::Bf16),
        "i32" => Ok(Dtype::I32),
        "i64" => Ok(Dtype::I64),
        other => Err(format!("element type `{other}` has no task dtype")),
    }
}

/// The C++ type of a pointer to elements of `dtype`.
pub(super) fn c_type(dtype: Dtype) -> &'static str {
    match dtype {
        Dtype::F32 => "float",
        Dtype::F16 => "__half",
        Dtype::Bf16 => "__nv_bfloat16",
        Dtype::I32 => "int",
        Dtype::U32 => "unsigned int",
        Dtype::I64 => "long long",
    }
}

/// `kernelbench_l1_23_softmax` for `23_Softmax.py` at level 1.
fn task_id(problem: &Path, as_: ImportAs) -> String {
    let stem = problem
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let suffix = match as_.language {
        KernelLanguage::Triton => "_triton",
        _ => "",
    };
    format!("kernelbench_l{}_{}{suffix}", as_.level, slug(&stem))
}

/// Lower case, `[a-z0-9_]`, runs of `_` folded, no `_` at either end.
fn slug(text: &str) -> String {
    let mut s = String::new();
    for c in text.chars() {
        let c = if c.is_ascii_alphanumeric() {
            c.to_ascii_lowercase()
        } else {
            '_'
        };
        if c == '_' && (s.is_empty() || s.ends_with('_')) {
            continue;
        }
        s.push(c);
    }
    s.trim_end_matches('_').to_string()
}

/// The kernel's name: the problem's name without its number (`softmax` for `23_Softmax.py`),
/// a valid C++ identifier.
fn kernel_name(problem: &Path) -> String {
    let stem = problem
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let s = slug(&stem);
    let rest = s
        .trim_start_matches(|c: char| c.is_ascii_digit())
        .trim_start_matches('_');
    if rest.is_empty() || rest.starts_with(|c: char| c.is_ascii_digit()) {
        format!("k_{s}")
    } else {
        rest.to_string()
    }
}

/// `to` relative to the folder `from` (both absolute).
fn relative(to: &Path, from: &Path) -> PathBuf {
    let (t, f): (Vec<Component>, Vec<Component>) = (to.components().collect(), from.components().collect());
    let common = t.iter().zip(&f).take_while(|(a, b)| a == b).count();
    let mut p = PathBuf::new();
    for _ in common..f.len() {
        p.push("..");
    }
    for c in &t[common..] {
        p.push(c.as_os_str());
    }
    p
}

/// One buffer's shape at every size (the timed size first).
struct Shaped {
    name: String,
    dtype: Dtype,
    role: Role,
    init: Init,
    shapes: Vec<Vec<i64>>,
}

/// The task for one probed problem.
fn task_of(
    p: &ProbeResult,
    problem: &Path,
    id: &str,
    as_: ImportAs,
    out: &Path,
) -> Result<(KernelTask, Option<PlanSummary>), String> {
    as_.check()?;
    let (level, triton) = (as_.level, as_.language == KernelLanguage::Triton);
    // The timed size first, then the correctness sizes as the probe gave them.
    let mut sizes: Vec<&ProbeSize> = p.sizes.iter().filter(|s| s.timed).collect();
    if sizes.len() != 1 {
        return Err("the probe gave no timed size".into());
    }
    sizes.extend(p.sizes.iter().filter(|s| !s.timed));
    let mut shaped = Vec::new();
    let mut int_inputs = Vec::new();
    for i in &p.inputs {
        match i.kind.as_str() {
            "buffer" => {
                let shapes = sizes
                    .iter()
                    .map(|s| {
                        s.inputs
                            .get(&i.name)
                            .cloned()
                            .ok_or(format!("no shape of `{}`", i.name))
                    })
                    .collect::<Result<Vec<_>, _>>()?;
                shaped.push(Shaped {
                    name: i.name.clone(),
                    dtype: dtype_of(&i.dtype)?,
                    role: Role::In,
                    init: i.init.ok_or(format!("input `{}` has no law", i.name))?.into(),
                    shapes,
                });
            }
            "scalar" if i.dtype == "i64" => {
                let v = i
                    .value
                    .as_ref()
                    .and_then(|v| v.as_i64())
                    .ok_or(format!("scalar `{}`", i.name))?;
                int_inputs.push((i.name.clone(), v));
            }
            _ => {
                return Err(format!(
                    "input `{}` is a float scalar: not yet a task parameter",
                    i.name
                ));
            }
        }
    }
    for s in &p.state {
        shaped.push(Shaped {
            name: s.name.clone(),
            dtype: dtype_of(&s.dtype)?,
            role: Role::In,
            init: s.init.into(),
            shapes: vec![s.shape.clone(); sizes.len()],
        });
    }
    for (k, o) in p.outputs.iter().enumerate() {
        shaped.push(Shaped {
            name: o.name.clone(),
            dtype: dtype_of(&o.dtype)?,
            role: Role::Out,
            init: Init::default(),
            shapes: sizes
                .iter()
                .map(|s| s.outputs.get(k).cloned().ok_or(format!("no shape of output {k}")))
                .collect::<Result<Vec<_>, _>>()?,
        });
    }
    let mut names: Vec<&str> = shaped.iter().map(|b| b.name.as_str()).collect();
    names.extend(int_inputs.iter().map(|(n, _)| n.as_str()));
    if let Some(dup) = names.iter().enumerate().find(|(i, n)| names[..*i].contains(n)) {
        return Err(format!("two parameters named `{}`", dup.1));
    }

    // Each dimension as an expression: a size variable it follows at every size, a constant, or
    // a variable of its own.
    let mut vars: Vec<BTreeMap<String, i64>> = sizes.iter().map(|s| s.vars.clone()).collect();
    let mut order: Vec<String> = sizes[0].vars.keys().cloned().collect();
    let mut buffers = Vec::new();
    let mut shapes_text = Vec::new();
    for b in &shaped {
        let rank = b.shapes[0].len();
        if b.shapes.iter().any(|s| s.len() != rank) {
            return Err(format!("`{}` changes rank between sizes", b.name));
        }
        let mut dims = Vec::new();
        for d in 0..rank {
            let values: Vec<i64> = b.shapes.iter().map(|s| s[d]).collect();
            let follows = order
                .iter()
                .find(|n| vars.iter().zip(&values).all(|(v, x)| v.get(*n) == Some(x)))
                .cloned();
            let expr = match follows {
                Some(n) => n,
                None if values.iter().all(|v| *v == values[0]) => values[0].to_string(),
                None => {
                    let n = format!("{}_d{d}", b.name);
                    for (v, x) in vars.iter_mut().zip(&values) {
                        v.insert(n.clone(), *x);
                    }
                    order.push(n.clone());
                    n
                }
            };
            dims.push(expr);
        }
        if let Some(n) = vars
            .iter()
            .flat_map(|v| v.iter())
            .find(|(_, v)| **v > i64::from(i32::MAX))
        {
            return Err(format!("size `{}` = {} does not fit an int", n.0, n.1));
        }
        let len = if dims.is_empty() {
            "1".to_string()
        } else {
            dims.join(" * ")
        };
        shapes_text.push((b.name.clone(), dims.clone()));
        buffers.push(BufferSpec {
            name: b.name.clone(),
            dtype: b.dtype,
            len,
            role: b.role,
            init: b.init,
            special: Vec::new(),
            row: dims.last().cloned().filter(|_| dims.len() > 1),
        });
    }
    // The size variables the buffers use, in the order they first appear (the rest are not
    // parameters).
    let mut used: Vec<String> = Vec::new();
    for d in shapes_text.iter().flat_map(|(_, dims)| dims) {
        if order.contains(d) && !used.contains(d) {
            used.push(d.clone());
        }
    }
    let mut scalars: BTreeMap<String, String> = used.iter().map(|n| (n.clone(), n.clone())).collect();
    for (n, v) in &int_inputs {
        scalars.insert(n.clone(), v.to_string());
    }
    let sizes_out: Vec<BTreeMap<String, i64>> = vars
        .iter()
        .map(|v| {
            v.iter()
                .filter(|(n, _)| used.contains(n))
                .map(|(n, x)| (n.clone(), *x))
                .collect()
        })
        .collect();

    let kernel = kernel_name(problem);
    let mut params: Vec<String> = buffers
        .iter()
        .map(|b| {
            let c = c_type(b.dtype);
            match b.role {
                Role::In => format!("const {c}* {}", b.name),
                _ => format!("{c}* {}", b.name),
            }
        })
        .collect();
    params.extend(used.iter().map(|n| format!("int {n}")));
    params.extend(int_inputs.iter().map(|(n, _)| format!("long long {n}")));
    let signature = format!("void {kernel}({})", params.join(", "));
    let first_out = buffers
        .iter()
        .find(|b| b.role == Role::Out)
        .ok_or("the module returns no tensor")?;
    let per_program = if triton { "BLOCK" } else { "256" };
    let grid = [
        format!("ceil_div({}, {per_program})", first_out.len),
        "1".into(),
        "1".into(),
    ];
    let triton_spec = triton.then(|| TritonSpec {
        constexprs: BTreeMap::from([("BLOCK".to_string(), TRITON_BLOCKS.to_vec())]),
        ..TritonSpec::default()
    });
    let problem_rel = relative(problem, out);
    let source = std::fs::read_to_string(problem).map_err(|e| format!("{}: {e}", problem.display()))?;
    let state: BTreeMap<String, String> = p
        .state
        .iter()
        .map(|s| (s.name.clone(), s.module_name.clone()))
        .collect();
    let plans = if level >= 2 {
        Some(plans_of(p, &sizes, &vars, &used, &buffers)?)
    } else {
        None
    };
    let plan_prompt = match &plans {
        Some(summary) => Some(prompt::PlanPrompt {
            limits: &summary.limits,
            scratch_at_timed: aorlta_record::eval_expr(&summary.limits.max_scratch_bytes, &sizes_out[0])
                .map_err(|e| format!("the scratch limit: {e}"))?,
            gemm: gemm_example(p, &buffers, &shapes_text),
            without_step: &summary.without_step,
            vars: &used,
        }),
        None => None,
    };
    let tolerance = tolerance_of(&buffers, &p.sizes);
    let text = prompt::Prompt {
        source: &source,
        class: &p.class,
        init: &p.init,
        signature: &signature,
        buffers: &buffers,
        shapes: &shapes_text,
        state: &state,
        sizes: &sizes_out,
        grid: &grid,
        level,
        plan: plan_prompt,
        triton: triton_spec.as_ref(),
        tolerance,
    }
    .text();
    let task = KernelTask {
        id: id.to_string(),
        prompt: text,
        signature,
        extern_c: false,
        language: as_.language,
        triton: triton_spec,
        reference: Reference::Torch(TorchReference {
            torch: format!("{}:{}", problem_rel.display(), p.class),
            init: p.init.clone(),
            state,
            forward: p.inputs.iter().map(|i| i.name.clone()).collect(),
            shapes: shapes_text.iter().cloned().collect(),
        }),
        buffers,
        scalars,
        sizes: sizes_out,
        timed_sizes: Vec::new(),
        grid,
        block: if triton {
            Default::default()
        } else {
            ["256".into(), "1".into(), "1".into()]
        },
        shared_bytes: "0".into(),
        tolerance,
        caps: Default::default(),
        precision: None,
        timed_inputs: Default::default(),
        bytes: None,
        flops: None,
        plans: plans.as_ref().map(|s| s.limits.clone()),
    };
    Ok((task, plans))
}

/// The absolute tolerance is at most this share of an output's root mean square.
const ATOL_OF_SCALE: f64 = 1e-2;

/// The task's tolerance: the outputs' element type's default (fp32: atol 1e-4, rtol 1e-4), with
/// the absolute part lowered to [`ATOL_OF_SCALE`] of the smallest root mean square an output has
/// at any size the probe computed, where that is below the default. Without it a module whose
/// outputs are all small (a softmax over 393,216 columns gives values near 2.5e-6; an L1 or
/// Frobenius normalisation) is matched by a kernel that writes zeros, and the tolerance sanity
/// refuses the task. `None` (the default per element type) where nothing is lowered, or where the
/// outputs differ in type or are integers (one tolerance holds for every output; integers are
/// compared exactly). Only sizes computed for real count: on a machine without a GPU the timed
/// size is not among them, and `task check`'s sanity is what sees it.
fn tolerance_of(buffers: &[BufferSpec], sizes: &[ProbeSize]) -> Option<Tolerance> {
    let mut outputs = buffers.iter().filter(|b| b.role == Role::Out).map(|b| b.dtype);
    let dtype = outputs.next()?;
    if !aorlta_record::is_float(dtype) || outputs.any(|d| d != dtype) {
        return None;
    }
    let default = Tolerance::default_for(dtype);
    let smallest = sizes
        .iter()
        .filter_map(|s| s.scales.as_ref())
        .flatten()
        .flatten()
        .copied()
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    let atol = ATOL_OF_SCALE * smallest;
    (atol < default.atol).then(|| Tolerance {
        atol: round_down_2(atol),
        rtol: default.rtol,
    })
}

/// `x` rounded down to two significant digits (a tolerance a prompt can state).
fn round_down_2(x: f64) -> f64 {
    round_2(x, f64::floor)
}

/// `x` rounded up to two significant digits.
fn round_up_2(x: f64) -> f64 {
    round_2(x, f64::ceil)
}

/// `x` to two significant digits, the last one by `to` (`floor` or `ceil`), written exactly.
fn round_2(x: f64, to: fn(f64) -> f64) -> f64 {
    let e = x.log10().floor() as i32 - 1;
    let digits = to(x / 10f64.powi(e));
    format!("{digits}e{e}").parse().unwrap_or(x)
}

fn write_task(
    p: &ProbeResult,
    problem: &Path,
    id: &str,
    as_: ImportAs,
    out: &Path,
) -> Result<(PathBuf, Option<PlanSummary>), String> {
    let (task, plans) = task_of(p, problem, id, as_, out)?;
    let yaml = serde_norway::to_string(&task).map_err(|e| format!("the task does not serialise: {e}"))?;
    let head = format!(
        "# Task `{id}`, imported by `aorlta task import kernelbench` from {}.\n# Its reference is that file's module; edit the problem, then import again.\n",
        problem
            .file_name()
            .map(|n| n.to_string_lossy())
            .unwrap_or_default()
    );
    let path = out.join(format!("{id}.yaml"));
    std::fs::write(&path, head + &yaml).map_err(|e| format!("{}: {e}", path.display()))?;
    Ok((path, plans))
}

/// Widens the absolute tolerance of an imported task file so that the module's own rounding at
/// `case` (where its result is furthest from its result in double precision, beyond the
/// tolerance) fits twice over: atol becomes twice `|own - double|` there, rounded up to two
/// significant digits, at least the old atol's double. The relative tolerance stays: it is bound
/// to the element type's range. The prompt's sentence and the `tolerance` field are rewritten;
/// the old and new tolerances are returned.
pub fn widen_atol(
    file: &Path,
    case: &aorlta_record::PrecisionCase,
) -> Result<(Tolerance, Tolerance), String> {
    let place = |e: &dyn std::fmt::Display| format!("{}: {e}", file.display());
    let text = std::fs::read_to_string(file).map_err(|e| place(&e))?;
    let head: String = text
        .lines()
        .take_while(|l| l.starts_with('#'))
        .map(|l| format!("{l}\n"))
        .collect();
    let mut task: KernelTask = serde_norway::from_str(&text).map_err(|e| place(&e))?;
    let out = task
        .buffers
        .iter()
        .find(|b| b.name == case.output)
        .ok_or_else(|| place(&format!("no output `{}`", case.output)))?;
    let old = task
        .tolerance
        .unwrap_or_else(|| Tolerance::default_for(out.dtype));
    let (Some(own), Some(double)) = (case.own, case.double) else {
        return Err(place(
            &"the module's result is not finite where its double-precision one is: no tolerance fits",
        ));
    };
    let atol = round_up_2((2.0 * (own - double).abs()).max(2.0 * old.atol));
    let new = Tolerance { atol, rtol: old.rtol };
    let before = prompt::tolerance_sentence(old);
    if !task.prompt.contains(&before) {
        return Err(place(
            &"the prompt does not state the tolerance as the import wrote it",
        ));
    }
    task.prompt = task.prompt.replace(&before, &prompt::tolerance_sentence(new));
    task.tolerance = Some(new);
    let yaml = serde_norway::to_string(&task).map_err(|e| place(&e))?;
    std::fs::write(file, head + &yaml).map_err(|e| place(&e))?;
    Ok((old, new))
}

#[cfg(test)]
mod tests;
