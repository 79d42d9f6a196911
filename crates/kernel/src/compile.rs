//! `kernel-compile` (leg `compile`): the candidate's kernel source, alone, compiled into a code
//! object by [`crate::compiler`], after the reference (a reference that does not compile makes the
//! leg unsettled). Broke: `source-too-large`, `include-forbidden`, `compile-error`,
//! `compile-timeout`, `compile-memory`, `compile-output-too-large`, `device-printf`,
//! `kernel-not-found`. Unsettled: `no-compiler`, `reference-compile-failed`,
//! `compile-sandbox-unavailable`, `compile-dependencies-missing`.

use super::exec::{Inputs, failed, inputs};
use crate::compiler::Target;
use crate::compiler::{Who, compile};
use crate::env::KernelTools;
use crate::hip;
use crate::task::KernelTaskDef;
use aorlta_check::Task;
use aorlta_check::params;
use aorlta_check::{Adapter, Env, LegInput, LegOutput};
use serde::Deserialize;
use serde_json::json;

/// Bumped whenever the compile leg's results can change (flags, policy, checks).
pub(crate) const VERSION: &str = "2";

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoParams {}

/// `kernel-compile`.
pub struct KernelCompile;

/// The part of every kernel leg's identity that the compile step decides. It carries the compile
/// limits (`compile-timeout-s`, `compile-memory-mb`): a `compile-timeout` or `compile-memory`
/// verdict holds only under the limit it was reached at, so a result found under other limits is
/// a miss and the source is compiled again. On the fake device a config's `fakes` (how sources
/// behave there) are part of it too, so a changed one is never answered from the store.
pub(crate) fn compile_identity(task: &Task, env: &Env) -> String {
    let reference = KernelTaskDef::of(task).map_or("", |k| k.reference_hash.as_str());
    match env.kernel() {
        Some(k) => format!(
            "compiler={};arch={};target={};reference={reference};max-source={};compile-timeout-s={};\
             compile-memory-mb={};policy={};fake={}{}",
            k.compiler_version().unwrap_or("none"),
            k.config().arch,
            target_identity(task, k),
            k.config().max_source_bytes,
            k.config().compile_timeout_s,
            k.config().compile_memory_mb,
            crate::compiler::policy::ALLOWED_HEADERS.join(","),
            k.is_fake(),
            if k.config().fakes.is_empty() {
                String::new()
            } else {
                let fakes = serde_json::to_string(&k.config().fakes).unwrap_or_default();
                format!(";fakes={}", aorlta_check::hash_str(&fakes))
            },
        ),
        None => format!("no-kernel-env;reference={reference}"),
    }
}

/// Which platform and language a task compiles for, with what makes that compile: the HIP
/// portability headers on NVIDIA, the architecture list on AMD.
fn target_identity(task: &Task, k: &crate::env::KernelEnv) -> String {
    let Some(def) = KernelTaskDef::of(task) else {
        return String::new();
    };
    match Target::of(k, def) {
        Ok(Target::CudaOnNvidia) => "cuda-on-nvidia".into(),
        Ok(Target::HipOnNvidia) => format!("hip-on-nvidia:{}", hip::headers_hash()),
        Ok(Target::TritonOnNvidia) => format!(
            "triton-on-nvidia:{}",
            k.triton()
                .map_or_else(|e| format!("none ({e})"), |t| t.identity.clone())
        ),
        Ok(Target::HipOnAmd) => format!(
            "hip-on-amd:{}",
            k.hip_archs()
                .map_or_else(|e| format!("none ({e})"), |a| a.join(","))
        ),
        Err(f) => f.code,
    }
}

/// The label of the platform and language a kernel leg ran on ("HIP source on NVIDIA").
pub fn target_label(task: &KernelTaskDef, env: &crate::env::KernelEnv) -> &'static str {
    Target::of(env, task).map_or("unsupported", Target::label)
}

impl Adapter for KernelCompile {
    fn sources(&self) -> Option<String> {
        Some(crate::identity::SOURCES.to_string())
    }
    fn name(&self) -> &'static str {
        "kernel-compile"
    }
    fn version(&self) -> &'static str {
        VERSION
    }
    fn check_params(&self, p: &serde_json::Value) -> Result<(), String> {
        params::<NoParams>(p).map(|_| ())
    }
    fn identity(&self, task: &Task, _params: &serde_json::Value, env: &Env) -> String {
        compile_identity(task, env)
    }
    fn cacheable(&self) -> bool {
        true
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        crate::exec::labelled(input, compile_leg(input))
    }
}

fn compile_leg(input: &LegInput<'_>) -> LegOutput {
    let i = match inputs(input) {
        Ok(i) => i,
        Err(o) => return o,
    };
    run_compile(&i)
}

fn run_compile(i: &Inputs<'_>) -> LegOutput {
    // A reference kernel compiles first (a task whose reference does not compile blames no
    // candidate); a PyTorch module is run, not compiled, by the later legs.
    if i.task.torch.is_none()
        && let Err(f) = compile(i.env, i.task, &i.task.reference_source, Who::Reference)
    {
        return failed(f);
    }
    match compile(i.env, i.task, i.source, Who::Candidate) {
        Ok(c) => LegOutput::clean().with_detail(json!({
            "source_bytes": i.source.len(),
            "cubin_bytes": c.bytes,
            "symbol": c.symbols.first(),
            "compile_s": c.compile_s,
            "cached": c.cached,
            "compiler": match Target::of(i.env, i.task) {
                Ok(Target::TritonOnNvidia) => i.env.triton().map_or_else(|_| "none".into(), |t| t.describe()),
                _ => i.env.compiler_version().unwrap_or("none").to_string(),
            },
            "arch": match Target::of(i.env, i.task) {
                Ok(Target::HipOnAmd) => i.env.hip_archs().unwrap_or_default().join(","),
                _ => i.env.config().arch.clone(),
            },
            "target": target_label(i.task, i.env),
        })),
        Err(f) => failed(f),
    }
}
