//! The JSON shapes of the HTTP API: requests and responses of `/v1/score`, `/get_reward`
//! (OpenRLHF's remote reward shape), `/v1/tasks`, `/v1/profiles` and `/healthz`.

use aorlta_core::Profile;
use aorlta_record::RewardEntry;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `POST /v1/score` body.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct ScoreRequest {
    /// The profile to score with; the service's default when absent.
    #[serde(default)]
    pub profile: Option<String>,
    /// The items, answered in this order.
    pub items: Vec<ScoreItem>,
}

/// One item of a score request: a JSON object (a positional array is refused).
#[derive(Debug, Clone, schemars::JsonSchema)]
pub(crate) struct ScoreItem {
    /// The item's id, echoed in its entry; `<task>#<index>` (0-based index in `items`) when
    /// absent.
    pub id: Option<String>,
    /// A task id the service knows, or an inline task object: a Q&A task
    /// `{"id", "prompt", "answer"}` or a kernel task spec.
    pub task: TaskRef,
    /// The model's text.
    pub completion: String,
}

impl<'de> Deserialize<'de> for ScoreItem {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::{Error, MapAccess, Visitor};
        const FIELDS: &[&str] = &["id", "task", "completion"];
        struct Item;
        impl<'de> Visitor<'de> for Item {
            type Value = ScoreItem;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an item object with `task` and `completion` (and optionally `id`)")
            }

            fn visit_map<A: MapAccess<'de>>(self, mut m: A) -> Result<ScoreItem, A::Error> {
                let (mut id, mut task, mut completion) = (None, None, None);
                while let Some(key) = m.next_key::<std::borrow::Cow<'de, str>>()? {
                    match key.as_ref() {
                        "id" => id = m.next_value::<Option<String>>()?,
                        "task" => task = Some(m.next_value::<TaskRef>()?),
                        "completion" => completion = Some(m.next_value::<String>()?),
                        other => return Err(A::Error::unknown_field(other, FIELDS)),
                    }
                }
                Ok(ScoreItem {
                    id,
                    task: task.ok_or_else(|| A::Error::missing_field("task"))?,
                    completion: completion.ok_or_else(|| A::Error::missing_field("completion"))?,
                })
            }
        }
        // `deserialize_map`, not `deserialize_struct`: serde_json would take a sequence for a
        // struct, binding fields by position.
        d.deserialize_map(Item)
    }
}

/// A task named by id or given inline.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
#[serde(untagged)]
pub(crate) enum TaskRef {
    /// A task id from the service's task files.
    Id(String),
    /// An inline task (checked per item: a bad one is that item's error, not the request's).
    Inline(serde_json::Map<String, serde_json::Value>),
}

/// `POST /v1/score` answer.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct ScoreResponse {
    /// One reward entry per item, in item order.
    pub results: Vec<RewardEntry>,
}

/// `POST /get_reward` body: OpenRLHF's remote reward request.
#[derive(Debug, Clone, Deserialize, schemars::JsonSchema)]
pub(crate) struct GetRewardRequest {
    /// Prompt and response together, as the trainer decoded them.
    pub query: Vec<String>,
    /// The prompts; each is removed from the front of its query to leave the completion. When
    /// absent the whole query is the completion.
    #[serde(default)]
    pub prompts: Option<Vec<String>>,
    /// The label of each query (OpenRLHF's `--label_key` column): a task id, or under
    /// `get-reward.labels: answer` (or `auto`) the reference answer. A number (`42`, `2.5`) is
    /// read as the text JSON writes it.
    pub labels: Vec<Label>,
}

/// One `/get_reward` label: text, or a number read as the text JSON writes it (a dataset whose
/// answers are numbers sends them as numbers), or verl's `reward_model` object, whose
/// `ground_truth` is the label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Label(pub String);

