//! AORLTA's answer lane ([`QaLane`]), pure text: its tasks (JSONL), finding the final answer in
//! a completion (`extract`), reading and comparing answers as mathematics (`normalise`), and the
//! adapters behind the `parse`, `reference-match` and `normalised-match` legs (`lane`, `qa`). It
//! builds on `aorlta-check` alone: no runtime, no store, no process.

mod extract;
pub mod feedback;
mod identity;
mod lane;
mod normalise;
mod qa;
mod reason;
mod reference;

pub use extract::{Answer, AnswerForm, extract_answer};
pub use identity::SOURCES;
pub use lane::{LANE, QaLane, qa_task};
pub use normalise::{Comparison, Strictness, compare};
pub use reason::AnswerReason;
pub use reference::QaTaskDef;
