//! Run configs (`configs/*.yaml`): which tasks, which pool(s), which profile, where the output
//! goes, how many at once (1 to [`MAX_CONCURRENCY`]), which cache, and the kernel tools. Paths
//! are relative to the config file; unknown keys are an error naming the file, line and key, and
//! so is a pool or a dataset that is one of the run's own outputs (`rewards.jsonl`, which the
//! run replaces, or the pool and tasks a dataset becomes under `<out>/dataset/`).
//! The store is
//! [`aorlta_store::CACHE_URL_VAR`] when that is set, else `cache:` (a SQLite file, or a `postgres://` URL),
//! else `<out>/cache.sqlite`.

use aorlta_check::Env;
use aorlta_check::{CoreError, Result};
use aorlta_kernel::{KernelEnv, KernelOverrides};
use aorlta_store::{CacheSpec, redact_url};
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
    #[serde(default)]
    tasks: Option<OneOrMany>,
    #[serde(default)]
    pool: Option<OneOrMany>,
    #[serde(default)]
    dataset: Option<crate::dataset::DatasetSpec>,
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

/// The most candidates a run scores at once: one worker thread each. A fixed number rather than
/// one drawn from the host's cores, so that a config valid on one machine is valid on all. The
/// work of a worker is either CPU-bound (Q&A legs, compiles), where no host has near 256 cores
/// to run them, or waits on a GPU lease (timing), where a node has far fewer GPUs than that; and
/// the store serves at most 64 readers. Past it, more threads only cost memory and start-up.
pub const MAX_CONCURRENCY: usize = 256;

/// The run's entries, one line each in input order, once the run is complete.
pub const REWARDS_FILE: &str = "rewards.jsonl";
/// The run's entries while it lasts; renamed to [`REWARDS_FILE`] when every one is written.
pub const PARTIAL_REWARDS_FILE: &str = "rewards.jsonl.partial";

/// Why `n` is not a valid concurrency, or `None` when it is (1 to [`MAX_CONCURRENCY`]).
pub fn concurrency_problem(n: usize) -> Option<String> {
    match n {
        0 => Some("must be at least 1".into()),
        n if n > MAX_CONCURRENCY => Some(format!(
            "{n} is more than the most candidates scored at once, {MAX_CONCURRENCY} (one worker \
             thread each; more would not run faster)"
        )),
        _ => None,
    }
}

/// The outputs of a run in `out` that it truncates or replaces: `rewards.jsonl` and the file it
/// is written to until the run completes.
pub fn run_outputs(out: &Path) -> [PathBuf; 2] {
    [out.join(REWARDS_FILE), out.join(PARTIAL_REWARDS_FILE)]
}

/// True when `a` and `b` name the same file: the same device and inode when both exist (a hard
/// link or a symbolic link to it included), else the same path once their folders are resolved.
fn same_file(a: &Path, b: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    if let (Ok(x), Ok(y)) = (std::fs::metadata(a), std::fs::metadata(b)) {
        return x.dev() == y.dev() && x.ino() == y.ino();
    }
    let resolved = |p: &Path| -> Option<PathBuf> {
        let parent = match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        Some(std::fs::canonicalize(parent).ok()?.join(p.file_name()?))
    };
    match (resolved(a), resolved(b)) {
        (Some(x), Some(y)) => x == y,
        _ => lexical(a) == lexical(b),
    }
}

/// True when a `cache:` value is a PostgreSQL key=value conninfo (`host=… dbname=…`) rather
/// than a file: a pair whose key is one of libpq's, or a password.
fn is_conninfo(value: &str) -> bool {
    const KEYS: &[&str] = &[
        "host",
        "hostaddr",
        "port",
        "dbname",
        "user",
        "password",
        "passfile",
        "service",
        "sslmode",
        "options",
        "application_name",
        "connect_timeout",
    ];
    let first = value
        .trim_start()
        .split(['=', ' ', '\t'])
        .next()
        .unwrap_or_default();
    let paired = value.trim_start()[first.len()..].trim_start().starts_with('=');
    (paired && KEYS.contains(&first)) || redact_url(value) != value
}

