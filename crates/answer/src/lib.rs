//! AORLTA's answer lane, pure text: finding the answer (or the kernel source) in a completion
//! (`extract`), reading and comparing answers as mathematics (`normalise`), and the adapters
//! behind the `parse`, `reference-match` and `normalised-match` legs (`qa`). It builds on
//! `aorlta-check` alone: no runtime, no store, no process.

mod extract;
pub mod feedback;
mod normalise;
mod qa;
mod reason;

pub use extract::{Answer, AnswerForm, extract_answer, extract_kernel, extract_triton_kernel, kernel_source};
pub use normalise::{Comparison, Strictness, compare};
pub use qa::register;
pub use reason::AnswerReason;
