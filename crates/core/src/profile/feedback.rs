//! A profile's `feedback:` section: the template of the text an entry carries for the model and
//! its budget in characters, checked when the profile loads (docs/REWARDS.md, "Feedback").

use serde::{Deserialize, Serialize};

/// The template when a profile writes none: every rewarded leg's text, one per line.
pub(crate) const DEFAULT_TEMPLATE: &str = "{legs}";

/// The budget when a profile writes none, in characters.
pub(crate) const DEFAULT_BUDGET: usize = 2000;

/// The smallest and largest budgets a profile may set, in characters.
pub(crate) const BUDGET_RANGE: std::ops::RangeInclusive<usize> = 80..=20_000;

/// The feedback a profile asks for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
pub struct FeedbackSpec {
    /// Longest text, in characters (Unicode scalar values); a longer one is cut with `…`.
    #[serde(default = "default_budget")]
    pub budget: usize,
    /// The text with placeholders: `{legs}` (every rewarded leg's text, one per line, named),
    /// `{leg:NAME}` (one leg's text), `{task}`, `{reward}` (the reward with three decimals, or
    /// `not scored`), `{summary}` (the first leg that did not pass, or that every check
    /// passed); `{{` and `}}` are braces.
    #[serde(default = "default_template")]
    pub template: String,
}

impl Default for FeedbackSpec {
    fn default() -> Self {
        FeedbackSpec {
            budget: DEFAULT_BUDGET,
            template: DEFAULT_TEMPLATE.into(),
        }
    }
}

fn default_budget() -> usize {
    DEFAULT_BUDGET
}

fn default_template() -> String {
    DEFAULT_TEMPLATE.into()
}

/// One piece of a template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Piece {
    /// Text as written.
    Text(String),
    /// `{legs}`.
    Legs,
    /// `{leg:NAME}`.
    Leg(String),
    /// `{task}`.
    Task,
    /// `{reward}`.
    Reward,
    /// `{summary}`.
    Summary,
}

/// Splits a template into pieces; `Err` says what is wrong with it.
pub(crate) fn parse(template: &str) -> Result<Vec<Piece>, String> {
    let mut out = Vec::new();
    let mut text = String::new();
    let mut rest = template;
    while let Some(c) = rest.chars().next() {
        if rest.starts_with("{{") || rest.starts_with("}}") {
            text.push(c);
            rest = &rest[2..];
            continue;
        }
        if c == '}' {
            return Err("a `}` closes no placeholder (write `}}` for a brace)".into());
        }
        if c != '{' {
            text.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let Some(end) = rest.find('}') else {
            return Err("a `{` is never closed (write `{{` for a brace)".into());
        };
        let name = &rest[1..end];
        let piece = match name {
            "legs" => Piece::Legs,
            "task" => Piece::Task,
            "reward" => Piece::Reward,
            "summary" => Piece::Summary,
            _ => match name.strip_prefix("leg:") {
                Some(leg) if !leg.is_empty() => Piece::Leg(leg.to_string()),
                _ => {
                    return Err(format!(
                        "unknown placeholder `{{{name}}}` (known: {{legs}}, {{leg:NAME}}, {{task}}, \
                         {{reward}}, {{summary}})"
                    ));
                }
            },
        };
        if !text.is_empty() {
            out.push(Piece::Text(std::mem::take(&mut text)));
        }
        out.push(piece);
        rest = &rest[end + 1..];
    }
    if !text.is_empty() {
        out.push(Piece::Text(text));
    }
    Ok(out)
}

/// Checks a spec against the profile's leg names: `Err` is `field `feedback.…`: why`.
pub(crate) fn check(spec: &FeedbackSpec, legs: &[&str]) -> Result<(), String> {
    if !BUDGET_RANGE.contains(&spec.budget) {
        return Err(format!(
            "field `feedback.budget`: {} characters is out of range: it must be {} to {}",
            spec.budget,
            BUDGET_RANGE.start(),
            BUDGET_RANGE.end()
        ));
    }
    let pieces = parse(&spec.template).map_err(|e| format!("field `feedback.template`: {e}"))?;
    for p in &pieces {
        if let Piece::Leg(name) = p
            && !legs.contains(&name.as_str())
        {
            return Err(format!(
                "field `feedback.template`: `{{leg:{name}}}` names no leg of the profile (legs: {})",
                legs.join(", ")
            ));
        }
    }
    if !pieces.iter().any(|p| !matches!(p, Piece::Text(_))) {
        return Err(
            "field `feedback.template`: it has no placeholder, so it would tell the model nothing \
                    of its answer"
                .into(),
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_read_their_placeholders_and_braces() {
        assert_eq!(
            parse("Result {{ok}}: {reward}\n{leg:compile}").unwrap(),
            vec![
                Piece::Text("Result {ok}: ".into()),
                Piece::Reward,
                Piece::Text("\n".into()),
                Piece::Leg("compile".into()),
            ]
        );
        assert!(
            parse("{nope}")
                .unwrap_err()
                .contains("unknown placeholder `{nope}`")
        );
        assert!(parse("{legs").unwrap_err().contains("never closed"));
        assert!(parse("a } b").unwrap_err().contains("closes no placeholder"));
    }
}
