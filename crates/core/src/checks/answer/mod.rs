//! Extracting what a completion offers: the final answer of a Q&A completion, or the kernel
//! source of a kernel completion.
//!
//! (Interface fixed; implementation in progress.)

use aorlta_record::Reason;
use serde::{Deserialize, Serialize};

/// A form of final answer a profile may accept, in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnswerForm {
    /// The last `\boxed{...}` (nested braces handled).
    Boxed,
    /// An explicit "the answer is ..." / "Answer: ..." statement.
    Statement,
    /// The last LaTeX math span (`$…$`, `\(…\)`, `\[…\]`).
    Latex,
    /// The last number in the text.
    Number,
}

/// The answer found and which form it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The answer text, trimmed.
    pub text: String,
    /// The form it was found in.
    pub form: AnswerForm,
}

/// The final answer of a completion, trying `forms` in the fixed order boxed, statement, latex,
/// number (only those listed). Reasons: `no-answer`, `answer-too-long` (longer than `max_len`
/// bytes).
pub fn extract_answer(completion: &str, forms: &[AnswerForm], max_len: usize) -> Result<Answer, Reason> {
    let _ = (completion, forms, max_len);
    Err(Reason::new("no-answer", "answer extraction not built yet"))
}

/// The source of the last fenced code block in a C++/CUDA/HIP language that defines
/// `kernel_name`. Reasons: `no-code-block`, `kernel-not-found`.
pub fn extract_kernel(completion: &str, kernel_name: &str) -> Result<String, Reason> {
    let _ = (completion, kernel_name);
    Err(Reason::new("no-code-block", "kernel extraction not built yet"))
}
