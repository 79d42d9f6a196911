//! A kernel task's tolerance sanity, checked when tasks load (`score`, `serve`, `validate`): the
//! harness runs the reference alone on every size ([`Work::Sanity`]) and says whether an
//! all-zero output, a constant output or a copy of an input would match its outputs within the
//! task's tolerance. A task where one would is refused, naming the file, the size and the check:
//! a kernel that computes nothing must never be rewarded.

use crate::env::KernelTools;
use crate::exec::{Inputs, run_job};
use crate::task::KernelTaskDef;
use aorlta_check::{CoreError, Env, Task};
use aorlta_record::Tolerance;
use aorlta_record::{PrecisionCase, SanityCase, SanityReport, SanityWork, Work};

/// What the sanity of one task found.
#[derive(Debug, Clone, PartialEq)]
pub enum Sanity {
    /// Nothing cheap matches: the number of (size, output) cases looked at.
    Sound(usize),
    /// A kernel that computes nothing would pass: what, where.
    Unsound(String),
    /// Not looked at, and why (no GPU, no kernel set-up, the reference failed).
    NotRun(String),
}

/// Where in its file a fault of the task lies: `file:line` of the first launch field the
/// harness's message names (`grid`, `block`, `shared bytes`, a buffer's `len`), else the file.
fn task_place(file: &std::path::Path, detail: &str) -> String {
    let key = [
        ("grid", "grid:"),
        ("block", "block:"),
        ("shared", "shared_bytes:"),
        ("buffer", "buffers:"),
        ("size", "sizes:"),
    ]
    .into_iter()
    .filter_map(|(word, key)| detail.find(word).map(|at| (at, key)))
    .min()
    .map(|(_, key)| key);
    let line = key.and_then(|key| {
        let text = std::fs::read_to_string(file).ok()?;
        text.lines().position(|l| l.starts_with(key)).map(|i| i + 1)
    });
    match line {
        Some(line) => format!("{}:{line}", file.display()),
        None => file.display().to_string(),
    }
}

/// The sanity of one task; `Sound(0)` for a task that is not a kernel task. One that ran out of
/// device memory beside other jobs on its GPU (`checks-per-gpu` above 1) runs again with the GPU
/// alone.
pub fn task_sanity(env: &Env, task: &Task) -> Sanity {
    let Some(def) = KernelTaskDef::of(task) else {
        return Sanity::Sound(0);
    };
    match sanity_report(env, def) {
        Err(why) => Sanity::NotRun(why),
        Ok(report) => judge(def, &report),
    }
}

/// Where the module of a task with a PyTorch reference is furthest, beyond the task's
/// tolerance, from its own result in double precision (the sanity job's [`PrecisionCase`]s):
/// `None` when it is within the tolerance everywhere (or the reference is a kernel), `Err` when
/// the sanity job could not run.
pub fn module_precision(env: &Env, task: &Task) -> Result<Option<PrecisionCase>, String> {
    let Some(def) = KernelTaskDef::of(task) else {
        return Ok(None);
    };
    let report = sanity_report(env, def)?;
    let over = |p: &&PrecisionCase| p.worst.is_none_or(|w| w > 1.0);
    let worst = report
        .precision
        .iter()
        .filter(over)
        .max_by(|a, b| {
            let w = |p: &PrecisionCase| p.worst.unwrap_or(f64::INFINITY);
            w(a).total_cmp(&w(b))
        })
        .cloned();
    Ok(worst)
}

/// The zero, constant and copy cases first, then the module's own precision.
fn judge(def: &KernelTaskDef, report: &SanityReport) -> Sanity {
    let tol = def.spec.tolerance;
    let found = report
        .cases
        .iter()
        .find_map(|c| unsound(c, tol, def.spec.sizes.get(c.size)?))
        .or_else(|| {
            report
                .precision
                .iter()
                .find_map(|p| imprecise(p, tol, def.spec.sizes.get(p.size)?))
        });
    match found {
        Some(why) => Sanity::Unsound(why),
        None => Sanity::Sound(report.cases.len()),
    }
}

