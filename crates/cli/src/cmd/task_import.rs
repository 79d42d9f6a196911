//! `aorlta task import kernelbench DIR --out DIR`: each problem of a KernelBench checkout's level
//! (or of a folder of problems in its format) becomes a kernel task whose reference is the
//! problem's PyTorch module ([`aorlta_kernel::import_kernelbench`]); from level 2 on, a task that
//! allows plans (docs/PLANS.md). One line per problem as it is read, then the counts;
//! `OUT/IMPORT.md` holds the table. Exit status 0 when at least one problem imported, 1 when none
//! did.

use anyhow::Context;
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
    let python = aorlta_kernel::torch_python(a.python);
    let jobs = a
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(8));
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
