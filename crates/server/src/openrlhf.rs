//! What `/get_reward` needs to meet OpenRLHF where it is: its queries are decoded with
//! `skip_special_tokens=False`, so they carry end-of-sequence and padding tokens; its prompts
//! may have been left-truncated to fit `max_len`, so a prompt is not always an exact prefix of
//! its query; and it reads `scores` as correctness in [0, 1] (dynamic filtering keeps groups by
//! their mean score), not as the signed reward.

use aorlta_record::{LegState, Reason, RewardEntry};

/// End-of-sequence, padding and beginning-of-sequence tokens of common chat templates, removed
/// from both ends of a completion and from the front of a query and its prompt.
pub(crate) const DEFAULT_SPECIAL_TOKENS: &[&str] = &[
    "<|im_end|>",
    "<|endoftext|>",
    "<|end_of_text|>",
    "<|eot_id|>",
    "<|end|>",
    "<|begin_of_text|>",
    "<｜end▁of▁sentence｜>",
    "<｜begin▁of▁sentence｜>",
    "<end_of_turn>",
    "<eos>",
    "<bos>",
    "<pad>",
    "<|pad|>",
    "</s>",
    "<s>",
];

/// The shortest overlap (in bytes) accepted between a left-truncated prompt and the start of
/// its query, so that a few common characters never pass for a prompt.
const MIN_OVERLAP: usize = 16;

fn strip_leading<'a>(mut s: &'a str, tokens: &[String]) -> &'a str {
    while let Some(t) = tokens.iter().find(|t| !t.is_empty() && s.starts_with(t.as_str())) {
        s = &s[t.len()..];
    }
    s
}

fn strip_trailing<'a>(mut s: &'a str, tokens: &[String]) -> &'a str {
    loop {
        let t = s.trim_end();
        match tokens
            .iter()
            .find(|tok| !tok.is_empty() && t.ends_with(tok.as_str()))
        {
            Some(tok) => s = &t[..t.len() - tok.len()],
            None => return s,
        }
    }
}

/// The completion in `query`: what follows `prompt`, with special tokens removed from its end.
/// Leading special tokens of both are ignored. When the prompt is not a prefix of the query, a
/// query that starts with the prompt's last part (the prompt was left-truncated) is accepted if
/// that part is at least 16 bytes long; anything else is `prompt-not-prefix`.
pub(crate) fn completion_of(query: &str, prompt: Option<&str>, tokens: &[String]) -> Result<String, Reason> {
    let q = strip_leading(query, tokens);
    let Some(prompt) = prompt else {
        return Ok(strip_trailing(q, tokens).to_string());
    };
    let p = strip_leading(prompt, tokens);
    if let Some(rest) = q.strip_prefix(p) {
        return Ok(strip_trailing(rest, tokens).to_string());
    }
    if let Some(rest) = after_truncated_prompt(q, p) {
        return Ok(strip_trailing(rest, tokens).to_string());
    }
    Err(Reason::new(
        "prompt-not-prefix",
        "the query starts neither with its prompt nor with the end of it (a left-truncated \
         prompt), so the completion is unknown",
    ))
}

/// The rest of `q` after its longest start that is an end of `p` (at least [`MIN_OVERLAP`]
/// bytes).
fn after_truncated_prompt<'a>(q: &'a str, p: &str) -> Option<&'a str> {
    if p.len() < MIN_OVERLAP {
        return None;
    }
    let mut cut = p.len() - MIN_OVERLAP;
    while !p.is_char_boundary(cut) {
        cut -= 1;
    }
    let tail = &p[cut..];
    // Each place the prompt's last bytes occur in the query ends a candidate head; the head
    // must be an end of the prompt. The longest such head is the truncated prompt.
    q.match_indices(tail)
        .map(|(i, _)| i + tail.len())
        .filter(|&end| p.ends_with(&q[..end]))
        .last()
        .map(|end| &q[end..])
}

/// OpenRLHF's `scores` entry: 1.0 when the entry is scored and every rewarded (not
/// informational) leg is clean, else 0.0.
pub(crate) fn correctness(e: &RewardEntry) -> f64 {
    let correct = e.scored
        && !e.legs.is_empty()
        && e.legs
            .iter()
            .filter(|l| !l.informational)
            .all(|l| l.state == LegState::Clean);
    if correct { 1.0 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use aorlta_record::LegResult;

    fn toks() -> Vec<String> {
        DEFAULT_SPECIAL_TOKENS.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn special_tokens_are_stripped_from_the_completion() {
        let p = "<|im_start|>user\nWhat is 17 × 23?<|im_end|>\n<|im_start|>assistant\n";
        let q = format!("{p}\\boxed{{391}}<|im_end|>\n<|endoftext|><|endoftext|>");
        assert_eq!(completion_of(&q, Some(p), &toks()).unwrap(), "\\boxed{391}");
        // Left padding and a beginning-of-sequence token in front of the query only.
        let q = format!("<pad><pad><s>{p}x</s>");
        assert_eq!(completion_of(&q, Some(p), &toks()).unwrap(), "x");
        // Text that merely ends like a token stays.
        assert_eq!(completion_of("a <s", None, &toks()).unwrap(), "a <s");
    }

    #[test]
    fn a_left_truncated_prompt_still_finds_the_completion() {
        let p = "System: be brief. Question: what is the product of seventeen and twenty-three? Answer:";
        let q = format!("{} 391", &p[30..]);
        assert_eq!(completion_of(&q, Some(p), &toks()).unwrap(), " 391");
        // A query unrelated to its prompt is refused, as is an overlap too short to trust.
        let err = completion_of("something else entirely", Some(p), &toks()).unwrap_err();
        assert_eq!(err.code, "prompt-not-prefix");
        let q = format!("{} 391", &p[p.len() - 8..]);
        assert!(completion_of(&q, Some(p), &toks()).is_err());
    }

    #[test]
    fn correctness_is_every_rewarded_leg_clean() {
        let mut e = RewardEntry::error("i", "t", "qa", Reason::new("x", "y"));
        assert_eq!(correctness(&e), 0.0, "unscored");
        e.scored = true;
        e.reward = Some(1.0);
        let mut info = LegResult::with_state(
            "ref.exact",
            "reference-match",
            LegState::Broke,
            Reason::new("a", "b"),
        );
        info.informational = true;
        e.legs = vec![LegResult::clean("parse", "parse"), info];
        assert_eq!(correctness(&e), 1.0);
        e.legs.push(LegResult::with_state(
            "ref.normalised",
            "normalised-match",
            LegState::Broke,
            Reason::new("wrong-answer", "b"),
        ));
        assert_eq!(correctness(&e), 0.0);
    }
}
