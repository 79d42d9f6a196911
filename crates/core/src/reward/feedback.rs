//! The feedback text of an entry: each leg's text from its lane (`aorlta_answer::leg_feedback`,
//! `aorlta_kernel::leg_feedback`; a generic sentence for an adapter of neither), laid into the
//! profile's template and cut to its budget. Seeds never appear: the lanes do not read them, and
//! as a last guard any number in the text that is one of the entry's seeds is replaced by
//! `[seed]`.

use crate::profile::Profile;
use crate::profile::feedback::{FeedbackSpec, Piece, parse};
use aorlta_check::Task;
use aorlta_record::{LegResult, LegState, RewardEntry};
use serde_json::Value;

/// The text of one leg.
pub(crate) fn leg_text(leg: &LegResult, task: &Task) -> String {
    // The kernel lane speaks first: it answers the shared `parse` leg only for its own tasks.
    if let Some(t) = aorlta_kernel::leg_feedback(leg, task) {
        return t;
    }
    if let Some(t) = aorlta_answer::leg_feedback(leg) {
        return t;
    }
    match leg.state {
        LegState::Clean => "passed.".into(),
        LegState::Skipped => "not run: an earlier check failed.".into(),
        LegState::Unsettled => "could not be decided this time (not your fault).".into(),
        LegState::Broke => {
            let codes: Vec<&str> = leg.reasons.iter().map(|r| r.code.as_str()).collect();
            format!("failed ({}).", codes.join(", "))
        }
    }
}

/// The feedback of an entry under a profile.
pub fn render(profile: &Profile, task: &Task, entry: &RewardEntry) -> String {
    let default = FeedbackSpec::default();
    let spec = profile.feedback.as_ref().unwrap_or(&default);
    // Checked when the profile loaded; the default template if that was bypassed.
    let pieces = parse(&spec.template).unwrap_or_else(|_| vec![Piece::Legs]);
    let rewarded = |l: &&LegResult| !l.informational;
    let mut out = String::new();
    for p in pieces {
        match p {
            Piece::Text(t) => out.push_str(&t),
            Piece::Task => out.push_str(&entry.task),
            Piece::Reward => match entry.reward {
                Some(r) => out.push_str(&format!("{r:.3}")),
                None => out.push_str("not scored"),
            },
            Piece::Legs => {
                let lines: Vec<String> = entry
                    .legs
                    .iter()
                    .filter(rewarded)
                    .map(|l| format!("{}: {}", l.name, leg_text(l, task)))
                    .collect();
                out.push_str(&lines.join("\n"));
            }
            Piece::Leg(name) => {
                if let Some(l) = entry.legs.iter().find(|l| l.name == name) {
                    out.push_str(&leg_text(l, task));
                }
            }
            Piece::Summary => {
                let first = entry
                    .legs
                    .iter()
                    .filter(rewarded)
                    .find(|l| l.state != LegState::Clean);
                match first {
                    Some(l) => out.push_str(&leg_text(l, task)),
                    None => out.push_str("Every check passed."),
                }
            }
        }
    }
    cut(&scrub_seeds(&out, entry), spec.budget)
}

/// Every seed an entry's legs recorded (`seeds`, `order_seed`, `input_seed` in their details).
pub fn seeds_of(entry: &RewardEntry) -> Vec<u64> {
    let mut seeds = Vec::new();
    for l in &entry.legs {
        let Some(d) = &l.detail else { continue };
        if let Some(a) = d.get("seeds").and_then(Value::as_array) {
            seeds.extend(a.iter().filter_map(Value::as_u64));
        }
        for k in ["order_seed", "input_seed"] {
            seeds.extend(d.get(k).and_then(Value::as_u64));
        }
    }
    seeds
}

/// The text with every whole number that is one of the entry's seeds replaced by `[seed]`.
fn scrub_seeds(text: &str, entry: &RewardEntry) -> String {
    let seeds = seeds_of(entry);
    if seeds.is_empty() {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut digits = String::new();
    let flush = |digits: &mut String, out: &mut String| {
        if digits.parse::<u64>().is_ok_and(|n| seeds.contains(&n)) {
            out.push_str("[seed]");
        } else {
            out.push_str(digits);
        }
        digits.clear();
    };
    for c in text.chars() {
        if c.is_ascii_digit() {
            digits.push(c);
        } else {
            flush(&mut digits, &mut out);
            out.push(c);
        }
    }
    flush(&mut digits, &mut out);
    out
}

/// The first `budget` characters of `s`: cut with `…` as its last character when longer.
pub(crate) fn cut(s: &str, budget: usize) -> String {
    if s.chars().count() <= budget {
        return s.to_string();
    }
    let keep = budget.saturating_sub(1);
    let at = s.char_indices().nth(keep).map_or(s.len(), |(i, _)| i);
    format!("{}…", &s[..at])
}
