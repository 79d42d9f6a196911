//! Tasks: loading Q&A task files (JSONL) and kernel task files (YAML), and their content hashes.

use crate::error::{CoreError, Result};
use crate::hash::hash_parts;
use aorlta_record::QaTask;
use aorlta_record::kernel::KernelTask;
use aorlta_record::kernel::mangle::Signature;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What kind of task, with what judging needs.
#[derive(Debug, Clone)]
pub enum TaskKind {
    /// A question with a reference answer.
    Qa(QaTask),
    /// A kernel with a reference kernel.
    Kernel(Box<KernelTaskDef>),
}

/// A kernel task with its reference source loaded.
#[derive(Debug, Clone)]
pub struct KernelTaskDef {
    /// The task spec as written.
    pub spec: KernelTask,
    /// Its `signature`, read when the task loaded.
    pub signature: Signature,
    /// The folder the task file is in (paths in the spec are relative to it).
    pub dir: PathBuf,
    /// The task file (or a name such as `<inline task>`), for messages.
    pub file: PathBuf,
    /// The reference kernel's source.
    pub reference_source: String,
    /// blake3 of the reference source.
    pub reference_hash: String,
}

impl KernelTaskDef {
    /// The kernel's name: the identifier before the `(` of the signature.
    pub fn kernel_name(&self) -> &str {
        self.signature.name()
    }
}

/// One task.
#[derive(Debug, Clone)]
pub struct Task {
    /// The task id.
    pub id: String,
    /// blake3 of the task's content (and its reference source for kernels).
    pub hash: String,
    /// The task's kind and data.
    pub kind: TaskKind,
}

impl Task {
    /// A Q&A task.
    pub fn qa(task: QaTask) -> Self {
        let json = serde_json::to_string(&task).expect("a QaTask serialises");
        Task {
            id: task.id.clone(),
            hash: hash_parts([b"qa".as_slice(), json.as_bytes()]),
            kind: TaskKind::Qa(task),
        }
    }

    /// A kernel task; reads its reference source.
    pub fn kernel(spec: KernelTask, dir: &Path, origin: &Path) -> Result<Self> {
        let Some(source) = spec.reference.source() else {
            return Err(CoreError::invalid(
                origin,
                "field `reference`: a PyTorch reference (`torch:`) is read by `aorlta task import` \
                 but not yet run by the harness; give a kernel source",
            ));
        };
        let ref_path = dir.join(source);
        let reference_source = crate::input::read_to_string(&ref_path, crate::input::TEXT_LIMIT)
            .map_err(|e| CoreError::invalid(origin, format!("field `reference`: {e}")))?;
        let signature = Signature::parse(&spec.signature)
            .map_err(|e| CoreError::invalid(origin, format!("field `signature`: {}", e.message)))?;
        crate::kernel_rules::check(&spec).map_err(|b| CoreError::invalid(origin, b.describe()))?;
        let reference_hash = crate::hash::hash_str(&reference_source);
        let json = serde_json::to_string(&spec).expect("a KernelTask serialises");
        let hash = hash_parts([b"kernel".as_slice(), json.as_bytes(), reference_hash.as_bytes()]);
        Ok(Task {
            id: spec.id.clone(),
            hash,
            kind: TaskKind::Kernel(Box::new(KernelTaskDef {
                spec,
                signature,
                dir: dir.to_path_buf(),
                file: origin.to_path_buf(),
                reference_source,
                reference_hash,
            })),
        })
    }
}

/// A malformed line that was skipped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkippedLine {
    /// `file:line`.
    pub place: String,
    /// What was wrong.
    pub message: String,
}

impl std::fmt::Display for SkippedLine {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.place, self.message)
    }
}

/// Tasks by id.
#[derive(Debug, Clone, Default)]
pub struct TaskSet {
    by_id: HashMap<String, Arc<Task>>,
    order: Vec<String>,
}

impl TaskSet {
    /// Loads tasks from a file or folder: `*.jsonl` is a Q&A task file, `*.yaml`/`*.yml` a
    /// kernel task, a folder holds either. Malformed JSONL lines are returned as skipped; a
    /// duplicate id or a malformed kernel task is an error.
    pub fn load(path: &Path) -> Result<(Self, Vec<SkippedLine>)> {
        let mut set = TaskSet::default();
        let mut skipped = Vec::new();
        set.load_into(path, &mut skipped)?;
        Ok((set, skipped))
    }

    /// Loads several paths into one set.
    pub fn load_all(paths: &[PathBuf]) -> Result<(Self, Vec<SkippedLine>)> {
        let mut set = TaskSet::default();
        let mut skipped = Vec::new();
        for p in paths {
            set.load_into(p, &mut skipped)?;
        }
        Ok((set, skipped))
    }

