//! The service's OpenAPI 3 description (`GET /openapi.json`), made from the code: every route the
//! router serves (`routes::ROUTES`) with its method, and the request and answer bodies' JSON Schemas
//! derived from the types the handlers read and write ([`crate::wire`], the reward entry of
//! `aorlta-record`). docs/API.md explains the fields in prose.

use crate::wire::{
    GetRewardRequest, GetRewardResponse, Health, ProfilesResponse, ScoreRequest, ScoreResponse, TasksResponse,
};
use schemars::generate::{SchemaGenerator, SchemaSettings};
use serde_json::{Map, Value, json};

/// One operation: its method, summary, request body and answer body (schemas, or `None`), the
/// answer's media type, and whether it needs the token.
struct Op {
    method: &'static str,
    /// The name a generated client gives the call.
    id: &'static str,
    summary: &'static str,
    request: Option<Value>,
    answer: Value,
    media: &'static str,
    guarded: bool,
}

fn schema<T: schemars::JsonSchema>(g: &mut SchemaGenerator) -> Value {
    g.subschema_for::<T>().to_value()
}

fn operation(path: &str, g: &mut SchemaGenerator) -> Op {
    match path {
        "/v1/score" => Op {
            method: "post",
            id: "score",
            summary: "Score a batch of items (a task id or an inline task, and a completion each) with a profile.",
            request: Some(schema::<ScoreRequest>(g)),
            answer: schema::<ScoreResponse>(g),
            media: "application/json",
            guarded: true,
        },
        "/get_reward" => Op {
            method: "post",
            id: "getReward",
            summary: "OpenRLHF's remote reward request: queries, prompts and labels (task ids, or answers with `get-reward.labels`).",
            request: Some(schema::<GetRewardRequest>(g)),
            answer: schema::<GetRewardResponse>(g),
            media: "application/json",
            guarded: true,
        },
        "/v1/tasks" => Op {
            method: "get",
            id: "listTasks",
            summary: "The tasks the service loaded.",
            request: None,
            answer: schema::<TasksResponse>(g),
            media: "application/json",
            guarded: true,
        },
        "/v1/profiles" => Op {
            method: "get",
            id: "listProfiles",
            summary: "The profiles offered and the default.",
            request: None,
            answer: schema::<ProfilesResponse>(g),
            media: "application/json",
            guarded: true,
        },
        "/healthz" => Op {
            method: "get",
            id: "health",
            summary: "Liveness, version, queue depths and the item time limits.",
            request: None,
            answer: schema::<Health>(g),
            media: "application/json",
            guarded: false,
        },
        "/metrics" => Op {
            method: "get",
            id: "metrics",
            summary: "The OpenMetrics text exposition.",
            request: None,
            answer: json!({"type": "string"}),
            media: "text/plain",
            guarded: false,
        },
        "/v1/episodes" => Op {
            method: "post",
            id: "openEpisode",
            summary: "Open an episode at a task: the profile, the most turns, the turn reward and its discount.",
            request: Some(schema::<crate::episodes::OpenEpisode>(g)),
            answer: schema::<aorlta_record::EpisodeHead>(g),
            media: "application/json",
            guarded: true,
        },
        "/v1/episodes/{id}/turns" => Op {
            method: "post",
            id: "takeTurn",
            summary: "Score a completion as the episode's next turn: its entry, feedback and turn reward (a retried turn id answers the same turn).",
            request: Some(schema::<crate::episodes::TurnRequest>(g)),
            answer: schema::<crate::episodes::TurnAnswer>(g),
            media: "application/json",
            guarded: true,
        },
        "/v1/episodes/{id}" => Op {
            method: "get",
            id: "getEpisode",
            summary: "The episode's transcript: its settings and every turn.",
            request: None,
            answer: schema::<aorlta_record::Episode>(g),
            media: "application/json",
            guarded: true,
        },
        _ => Op {
            method: "get",
            id: "openapi",
            summary: "This description.",
            request: None,
            answer: json!({"type": "object"}),
            media: "application/json",
            guarded: false,
        },
    }
}

