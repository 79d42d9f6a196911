//! Building a run's environment (scratch folder, kernel tools) from its config.

use anyhow::Context;
use aorlta_core::checks::Env;
use aorlta_core::checks::kernel::KernelEnv;
use aorlta_core::run::RunConfig;

/// The environment for a scoring run: scratch under `<out>/work`, kernel tools when the config
/// has a `kernel:` section.
pub fn build_env(config: &RunConfig) -> anyhow::Result<Env> {
    let work_dir = config.out.join("work");
    std::fs::create_dir_all(&work_dir)
        .with_context(|| format!("creating the work folder {}", work_dir.display()))?;
    let kernel = KernelEnv::from_section(config.kernel.as_ref(), &config.path, &work_dir, None)?;
    Ok(Env { work_dir, kernel })
}