/// The 1-based line of top-level key `key` in a YAML text (0 when not found).
fn line_of(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            l.strip_prefix(key)
                .is_some_and(|r| r.trim_start().starts_with(':'))
        })
        .map_or(0, |i| i + 1)
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
    /// A trainer's dataset scored after the pools (its file resolved against the config):
    /// [`DatasetSpec`](crate::dataset::DatasetSpec).
    pub dataset: Option<crate::dataset::DatasetSpec>,
    /// The profile file.
    pub profile: PathBuf,
    /// The output folder.
    pub out: PathBuf,
    /// Candidates scored at once, 1 to [`MAX_CONCURRENCY`].
    pub concurrency: usize,
    /// The store: [`aorlta_store::CACHE_URL_VAR`] when set, else the config's `cache:` (a SQLite file, or a
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
        Ok(aorlta_kernel::env_of(work_dir, kernel))
    }

    /// Reads a config file.
    pub fn load(path: &Path) -> Result<Self> {
        let text = aorlta_check::read_input_text(path, aorlta_check::TEXT_LIMIT)?;
        let raw: RawConfig = aorlta_check::parse_yaml(&text, path)?;
        let base = path.parent().unwrap_or(Path::new("."));
        let at = |p: PathBuf| {
            if p.is_absolute() {
                p
            } else {
                lexical(&base.join(p))
            }
        };
        if let Some(why) = concurrency_problem(raw.concurrency) {
            return Err(CoreError::Parse {
                path: path.to_path_buf(),
                line: line_of(&text, "concurrency"),
                message: format!("field `concurrency`: {why}"),
            });
        }
        let out = at(raw.out);
        let config = RunConfig {
            path: path.to_path_buf(),
            tasks: raw
                .tasks
                .map(OneOrMany::into_vec)
                .unwrap_or_default()
                .into_iter()
                .map(at)
                .collect(),
            pools: raw
                .pool
                .map(OneOrMany::into_vec)
                .unwrap_or_default()
                .into_iter()
                .map(at)
                .collect(),
            dataset: raw.dataset.map(|mut d| {
                d.file = at(std::mem::take(&mut d.file));
                d
            }),
            profile: at(raw.profile),
            cache: match CacheSpec::from_env()? {
                Some(from_env) => from_env,
                None => match raw.cache {
                    Some(c) if CacheSpec::is_url(&c) => CacheSpec::Postgres(c),
                    Some(c) if is_conninfo(&c) => {
                        return Err(CoreError::Parse {
                            path: path.to_path_buf(),
                            line: line_of(&text, "cache"),
                            message: format!(
                                "field `cache`: `{}` is a key=value conninfo: name a PostgreSQL \
                                 store by its URL (postgres://user:password@host:port/db), or give \
                                 a SQLite file",
                                redact_url(&c)
                            ),
                        });
                    }
                    Some(c) => CacheSpec::Sqlite(at(PathBuf::from(c))),
                    None => CacheSpec::Sqlite(out.join("cache.sqlite")),
                },
            },
            out,
            concurrency: raw.concurrency,
            kernel: raw.kernel,
        };
        if config.pools.is_empty() && config.dataset.is_none() {
            return Err(CoreError::invalid(
                path,
                "no `pool:` and no `dataset:`: name the completions to score",
            ));
        }
        if config.tasks.is_empty()
            && config
                .dataset
                .as_ref()
                .is_none_or(|d| d.mode != crate::dataset::DatasetMode::Answer)
        {
            return Err(CoreError::invalid(
                path,
                "no `tasks:`: only a `dataset:` in answer mode carries its own tasks",
            ));
        }
        config.check_pools().map_err(|message| CoreError::Parse {
            path: path.to_path_buf(),
            line: line_of(&text, "pool"),
            message,
        })?;
        config.check_dataset().map_err(|message| CoreError::Parse {
            path: path.to_path_buf(),
            line: line_of(&text, "dataset"),
            message,
        })?;
        Ok(config)
    }

    /// Writes the dataset's rows (when the config has one) as a pool, and answer mode's tasks,
    /// under `dir`, and adds them to the run's pools and tasks; returns the rows skipped.
    pub fn materialise_dataset(&mut self, dir: &Path) -> Result<Vec<aorlta_check::SkippedLine>> {
        let Some(spec) = &self.dataset else {
            return Ok(Vec::new());
        };
        let m = crate::dataset::materialise(spec, dir)?;
        self.pools.push(m.pool);
        self.tasks.extend(m.tasks);
        Ok(m.skipped)
    }

    /// Why a pool cannot be read by this run, naming it: it is one of the run's own outputs,
    /// which the run truncates or replaces.
    pub fn check_pools(&self) -> std::result::Result<(), String> {
        for pool in &self.pools {
            for output in run_outputs(&self.out) {
                if same_file(pool, &output) {
                    return Err(format!(
                        "field `pool`: {} is this run's own output {} (the run replaces it): score \
                         a copy, or give the run another `out`",
                        pool.display(),
                        output.display()
                    ));
                }
            }
        }
        Ok(())
    }

    /// Why the dataset cannot be read by this run, naming it: it is one of the run's own
    /// outputs (its rewards, or the pool and tasks its dataset becomes under `<out>/dataset/`),
    /// which the run truncates or replaces.
    pub fn check_dataset(&self) -> std::result::Result<(), String> {
        let Some(d) = &self.dataset else {
            return Ok(());
        };
        let made = self.out.join("dataset");
        let outputs = run_outputs(&self.out)
            .into_iter()
            .chain([made.join("pool.jsonl"), made.join("tasks.jsonl")]);
        for output in outputs {
            if same_file(&d.file, &output) {
                return Err(format!(
                    "field `dataset.file`: {} is this run's own output {} (the run replaces it): \
                     read a copy, or give the run another `out`",
                    d.file.display(),
                    output.display()
                ));
            }
        }
        Ok(())
    }

    /// Why this config's `concurrency` is out of range, naming the config and the field.
    pub fn check_concurrency(&self) -> Result<()> {
        match concurrency_problem(self.concurrency) {
            Some(why) => Err(CoreError::invalid(
                &self.path,
                format!("field `concurrency`: {why}"),
            )),
            None => Ok(()),
        }
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
        if std::env::var_os(aorlta_store::CACHE_URL_VAR).is_none() {
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

    #[test]
    fn a_concurrency_out_of_range_is_refused_naming_the_file_line_and_field() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("c.yaml");
        for (n, why) in [
            (0, "at least 1"),
            (257, "257 is more than"),
            (3000, "most candidates scored at once, 256"),
        ] {
            std::fs::write(
                &f,
                format!("tasks: t.jsonl\npool: a.jsonl\nprofile: p.yaml\nout: o\nconcurrency: {n}\n"),
            )
            .unwrap();
            let err = RunConfig::load(&f).unwrap_err().to_string();
            assert!(err.contains("c.yaml:5"), "{n}: {err}");
            assert!(
                err.contains("field `concurrency`") && err.contains(why),
                "{n}: {err}"
            );
        }
        std::fs::write(
            &f,
            "tasks: t.jsonl\npool: a.jsonl\nprofile: p.yaml\nout: o\nconcurrency: 256\n",
        )
        .unwrap();
        let mut c = RunConfig::load(&f).unwrap();
        assert_eq!(c.concurrency, MAX_CONCURRENCY);
        c.concurrency = MAX_CONCURRENCY + 1;
        let err = c.check_concurrency().unwrap_err().to_string();
        assert!(
            err.contains("c.yaml") && err.contains("field `concurrency`"),
            "{err}"
        );
    }

    #[test]
    fn a_pool_that_is_the_runs_own_rewards_is_refused_before_anything_is_touched() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("c.yaml");
        let out = dir.path().join("o");
        std::fs::create_dir(&out).unwrap();
        let rewards = out.join("rewards.jsonl");
        std::fs::write(&rewards, "{\"task\":\"a\",\"completion\":\"x\"}\n").unwrap();
        std::fs::hard_link(&rewards, dir.path().join("linked.jsonl")).unwrap();
        std::os::unix::fs::symlink(&rewards, dir.path().join("symlinked.jsonl")).unwrap();
        for pool in [
            "o/rewards.jsonl",
            "./o/../o/rewards.jsonl",
            "linked.jsonl",
            "symlinked.jsonl",
            "o/rewards.jsonl.partial",
        ] {
            std::fs::write(
                &f,
                format!("tasks: t.jsonl\nprofile: p.yaml\npool: [a.jsonl, {pool}]\nout: o\n"),
            )
            .unwrap();
            let err = RunConfig::load(&f).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("{}:3: field `pool`", f.display())),
                "{pool}: {err}"
            );
            assert!(err.contains("this run's own output"), "{pool}: {err}");
            assert_eq!(
                std::fs::read_to_string(&rewards).unwrap(),
                "{\"task\":\"a\",\"completion\":\"x\"}\n",
                "{pool}: untouched"
            );
        }
        std::fs::write(
            &f,
            "tasks: t.jsonl\nprofile: p.yaml\npool: o/other.jsonl\nout: o\n",
        )
        .unwrap();
        assert!(RunConfig::load(&f).is_ok());
    }

    #[test]
    fn a_dataset_that_is_one_of_the_runs_own_outputs_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("c.yaml");
        for file in [
            "o/rewards.jsonl",
            "o/dataset/pool.jsonl",
            "./o/dataset/tasks.jsonl",
        ] {
            std::fs::write(&f, format!("profile: p.yaml\nout: o\ndataset:\n  file: {file}\n")).unwrap();
            let err = RunConfig::load(&f).unwrap_err().to_string();
            assert!(
                err.starts_with(&format!("{}:3: field `dataset.file`", f.display()))
                    && err.contains("this run's own output"),
                "{file}: {err}"
            );
        }
        std::fs::write(&f, "profile: p.yaml\nout: o\ndataset:\n  file: d.jsonl\n").unwrap();
        assert!(RunConfig::load(&f).is_ok());
    }

    #[test]
    fn a_conninfo_for_the_cache_is_refused_without_showing_its_password() {
        if std::env::var_os(aorlta_store::CACHE_URL_VAR).is_some() {
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("c.yaml");
        for value in [
            "host=/run/pg dbname=x password=s3cret",
            "dbname = x",
            "sslmode=disable password='s3 cret'",
        ] {
            std::fs::write(
                &f,
                format!("tasks: t.jsonl\npool: a.jsonl\nprofile: p.yaml\nout: o\ncache: \"{value}\"\n"),
            )
            .unwrap();
            let err = RunConfig::load(&f).unwrap_err().to_string();
            assert!(
                err.contains("c.yaml:5: field `cache`") && err.contains("conninfo"),
                "{err}"
            );
            assert!(!err.contains("s3"), "{err}");
        }
        for file in ["cache.sqlite", "my=cache.sqlite"] {
            std::fs::write(
                &f,
                format!("tasks: t.jsonl\npool: a.jsonl\nprofile: p.yaml\nout: o\ncache: {file}\n"),
            )
            .unwrap();
            assert_eq!(
                RunConfig::load(&f).unwrap().cache,
                CacheSpec::Sqlite(dir.path().join(file))
            );
        }
    }
}
