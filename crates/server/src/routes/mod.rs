//! The router: every endpoint, the JSON fallbacks for unknown routes and methods, the bearer
//! token on every route but `/healthz` and `/metrics` ([`crate::auth`]), and the middleware
//! that gives each request a tracing span and counts it in the metrics.

mod guard;
mod info;
mod score;
mod ui;

use crate::error::ApiError;
use crate::state::AppState;
use axum::Router;
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::Response;
use axum::routing::{get, post};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;
use tracing::Instrument;

/// The routes, as they appear in metrics labels; anything else is counted as `other`.
pub(crate) const ROUTES: [&str; 7] = [
    "/v1/score",
    "/get_reward",
    "/v1/tasks",
    "/v1/profiles",
    "/healthz",
    "/metrics",
    "/openapi.json",
];

/// The service's router over a shared state. Tests call it with `oneshot` without a socket.
pub fn app(state: Arc<AppState>) -> Router {
    let guarded = Router::new()
        .route("/v1/score", post(score::score))
        .route("/get_reward", post(score::get_reward))
        .route("/v1/tasks", get(info::tasks))
        .route("/v1/profiles", get(info::profiles))
        .route("/v1/episodes", post(crate::episodes::open))
        .route("/v1/episodes/{id}/turns", post(crate::episodes::turn))
        .route("/v1/episodes/{id}", get(crate::episodes::transcript))
        .route("/ui", get(ui::ui))
        .route("/ui/{*rest}", get(ui::ui))
        .route_layer(middleware::from_fn_with_state(Arc::clone(&state), guard::require));
    Router::new()
        .merge(guarded)
        .route("/healthz", get(info::healthz))
        .route("/metrics", get(info::metrics))
        .route("/openapi.json", get(info::openapi))
        .fallback(not_found)
        .method_not_allowed_fallback(method_not_allowed)
        .layer(middleware::from_fn_with_state(Arc::clone(&state), observe))
        .with_state(state)
}

async fn not_found(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        "not-found",
        format!(
            "no endpoint at `{}` (endpoints: {})",
            req.uri().path(),
            ROUTES.join(", ")
        ),
    )
}

async fn method_not_allowed(req: Request) -> ApiError {
    ApiError::new(
        StatusCode::METHOD_NOT_ALLOWED,
        "method-not-allowed",
        format!("`{}` does not take {}", req.uri().path(), req.method()),
    )
}

static NEXT_REQUEST: AtomicU64 = AtomicU64::new(1);

