//! Every shipped config loads: its paths exist, its profile checks against the adapters and
//! reward functions, its tasks load without a skipped line, its pool (or its dataset) parses.
//! Tasks that an import writes under `runs/` on the machine that scores them (KernelBench's
//! problems are not shipped) are loaded where that folder exists; elsewhere the profile and the
//! pool are checked.

use aorlta_app::RunConfig;
use aorlta_check::TaskSet;
use aorlta_core::LoadedProfile;
use aorlta_core::RewardRegistry;
use aorlta_core::read_pool;
use aorlta_server::ServeConfig;
use std::path::{Path, PathBuf};

fn configs() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../configs");
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yaml"))
        .collect();
    v.sort();
    v
}

/// Whether some of the tasks are a folder under `runs/` (an import's output, never shipped) that
/// this checkout does not hold.
fn tasks_imported_elsewhere(tasks: &[PathBuf]) -> bool {
    tasks
        .iter()
        .any(|t| t.components().any(|c| c.as_os_str() == "runs") && !t.exists())
}

fn check_profile(path: &Path) -> LoadedProfile {
    LoadedProfile::load(path, &aorlta_core::adapters(), &RewardRegistry::builtin())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn every_shipped_config_loads() {
    let all = configs();
    assert!(all.len() >= 5, "{all:?}");
    for c in all {
        let text = std::fs::read_to_string(&c).unwrap();
        if text.lines().any(|l| l.starts_with("profiles:")) {
            let cfg = ServeConfig::load(&c).unwrap_or_else(|e| panic!("{e}"));
            // OpenRLHF gives one sample 180 s: a shipped service config fits its items inside.
            assert_eq!(cfg.get_reward_budget_warning(), None, "{}", c.display());
            for p in &cfg.profiles {
                check_profile(p);
            }
            let (tasks, skipped) = TaskSet::load_all(&cfg.tasks, &aorlta_core::lanes()).unwrap();
            assert!(!tasks.is_empty() && skipped.is_empty(), "{}", c.display());
        } else {
            let mut cfg = RunConfig::load(&c).unwrap_or_else(|e| panic!("{e}"));
            check_profile(&cfg.profile);
            if tasks_imported_elsewhere(&cfg.tasks) {
                for pool in &cfg.pools {
                    let (cands, skipped) = read_pool(pool).unwrap();
                    assert!(!cands.is_empty() && skipped.is_empty(), "{}", pool.display());
                }
                continue;
            }
            // A dataset: every row reads, and becomes its pool and tasks (checked below).
            let scratch = tempfile::tempdir().unwrap();
            let skipped = cfg
                .materialise_dataset(scratch.path())
                .unwrap_or_else(|e| panic!("{}: {e}", c.display()));
            assert!(skipped.is_empty(), "{}: {skipped:?}", c.display());
            let (tasks, skipped) = TaskSet::load_all(&cfg.tasks, &aorlta_core::lanes()).unwrap();
            assert!(!tasks.is_empty() && skipped.is_empty(), "{}", c.display());
            for pool in &cfg.pools {
                let (cands, skipped) = read_pool(pool).unwrap();
                assert!(!cands.is_empty() && skipped.is_empty(), "{}", pool.display());
                assert!(
                    cands.iter().all(|x| tasks.get(&x.task).is_some()),
                    "{}: unknown task",
                    pool.display()
                );
            }
        }
    }
}