/// The sanity job's report; `Err` says why it did not run.
fn sanity_report(env: &Env, def: &KernelTaskDef) -> Result<SanityReport, String> {
    let Some(kenv) = env.kernel() else {
        return Err("no `kernel:` section, so no compiler or GPU".into());
    };
    let reference = match crate::exec::reference(kenv, def) {
        Ok(r) => r,
        Err(o) => {
            let why: Vec<String> = o
                .reasons
                .iter()
                .map(|r| format!("{}: {}", r.code, r.detail))
                .collect();
            let what = if def.torch.is_some() {
                "the reference module cannot run"
            } else {
                "the reference did not compile"
            };
            return Err(format!("{what}: {}", why.join("; ")));
        }
    };
    let i = Inputs {
        env: kenv,
        task: def,
        source: &def.reference_source,
    };
    let _span = crate::timeline::span("sanity", || def.spec.id.clone());
    let seed = kenv.next_seed(&format!("{}/sanity", def.spec.id));
    let sizes: Vec<usize> = (0..def.spec.sizes.len()).collect();
    let timeout = if kenv.is_fake() { 0.3 } else { 10.0 };
    let deadline = 60.0 + sizes.len() as f64 * timeout;
    let work = Work::Sanity(SanityWork { sizes, seed });
    let rec = match run_job(&i, &reference, None, work, timeout, deadline) {
        Ok(r) => r,
        Err(o) => {
            let why: Vec<String> = o
                .reasons
                .iter()
                .map(|r| {
                    if r.detail.starts_with(&format!("{}:", r.code)) {
                        r.detail.clone()
                    } else {
                        format!("{}: {}", r.code, r.detail)
                    }
                })
                .collect();
            return Err(why.join("; "));
        }
    };
    if let Some(f) = rec.findings.first() {
        // A fault of the task itself names the task file and, where it can, the field's line.
        let place = if f.code == "bad-task" {
            format!(" ({})", task_place(&def.file, &f.detail))
        } else {
            String::new()
        };
        return Err(format!("{:?} {}: {}{place}", f.party, f.code, f.detail));
    }
    Ok(rec.sanity.unwrap_or_default())
}

/// A task's tolerance as a message names it.
fn tolerance_words(tol: Option<Tolerance>) -> String {
    match tol {
        Some(t) => format!("atol {}, rtol {}", t.atol, t.rtol),
        None => "the default tolerance".into(),
    }
}

/// A size's variables as a message names them: `rows = 3, cols = 5`.
fn size_words(vars: &std::collections::BTreeMap<String, i64>) -> String {
    let words: Vec<String> = vars.iter().map(|(k, v)| format!("{k} = {v}")).collect();
    words.join(", ")
}

/// A case where the module's own rounding exceeds the tolerance: a kernel closer to the exact
/// result than the module is judged wrong there, so the tolerance holds no kernel to the module.
fn imprecise(
    p: &PrecisionCase,
    tol: Option<Tolerance>,
    vars: &std::collections::BTreeMap<String, i64>,
) -> Option<String> {
    let off = match p.worst {
        Some(w) if w <= 1.0 => return None,
        Some(w) => format!("{w:.3} times the tolerance away from"),
        None => "finite where it is not, or the reverse, in".into(),
    };
    let tol = tolerance_words(tol);
    let value = |v: Option<f64>| v.map_or_else(|| "not finite".to_string(), |v| format!("{v:e}"));
    let widen = p.worst.map_or_else(String::new, |w| {
        format!(" (at least {:.0} times)", (2.0 * w).ceil())
    });
    Some(format!(
        "size {} ({}), inputs {}: the module's own result is {off} its result in double precision \
         (`{}` element {}: {} against {}); a kernel closer to the exact result than the module fails \
         {tol} there: widen the tolerance{widen}, or draw these inputs from a domain where the module \
         is exact enough",
        p.size,
        size_words(vars),
        p.inputs,
        p.output,
        p.index,
        value(p.own),
        value(p.double),
    ))
}

fn unsound(
    c: &SanityCase,
    tol: Option<Tolerance>,
    vars: &std::collections::BTreeMap<String, i64>,
) -> Option<String> {
    let tol = tolerance_words(tol);
    let at = format!("size {} ({}), output `{}`", c.size, size_words(vars), c.output);
    if c.zero_passes {
        return Some(format!(
            "{at}: an all-zero output matches the reference within {tol} (largest |reference| {:e}); raise the inputs' scale or tighten atol",
            c.max_abs
        ));
    }
    if let Some(k) = c.constant_passes {
        return Some(format!(
            "{at}: the constant output {k:e} matches the reference within {tol} although the reference varies; tighten the tolerance"
        ));
    }
    c.copy_passes.first().map(|x| {
        format!("{at}: a copy of input `{x}` matches the reference within {tol}; tighten the tolerance")
    })
}

