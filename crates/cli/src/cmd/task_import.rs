//! `aorlta task import kernelbench DIR --out DIR`: each problem of a KernelBench checkout's level
//! (or of a folder of problems in its format) becomes a kernel task whose reference is the
//! problem's PyTorch module ([`aorlta_kernel::import_kernelbench`]); from level 2 on, a task that
//! allows plans (docs/PLANS.md). One line per problem as it is read, then the counts;
//! `OUT/IMPORT.md` holds the table. Exit status 0 when at least one problem imported, 1 when none
//! did.

use anyhow::Context;
use aorlta_kernel::KernelTools;
use aorlta_record::Tolerance;
use std::path::PathBuf;
use std::process::ExitCode;

/// `aorlta task import ...`.
#[derive(Debug, clap::Subcommand)]
pub(crate) enum ImportCmd {
    /// Problems in KernelBench's format (a `Model` module, `get_inputs`, `get_init_inputs`).
    Kernelbench(KernelbenchArgs),
}

/// Arguments of `aorlta task import kernelbench`.
#[derive(Debug, clap::Args)]
pub(crate) struct KernelbenchArgs {
    /// A KernelBench checkout (its `KernelBench/levelN` is read) or a folder of problem files.
    pub dir: PathBuf,
    /// Where the task files and IMPORT.md are written.
    #[arg(long)]
    pub out: PathBuf,
    /// The KernelBench level (its folder `levelN`); from level 2 on, the tasks allow plans
    /// (several kernels and library steps, docs/PLANS.md).
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=4))]
    pub level: u32,
    /// A Python with torch (default `$AORLTA_TORCH_PYTHON`, else `python3`); it reads the problem
    /// files, which are trusted as references are: never point it at a candidate's code.
    #[arg(long)]
    pub python: Option<PathBuf>,
    /// Probe processes run at once (default: the CPUs, at most 8).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// The language of the tasks' kernels: `cuda`, or `triton` (level 1; the task ids end in
    /// `_triton`, the kernel is a `@triton.jit` function with a `BLOCK` constexpr).
    #[arg(long, default_value = "cuda", value_parser = ["cuda", "triton"])]
    pub language: String,
    /// Then run each task's tolerance sanity on this machine's GPU (with `--fake-gpu`, the
    /// module on the CPU) and, where the module's own result is further from its result in double
    /// precision than the tolerance allows, widen the task's atol to fit it twice over (the
    /// prompt too); `OUT/IMPORT.md` lists what was widened. PyTorch's CUDA kernels round
    /// differently from its CPU ones: fit on the GPU the tasks will be checked on.
    #[arg(long)]
    pub fit_tolerance: bool,
    /// With `--fit-tolerance`: run the modules on the CPU fake device instead of a GPU.
    #[arg(long, requires = "fit_tolerance")]
    pub fake_gpu: bool,
}

/// Rounds of widening a task's atol before it is left for `task check` to refuse.
const FIT_ROUNDS: usize = 3;

