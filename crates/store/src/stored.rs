//! A reward entry as the stores keep it: the JSON of its served form (an empty id, no time
//! spent, every leg marked cached), which is exactly what a later lookup serves under that
//! lookup's id, beside its reward and the few [`Facts`] a run's summary counts. So a scoring run
//! that finds an entry writes its `rewards.jsonl` line by putting the candidate's id into the
//! stored text ([`StoredEntry::line`]) and counts it from its reward and facts (a short text,
//! shared by most entries), never building the entry.

use aorlta_record::{LegState, RewardEntry};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// An entry as served from a store: under `id`, with no time spent, every leg cached.
pub fn served(mut entry: RewardEntry, id: &str) -> RewardEntry {
    entry.id = id.to_string();
    entry.elapsed_s = 0.0;
    for leg in &mut entry.legs {
        leg.cached = true;
        leg.elapsed_s = 0.0;
    }
    entry
}

/// What a run's summary counts of one leg.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LegFacts {
    /// The leg's name.
    pub name: String,
    /// Its state.
    pub state: LegState,
    /// Reported only, never rewarded.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub informational: bool,
    /// Served from the cache.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub cached: bool,
    /// Its first reason's code.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first: Option<String>,
}

/// What a run's summary counts of one entry, besides its reward.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Facts {
    /// Whether it is scored.
    pub scored: bool,
    /// The entry's reasons' codes.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub reasons: Vec<String>,
    /// Its legs, in order.
    pub legs: Vec<LegFacts>,
}

impl Facts {
    /// The facts of an entry.
    pub fn of(e: &RewardEntry) -> Self {
        Facts {
            scored: e.scored,
            reasons: e.reasons.iter().map(|r| r.code.clone()).collect(),
            legs: e
                .legs
                .iter()
                .map(|l| LegFacts {
                    name: l.name.clone(),
                    state: l.state,
                    informational: l.informational,
                    cached: l.cached,
                    first: l.first_code().map(str::to_string),
                })
                .collect(),
        }
    }
}

/// The stored form of a reward entry: its served JSON, its reward and its facts' JSON.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredEntry {
    json: Arc<str>,
    reward: Option<f64>,
    facts: Arc<str>,
}

/// The text of the top-level id in a stored entry: the field right after `format`.
const EMPTY_ID: &str = "\"id\":\"\"";

impl StoredEntry {
    /// The stored form of an entry.
    pub fn of(entry: &RewardEntry) -> Self {
        let served = served(entry.clone(), "");
        StoredEntry {
            json: serde_json::to_string(&served).expect("entries serialise").into(),
            reward: served.reward,
            facts: serde_json::to_string(&Facts::of(&served))
                .expect("facts serialise")
                .into(),
        }
    }

    /// A stored entry as read back: its text, reward and facts (`None` for a row stored
    /// without them, whose facts are read from the text). `None` when the text is not an entry.
    pub fn from_parts(json: &str, reward: Option<f64>, facts: Option<Arc<str>>) -> Option<Self> {
        let facts: Arc<str> = match facts {
            Some(f) => f,
            None => {
                let e: RewardEntry = serde_json::from_str(json).ok()?;
                serde_json::to_string(&Facts::of(&served(e, ""))).ok()?.into()
            }
        };
        Some(StoredEntry {
            json: json.into(),
            reward,
            facts,
        })
    }

    /// The stored text.
    pub fn json(&self) -> &str {
        &self.json
    }

    /// The reward.
    pub fn reward(&self) -> Option<f64> {
        self.reward
    }

    /// The facts' text (the same for entries whose legs ended alike).
    pub fn facts_json(&self) -> &str {
        &self.facts
    }

    /// The facts; `None` when their text is not readable.
    pub fn facts(&self) -> Option<Facts> {
        serde_json::from_str(&self.facts).ok()
    }

    /// True when both have the same facts (the very same text, or equal ones).
    pub fn same_facts(&self, other: &StoredEntry) -> bool {
        Arc::ptr_eq(&self.facts, &other.facts) || self.facts == other.facts
    }

    /// True when both hold the very same texts (not copies).
    pub(crate) fn same(&self, other: &StoredEntry) -> bool {
        Arc::ptr_eq(&self.json, &other.json)
    }