    fn load_into(&mut self, path: &Path, skipped: &mut Vec<SkippedLine>) -> Result<()> {
        if path.is_dir() {
            let mut files: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| CoreError::io(path, e))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| matches!(ext(p), "jsonl" | "yaml" | "yml"))
                .collect();
            files.sort();
            for f in files {
                self.load_into(&f, skipped)?;
            }
            return Ok(());
        }
        let text = crate::input::read_to_string(path, crate::input::TEXT_LIMIT)?;
        match ext(path) {
            "jsonl" => {
                for (i, line) in text.lines().enumerate() {
                    if line.trim().is_empty() {
                        continue;
                    }
                    match serde_json::from_str::<QaTask>(line) {
                        Ok(t) => self.insert(Task::qa(t), path, i + 1)?,
                        Err(e) => skipped.push(SkippedLine {
                            place: format!("{}:{}", path.display(), i + 1),
                            message: e.to_string(),
                        }),
                    }
                }
            }
            "yaml" | "yml" => {
                let spec: KernelTask = crate::yaml::from_str(&text, path)?;
                if let Err(b) = crate::kernel_rules::check(&spec) {
                    return Err(CoreError::Parse {
                        path: path.to_path_buf(),
                        line: b.line(&text),
                        message: b.describe(),
                    });
                }
                let dir = path.parent().unwrap_or(Path::new("."));
                self.insert(Task::kernel(spec, dir, path)?, path, 1)?;
            }
            other => {
                return Err(CoreError::invalid(
                    path,
                    format!("unknown task file type `.{other}` (expected .jsonl, .yaml or a folder)"),
                ));
            }
        }
        Ok(())
    }

    fn insert(&mut self, task: Task, path: &Path, line: usize) -> Result<()> {
        if self.by_id.contains_key(&task.id) {
            return Err(CoreError::Parse {
                path: path.to_path_buf(),
                line,
                message: format!("duplicate task id `{}`", task.id),
            });
        }
        self.order.push(task.id.clone());
        self.by_id.insert(task.id.clone(), Arc::new(task));
        Ok(())
    }

    /// Adds a task built elsewhere (an inline task); replaces one with the same id.
    pub fn add(&mut self, task: Task) {
        if !self.by_id.contains_key(&task.id) {
            self.order.push(task.id.clone());
        }
        self.by_id.insert(task.id.clone(), Arc::new(task));
    }

    /// A task by id.
    pub fn get(&self, id: &str) -> Option<&Arc<Task>> {
        self.by_id.get(id)
    }

    /// Tasks in load order.
    pub fn iter(&self) -> impl Iterator<Item = &Arc<Task>> {
        self.order.iter().map(|id| &self.by_id[id])
    }

    /// Number of tasks.
    pub fn len(&self) -> usize {
        self.order.len()
    }

    /// True when there are no tasks.
    pub fn is_empty(&self) -> bool {
        self.order.is_empty()
    }
}

