//! The answer lane's feedback for the model: what was read as the answer (or that none was),
//! whether it matched. It never quotes the reference: a wrong answer's reason detail names the
//! reference for people, the feedback does not.

use aorlta_record::{LegResult, LegState};

/// Longest part of an answer quoted, in characters.
const QUOTE_CHARS: usize = 200;

/// The text for one leg run by an adapter of this lane (`None` for any other adapter).
pub fn leg_feedback(leg: &LegResult) -> Option<String> {
    let code = leg.first_code().unwrap_or("");
    let detail = leg.detail.as_ref();
    let text = match (leg.adapter.as_str(), leg.state) {
        ("parse", LegState::Clean) => match detail.and_then(|d| d.get("answer")).and_then(|a| a.as_str()) {
            Some(answer) => {
                let form = detail
                    .and_then(|d| d.get("form"))
                    .and_then(|f| f.as_str())
                    .unwrap_or("an accepted form");
                format!("Your answer was read as `{}` (form: {form}).", quote(answer))
            }
            None => "The answer was found.".into(),
        },
        ("parse", LegState::Broke) => match code {
            "no-answer" => "No answer was found: none of the accepted answer forms (a \\boxed{...}, \
                            an <answer> tag, a final-answer statement, math at the end) appears."
                .into(),
            "answer-too-long" => "The answer found is too long to be read as one answer.".into(),
            _ => format!("The answer could not be taken from your text ({code})."),
        },
        ("reference-match" | "normalised-match", LegState::Clean) => "The answer is correct.".into(),
        ("reference-match" | "normalised-match", LegState::Broke) => match code {
            "answer-unreadable" => "The answer could not be read as a value.".into(),
            _ => "The answer is not correct.".into(),
        },
        ("parse" | "reference-match" | "normalised-match", LegState::Unsettled) => {
            "The answer could not be judged this time (not your fault).".into()
        }
        _ => return None,
    };
    Some(text)
}

/// The first [`QUOTE_CHARS`] characters of an answer, on one line.
fn quote(s: &str) -> String {
    let one: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    match one.char_indices().nth(QUOTE_CHARS) {
        Some((at, _)) => format!("{}…", &one[..at]),
        None => one,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::Reason;
    use serde_json::json;

    #[test]
    fn says_what_was_read_and_never_the_reference() {
        let mut parse = LegResult::clean("parse", "parse");
        parse.detail = Some(json!({"answer": "392", "form": "boxed"}));
        assert_eq!(
            leg_feedback(&parse).unwrap(),
            "Your answer was read as `392` (form: boxed)."
        );
        let wrong = LegResult::with_state(
            "ref.normalised",
            "normalised-match",
            LegState::Broke,
            Reason::new("wrong-answer", "\"392\" does not match \"391\""),
        );
        let text = leg_feedback(&wrong).unwrap();
        assert!(!text.contains("391"), "{text}");
        assert_eq!(text, "The answer is not correct.");
        let none = LegResult::with_state("parse", "parse", LegState::Broke, Reason::new("no-answer", "x"));
        assert!(leg_feedback(&none).unwrap().starts_with("No answer was found"));
        assert!(leg_feedback(&LegResult::clean("compile", "other-lane-compile")).is_none());
        let mut long = LegResult::clean("parse", "parse");
        long.detail = Some(json!({"answer": "x".repeat(500), "form": "bare"}));
        assert!(leg_feedback(&long).unwrap().chars().count() < 260);
    }
}