/// OpenAPI 3.0's form of an optional reference: `anyOf: [{$ref}, {enum: [null], nullable}]`
/// (what the generator writes for an `Option` of a struct) becomes `allOf: [{$ref}]` with
/// `nullable: true`, which client generators read (a schema of `null` alone has no type, and
/// they drop the property, or the whole answer, as unreadable); a reference carries no
/// `default`.
fn nullable_refs(v: &mut Value) {
    match v {
        Value::Object(o) => {
            let optional_ref =
                o.get("anyOf")
                    .and_then(Value::as_array)
                    .and_then(|any| match any.as_slice() {
                        [r, n] if r.get("$ref").is_some() && n.get("enum") == Some(&json!([null])) => {
                            Some(r.clone())
                        }
                        _ => None,
                    });
            if let Some(r) = optional_ref {
                o.remove("anyOf");
                o.insert("allOf".into(), json!([r]));
                o.insert("nullable".into(), json!(true));
            }
            // A reference with a default (a struct field that serde fills in when absent, such
            // as an entry's `format`) is a model with a default value, which openapi-python-client
            // refuses, dropping the whole entry and every answer that holds one.
            if o.contains_key("allOf") || o.contains_key("$ref") {
                o.remove("default");
            }
            o.values_mut().for_each(nullable_refs);
        }
        Value::Array(a) => a.iter_mut().for_each(nullable_refs),
        _ => {}
    }
}

/// The description of the service at version `version`, serving `routes`.
pub(crate) fn document(version: &str, routes: &[&str]) -> Value {
    let mut g = SchemaSettings::openapi3().into_generator();
    let error = schema::<crate::error::ErrorBody<'static>>(&mut g);
    let mut paths = Map::new();
    for &path in routes {
        let op = operation(path, &mut g);
        let media = op.media;
        let refused =
            |what: &str| json!({"description": what, "content": {"application/json": {"schema": error}}});
        let mut o = json!({
            "operationId": op.id,
            "summary": op.summary,
            "responses": {
                "200": {"description": "answered", "content": {media: {"schema": op.answer}}},
                "default": refused("refused (docs/API.md, \"Errors\")"),
            },
        });
        if op.guarded {
            o["responses"]["401"] = refused("the token is missing or wrong");
        }
        if let Some(r) = op.request {
            o["requestBody"] = json!({"required": true, "content": {"application/json": {"schema": r}}});
            o["responses"]["400"] = refused("the body is not JSON");
            o["responses"]["413"] = refused("the body, or its items, are over a limit");
            o["responses"]["422"] = refused("JSON of the wrong shape, an unknown profile or label");
            o["responses"]["503"] = refused("overloaded (see `Retry-After`), or the store was lost");
        }
        // `/v1/score` names its profile in the body; only `/get_reward` (OpenRLHF's fixed
        // shape) takes it in the query.
        if path.contains("{id}") {
            o["parameters"] = json!([{"name": "id", "in": "path", "required": true, "schema": {"type": "string"},
                "description": "the episode's id, as `POST /v1/episodes` answered it"}]);
        }
        if path == "/get_reward" {
            o["parameters"] = json!([{"name": "profile", "in": "query", "required": false, "schema": {"type": "string"},
                "description": "the profile to score with (the default when absent)"}]);
        }
        if !op.guarded {
            o["security"] = json!([]);
        }
        paths.insert(path.to_string(), json!({op.method: o}));
    }
    let mut schemas: Map<String, Value> = g.take_definitions(true).into_iter().collect();
    for s in schemas.values_mut() {
        nullable_refs(s);
    }
    json!({
        "openapi": "3.0.3",
        "info": {
            "title": "AORLTA reward service",
            "version": version,
            "description": "Rewards for RL post-training: checks and a reward per completion (docs/API.md).",
        },
        "paths": paths,
        "components": {
            "schemas": schemas,
            "securitySchemes": {"bearer": {"type": "http", "scheme": "bearer"}},
        },
        "security": [{"bearer": []}],
    })
}