/// `--fit-tolerance`: each imported task's atol widened until its module's own precision fits
/// (at most [`FIT_ROUNDS`] times), `jobs` tasks at a time; a line per task that was widened or
/// could not be, also appended to `OUT/IMPORT.md`.
fn fit_tolerances(
    report: &aorlta_kernel::ImportReport,
    python: &std::path::Path,
    jobs: usize,
    a: &KernelbenchArgs,
) -> anyhow::Result<()> {
    // As many sanity jobs share each GPU as tasks are fitted at once (one that runs out of device
    // memory beside the others runs again alone).
    let env = super::kernel_args::torch_check_env(a.fake_gpu, python, jobs)?;
    let fit_one = |row: &aorlta_kernel::ImportRow| -> anyhow::Result<Option<String>> {
        let Ok(file) = &row.outcome else { return Ok(None) };
        // The tolerance before the first widening and after the last, and the last finding.
        let (mut widened, mut finding) = (None::<(Tolerance, Tolerance)>, String::new());
        let mut why = None;
        for _ in 0..FIT_ROUNDS {
            let (set, _) = aorlta_check::TaskSet::load(file, &aorlta_core::lanes())
                .with_context(|| format!("{}", file.display()))?;
            let Some(task) = set.iter().next() else { break };
            let case = match aorlta_kernel::module_precision(&env, task) {
                Ok(None) if widened.is_none() => return Ok(None),
                Ok(None) => {
                    why = Some(format!("widened: the module's own result was {finding}"));
                    break;
                }
                Ok(Some(case)) => case,
                Err(e) => {
                    why = Some(format!("not fitted: the sanity did not run: {e}"));
                    break;
                }
            };
            let worst = case
                .worst
                .map_or("not finite".to_string(), |w| format!("{w:.2} times"));
            finding = format!(
                "{worst} the tolerance from its result in double precision (size {}, inputs {})",
                case.size, case.inputs
            );
            match aorlta_kernel::widen_atol(file, &case) {
                Ok((old, new)) => widened = Some((widened.map_or(old, |(first, _)| first), new)),
                Err(e) => {
                    why = Some(format!("not widened ({finding}): {e}"));
                    break;
                }
            }
        }
        let why = why.unwrap_or_else(|| format!("still beyond after {FIT_ROUNDS} rounds: {finding}"));
        let tol = |t: Tolerance| format!("atol {}, rtol {}", t.atol, t.rtol);
        let (before, after) = widened.map_or((String::new(), String::new()), |(b, a)| (tol(b), tol(a)));
        Ok(Some(format!("| `{}` | {before} | {after} | {why} |", row.id)))
    };
    let next = std::sync::atomic::AtomicUsize::new(0);
    let found = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..jobs.min(report.rows.len()) {
            s.spawn(|| {
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(row) = report.rows.get(i) else { break };
                    let r = fit_one(row);
                    if let Ok(Some(line)) = &r {
                        eprintln!("{line}");
                    }
                    found.lock().unwrap_or_else(|p| p.into_inner()).push((i, r));
                }
            });
        }
    });
    let mut found = found.into_inner().unwrap_or_else(|p| p.into_inner());
    found.sort_by_key(|(i, _)| *i);
    let mut rows = Vec::new();
    for (_, r) in found {
        if let Some(line) = r? {
            rows.push(line);
        }
    }
    let table = if rows.is_empty() {
        "\n## Tolerances fitted to the modules' precision\n\nEvery module's own result is within its task's tolerance of its result in double precision.\n".to_string()
    } else {
        format!(
            "\n## Tolerances fitted to the modules' precision\n\n| task | before | after | why |\n|---|---|---|---|\n{}\n",
            rows.join("\n")
        )
    };
    let md = a.out.join("IMPORT.md");
    let mut text = std::fs::read_to_string(&md).unwrap_or_default();
    text.push_str(&table);
    std::fs::write(&md, text).with_context(|| format!("{}", md.display()))?;
    if let Some(k) = env.kernel() {
        k.pool().shutdown();
    }
    println!(
        "tolerances fitted to the modules' precision: {} tasks listed (the table: {})",
        rows.len(),
        md.display()
    );
    Ok(())
}

/// Runs `aorlta task import ...`.
pub(crate) fn run(cmd: ImportCmd) -> anyhow::Result<ExitCode> {
    let ImportCmd::Kernelbench(a) = cmd;
    let as_ = aorlta_kernel::ImportAs {
        level: a.level,
        language: match a.language.as_str() {
            "triton" => aorlta_record::KernelLanguage::Triton,
            _ => aorlta_record::KernelLanguage::Cuda,
        },
    };
    as_.check()
        .map_err(|why| anyhow::anyhow!("--language {}: {why}", a.language))?;
    let problems = aorlta_kernel::problems_in(&a.dir, a.level)
        .with_context(|| format!("cannot read {}", a.dir.display()))?;
    if problems.is_empty() {
        anyhow::bail!(
            "{}: no problem files (.py) for level {}",
            a.dir.display(),
            a.level
        );
    }
    let python = aorlta_kernel::torch_python(a.python.clone());
    let jobs = super::kernel_args::jobs_or_cpus(a.jobs);
    eprintln!(
        "importing {} problems with {} ({} at a time)",
        problems.len(),
        python.display(),
        jobs
    );
    let report =
        aorlta_kernel::import_kernelbench(&python, &problems, as_, &a.out, jobs, |row, done, total| {
            let name = row
                .problem
                .file_name()
                .map(|n| n.to_string_lossy())
                .unwrap_or_default();
            match &row.outcome {
                Ok(_) => match &row.plans {
                    Some(p) => eprintln!("[{done}/{total}] {name}: imported as {}, {}", row.id, p.text()),
                    None => eprintln!("[{done}/{total}] {name}: imported as {}", row.id),
                },
                Err(why) => eprintln!("[{done}/{total}] {name}: not imported: {why}"),
            }
        })
        .with_context(|| format!("cannot write into {}", a.out.display()))?;
    println!(
        "imported {} of {} problems into {} (the table: {})",
        report.imported(),
        report.rows.len(),
        a.out.display(),
        a.out.join("IMPORT.md").display()
    );
    if a.fit_tolerance && report.imported() > 0 {
        fit_tolerances(&report, &python, jobs, &a)?;
    }
    if report.plan_tasks() > 0 {
        println!(
            "{} plan tasks, {} of them with the library's gemm",
            report.plan_tasks(),
            report.with_library(aorlta_record::LibraryKind::Gemm)
        );
    }
    Ok(if report.imported() > 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