    /// The entry served for candidate `id`; `None` when the text is not an entry.
    pub fn entry(&self, id: &str) -> Option<RewardEntry> {
        serde_json::from_str::<RewardEntry>(&self.json)
            .ok()
            .map(|e| served(e, id))
    }

    /// The entry in its stored form, parsed and checked from what it holds alone: the reward
    /// contract ([`aorlta_record::check_entry`]); that it is an entry that may be stored
    /// (scored, no leg unsettled); that it is in the stored form (no id, no time spent, every
    /// leg cached); and that its reward is its text's. `Err` says what is wrong. (Its facts
    /// are made from its text when it is stored, and a persistent store's checksum covers
    /// them.)
    pub fn check(&self) -> Result<RewardEntry, String> {
        let e: RewardEntry =
            serde_json::from_str(&self.json).map_err(|err| format!("its text is not an entry: {err}"))?;
        aorlta_record::check_entry(&e)?;
        if !e.scored {
            return Err("an unscored entry, which is never stored".into());
        }
        if let Some(l) = e.legs.iter().find(|l| l.state == LegState::Unsettled) {
            return Err(format!("leg `{}` is unsettled, which is never stored", l.name));
        }
        if !e.id.is_empty() || e.elapsed_s != 0.0 || e.legs.iter().any(|l| !l.cached || l.elapsed_s != 0.0) {
            return Err("it is not in the stored form (an id, time spent, or a leg not cached)".into());
        }
        if e.reward.map(f64::to_bits) != self.reward.map(f64::to_bits) {
            return Err(format!(
                "its reward column ({:?}) is not its text's ({:?})",
                self.reward, e.reward
            ));
        }
        Ok(e)
    }

    /// The JSON line of [`StoredEntry::entry`] for `id` (without a newline), made by putting the
    /// id into the stored text; `None` when the text is not in the stored form.
    pub fn line(&self, id: &str) -> Option<String> {
        let mut out = Vec::with_capacity(self.json.len() + id.len() + 2);
        self.write_line(id, &mut out)
            .then(|| String::from_utf8(out).expect("JSON text and a JSON string are UTF-8"))
    }

    /// Appends [`StoredEntry::line`] to `out`; false (and nothing appended) when the text is
    /// not in the stored form.
    pub fn write_line(&self, id: &str, out: &mut Vec<u8>) -> bool {
        let Some(at) = self.json.find(EMPTY_ID) else {
            return false;
        };
        // The id is the entry's second field, after the `format` object: nothing before it
        // but `{"format":{…},`, so this is the top-level id and not one inside a leg's detail.
        let head = &self.json[..at];
        if !(head.starts_with("{\"format\":{") && head.ends_with("},") && head.matches('{').count() == 2) {
            return false;
        }
        out.extend_from_slice(head.as_bytes());
        out.extend_from_slice(b"\"id\":");
        serde_json::to_writer(&mut *out, id).expect("strings serialise");
        out.extend_from_slice(&self.json.as_bytes()[at + EMPTY_ID.len()..]);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tests::entry;

    #[test]
    fn a_stored_entry_serves_the_same_entry_line_and_facts() {
        let mut e = entry(true);
        e.id = "fresh".into();
        e.legs[0].detail = Some(serde_json::json!({"id": "", "answer": "{\"id\":\"\"}"}));
        e.legs[0].elapsed_s = 0.25;
        let s = StoredEntry::of(&e);
        let served_e = served(e.clone(), "c\"9");
        assert_eq!(s.entry("c\"9").unwrap(), served_e);
        assert_eq!(s.line("c\"9").unwrap(), serde_json::to_string(&served_e).unwrap());
        assert_eq!(s.facts().unwrap(), Facts::of(&served_e));
        assert_eq!(s.reward(), Some(1.0));
        assert!(s.facts().unwrap().legs[0].cached);
        // A row stored without facts has them read from its text; a text in another form is
        // read, not spliced.
        let old = StoredEntry::from_parts(&serde_json::to_string(&e).unwrap(), e.reward, None).unwrap();
        assert!(old.line("x").is_none());
        assert_eq!(old.entry("x").unwrap(), served(e, "x"));
        assert_eq!(old.facts(), s.facts());
        assert!(StoredEntry::from_parts("not json", None, None).is_none());
    }
}