/// Checks every kernel task of `tasks`, each on its own thread (they share the compile cache and
/// the harness pool): `Err` names the first unsound task's file and why; `Ok` lists a line for
/// each task that could not be checked.
pub fn check_tolerances<'a>(
    env: &Env,
    tasks: impl IntoIterator<Item = &'a Task>,
) -> Result<Vec<String>, CoreError> {
    let kernels: Vec<&Task> = tasks
        .into_iter()
        .filter(|t| KernelTaskDef::of(t).is_some())
        .collect();
    let found: Vec<Sanity> = std::thread::scope(|s| {
        let handles: Vec<_> = kernels
            .iter()
            .map(|t| s.spawn(move || task_sanity(env, t)))
            .collect();
        handles
            .into_iter()
            .map(|h| {
                h.join()
                    .unwrap_or_else(|_| Sanity::NotRun("the check's thread panicked".into()))
            })
            .collect()
    });
    let mut notes = Vec::new();
    for (task, sanity) in kernels.iter().zip(found) {
        let Some(def) = KernelTaskDef::of(task) else {
            continue;
        };
        match sanity {
            Sanity::Sound(_) => {}
            Sanity::Unsound(why) => {
                return Err(CoreError::invalid(
                    &def.file,
                    format!("task `{}`: tolerance sanity: {why}", task.id),
                ));
            }
            Sanity::NotRun(why) => notes.push(format!("task `{}`: tolerance sanity not run: {why}", task.id)),
        }
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::task_place;

    /// The module's own rounding beyond the tolerance makes the task unsound, naming the size, the
    /// inputs' families, the element and how far to widen; within it, nothing is said.
    #[test]
    fn a_module_less_exact_than_its_tolerance_is_told() {
        use super::imprecise;
        use aorlta_record::PrecisionCase;
        let vars: std::collections::BTreeMap<String, i64> = [("rows".to_string(), 3)].into();
        let case = |worst: Option<f64>| PrecisionCase {
            size: 1,
            inputs: "x top".into(),
            output: "out".into(),
            index: 7,
            worst,
            own: Some(0.015281),
            double: Some(0.015167),
        };
        assert_eq!(imprecise(&case(Some(0.23)), None, &vars), None);
        assert_eq!(imprecise(&case(Some(1.0)), None, &vars), None);
        let why = imprecise(&case(Some(3.2)), None, &vars).unwrap();
        for part in [
            "size 1 (rows = 3), inputs x top",
            "3.200 times the tolerance away from its result in double precision",
            "`out` element 7: 1.5281e-2 against 1.5167e-2",
            "the default tolerance",
            "at least 7 times",
        ] {
            assert!(why.contains(part), "{part}: {why}");
        }
        let why = imprecise(&case(None), None, &vars).unwrap();
        assert!(why.contains("finite where it is not"), "{why}");
    }

    /// Both ways a sanity job runs out of device memory are seen (the harness's allocation, the
    /// reference process's PyTorch), and nothing else is taken for it.
    #[test]
    fn running_out_of_device_memory_is_told_from_other_failures() {
        use crate::exec::out_of_memory;
        assert!(out_of_memory(
            "Harness out-of-memory: cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY"
        ));
        assert!(out_of_memory(
            "Reference reference-failed: OutOfMemoryError: CUDA out of memory. Tried to allocate 6.00 GiB"
        ));
        assert!(!out_of_memory(
            "Reference reference-failed: RuntimeError: shape mismatch"
        ));
        assert!(!out_of_memory("Harness driver-error: cuMemcpyDtoH failed"));
    }

    #[test]
    fn a_fault_of_the_task_names_its_file_and_the_fields_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.yaml");
        std::fs::write(
            &f,
            "id: t\nsizes:\n  - {n: 1}\ngrid: [\"n\", \"1\", \"1\"]\nblock: [\"2048\", \"1\", \"1\"]\n",
        )
        .unwrap();
        let shown = f.display().to_string();
        assert_eq!(
            task_place(
                &f,
                "the task's geometry: block x is 2048; the device allows 1 to 1024"
            ),
            format!("{shown}:5")
        );
        assert_eq!(
            task_place(&f, "task t: grid x: expression nrows"),
            format!("{shown}:4")
        );
        assert_eq!(task_place(&f, "something else"), shown);
    }
}
