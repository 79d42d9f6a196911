//! The kernel lane's `parse`: the kernel source a completion offers, the last fenced code block
//! in the task's language that defines the kernel the task names. One pass over the lines finds
//! the blocks (`fence`); C++, CUDA and HIP blocks are read for a `__global__` declaration
//! (`fence`), Python blocks for a top-level `def` (`python`).

mod fence;
mod plan;
mod python;

use crate::reason::KernelReason;
use crate::task::KernelTaskDef;
use aorlta_record::Reason;

/// The bodies of a completion's fenced C++-family blocks, in order.
pub(super) fn cpp_blocks(completion: &str) -> Vec<&str> {
    fence::blocks(completion)
        .into_iter()
        .filter(|b| b.is_cpp())
        .map(|b| b.body)
        .collect()
}

/// The source of the last fenced code block in a C++/CUDA/HIP language that defines
/// `kernel_name`. Reasons: `no-code-block`, `kernel-not-found`.
///
/// Blocks are fenced with three or more backticks or tildes; C++-family labels are `cuda`,
/// `cu`, `cuh`, `cpp`, `c++`, `cxx`, `cc`, `c`, `h`, `hpp`, `hip`; an unlabelled block counts
/// when it has `__global__`, `__device__`, `#include`, `#define` or `extern "C"`. A block
/// defines the kernel when a `__global__` declaration names it before its `(`. An unclosed
/// fence runs to the end of the completion.
pub fn extract_kernel(completion: &str, kernel_name: &str) -> Result<String, Reason> {
    let blocks = cpp_blocks(completion);
    if blocks.is_empty() {
        return Err(Reason::new(
            KernelReason::NoCodeBlock.as_str(),
            "no fenced C++, CUDA or HIP code block in the completion",
        ));
    }
    match blocks
        .iter()
        .rev()
        .find(|b| fence::defines_kernel(b, kernel_name))
    {
        Some(src) => Ok((*src).to_string()),
        None => Err(Reason::new(
            KernelReason::KernelNotFound.as_str(),
            format!(
                "{} code block(s), but none defines `__global__ … {kernel_name}(`",
                blocks.len()
            ),
        )),
    }
}

/// The kernel source of a completion in the task's language ([`extract_kernel`] for CUDA and
/// HIP, [`extract_triton_kernel`] for Triton). A CUDA or HIP completion with a plan block (a
/// fenced YAML block whose top key is `plan:`, docs/PLANS.md) gives the last C++ block that
/// defines every kernel the plan launches, with the plan, checked against the task, appended
/// (the `plan` module); reason `plan-invalid` names the step and field of what is wrong.
pub fn kernel_source(completion: &str, task: &KernelTaskDef) -> Result<String, Reason> {
    match task.spec.language {
        aorlta_record::KernelLanguage::Triton => extract_triton_kernel(completion, task.kernel_name()),
        _ => cpp_source(completion, &task.spec, task.kernel_name()),
    }
}

/// The CUDA or HIP branch of [`kernel_source`]: with a plan block, the source of its kernels and
/// the checked plan; without, the block that defines `kernel_name`.
pub(crate) fn cpp_source(
    completion: &str,
    spec: &aorlta_record::KernelTask,
    kernel_name: &str,
) -> Result<String, Reason> {
    match plan::plan_block(completion) {
        Some(body) => plan::plan_source(completion, body, spec),
        None => {
            let src = extract_kernel(completion, kernel_name)?;
            plan::refuse_marker(&src)?;
            Ok(src)
        }
    }
}

/// The plan an extracted text carries, checked again against the task and its source (the
/// later legs never run a plan `parse` did not pass): `None` when it carries none.
pub(crate) fn plan_of(
    extracted: &str,
    task: &aorlta_record::KernelTask,
) -> Result<Option<aorlta_record::ImagePlan>, crate::plan::PlanError> {
    let (source, Some(json)) = crate::plan::split(extracted) else {
        return Ok(None);
    };
    let plan: aorlta_record::Plan =
        serde_json::from_str(json).map_err(|e| crate::plan::err("plan", "plan", e.to_string()))?;
    crate::plan::check(&plan, task, &|name| fence::kernel_declaration(source, name)).map(Some)
}

/// The source of the last fenced Python code block that defines the Triton kernel
/// `kernel_name` (a top-level `def kernel_name(`). Reasons: `no-code-block`, `kernel-not-found`.
///
/// Python labels are `python`, `py`, `python3`, `triton`; an unlabelled block counts when it
/// imports Triton or has `@triton.jit`.
pub fn extract_triton_kernel(completion: &str, kernel_name: &str) -> Result<String, Reason> {
    let blocks: Vec<&str> = fence::blocks(completion)
        .into_iter()
        .filter(python::is_python)
        .map(|b| b.body)
        .collect();
    if blocks.is_empty() {
        return Err(Reason::new(
            KernelReason::NoCodeBlock.as_str(),
            "no fenced Python code block in the completion",
        ));
    }
    match blocks
        .iter()
        .rev()
        .find(|b| python::defines_function(b, kernel_name))
    {
        Some(src) => Ok((*src).to_string()),
        None => Err(Reason::new(
            KernelReason::KernelNotFound.as_str(),
            format!(
                "{} Python code block(s), but none defines `def {kernel_name}(` at the top level",
                blocks.len()
            ),
        )),
    }
}

#[cfg(test)]
mod tests;
