//! The plan block of a completion: the last fenced YAML block (or unlabelled one) whose top key
//! is `plan:`, read as data, its steps one by one so that an error names the step, and the C++
//! block that defines the kernels it launches.

use super::fence;
use crate::plan::{PLAN_MARKER, PlanError, step_at};
use crate::reason::KernelReason;
use aorlta_record::{KernelTask, Plan, PlanStep, Reason, ScratchSpec};
use serde::Deserialize;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Doc {
    plan: RawPlan,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPlan {
    #[serde(default)]
    scratch: Vec<ScratchSpec>,
    steps: Vec<serde_json::Value>,
}

fn invalid(detail: String) -> Reason {
    Reason::new(KernelReason::PlanInvalid.as_str(), detail)
}

/// The body of the completion's plan block, if it has one.
pub(super) fn plan_block(completion: &str) -> Option<&str> {
    fence::blocks(completion)
        .into_iter()
        .rev()
        .filter(|b| matches!(b.lang.as_str(), "yaml" | "yml" | ""))
        .map(|b| b.body)
        .find(|body| {
            body.lines()
                .map(str::trim_end)
                .find(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
                .is_some_and(|l| l.starts_with("plan:"))
        })
}

/// A source that holds the marker the plan travels under is refused: only a checked plan may
/// follow it.
pub(super) fn refuse_marker(src: &str) -> Result<(), Reason> {
    if src.contains(PLAN_MARKER.trim_end()) {
        return Err(invalid(format!(
            "the source holds `{}`, a line reserved for the plan the harness runs",
            PLAN_MARKER.trim_end()
        )));
    }
    Ok(())
}

/// The field a step's schema error names (`unknown field `grd``, `missing field `grid``),
/// `kind` for an unknown step kind, else `fields` (a value of the wrong type).
fn schema_field(message: &str) -> String {
    for lead in ["unknown field `", "missing field `"] {
        if let Some(rest) = message.split(lead).nth(1)
            && let Some(name) = rest.split('`').next()
        {
            return name.to_string();
        }
    }
    if message.contains("unknown variant") || message.contains("expected map with a single key") {
        "kind".to_string()
    } else {
        "fields".to_string()
    }
}

fn read(body: &str) -> Result<Plan, Reason> {
    let doc: Doc = aorlta_check::parse_yaml(body, std::path::Path::new("the plan block"))
        .map_err(|e| invalid(e.to_string()))?;
    let mut steps = Vec::with_capacity(doc.plan.steps.len());
    for (i, v) in doc.plan.steps.into_iter().enumerate() {
        let kind = match &v {
            serde_json::Value::Object(m) if m.len() == 1 => m.keys().next().cloned().unwrap_or_default(),
            _ => "?".to_string(),
        };
        let step: PlanStep = serde_json::from_value(v).map_err(|e| {
            let m = e.to_string();
            invalid(
                PlanError {
                    at: step_at(i, &kind),
                    field: schema_field(&m),
                    message: m,
                }
                .describe(),
            )
        })?;
        steps.push(step);
    }
    Ok(Plan {
        scratch: doc.plan.scratch,
        steps,
    })
}

/// The kernel source of a completion with a plan block, the checked plan appended.
pub(super) fn plan_source(completion: &str, body: &str, spec: &KernelTask) -> Result<String, Reason> {
    let plan = read(body)?;
    let blocks = super::cpp_blocks(completion);
    if blocks.is_empty() {
        return Err(Reason::new(
            KernelReason::NoCodeBlock.as_str(),
            "a plan block, but no fenced C++, CUDA or HIP code block with its kernels",
        ));
    }
    let launched: Vec<(usize, &str)> = plan
        .steps
        .iter()
        .enumerate()
        .filter_map(|(i, s)| match s {
            PlanStep::Launch(l) => Some((i, l.kernel.as_str())),
            _ => None,
        })
        .collect();
    let src = match blocks
        .iter()
        .rev()
        .copied()
        .find(|b| launched.iter().all(|(_, k)| fence::defines_kernel(b, k)))
    {
        Some(s) => s,
        None => {
            let last = blocks[blocks.len() - 1];
            let (i, k) = launched
                .iter()
                .find(|(_, k)| !fence::defines_kernel(last, k))
                .copied()
                .unwrap_or((0, ""));
            return Err(invalid(
                PlanError {
                    at: step_at(i, "launch"),
                    field: "kernel".into(),
                    message: format!(
                        "no code block defines every kernel the plan launches (none with `__global__ … {k}(` and the others)"
                    ),
                }
                .describe(),
            ));
        }
    };
    refuse_marker(src)?;
    crate::plan::check(&plan, spec, &|name| fence::kernel_declaration(src, name))
        .map_err(|e| invalid(e.describe()))?;
    Ok(crate::plan::attach(src, &plan))
}