impl<'de> Deserialize<'de> for Label {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Label;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a label: a task id or an answer, as a string or a number")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<Label, E> {
                Ok(Label(v.to_string()))
            }
            fn visit_string<E: serde::de::Error>(self, v: String) -> Result<Label, E> {
                Ok(Label(v))
            }
            fn visit_i64<E: serde::de::Error>(self, v: i64) -> Result<Label, E> {
                Ok(Label(v.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, v: u64) -> Result<Label, E> {
                Ok(Label(v.to_string()))
            }
            fn visit_f64<E: serde::de::Error>(self, v: f64) -> Result<Label, E> {
                // JSON's shortest form: `2.5`, `0.1`, `1e300`; never `inf`, which JSON cannot hold.
                Ok(Label(
                    serde_json::Number::from_f64(v).map_or_else(|| v.to_string(), |n| n.to_string()),
                ))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Label, A::Error> {
                // verl's `reward_model` column (`{"style": …, "ground_truth": …}`) as a label.
                let mut truth = None;
                while let Some(key) = map.next_key::<String>()? {
                    if key == "ground_truth" {
                        truth = Some(map.next_value::<serde_json::Value>()?);
                    } else {
                        map.next_value::<serde::de::IgnoredAny>()?;
                    }
                }
                match truth {
                    Some(serde_json::Value::String(s)) => Ok(Label(s)),
                    Some(serde_json::Value::Number(n)) => Ok(Label(n.to_string())),
                    Some(other) => Err(serde::de::Error::custom(format!(
                        "a label object's `ground_truth` must be a string or a number, not {other}"
                    ))),
                    None => Err(serde::de::Error::custom(
                        "a label object must hold `ground_truth` (verl's `reward_model` column); \
                         otherwise send the task id or the answer as a string or a number",
                    )),
                }
            }
        }
        d.deserialize_any(Visitor)
    }
}

impl schemars::JsonSchema for Label {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Label".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        // OpenAPI 3.0 has no list of types: one schema per kind.
        schemars::json_schema!({
            "anyOf": [{"type": "string"}, {"type": "number"}, {"type": "object"}],
            "description": "A task id, or a reference answer; a number is read as the text JSON writes it; an object (verl's `reward_model`) gives its `ground_truth`."
        })
    }
}

/// `POST /get_reward` answer: OpenRLHF's remote reward response.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct GetRewardResponse {
    /// One reward per query; an unscored entry's is the profile's `unscored-value`.
    pub rewards: Vec<f64>,
    /// The same numbers (OpenRLHF reads `scores` for dynamic filtering).
    pub scores: Vec<f64>,
    /// Per-query numbers OpenRLHF logs: `scored` (1 or 0), `unscored` (1 when the reward is
    /// the stand-in `unscored-value`), `timed_out` (1 when the item passed its time limit).
    pub extra_logs: BTreeMap<String, Vec<f64>>,
}

/// One task in `GET /v1/tasks` (never the reference answer or kernel).
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct TaskInfo {
    /// The task id.
    pub id: String,
    /// `qa` or `kernel`.
    pub kind: String,
    /// A hash of the fields listed here (kind, id, prompt) and of nothing else: it changes when
    /// the prompt does, so a client can tell the task it cached from a changed one, and it
    /// covers no reference answer or source, so none can be recovered from it.
    pub hash: String,
    /// The prompt shown to the model.
    pub prompt: String,
}

/// `GET /v1/tasks` answer.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct TasksResponse {
    /// Every task, in load order.
    pub tasks: Vec<TaskInfo>,
}

/// One profile in `GET /v1/profiles`.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct ProfileInfo {
    /// The profile's name.
    pub name: String,
    /// True for the profile used when a request names none.
    pub default: bool,
    /// The hash in every entry's version identity.
    pub hash: String,
    /// The profile as loaded.
    #[schemars(with = "serde_json::Value")]
    pub profile: Profile,
}

/// `GET /v1/profiles` answer.
#[derive(Debug, Clone, Serialize, schemars::JsonSchema)]
pub(crate) struct ProfilesResponse {
    /// The default profile's name.
    pub default: String,
    /// Every profile offered.
    pub profiles: Vec<ProfileInfo>,
}

/// `GET /healthz` answer.
#[derive(Debug, Clone, Serialize, Deserialize, schemars::JsonSchema)]
pub(crate) struct Health {
    /// `ok`, or `store-lost` (answered with 503) when the result store's file was deleted or
    /// replaced under the service, which then admits no work.
    pub status: String,
    /// Why the service is not `ok`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// The AORLTA build.
    pub version: String,
    /// Tasks loaded.
    pub tasks: usize,
    /// Profile names offered.
    pub profiles: Vec<String>,
    /// Per lane: items admitted and not finished.
    pub queue_depth: BTreeMap<String, usize>,
    /// Per lane: the most items admitted and not finished (`queue-items`).
    pub queue_items: BTreeMap<String, usize>,
    /// Per lane: the item time limit in seconds; a client should wait longer than this.
    pub item_timeout_s: BTreeMap<String, f64>,
    /// How long `/get_reward` waits for room before it answers 503, in seconds.
    pub queue_wait_s: f64,
}
