use crate::config::ServeConfig;
use crate::routes::app;
use crate::state::{AppState, ServeEnv};
use axum::Router;
use axum::body::Body;
use axum::http::{Request, StatusCode};
use http_body_util::BodyExt;
use serde_json::{Value, json};
use std::path::Path;
use std::sync::Arc;
use tower::ServiceExt;

const PROFILE: &str = "name: qa\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n  - {name: ref, adapter: normalised-match, needs: [parse], on-broke: -0.5}\n";

/// A service over one task `a` (`1+1?`, answer 2) with the config lines `extra`.
fn service(dir: &Path, extra: &str) -> Result<Arc<AppState>, String> {
    std::fs::write(
        dir.join("t.jsonl"),
        "{\"id\":\"a\",\"prompt\":\"1+1?\",\"answer\":\"2\"}\n",
    )
    .unwrap();
    std::fs::write(dir.join("p.yaml"), PROFILE).unwrap();
    let path = dir.join("serve.yaml");
    let cfg = ServeConfig::from_yaml(&format!("tasks: t.jsonl\nprofiles: p.yaml\n{extra}"), &path)
        .map_err(|e| e.to_string())?;
    let env = ServeEnv::build(&cfg).unwrap();
    Ok(Arc::new(AppState::from_config(&cfg, &path, env.env()).unwrap()))
}

async fn call(app: &Router, method: &str, uri: &str, body: Value) -> (StatusCode, Value) {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .body(Body::from(if body.is_null() {
            String::new()
        } else {
            body.to_string()
        }))
        .unwrap();
    let resp = app.clone().oneshot(req).await.unwrap();
    let status = resp.status();
    let bytes = resp.into_body().collect().await.unwrap().to_bytes();
    (status, serde_json::from_slice(&bytes).unwrap_or(Value::Null))
}

