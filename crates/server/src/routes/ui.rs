//! `/ui`: the inspector's pages over what this service answered ([`crate::recent`]), behind the
//! service's token like every scoring route; the inspector's own router answers each request
//! with the path's `/ui` taken off.

use crate::state::AppState;
use axum::extract::{Request, State};
use axum::response::Response;
use std::sync::Arc;
use tower::ServiceExt;

/// `GET /ui` and everything under it: the inspector's router answers, over the latest snapshot.
pub(super) async fn ui(State(state): State<Arc<AppState>>, req: Request) -> Response {
    let ins = state.recent.snapshot();
    let (mut parts, body) = req.into_parts();
    let path = parts.uri.path().strip_prefix("/ui").unwrap_or("/");
    let path = if path.is_empty() { "/" } else { path };
    let target = match parts.uri.query() {
        Some(q) => format!("{path}?{q}"),
        None => path.to_string(),
    };
    // A fresh request: the outer router's path parameters, kept in the extensions, would be
    // read by the inspector's own `Path` extractors.
    let mut inner = Request::new(body);
    *inner.method_mut() = parts.method;
    *inner.uri_mut() = target.parse().unwrap_or_default();
    *inner.headers_mut() = std::mem::take(&mut parts.headers);
    match aorlta_inspect::app(ins).oneshot(inner).await {
        Ok(r) => r,
        Err(never) => match never {},
    }
}

#[cfg(test)]
mod tests {
    use crate::config::ServeConfig;
    use crate::routes::app;
    use crate::state::{AppState, ServeEnv};
    use axum::body::Body;
    use axum::http::{Request, StatusCode, header};
    use http_body_util::BodyExt;
    use std::sync::Arc;
    use tower::ServiceExt;

    /// A service over one Q&A task `a` (answer 2) with the config lines `extra`.
    fn state(dir: &std::path::Path, extra: &str) -> Arc<AppState> {
        std::fs::write(
            dir.join("t.jsonl"),
            "{\"id\":\"a\",\"prompt\":\"1+1?\",\"answer\":\"2\"}\n",
        )
        .unwrap();
        std::fs::write(
            dir.join("p.yaml"),
            "name: qa\nlegs:\n  - {name: parse, adapter: parse, on-broke: -1.0}\n  - {name: ref, adapter: normalised-match, needs: [parse], on-broke: -0.5}\n",
        )
        .unwrap();
        let path = dir.join("serve.yaml");
        let cfg =
            ServeConfig::from_yaml(&format!("tasks: t.jsonl\nprofiles: p.yaml\n{extra}"), &path).unwrap();
        let env = ServeEnv::build(&cfg).unwrap();
        Arc::new(AppState::from_config(&cfg, &path, env.env()).unwrap())
    }

    async fn call(
        state: &Arc<AppState>,
        method: &str,
        uri: &str,
        body: &str,
        token: Option<&str>,
    ) -> (StatusCode, String) {
        let mut req = Request::builder().method(method).uri(uri);
        if let Some(t) = token {
            req = req.header(header::AUTHORIZATION, format!("Bearer {t}"));
        }
        let resp = app(Arc::clone(state))
            .oneshot(req.body(Body::from(body.to_string())).unwrap())
            .await
            .unwrap();
        let status = resp.status();
        let bytes = resp.into_body().collect().await.unwrap().to_bytes();
        (status, String::from_utf8(bytes.to_vec()).unwrap())
    }

    #[tokio::test]
    async fn ui_shows_what_the_service_answered_as_text() {
        let dir = tempfile::tempdir().unwrap();
        let s = state(dir.path(), "");
        let (st, html) = call(&s, "GET", "/ui/run/0", "", None).await;
        assert_eq!(st, StatusCode::OK, "{html}");
        assert!(
            html.contains("0 entries, the latest this service answered"),
            "{html}"
        );
        let body = r#"{"items":[{"task":"a","completion":"\\boxed{2}","id":"right"},{"task":"a","completion":"<script>alert(1)</script> \\boxed{3}","id":"wrong"}]}"#;
        assert_eq!(call(&s, "POST", "/v1/score", body, None).await.0, StatusCode::OK);
        let (st, html) = call(&s, "GET", "/ui", "", None).await;
        assert_eq!(st, StatusCode::OK);
        assert!(html.contains(r#"<a href="/ui/run/0">answered</a>"#), "{html}");
        let (_, json) = call(&s, "GET", "/ui/api/run/0/entries?state=failed", "", None).await;
        let v: serde_json::Value = serde_json::from_str(&json).unwrap();
        assert_eq!(
            (v["total"].as_u64(), v["rows"][0]["id"].as_str()),
            (Some(1), Some("wrong")),
            "{v}"
        );
        let (st, html) = call(&s, "GET", "/ui/run/0/entry/1", "", None).await;
        assert_eq!(st, StatusCode::OK);
        assert!(
            html.contains("&lt;script&gt;alert(1)&lt;/script&gt; \\boxed{3}"),
            "{html}"
        );
        assert_eq!(
            html.matches("<script").count(),
            1,
            "only the inspector's own script"
        );
        let (st, html) = call(&s, "GET", "/ui/run/0/task/a", "", None).await;
        assert_eq!(st, StatusCode::OK);
        assert!(html.contains("1+1?"));
    }

    #[tokio::test]
    async fn ui_is_behind_the_token_when_one_is_set() {
        let dir = tempfile::tempdir().unwrap();
        let token = "0123456789abcdef0123";
        std::fs::write(dir.path().join("token"), token).unwrap();
        let s = state(dir.path(), "auth: {token-file: token}\n");
        for uri in ["/ui", "/ui/run/0", "/ui/assets/inspect.js"] {
            assert_eq!(
                call(&s, "GET", uri, "", None).await.0,
                StatusCode::UNAUTHORIZED,
                "{uri}"
            );
            assert_eq!(
                call(&s, "GET", uri, "", Some(token)).await.0,
                StatusCode::OK,
                "{uri}"
            );
        }
    }
}
