//! The Q&A adapters: `parse` (leg `parse`), `reference-match` (leg `ref.exact`) and
//! `normalised-match` (leg `ref.normalised`).

use super::answer::{self, AnswerForm};
use super::normalise::{self, Comparison};
use super::{Adapter, LegInput, LegOutput, params};
use crate::task::TaskKind;
use serde::Deserialize;
use serde_json::json;

/// Parameters of the `parse` adapter.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct ParseParams {
    /// Answer forms accepted, tried in the fixed order boxed, statement, latex, number.
    #[serde(default = "default_forms")]
    pub forms: Vec<AnswerForm>,
    /// Longest answer accepted, in bytes.
    #[serde(default = "default_max_answer")]
    pub max_answer_len: usize,
}

fn default_forms() -> Vec<AnswerForm> {
    vec![AnswerForm::Boxed, AnswerForm::Statement, AnswerForm::Latex]
}

fn default_max_answer() -> usize {
    200
}

/// `parse`: the final answer of a Q&A completion, or the kernel source of a kernel completion.
pub struct ParseAdapter;

impl Adapter for ParseAdapter {
    fn name(&self) -> &'static str {
        "parse"
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn check_params(&self, p: &serde_json::Value) -> Result<(), String> {
        params::<ParseParams>(p).map(|_| ())
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        match &input.task.kind {
            TaskKind::Qa(_) => {
                let p: ParseParams = match params(input.params) {
                    Ok(p) => p,
                    Err(e) => return LegOutput::unsettled("bad-params", e),
                };
                match answer::extract_answer(input.completion, &p.forms, p.max_answer_len) {
                    Ok(a) => LegOutput::clean()
                        .with_detail(json!({"answer": a.text, "form": a.form}))
                        .with_extracted(a.text),
                    Err(r) => LegOutput::broke(&r.code, r.detail),
                }
            }
            TaskKind::Kernel(k) => match answer::extract_kernel(input.completion, k.kernel_name()) {
                Ok(src) => LegOutput::clean()
                    .with_detail(json!({
                        "bytes": src.len(),
                        "source_hash": crate::hash::hash_str(&src),
                    }))
                    .with_extracted(src),
                Err(r) => LegOutput::broke(&r.code, r.detail),
            },
        }
    }
}

fn reference_answer<'a>(input: &'a LegInput<'_>) -> Result<&'a str, LegOutput> {
    match &input.task.kind {
        TaskKind::Qa(t) => Ok(t.answer.as_str()),
        TaskKind::Kernel(_) => Err(LegOutput::unsettled(
            "wrong-task-kind",
            format!(
                "task {} is a kernel task; this adapter judges Q&A answers",
                input.task.id
            ),
        )),
    }
}

fn parsed_answer<'a>(input: &'a LegInput<'_>) -> Result<&'a str, LegOutput> {
    input.extracted.ok_or_else(|| {
        LegOutput::unsettled("no-parsed-answer", "this leg needs a clean `parse` leg before it")
    })
}

/// The task's reference answer and the parsed answer, or the unsettled output saying which is
/// missing.
fn answer_pair<'a>(input: &'a LegInput<'_>) -> Result<(&'a str, &'a str), LegOutput> {
    Ok((reference_answer(input)?, parsed_answer(input)?))
}

/// `reference-match`: exact equality after trimming.
pub struct ReferenceMatch;

impl Adapter for ReferenceMatch {
    fn name(&self) -> &'static str {
        "reference-match"
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn check_params(&self, p: &serde_json::Value) -> Result<(), String> {
        params::<Empty>(p).map(|_| ())
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        let (reference, answer) = match answer_pair(input) {
            Ok(pair) => pair,
            Err(o) => return o,
        };
        if reference.trim() == answer.trim() {
            LegOutput::clean()
        } else {
            LegOutput::broke(
                "wrong-answer",
                format!("{:?} is not exactly {:?}", short(answer), short(reference)),
            )
        }
    }
}

/// `normalised-match`: equality after normalisation (numbers, fractions, LaTeX, units, sets…).
pub struct NormalisedMatch;

impl Adapter for NormalisedMatch {
    fn name(&self) -> &'static str {
        "normalised-match"
    }
    fn version(&self) -> &'static str {
        "1"
    }
    fn check_params(&self, p: &serde_json::Value) -> Result<(), String> {
        params::<Empty>(p).map(|_| ())
    }
    fn run(&self, input: &LegInput<'_>) -> LegOutput {
        let (reference, answer) = match answer_pair(input) {
            Ok(pair) => pair,
            Err(o) => return o,
        };
        match normalise::compare(reference, answer) {
            Comparison::Equal => LegOutput::clean(),
            Comparison::NotEqual => LegOutput::broke(
                "wrong-answer",
                format!("{:?} does not match {:?}", short(answer), short(reference)),
            ),
            Comparison::ReferenceUnreadable(why) => LegOutput::unsettled(
                "reference-unreadable",
                format!(
                    "task {}: reference answer {:?}: {why}",
                    input.task.id,
                    short(reference)
                ),
            ),
            Comparison::CandidateUnreadable(why) => {
                LegOutput::broke("answer-unreadable", format!("{:?}: {why}", short(answer)))
            }
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Empty {}

fn short(s: &str) -> String {
    const MAX: usize = 80;
    if s.len() <= MAX {
        return s.to_string();
    }
    let mut end = MAX;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}…", &s[..end])
}