/// Wrong, then right, then a retry of the right turn, then right again: the rewards (gain over
/// the previous turn), the discounted sum, the feedback, the retry answered with the same turn;
/// then the service restarts over the same store and the transcript is whole.
async fn a_scripted_episode_survives_a_restart(dir: &Path, store: &str) {
    let first = service(dir, store).unwrap();
    let app = app(Arc::clone(&first));
    let (st, head) = call(
        &app,
        "POST",
        "/v1/episodes",
        json!({"task": "a", "max_turns": 3, "turn_reward": "gain", "discount": 0.5}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{head}");
    let id = head["id"].as_str().unwrap().to_string();
    let turns = format!("/v1/episodes/{id}/turns");
    let (st, t0) = call(
        &app,
        "POST",
        &turns,
        json!({"completion": "I think it is three.", "turn_id": "x0"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK, "{t0}");
    assert_eq!(
        (t0["turn"].clone(), t0["reward"].clone()),
        (json!(0), json!(-1.0))
    );
    assert!(
        t0["feedback"].as_str().unwrap().contains("No answer was found"),
        "{t0}"
    );
    let (_, t1) = call(
        &app,
        "POST",
        &turns,
        json!({"completion": "\\boxed{2}", "turn_id": "x1"}),
    )
    .await;
    assert_eq!(t1["turn"], 1);
    assert_eq!(t1["reward"], 2.0, "the gain over -1.0: {t1}");
    assert_eq!(t1["discounted_sum"], 0.0, "-1 + 0.5 × 2: {t1}");
    assert!(t1["feedback"].as_str().unwrap().contains("read as `2`"), "{t1}");
    assert_eq!(t1["done"], false);
    // A retried turn id answers the turn it made, whatever the retry carries.
    let (st, again) = call(
        &app,
        "POST",
        &turns,
        json!({"completion": "\\boxed{5}", "turn_id": "x1"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(again, t1);
    let (_, t2) = call(&app, "POST", &turns, json!({"completion": "So \\boxed{2}."})).await;
    assert_eq!(
        (t2["turn"].clone(), t2["reward"].clone(), t2["done"].clone()),
        (json!(2), json!(0.0), json!(true))
    );
    let (st, over) = call(&app, "POST", &turns, json!({"completion": "\\boxed{2}"})).await;
    assert_eq!(
        (st, over["error"]["code"].clone()),
        (StatusCode::CONFLICT, json!("episode-done"))
    );
    let (_, before) = call(&app, "GET", &format!("/v1/episodes/{id}"), Value::Null).await;
    drop(app);
    drop(first);
    // The service restarts over the same store.
    let app = crate::routes::app(service(dir, store).unwrap());
    let (st, after) = call(&app, "GET", &format!("/v1/episodes/{id}"), Value::Null).await;
    assert_eq!(st, StatusCode::OK, "{after}");
    assert_eq!(after, before);
    assert_eq!(after["turns"].as_array().unwrap().len(), 3);
    assert_eq!(after["turns"][1]["entry"]["feedback"], t1["feedback"]);
    assert_eq!(after["turns"][1]["turn_id"], "x1");
    let (st, retried) = call(
        &app,
        "POST",
        &turns,
        json!({"completion": "\\boxed{9}", "turn_id": "x0"}),
    )
    .await;
    assert_eq!(st, StatusCode::OK);
    assert_eq!(retried, t0);
    let (st, e) = call(&app, "GET", "/v1/episodes/ep-nope", Value::Null).await;
    assert_eq!(
        (st, e["error"]["code"].clone()),
        (StatusCode::NOT_FOUND, json!("unknown-episode"))
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sqlite_episodes_survive_a_restart_and_answer_retries_with_the_same_turn() {
    let dir = tempfile::tempdir().unwrap();
    a_scripted_episode_survives_a_restart(dir.path(), "cache: {kind: sqlite, path: store.sqlite}\n").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_episodes_survive_a_restart_and_answer_retries_with_the_same_turn() {
    let Some(server) = aorlta_pg_server::TempServer::for_tests() else {
        return;
    };
    let url = server.create_db("episodes").unwrap();
    let dir = tempfile::tempdir().unwrap();
    a_scripted_episode_survives_a_restart(dir.path(), &format!("cache: {url}\n")).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn episodes_are_bounded_and_their_settings_checked() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(service(dir.path(), "episodes: {max-episodes: 1, max-turns: 4}\n").unwrap());
    for (body, code) in [
        (json!({"task": "nope"}), "unknown-task"),
        (json!({"task": "a", "max_turns": 5}), "invalid-request"),
        (json!({"task": "a", "discount": 1.5}), "invalid-request"),
        (json!({"task": "a", "turn_reward": "median"}), "invalid-request"),
        (json!({"task": "a", "profile": "other"}), "unknown-profile"),
    ] {
        let (st, v) = call(&app, "POST", "/v1/episodes", body.clone()).await;
        assert_eq!(v["error"]["code"], code, "{body}: {st} {v}");
    }
    let (st, v) = call(&app, "POST", "/v1/episodes", json!({"task": "a"})).await;
    assert_eq!(st, StatusCode::OK, "{v}");
    assert_eq!(v["max_turns"], 4);
    let (st, v) = call(&app, "POST", "/v1/episodes", json!({"task": "a"})).await;
    assert_eq!(
        (st, v["error"]["code"].clone()),
        (StatusCode::SERVICE_UNAVAILABLE, json!("episodes-full"))
    );
}

#[test]
fn the_episodes_section_is_checked_when_the_config_loads() {
    for (section, field) in [
        ("{max-episodes: 0}", "episodes.max-episodes"),
        ("{max-turns: 65}", "episodes.max-turns"),
        ("{max-episode-bytes: 1 KiB}", "episodes.max-episode-bytes"),
        ("{ttl: 5s}", "episodes.ttl"),
        ("{ttl: soon}", "soon"),
        ("{max-turn: 3}", "max-turn"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let err = service(dir.path(), &format!("episodes: {section}\n"))
            .err()
            .unwrap();
        assert!(
            err.contains("serve.yaml") && err.contains(field),
            "{section}: {err}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_openapi_description_has_the_episode_routes() {
    let dir = tempfile::tempdir().unwrap();
    let app = app(service(dir.path(), "").unwrap());
    let (st, v) = call(&app, "GET", "/openapi.json", Value::Null).await;
    assert_eq!(st, StatusCode::OK);
    for (path, method, id) in [
        ("/v1/episodes", "post", "openEpisode"),
        ("/v1/episodes/{id}/turns", "post", "takeTurn"),
        ("/v1/episodes/{id}", "get", "getEpisode"),
    ] {
        let op = &v["paths"][path][method];
        assert_eq!(op["operationId"], id, "{path}: {op}");
        assert_eq!(
            op["parameters"][0]["in"] == "path",
            path.contains("{id}"),
            "{path}"
        );
    }
    let schemas = v["components"]["schemas"].as_object().unwrap();
    for name in [
        "OpenEpisode",
        "TurnRequest",
        "TurnAnswer",
        "Episode",
        "TurnReward",
    ] {
        assert!(schemas.contains_key(name), "{name}");
    }
    assert!(schemas["RewardEntry"]["properties"].get("feedback").is_some());
}
