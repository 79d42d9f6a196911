//! Building a run's environment (scratch folder, kernel tools) from its config.

use aorlta_core::checks::Env;
use aorlta_core::run::RunConfig;

/// The environment for a scoring run: scratch under `<out>/work`, kernel tools when configured.
pub fn build_env(config: &RunConfig) -> anyhow::Result<Env> {
    let work_dir = config.out.join("work");
    std::fs::create_dir_all(&work_dir)?;
    Ok(Env {
        work_dir,
        kernel: None,
    })
}
