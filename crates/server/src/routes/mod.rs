//! The router: every endpoint, the JSON fallbacks for unknown routes and methods, and the
//! middleware that gives each request a tracing span and counts it in the metrics.

mod info;
mod score;

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
pub const ROUTES: [&str; 6] = [
    "/v1/score",
    "/get_reward",
    "/v1/tasks",
    "/v1/profiles",
    "/healthz",
    "/metrics",
];

/// The service's router over a shared state. Tests call it with `oneshot` without a socket.
pub fn app(state: Arc<AppState>) -> Router {
    Router::new()
        .route("/v1/score", post(score::score))
        .route("/get_reward", post(score::get_reward))
        .route("/v1/tasks", get(info::tasks))
        .route("/v1/profiles", get(info::profiles))
        .route("/healthz", get(info::healthz))
        .route("/metrics", get(info::metrics))
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
