//! The fake compiler of the fake device: instead of a code object it writes a [`FakeImage`],
//! the behaviour a registered fake spec gives the source ([`crate::fake`]), or fails as the spec
//! says.

use super::{CompileEnv, CompileFailure};
use crate::fake::{FakeCompile, FakeSpec};
use crate::reason::KernelReason;
use crate::task::KernelTaskDef;
use aorlta_record::FakeImage;

/// The fake image of the source whose hash is `source_hash`, as bytes, with the symbols to look
/// the kernel up by.
pub(crate) fn compile(
    env: &dyn CompileEnv,
    task: &KernelTaskDef,
    source: &str,
    source_hash: &str,
) -> Result<(Vec<u8>, Vec<String>), CompileFailure> {
    let spec = env.fake_spec(source_hash).unwrap_or_default();
    match spec.compile {
        Some(FakeCompile::Error) => {
            return Err(CompileFailure::broke(
                KernelReason::CompileError,
                "k.cu(1): error: (fake compiler) a compile error",
            ));
        }
        Some(FakeCompile::Timeout) => {
            return Err(CompileFailure::broke(
                KernelReason::CompileTimeout,
                format!(
                    "the compiler ran past {} s and was stopped",
                    env.config().compile_timeout_s
                ),
            ));
        }
        Some(FakeCompile::Memory) => {
            return Err(CompileFailure::broke(
                KernelReason::CompileMemory,
                "the compiler ran out of its memory limit",
            ));
        }
        Some(FakeCompile::Printf) => {
            return Err(CompileFailure::broke(
                KernelReason::DevicePrintf,
                "the kernel calls device printf; output from a kernel is not allowed",
            ));
        }
        None => {}
    }
    // A plan's code object defines every kernel the plan launches; each may compute and behave
    // as the spec says.
    if let Ok(Some(plan)) = crate::extract::plan_of(source, &task.spec) {
        let wanted: Vec<String> = plan.kernels.values().flat_map(|k| k.symbols.clone()).collect();
        let mut img = image_of(&spec, task, wanted.clone());
        for (name, k) in &plan.kernels {
            if !img.symbols.iter().any(|s| k.symbols.contains(s)) {
                return Err(CompileFailure::broke(
                    KernelReason::KernelNotFound,
                    format!("the code object defines no kernel `{name}` of the plan"),
                ));
            }
            let mut fk = spec.kernels.get(name).cloned().unwrap_or_default();
            fk.compute.get_or_insert_with(|| name.clone());
            for s in &k.symbols {
                img.kernels.insert(s.clone(), fk.clone());
            }
        }
        let bytes = serde_json::to_vec(&img)
            .map_err(|e| CompileFailure::unsettled(KernelReason::WorkDirError, e.to_string()))?;
        let first = plan.kernels.values().next().map(|k| k.symbols.clone());
        return Ok((bytes, first.unwrap_or_default()));
    }
    let wanted = task.signature.symbols();
    let img = image_of(&spec, task, wanted.clone());
    if !img.symbols.iter().any(|s| wanted.contains(s)) {
        return Err(CompileFailure::broke(
            KernelReason::KernelNotFound,
            format!(
                "the code object defines no kernel with the task's signature `{}`",
                task.signature.text()
            ),
        ));
    }
    let bytes = serde_json::to_vec(&img)
        .map_err(|e| CompileFailure::unsettled(KernelReason::WorkDirError, e.to_string()))?;
    Ok((bytes, wanted))
}

fn image_of(spec: &FakeSpec, task: &KernelTaskDef, symbols: Vec<String>) -> FakeImage {
    let mut img = FakeImage::correct(task.kernel_name(), spec.symbols.clone().unwrap_or(symbols));
    img.behaviour = spec.behaviour;
    img.speed = spec.speed;
    img.fixed_s = spec.fixed_s;
    if let Some(n) = spec.noise {
        img.noise = n;
    }
    img.launch = spec.launch.clone();
    img
}
