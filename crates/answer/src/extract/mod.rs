//! Extracting the final answer of a Q&A completion. Every scan is a single pass over bytes that only stops or
//! slices at ASCII characters, so it is linear in the completion's length and never cuts a
//! UTF-8 character.

mod blocks;
mod boxes;
mod dollars;
mod scan;
mod spans;

use crate::reason::AnswerReason;
use aorlta_record::Reason;
use serde::{Deserialize, Serialize};
pub(crate) use spans::connectors_only;

/// A form of final answer a profile may accept, in the order they are tried.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AnswerForm {
    /// The content of the last `<answer>…</answer>` (the box inside it, when it holds one).
    Tag,
    /// The last `\boxed{...}` (nested braces handled).
    Boxed,
    /// An explicit "the answer is ..." / "Answer: ..." statement, or a closing sentence
    /// ("Therefore, there are 12 ways.") after all the math.
    Statement,
    /// GSM8K's own final line: the rest of the last line that starts with `####`.
    Hashes,
    /// The last LaTeX math span (`$…$`, `\(…\)`, `\[…\]`).
    Latex,
    /// The whole completion, when it is only a number (`1 000`, `-3.0`, `12.5%`).
    Bare,
    /// The whole completion, trimmed, when it is one line: for answers extracted before they
    /// come (`3t^2 - t + 7`, `(-\infty, 4]`, `g(t) = 5t - 1`).
    Whole,
    /// The last number in the text.
    Number,
}

impl AnswerForm {
    /// The form's name as profiles write it.
    pub fn name(self) -> &'static str {
        match self {
            AnswerForm::Tag => "tag",
            AnswerForm::Boxed => "boxed",
            AnswerForm::Statement => "statement",
            AnswerForm::Hashes => "hashes",
            AnswerForm::Latex => "latex",
            AnswerForm::Bare => "bare",
            AnswerForm::Whole => "whole",
            AnswerForm::Number => "number",
        }
    }
}

/// The answer found and which form it came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// The answer text, trimmed.
    pub text: String,
    /// The form it was found in.
    pub form: AnswerForm,
}

/// The final answer of a completion, trying `forms` in the fixed order tag, boxed, statement,
/// hashes, latex, bare, whole, number (only those listed). Reasons: `no-answer`, `answer-too-long` (longer than `max_len`
/// bytes).
///
/// - tag: the content of the last `<answer>…</answer>` (tags in any case), trimmed; the last
///   box inside it when it holds one; none when it is empty;
/// - boxed: unless a "final answer" statement comes after every box (with a statement form
///   allowed: `… \boxed{255} … Final Answer: The final answer is $10,455$.` answers
///   `$10,455$`, the boxes being steps), the last `\boxed{…}` or `\fbox{…}` whose braces balance (an unbalanced one is
///   skipped; nested boxes give the innermost, which starts last); boxes joined to it only by
///   connectors (spaces, `,`, `\quad`, "and", `\text{ or }`, part labels, a name before a box,
///   a unit word after one) come with it, as one run of text from the first
///   box to the last (several answers);
/// - statement: the last "answer is …", "answer: …" or "final answer: …" (any case), or
///   `答案：…` / `答案是…` / `答案为…`, up to the
///   end of its line or sentence, without a trailing period or markdown bold, or the next line
///   that is not blank after a line that only says "Answer" or "Final Answer" as a markdown
///   heading or bold label (`### Answer`, `**Answer**`); a display span
///   (`$$…$$`, `\[…\]`) right after it is the answer, across lines; a sentence in prose gives
///   its one number. With none, a closing sentence after all the math that concludes
///   ("Therefore, there are 12 such sequences.") or is the whole completion gives its number,
///   and a last line that is one bold number (`**40800**`) gives it. Not read, by decision:
///   the answer first (`10500. Here is why…`: a numbered step `1. First…` looks the same), a
///   sign in words ("5 degrees below zero" is a negation here, never 5), dollars and cents
///   in words (two numbers);
/// - hashes: the rest of the last line starting with `####` (GSM8K's solutions end so),
///   trimmed, without a final period; none when it is empty;
/// - latex: the last non-empty `$…$`, `$$…$$`, `\(…\)` or `\[…\]` (an inline `$` opens only
///   before a non-space and closes only after a non-space and before a non-digit, so prices
///   such as `$5` do not pair up; inline math whose delimiters stand on lines of their own is
///   not a span);
/// - bare: the whole completion when it is only a number (at most 64 bytes: digits, signs,
///   `.`, `,`, `/`, `%`, an exponent, spaces between digit groups), without a final period;
/// - whole: the whole completion, trimmed (and a final period), when it is one non-empty line;
/// - number: the last number (sign, thousands commas, decimals, exponent, `a/b`).
pub fn extract_answer(completion: &str, forms: &[AnswerForm], max_len: usize) -> Result<Answer, Reason> {
    const ORDER: [AnswerForm; 8] = [
        AnswerForm::Tag,
        AnswerForm::Boxed,
        AnswerForm::Statement,
        AnswerForm::Hashes,
        AnswerForm::Latex,
        AnswerForm::Bare,
        AnswerForm::Whole,
        AnswerForm::Number,
    ];
    for form in ORDER {
        if !forms.contains(&form) {
            continue;
        }
        let found = match form {
            AnswerForm::Boxed if forms.contains(&AnswerForm::Statement) => {
                match spans::final_statement_after_boxes(completion) {
                    Some(text) => return answer(text, AnswerForm::Statement, max_len),
                    None => spans::last_boxed(completion),
                }
            }
            AnswerForm::Boxed => spans::last_boxed(completion),
            AnswerForm::Tag => spans::last_tag(completion),
            AnswerForm::Statement => spans::last_chinese_statement(completion)
                .or_else(|| spans::last_statement(completion))
                .or_else(|| spans::closing_sentence(completion)),
            AnswerForm::Hashes => spans::last_hashes(completion),
            AnswerForm::Latex => spans::last_math(completion),
            AnswerForm::Bare => spans::bare_number(completion),
            AnswerForm::Whole => spans::whole_line(completion),
            AnswerForm::Number => spans::last_number(completion),
        };
        if let Some(text) = found {
            return answer(text, form, max_len);
        }
    }
    let tried: Vec<&str> = ORDER
        .iter()
        .filter(|f| forms.contains(f))
        .map(|f| f.name())
        .collect();
    Err(Reason::new(
        AnswerReason::NoAnswer.as_str(),
        if tried.is_empty() {
            "the profile accepts no answer form".to_string()
        } else {
            format!("no answer in the forms tried: {}", tried.join(", "))
        },
    ))
}

/// `text` as the answer of `form`, unless it is longer than `max_len` (`answer-too-long`).
fn answer(text: &str, form: AnswerForm, max_len: usize) -> Result<Answer, Reason> {
    if text.len() > max_len {
        return Err(Reason::new(
            AnswerReason::AnswerTooLong.as_str(),
            format!(
                "the {} answer is {} bytes; at most {max_len} are read",
                form.name(),
                text.len()
            ),
        ));
    }
    Ok(Answer {
        text: text.to_string(),
        form,
    })
}

#[cfg(test)]
mod tests;
