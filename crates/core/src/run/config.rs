//! Run configs (`configs/*.yaml`): which tasks, which pool(s), which profile, where the output
//! goes, how many at once, which cache, and the kernel tools. Paths are relative to the config
//! file; unknown keys are an error naming the file, line and key. The store is
//! [`crate::cache::CACHE_URL_VAR`] when that is set, else `cache:` (a SQLite file, or a `postgres://` URL),
//! else `<out>/cache.sqlite`.

use crate::cache::CacheSpec;
use crate::checks::Env;
use crate::checks::kernel::{KernelEnv, KernelOverrides};
use crate::error::{CoreError, Result};
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// One path or a list of paths.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum OneOrMany {
    /// A single path.
    One(PathBuf),
    /// Several paths.
    Many(Vec<PathBuf>),
}

impl OneOrMany {
    fn into_vec(self) -> Vec<PathBuf> {
        match self {
            OneOrMany::One(p) => vec![p],
            OneOrMany::Many(v) => v,
        }
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
    tasks: OneOrMany,
    pool: OneOrMany,
    profile: PathBuf,
    out: PathBuf,
    #[serde(default = "one")]
    concurrency: usize,
    #[serde(default)]
    cache: Option<String>,
    #[serde(default)]
    kernel: Option<serde_norway::Value>,
}

fn one() -> usize {
    1
}

/// A scoring run's config with every path resolved.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The config file.
    pub path: PathBuf,
    /// Task files or folders.
    pub tasks: Vec<PathBuf>,
    /// Pool files, scored in order.
    pub pools: Vec<PathBuf>,
    /// The profile file.
    pub profile: PathBuf,
    /// The output folder.
    pub out: PathBuf,
    /// Candidates scored at once.
    pub concurrency: usize,
    /// The store: [`crate::cache::CACHE_URL_VAR`] when set, else the config's `cache:` (a SQLite file, or a
    /// `postgres://` URL), else `<out>/cache.sqlite`.
    pub cache: CacheSpec,
    /// The `kernel:` section, as written (read by the kernel adapters' environment).
    pub kernel: Option<serde_norway::Value>,
}

impl RunConfig {
    /// The environment a scoring run of this config runs in: scratch under `<out>/work`, and
    /// kernel tools (work folder `<out>/work/kernel`) when the config has a `kernel:` section.
    pub fn env(&self) -> Result<Env> {
        self.env_with(&KernelOverrides::default())
    }

    /// [`RunConfig::env`] with a command line's overrides of the `kernel:` section.
    pub fn env_with(&self, overrides: &KernelOverrides) -> Result<Env> {
        let work_dir = self.out.join("work");
        std::fs::create_dir_all(&work_dir).map_err(|e| CoreError::io(&work_dir, e))?;
        let kernel = KernelEnv::from_section_with(self.kernel.as_ref(), &self.path, &work_dir, overrides)?;
        Ok(Env { work_dir, kernel })
    }

    /// Reads a config file.
    pub fn load(path: &Path) -> Result<Self> {
        let raw: RawConfig = crate::yaml::load(path)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let at = |p: PathBuf| {
            if p.is_absolute() {
                p
            } else {
                lexical(&base.join(p))
            }
        };
        if raw.concurrency == 0 {
            return Err(CoreError::invalid(
                path,
                "field `concurrency`: must be at least 1",
            ));
        }
        let out = at(raw.out);
        Ok(RunConfig {
            path: path.to_path_buf(),
            tasks: raw.tasks.into_vec().into_iter().map(at).collect(),
            pools: raw.pool.into_vec().into_iter().map(at).collect(),
            profile: at(raw.profile),
            cache: match CacheSpec::from_env()? {
                Some(from_env) => from_env,
                None => match raw.cache {
                    Some(c) if CacheSpec::is_url(&c) => CacheSpec::Postgres(c),
                    Some(c) => CacheSpec::Sqlite(at(PathBuf::from(c))),
                    None => CacheSpec::Sqlite(out.join("cache.sqlite")),
                },
            },
            out,
            concurrency: raw.concurrency,
            kernel: raw.kernel,
        })
    }
}

/// `a/b/../c` as `a/c`, without touching the file system (a leading `..` is kept).
fn lexical(p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.components().next_back(), Some(Component::Normal(_))) => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_config_and_unknown_keys_are_named() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("c.yaml");
        std::fs::write(
            &f,
            "tasks: t.jsonl\npool: [a.jsonl, b.jsonl]\nprofile: p.yaml\nout: o\n",
        )
        .unwrap();
        let c = RunConfig::load(&f).unwrap();
        assert_eq!(c.tasks, vec![dir.path().join("t.jsonl")]);
        assert_eq!(c.pools.len(), 2);
        if std::env::var_os(crate::cache::CACHE_URL_VAR).is_none() {
            assert_eq!(
                c.cache,
                CacheSpec::Sqlite(dir.path().join("o").join("cache.sqlite"))
            );
        }
        assert_eq!(lexical(Path::new("configs/../runs/x")), PathBuf::from("runs/x"));
        assert_eq!(lexical(Path::new("../a/./b")), PathBuf::from("../a/b"));
        std::fs::write(
            &f,
            "tasks: t.jsonl\npool: a.jsonl\nprofile: p.yaml\nout: o\nconcurency: 2\n",
        )
        .unwrap();
        let err = RunConfig::load(&f).unwrap_err().to_string();
        assert!(err.contains("c.yaml:5") && err.contains("concurency"), "{err}");
    }
}
