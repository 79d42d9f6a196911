//! The kernel task: its spec with the reference source loaded and the signature read once, the
//! rules it must keep ([`crate::rules`]), checked when it loads, and its content hash.

use aorlta_check::{CoreError, Result, Task, hash_parts};
use aorlta_record::Signature;
use aorlta_record::{KernelTask, Reference};
use std::path::{Path, PathBuf};

/// The kernel lane's name, which its tasks carry.
pub const LANE: &str = "kernel";

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
    /// The PyTorch module, when the reference is one (`reference_source` is then its file's
    /// text).
    pub torch: Option<TorchModule>,
}

/// A task's PyTorch module, as it loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TorchModule {
    /// The module's file, absolute.
    pub file: PathBuf,
    /// The file's SHA-256 when the task loaded (the reference process refuses another file).
    pub sha256: String,
    /// The `torch.nn.Module` class.
    pub class: String,
}

impl KernelTaskDef {
    /// The kernel's name: the identifier before the `(` of the signature.
    pub fn kernel_name(&self) -> &str {
        self.signature.name()
    }

    /// The kernel task a task holds, when it is one.
    pub fn of(task: &Task) -> Option<&KernelTaskDef> {
        task.body()
    }
}

/// A kernel task of the lane; reads its reference source and its signature, and checks the
/// rules (errors name `origin` and the field).
pub fn kernel_task(spec: KernelTask, dir: &Path, origin: &Path) -> Result<Task> {
    let (ref_path, class) = match &spec.reference {
        Reference::Source(source) => (dir.join(source), None),
        Reference::Torch(t) => {
            let (file, class) = t.file_and_class();
            (dir.join(file), Some(class.to_string()))
        }
    };
    let reference_source = aorlta_check::read_input_text(&ref_path, aorlta_check::TEXT_LIMIT)
        .map_err(|e| CoreError::invalid(origin, format!("field `reference`: {e}")))?;
    let torch = match class {
        None => None,
        Some(class) => Some(TorchModule {
            file: std::path::absolute(&ref_path).map_err(|e| {
                CoreError::invalid(origin, format!("field `reference`: {}: {e}", ref_path.display()))
            })?,
            sha256: sha256_hex(reference_source.as_bytes()),
            class,
        }),
    };
    let signature = Signature::parse(&spec.signature)
        .map_err(|e| CoreError::invalid(origin, format!("field `signature`: {}", e.message)))?;
    crate::rules::check(&spec).map_err(|b| CoreError::invalid(origin, b.describe()))?;
    let reference_hash = aorlta_check::hash_str(&reference_source);
    let json = serde_json::to_string(&spec).expect("a KernelTask serialises");
    let hash = hash_parts([b"kernel".as_slice(), json.as_bytes(), reference_hash.as_bytes()]);
    let id = spec.id.clone();
    Ok(Task::new(
        LANE,
        id,
        hash,
        KernelTaskDef {
            spec,
            signature,
            dir: dir.to_path_buf(),
            file: origin.to_path_buf(),
            reference_source,
            reference_hash,
            torch,
        },
    ))
}

/// SHA-256 of `bytes`, in hex (the reference process checks a module file by it).
fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The task of one kernel task file's text (YAML), its rules checked at their lines.
pub(crate) fn load(path: &Path, text: &str) -> Result<Task> {
    let spec: KernelTask = aorlta_check::parse_yaml(text, path)?;
    if let Err(b) = crate::rules::check(&spec) {
        return Err(CoreError::Parse {
            path: path.to_path_buf(),
            line: b.line(text),
            message: b.describe(),
        });
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    kernel_task(spec, dir, path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_check::{Lanes, TaskSet};
    use std::sync::Arc;

    fn lanes() -> Lanes {
        Lanes::default().with(Arc::new(crate::lane::KernelLane))
    }

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
        let (set, _) = TaskSet::load(&good, &lanes()).unwrap();
        let k = KernelTaskDef::of(set.get("vector_add").unwrap()).expect("a kernel task");
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
            let err = TaskSet::load(&path, &lanes()).unwrap_err().to_string();
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
            let err = TaskSet::load(&path, &lanes()).unwrap_err().to_string();
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
            let (set, _) = TaskSet::load(&examples.join(folder).join("tasks"), &lanes())
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
            let err = TaskSet::load(&path, &lanes()).unwrap_err().to_string();
            assert!(
                err.contains(&format!("nothing.yaml:{line}")) && err.contains(field),
                "{field}: {err}"
            );
        }
        std::fs::write(&path, &text).unwrap();
        assert!(
            TaskSet::load(&path, &lanes()).is_ok(),
            "the task as written loads"
        );
    }
}
