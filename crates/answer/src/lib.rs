//! AORLTA's answer lane ([`QaLane`]), pure text: its tasks (JSONL), finding the final answer in
//! a completion (`extract`), reading and comparing answers as mathematics (`normalise`), and the
//! adapters behind the `parse`, `reference-match` and `normalised-match` legs (`lane`, `qa`). It
//! builds on `aorlta-check` alone: no runtime, no store, no process.

mod extract;
mod feedback;
mod identity;
mod lane;
mod normalise;
mod qa;
mod reason;
mod reference;

pub use crate::extract::{Answer, AnswerForm, extract_answer};
pub use crate::feedback::leg_feedback;
pub use crate::identity::SOURCES;
pub use crate::lane::{LANE, QaLane, qa_task};
pub use crate::normalise::{Comparison, Strictness, compare};
pub use crate::reason::AnswerReason;
pub use crate::reference::QaTaskDef;
