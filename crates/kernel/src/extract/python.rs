//! Python code blocks and the Triton kernels they define.

use super::fence::Block;

const PYTHON_LABELS: &[&str] = &["python", "py", "python3", "triton"];

/// Whether a block is Python (by label, or by a Triton import or decorator when unlabelled).
pub(super) fn is_python(b: &Block<'_>) -> bool {
    if b.lang.is_empty() {
        return ["@triton.jit", "import triton", "from triton"]
            .iter()
            .any(|m| b.body.contains(m));
    }
    PYTHON_LABELS.contains(&b.lang.as_str())
}

/// Whether `src` defines a top-level function `name` (`def name(` at the start of a line).
pub(super) fn defines_function(src: &str, name: &str) -> bool {
    !name.is_empty()
        && src.lines().any(|l| {
            l.strip_prefix("def ")
                .and_then(|r| r.trim_start().strip_prefix(name))
                .is_some_and(|r| r.trim_start().starts_with('('))
        })
}