/// A span per request (id, method, route) around the handler, and the request's count and
/// duration in the metrics.
async fn observe(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let start = Instant::now();
    let path = req.uri().path();
    let route = ROUTES.iter().copied().find(|r| *r == path).unwrap_or("other");
    let id = NEXT_REQUEST.fetch_add(1, Ordering::Relaxed);
    let span = tracing::info_span!("request", id, method = %req.method(), route);
    let resp = next.run(req).instrument(span.clone()).await;
    let status = resp.status();
    let elapsed = start.elapsed();
    state.metrics.observe_request(route, status.as_u16(), elapsed);
    span.in_scope(|| {
        let ms = elapsed.as_secs_f64() * 1e3;
        if status.is_server_error() && status != StatusCode::SERVICE_UNAVAILABLE {
            tracing::warn!(status = status.as_u16(), ms, "answered");
        } else {
            tracing::debug!(status = status.as_u16(), ms, "answered");
        }
    });
    resp
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::ServeConfig;
    use crate::state::ServeEnv;
    use axum::body::Body;
    use axum::http::Request;
    use http_body_util::BodyExt;
    use tower::ServiceExt;

    fn state(dir: &std::path::Path) -> Arc<AppState> {
        state_of(
            dir,
            "name: qa\nunscored-value: -0.25\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n",
            "",
        )
    }

    /// A service over one task `a` (`1+1?`, answer 2), the profile `profile` and the extra
    /// config lines `extra`.
    fn state_of(dir: &std::path::Path, profile: &str, extra: &str) -> Arc<AppState> {
        std::fs::write(
            dir.join("t.jsonl"),
            "{\"id\":\"a\",\"prompt\":\"1+1?\",\"answer\":\"2\"}\n",
        )
        .unwrap();
        std::fs::write(dir.join("p.yaml"), profile).unwrap();
        let path = dir.join("serve.yaml");
        let cfg =
            ServeConfig::from_yaml(&format!("tasks: t.jsonl\nprofiles: p.yaml\n{extra}"), &path).unwrap();
        let env = ServeEnv::build(&cfg).unwrap();
        Arc::new(AppState::from_config(&cfg, &path, env.env()).unwrap())
    }

    async fn call(app: Router, method: &str, uri: &str, body: &str) -> (StatusCode, serde_json::Value) {
        let req = Request::builder()
            .method(method)
            .uri(uri)
            .body(Body::from(body.to_string()))
            .unwrap();
        let resp = app.oneshot(req).await.unwrap();
        let status = resp.status();
        let bytes = resp.into_body().collect().await.unwrap().to_bytes();
        (
            status,
            serde_json::from_slice(&bytes).unwrap_or(serde_json::Value::Null),
        )
    }

    #[tokio::test]
    async fn get_reward_labels_as_answers_ids_or_either_and_an_empty_batch() {
        let dir = tempfile::tempdir().unwrap();
        let profile = "name: qa\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n  - {name: ref, adapter: normalised-match, needs: [parse], on-broke: -0.5}\n";
        let with_labels = |mode: &str| {
            app(state_of(
                dir.path(),
                profile,
                &format!("get-reward: {{labels: {mode}}}\n"),
            ))
        };
        let body =
            r#"{"query":["P: \\boxed{2}", "P: \\boxed{7}"],"prompts":["P: ", "P: "],"labels":["7", "a"]}"#;
        let mut got = Vec::new();
        for mode in ["id", "answer", "auto"] {
            let app = with_labels(mode);
            let (st, v) = call(app.clone(), "POST", "/get_reward", body).await;
            got.push((mode, st, v["rewards"].clone(), v["error"]["code"].clone()));
            let (st, v) = call(
                app,
                "POST",
                "/get_reward",
                r#"{"query":[],"prompts":[],"labels":[]}"#,
            )
            .await;
            assert_eq!(st, StatusCode::OK, "{mode}: {v}");
            assert_eq!(v["rewards"], serde_json::json!([]));
            assert_eq!(v["extra_logs"]["scored"], serde_json::json!([]));
        }
        // Id mode: `7` names no task. Answer mode: `7` is the answer (the first completion's 2
        // is wrong) and so is `a` (the second's 7 is wrong too). Auto: `7` is an answer, `a`
        // the task whose answer is 2.
        assert_eq!(got[0].1, StatusCode::UNPROCESSABLE_ENTITY);
        assert_eq!(got[0].3, "unknown-label");
        assert_eq!(
            (got[1].1, got[1].2.clone()),
            (StatusCode::OK, serde_json::json!([-0.5, -0.5]))
        );
        assert_eq!(
            (got[2].1, got[2].2.clone()),
            (StatusCode::OK, serde_json::json!([-0.5, -0.5]))
        );
        let right =
            r#"{"query":["P: \\boxed{7}", "P: \\boxed{2}"],"prompts":["P: ", "P: "],"labels":["7", "a"]}"#;
        let (st, v) = call(with_labels("auto"), "POST", "/get_reward", right).await;
        assert_eq!(
            (st, v["rewards"].clone()),
            (StatusCode::OK, serde_json::json!([1.0, 1.0])),
            "{v}"
        );
    }

    #[tokio::test]
    async fn a_store_deleted_under_the_service_stops_admission_and_the_health_check_says_why() {
        let dir = tempfile::tempdir().unwrap();
        let store = dir.path().join("store.sqlite");
        let app = app(state_of(
            dir.path(),
            "name: qa\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n",
            &format!("cache: {{kind: sqlite, path: {}}}\n", store.display()),
        ));
        let item = r#"{"items": [{"task": "a", "completion": "\\boxed{2}"}]}"#;
        let (st, v) = call(app.clone(), "GET", "/healthz", "").await;
        assert_eq!((st, v["status"].as_str()), (StatusCode::OK, Some("ok")), "{v}");
        let (st, _) = call(app.clone(), "POST", "/v1/score", item).await;
        assert_eq!(st, StatusCode::OK);
        std::fs::remove_file(&store).unwrap();
        let (st, v) = call(app.clone(), "GET", "/healthz", "").await;
        assert_eq!(st, StatusCode::SERVICE_UNAVAILABLE, "{v}");
        assert_eq!(v["status"], "store-lost");
        assert!(v["problem"].as_str().unwrap().contains("store.sqlite"), "{v}");
        for (uri, body) in [
            ("/v1/score", item),
            (
                "/get_reward",
                r#"{"query":["P: 2"],"prompts":["P: "],"labels":["a"]}"#,
            ),
        ] {
            let (st, v) = call(app.clone(), "POST", uri, body).await;
            assert_eq!(st, StatusCode::SERVICE_UNAVAILABLE, "{uri}: {v}");
            assert_eq!(v["error"]["code"], "store-lost", "{uri}: {v}");
        }
    }

    #[tokio::test]
    async fn get_reward_reads_number_labels_and_refuses_others_naming_the_label() {
        let dir = tempfile::tempdir().unwrap();
        let profile = "name: qa\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n  - {name: ref, adapter: normalised-match, needs: [parse], on-broke: -0.5}\n";
        let app = app(state_of(dir.path(), profile, "get-reward: {labels: answer}\n"));
        let body = r#"{"query":["P: \\boxed{42}", "P: \\boxed{2.5}", "P: \\boxed{3}"],"prompts":["P: ", "P: ", "P: "],"labels":[42, 2.5, 4]}"#;
        let (st, v) = call(app.clone(), "POST", "/get_reward", body).await;
        assert_eq!(
            (st, v["rewards"].clone()),
            (StatusCode::OK, serde_json::json!([1.0, 1.0, -0.5])),
            "{v}"
        );
        // verl's `reward_model` column as the label column: its `ground_truth`.
        let body = r#"{"query":["P: \\boxed{42}"],"prompts":["P: "],"labels":[{"style": "rule", "ground_truth": 42}]}"#;
        let (st, v) = call(app.clone(), "POST", "/get_reward", body).await;
        assert_eq!(
            (st, v["rewards"].clone()),
            (StatusCode::OK, serde_json::json!([1.0])),
            "{v}"
        );
        let body = r#"{"query":["P: 7"],"prompts":["P: "],"labels":[{"style": "rule"}]}"#;
        let (st, v) = call(app.clone(), "POST", "/get_reward", body).await;
        assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{v}");
        assert!(
            v["error"]["message"].as_str().unwrap().contains("`ground_truth`"),
            "{v}"
        );
        for (labels, at) in [
            (r#"["7", true]"#, "labels[1]"),
            (r#"[null]"#, "labels[0]"),
            (r#"[[7]]"#, "labels[0]"),
        ] {
            let body = format!(r#"{{"query":["P: 7", "P: 7"],"prompts":["P: ", "P: "],"labels":{labels}}}"#);
            let (st, v) = call(app.clone(), "POST", "/get_reward", &body).await;
            assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{labels}: {v}");
            let says = v["error"]["message"].as_str().unwrap();
            assert!(
                says.contains(at) && says.contains("a task id or an answer"),
                "{labels}: {says}"
            );
        }
    }

    #[tokio::test]
    async fn the_openapi_description_names_every_route_and_the_reward_entry() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(state(dir.path()));
        let (st, v) = call(app.clone(), "GET", "/openapi.json", "").await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(v["openapi"], "3.0.3");
        for route in ROUTES {
            let ops = v["paths"][route]
                .as_object()
                .unwrap_or_else(|| panic!("{route} missing"));
            let (method, _) = ops.iter().next().unwrap();
            // The route answers that method (not 404 or 405).
            let (st, _) = call(app.clone(), &method.to_uppercase(), route, "{}").await;
            assert!(
                st != StatusCode::NOT_FOUND && st != StatusCode::METHOD_NOT_ALLOWED,
                "{method} {route}: {st}"
            );
        }
        let schemas = v["components"]["schemas"].as_object().unwrap();
        for name in [
            "RewardEntry",
            "LegResult",
            "Reason",
            "ScoreRequest",
            "GetRewardRequest",
            "ErrorBody",
        ] {
            assert!(
                schemas.contains_key(name),
                "{name} not in {:?}",
                schemas.keys().collect::<Vec<_>>()
            );
        }
        let entry = &schemas["RewardEntry"]["properties"];
        for field in ["id", "task", "reward", "scored", "legs", "profile"] {
            assert!(entry.get(field).is_some(), "RewardEntry.{field}");
        }
        assert_eq!(
            v["paths"]["/v1/score"]["post"]["requestBody"]["content"]["application/json"]["schema"]["$ref"],
            "#/components/schemas/ScoreRequest"
        );
        // What a client generator needs: a name per operation, the refusals a scoring call
        // can get, and no query parameter the route does not read.
        let mut ids = std::collections::HashSet::new();
        for route in ROUTES {
            let (_, op) = v["paths"][route].as_object().unwrap().iter().next().unwrap();
            let id = op["operationId"]
                .as_str()
                .unwrap_or_else(|| panic!("{route}: no operationId"));
            assert!(ids.insert(id.to_string()), "{route}: {id} twice");
        }
        for route in ["/v1/score", "/get_reward"] {
            let responses = &v["paths"][route]["post"]["responses"];
            for status in ["401", "413", "422", "503"] {
                assert!(responses.get(status).is_some(), "{route}: no {status}");
            }
        }
        assert!(v["paths"]["/v1/score"]["post"].get("parameters").is_none());
        // OpenAPI 3.0 as generators read it: no list of types, no schema of `null` alone; an
        // optional struct is a nullable reference.
        fn walk(v: &serde_json::Value, bad: &mut Vec<String>) {
            match v {
                serde_json::Value::Object(o) => {
                    if o.get("type").is_some_and(serde_json::Value::is_array) {
                        bad.push(format!("a list of types: {v}"));
                    }
                    if o.get("enum") == Some(&serde_json::json!([null])) {
                        bad.push(format!("a null schema: {v}"));
                    }
                    if (o.contains_key("allOf") || o.contains_key("$ref")) && o.contains_key("default") {
                        bad.push(format!("a reference with a default: {v}"));
                    }
                    o.values().for_each(|x| walk(x, bad));
                }
                serde_json::Value::Array(a) => a.iter().for_each(|x| walk(x, bad)),
                _ => {}
            }
        }
        let mut bad = Vec::new();
        walk(&v, &mut bad);
        assert!(bad.is_empty(), "{bad:?}");
        let parts = &schemas["RewardEntry"]["properties"]["parts"];
        assert_eq!(parts["allOf"][0]["$ref"], "#/components/schemas/Parts", "{parts}");
        assert_eq!(parts["nullable"], true);
        assert_eq!(
            v["paths"]["/get_reward"]["post"]["parameters"][0]["name"],
            "profile"
        );
    }

    #[tokio::test]
    async fn routes_answer_without_a_socket() {
        let dir = tempfile::tempdir().unwrap();
        let app = app(state(dir.path()));
        let (st, v) = call(app.clone(), "GET", "/healthz", "").await;
        assert_eq!((st, v["tasks"].as_u64()), (StatusCode::OK, Some(1)));
        let (st, v) = call(
            app.clone(),
            "POST",
            "/v1/score",
            r#"{"items":[{"task":"a","completion":"x"},{"task":"zz","completion":"x"}]}"#,
        )
        .await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(v["results"][0]["legs"][0]["name"], "parse");
        assert_eq!(v["results"][1]["reasons"][0]["code"], "unknown-task");
        let (st, v) = call(
            app.clone(),
            "POST",
            "/get_reward",
            r#"{"query":["Q: x", "P: \\boxed{2}<|im_end|>"],"prompts":["P: ", "P: "],"labels":["a", "a"]}"#,
        )
        .await;
        assert_eq!(st, StatusCode::OK);
        assert_eq!(v["rewards"][0], -0.25, "the profile's unscored-value");
        assert_eq!(v["extra_logs"]["unscored"][0], 1.0);
        assert_eq!(v["scores"][0], 0.0, "unscored is not correct");
        assert_eq!(v["rewards"][1], 1.0, "{v}");
        assert_eq!(v["scores"][1], 1.0, "the end token is not part of the answer");
        for labels in [r#"["zz"]"#, r#"[""]"#] {
            let (st, v) = call(
                app.clone(),
                "POST",
                "/get_reward",
                &format!(r#"{{"query":["P: x"],"prompts":["P: "],"labels":{labels}}}"#),
            )
            .await;
            assert_eq!(st, StatusCode::UNPROCESSABLE_ENTITY, "{labels}");
            assert_eq!(v["error"]["code"], "unknown-label");
            assert!(
                v["error"]["message"].as_str().unwrap().starts_with("labels[0] "),
                "{v}"
            );
        }
        // Malformed is 400 even when a field is of the wrong type before the text breaks off;
        // a positional array in place of the request object is refused.
        for (body, status, code) in [
            (r#"{"items": 42"#, StatusCode::BAD_REQUEST, "malformed-json"),
            (r#"{"itemz": [], "x""#, StatusCode::BAD_REQUEST, "malformed-json"),
            (
                r#"[null, [{"task":"a","completion":"x"}]]"#,
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid-request",
            ),
            (
                r#"{"items": [["i", "a", "x"]]}"#,
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid-request",
            ),
            (
                r#"[["P: x"], ["P: "], ["a"]]"#,
                StatusCode::UNPROCESSABLE_ENTITY,
                "invalid-request",
            ),
        ] {
            let uri = if body.starts_with("[[") {
                "/get_reward"
            } else {
                "/v1/score"
            };
            let (st, v) = call(app.clone(), "POST", uri, body).await;
            assert_eq!((st, &v["error"]["code"]), (status, &code.into()), "{body}: {v}");
        }
        let (st, v) = call(app, "DELETE", "/healthz", "").await;
        assert_eq!(
            (st, &v["error"]["code"]),
            (StatusCode::METHOD_NOT_ALLOWED, &"method-not-allowed".into())
        );
    }

    #[tokio::test]
    async fn the_task_listing_publishes_no_hash_of_the_answer() {
        // Two services whose task `a` differs only in its answer publish the same hash: it
        // cannot be recomputed from a guessed answer, since no answer goes into it.
        let mut listed = Vec::new();
        for answer in ["2", "3"] {
            let dir = tempfile::tempdir().unwrap();
            let s = state(dir.path());
            std::fs::write(
                dir.path().join("t.jsonl"),
                format!("{{\"id\":\"a\",\"prompt\":\"1+1?\",\"answer\":\"{answer}\"}}\n"),
            )
            .unwrap();
            let path = dir.path().join("serve.yaml");
            let cfg = ServeConfig::from_yaml("tasks: t.jsonl\nprofiles: p.yaml\n", &path).unwrap();
            let env = ServeEnv::build(&cfg).unwrap();
            let s2 = Arc::new(AppState::from_config(&cfg, &path, env.env()).unwrap());
            let content = s2.tasks().get("a").unwrap().hash.clone();
            drop(s);
            let (st, v) = call(app(s2), "GET", "/v1/tasks", "").await;
            assert_eq!(st, StatusCode::OK);
            let task = &v["tasks"][0];
            assert_eq!(
                (task["id"].as_str(), task["prompt"].as_str()),
                (Some("a"), Some("1+1?"))
            );
            let hash = task["hash"].as_str().unwrap().to_string();
            assert_ne!(
                hash, content,
                "the content hash, which covers the answer, is not published"
            );
            assert_eq!(
                hash,
                info::public_hash("qa", "a", "1+1?"),
                "the listed fields alone"
            );
            listed.push((hash, content));
        }
        assert_eq!(listed[0].0, listed[1].0, "the answer changes no published hash");
        assert_ne!(
            listed[0].1, listed[1].1,
            "it changes the content hash, which keys results"
        );
    }
}
