//! What the example-compile tests share: a folder's kernel tasks, and each validation case's
//! candidate once, with the outcomes its `compile` leg may have.

use aorlta_check::TaskSet;
use aorlta_kernel::KernelTaskDef;
use std::collections::BTreeSet;
use std::path::Path;

/// The kernel tasks of the task files in `dir`, every file loaded.
pub(crate) fn kernel_tasks(dir: &Path) -> Vec<KernelTaskDef> {
    let (set, skipped) = TaskSet::load(dir, &aorlta_core::lanes()).unwrap_or_else(|e| panic!("{e}"));
    assert!(skipped.is_empty(), "{skipped:?}");
    set.iter().filter_map(|t| KernelTaskDef::of(t).cloned()).collect()
}

/// Each case of the suite at `path` once, as (task, case, the `compile` outcomes it expects:
/// `clean` unless the case says otherwise).
pub(crate) fn compile_cases(path: &Path) -> Vec<(String, String, Vec<String>)> {
    let text = std::fs::read_to_string(path).unwrap();
    let doc: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for c in doc["cases"].as_sequence().unwrap() {
        let task = c["task"].as_str().unwrap().to_string();
        let case = c["case"].as_str().unwrap().to_string();
        let expect = match c.get("expect").and_then(|e| e.get("compile")) {
            Some(serde_norway::Value::String(s)) => vec![s.clone()],
            Some(serde_norway::Value::Sequence(l)) => {
                l.iter().map(|v| v.as_str().unwrap().to_string()).collect()
            }
            _ => vec!["clean".to_string()],
        };
        if seen.insert((task.clone(), case.clone())) {
            out.push((task, case, expect));
        }
    }
    assert!(out.len() >= 30, "the suite has {} candidates", out.len());
    out
}

/// The compile time limit for a case that must end at the limit (a compile bomb, an import that
/// never returns): its verdict is the same at any limit, and the suite's own limit (20 s) spent
/// once per platform on a compiler that burns a CPU the whole time is most of these tests' time.
pub(crate) const LIMIT_CASE_TIMEOUT_S: f64 = 3.0;

/// Whether a case's expected outcomes are only the ones a compile limit gives.
pub(crate) fn ends_at_a_limit(expect: &[String]) -> bool {
    expect.iter().any(|e| e == "broke compile-timeout")
        && expect
            .iter()
            .all(|e| e == "broke compile-timeout" || e == "broke compile-memory")
}
