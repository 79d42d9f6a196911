//! The guard of the routes that need the service's token (every route but `/healthz` and
//! `/metrics`): the token itself and how a header presents it are in [`crate::auth`].

use crate::auth::presented;
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use std::sync::Arc;

/// The middleware of the guarded routes: 401 `unauthorized` unless the request carries the
/// token. A refused request's body is not read (the answer closes the connection).
pub(crate) async fn require(State(state): State<Arc<AppState>>, req: Request, next: Next) -> Response {
    let Some(token) = state.token() else {
        return next.run(req).await;
    };
    let presented = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| presented(v.as_bytes()));
    let why = match presented {
        Some(p) if token.matches(&p) => return next.run(req).await,
        Some(_) => "the token is not this service's",
        None => "this service needs `Authorization: Bearer TOKEN`",
    };
    let has_body = req.headers().contains_key(header::CONTENT_LENGTH)
        || req.headers().contains_key(header::TRANSFER_ENCODING);
    let mut err = ApiError::new(StatusCode::UNAUTHORIZED, "unauthorized", why);
    if has_body {
        err = err.closing();
    }
    let mut resp = err.into_response();
    resp.headers_mut()
        .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
    resp
}