fn ext(p: &Path) -> &str {
    p.extension().and_then(|e| e.to_str()).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example `vector_add` task's text, its reference named by an absolute path so that the
    /// text loads from any folder.
    fn vector_add_text() -> String {
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels/tasks");
        let text = std::fs::read_to_string(example.join("vector_add.yaml")).unwrap();
        let reference = example.join("../reference/vector_add.cu");
        text.replace(
            "reference: ../reference/vector_add.cu",
            &format!("reference: {}", reference.display()),
        )
    }

    #[test]
    fn a_kernel_signature_is_read_when_the_task_loads_and_a_bad_one_is_refused_there() {
        let text = vector_add_text();
        let dir = tempfile::tempdir().unwrap();
        let good = dir.path().join("good.yaml");
        std::fs::write(&good, &text).unwrap();
        let (set, _) = TaskSet::load(&good).unwrap();
        let TaskKind::Kernel(k) = &set.get("vector_add").unwrap().kind else {
            panic!("a kernel task")
        };
        assert_eq!(k.kernel_name(), "vector_add");
        assert_eq!(k.signature.mangled(), "_Z10vector_addPKfS0_Pfi");
        assert_eq!(k.signature.params().len(), 4);
        for (bad, says) in [
            ("int vector_add(", "no `)`"),
            ("int vector_add(int n)", "returns `void`"),
            ("void (int n)", "no kernel name"),
        ] {
            let path = dir.path().join("bad.yaml");
            let edited = text.replace(
                "signature: \"void vector_add(const float* a, const float* b, float* c, int n)\"",
                &format!("signature: \"{bad}\""),
            );
            assert_ne!(edited, text);
            std::fs::write(&path, edited).unwrap();
            let err = TaskSet::load(&path).unwrap_err().to_string();
            assert!(
                err.contains("bad.yaml") && err.contains("field `signature`") && err.contains(says),
                "{bad}: {err}"
            );
        }
    }

    #[test]
    fn a_task_whose_signature_disagrees_with_its_buffers_is_refused_at_its_line() {
        let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/kernels/tasks");
        let text = std::fs::read_to_string(example.join("vector_add.yaml")).unwrap();
        let dir = tempfile::tempdir().unwrap();
        let line_of = |needle: &str| text.lines().position(|l| l.contains(needle)).unwrap() + 1;
        let sig = "signature: \"void vector_add(const float* a, const float* b, float* c, int n)\"";
        for (from, to, line, says) in [
            (
                sig,
                sig.replace("float* c", "const float* c"),
                line_of("{name: c,"),
                "field `role`",
            ),
            (
                "name: c, dtype: f32",
                "name: c, dtype: f16".into(),
                line_of("{name: c,"),
                "field `dtype`",
            ),
            (
                sig,
                sig.replace(", int n", ""),
                line_of("scalars:"),
                "3 parameters",
            ),
            (
                "n: n\n",
                "n: n\n  m: n\n".into(),
                line_of("scalars:"),
                "scalar `m`",
            ),
            (
                sig,
                sig.replace("int n", "int n, int m"),
                line_of("signature:"),
                "`m` is neither",
            ),
            (
                "grid: [\"ceil_div(n, 256)\"",
                "grid: [\"ceil_div(nrows, 256)\"".into(),
                line_of("grid:"),
                "nrows",
            ),
            (
                "name: c, dtype: f32, len: n",
                "name: c, dtype: f32, len: 2 * m".into(),
                line_of("{name: c,"),
                "field `len`",
            ),
        ] {
            let edited = text.replace(from, &to);
            assert_ne!(edited, text, "{from}");
            let path = dir.path().join("bad.yaml");
            std::fs::write(&path, edited).unwrap();
            let err = TaskSet::load(&path).unwrap_err().to_string();
            assert!(
                err.contains(&format!("bad.yaml:{line}")) && err.contains(says),
                "{to}: {err}"
            );
        }
    }

    #[test]
    fn every_example_kernel_task_keeps_the_load_rules() {
        let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples");
        let mut n = 0;
        for folder in ["kernels", "library", "triton-kernels", "hip-kernels"] {
            let (set, _) = TaskSet::load(&examples.join(folder).join("tasks"))
                .unwrap_or_else(|e| panic!("examples/{folder}: {e}"));
            n += set.len();
        }
        assert!(n >= 45, "{n} example tasks");
    }

    #[test]
    fn a_kernel_task_that_computes_nothing_is_refused_when_it_loads_naming_the_file_and_line() {
        let text = vector_add_text();
        let line_of = |t: &str, needle: &str| t.lines().position(|l| l.contains(needle)).unwrap() + 1;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nothing.yaml");
        let output = "{name: c, dtype: f32, len: n, role: out}";
        assert!(text.contains(output));
        for (edited, field, line) in [
            // No output buffer at all.
            (
                text.replace(output, "{name: c, dtype: f32, len: n, role: in}"),
                "field `buffers`",
                line_of(&text, "buffers:"),
            ),
            // An output of no element, on one size.
            (
                text.replace(output, "{name: c, dtype: f32, len: \"n - 1000\", role: out}"),
                "buffer `c`: field `len`",
                line_of(&text, output),
            ),
        ] {
            std::fs::write(&path, &edited).unwrap();
            let err = TaskSet::load(&path).unwrap_err().to_string();
            assert!(
                err.contains(&format!("nothing.yaml:{line}")) && err.contains(field),
                "{field}: {err}"
            );
        }
        std::fs::write(&path, &text).unwrap();
        assert!(TaskSet::load(&path).is_ok(), "the task as written loads");
    }

    #[test]
    fn malformed_lines_are_skipped_with_their_place() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.jsonl");
        std::fs::write(
            &f,
            "{\"id\":\"a\",\"prompt\":\"p\",\"answer\":\"1\"}\nnot json\n\n{\"id\":\"b\",\"prompt\":\"p\",\"answer\":\"2\"}\n",
        )
        .unwrap();
        let (set, skipped) = TaskSet::load(&f).unwrap();
        assert_eq!(set.len(), 2);
        assert_eq!(skipped.len(), 1);
        assert!(skipped[0].place.ends_with("t.jsonl:2"), "{}", skipped[0].place);
    }

    #[test]
    fn duplicate_ids_are_an_error_naming_the_line() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("t.jsonl");
        let line = "{\"id\":\"a\",\"prompt\":\"p\",\"answer\":\"1\"}\n";
        std::fs::write(&f, format!("{line}{line}")).unwrap();
        let err = TaskSet::load(&f).unwrap_err().to_string();
        assert!(err.contains("t.jsonl:2") && err.contains("duplicate"), "{err}");
    }
}
