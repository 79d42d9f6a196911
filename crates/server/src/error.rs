//! Errors: [`ApiError`] is what a client sees when a whole request is refused (a JSON body with
//! a kebab-case code, a message and the status); [`ServerError`] is the service failing to
//! start. Internal details are logged, never sent.

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde::Serialize;
use std::time::Duration;

/// A refused request: its status, a stable kebab-case code and a sentence for a person.
#[derive(Debug, Clone, PartialEq)]
pub struct ApiError {
    /// The HTTP status.
    pub status: StatusCode,
    /// Stable kebab-case code (`malformed-json`, `too-many-items`, `overloaded`).
    pub code: &'static str,
    /// What was wrong, for a person.
    pub message: String,
    /// For 503: how long the client should wait before retrying.
    pub retry_after: Option<Duration>,
    /// The answer says `Connection: close`: the request's body was not read to its end, so the
    /// connection cannot carry another request.
    pub close: bool,
}

/// The JSON body of an error response: `{"error": {"code", "message", "status"}}`.
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct ErrorBody<'a> {
    /// The error.
    pub error: ErrorDetail<'a>,
}

/// The fields of [`ErrorBody`].
#[derive(Debug, Serialize, schemars::JsonSchema)]
pub(crate) struct ErrorDetail<'a> {
    /// Stable kebab-case code.
    pub code: &'a str,
    /// A sentence for a person; not stable, never parse it.
    pub message: &'a str,
    /// The HTTP status, repeated for clients that lose it.
    pub status: u16,
}

impl ApiError {
    /// An error with a status, code and message.
    pub fn new(status: StatusCode, code: &'static str, message: impl Into<String>) -> Self {
        ApiError {
            status,
            code,
            message: message.into(),
            retry_after: None,
            close: false,
        }
    }

    /// The same error, answered with `Connection: close`.
    pub fn closing(self) -> Self {
        ApiError { close: true, ..self }
    }

    /// 400 `malformed-json`: the body is not JSON (or not UTF-8).
    pub fn malformed_json(detail: impl std::fmt::Display) -> Self {
        Self::new(
            StatusCode::BAD_REQUEST,
            "malformed-json",
            format!("the body is not valid JSON: {detail}"),
        )
    }

    /// 422 `invalid-request`: JSON of the wrong shape (a wrong type, a missing or unknown field).
    pub fn invalid(detail: impl std::fmt::Display) -> Self {
        Self::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "invalid-request",
            detail.to_string(),
        )
    }

    /// 413 `body-too-large`.
    pub fn body_too_large(limit: usize) -> Self {
        Self::new(
            StatusCode::PAYLOAD_TOO_LARGE,
            "body-too-large",
            format!("the body is larger than the limit of {limit} bytes"),
        )
    }

    /// 503 `overloaded`, with `Retry-After`.
    pub fn overloaded(message: impl Into<String>, retry_after: Duration) -> Self {
        ApiError {
            retry_after: Some(retry_after),
            ..Self::new(StatusCode::SERVICE_UNAVAILABLE, "overloaded", message)
        }
    }

    /// 500 `internal-error`: logs the detail and sends none of it.
    pub fn internal(detail: impl std::fmt::Display) -> Self {
        tracing::error!(%detail, "internal error");
        Self::new(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal-error",
            "the service failed; the error is in its log",
        )
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}: {}", self.status.as_u16(), self.code, self.message)
    }
}

impl std::error::Error for ApiError {}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        if self.status.is_server_error() && self.status != StatusCode::SERVICE_UNAVAILABLE {
            tracing::warn!(code = self.code, "request failed");
        } else if self.status.is_client_error() && self.status != StatusCode::TOO_MANY_REQUESTS {
            // A trainer may drop the body (OpenRLHF raises on the status alone): the reason
            // a request was refused (an unknown label, a malformed item) is in the log too.
            tracing::info!(status = self.status.as_u16(), code = self.code, message = %self.message, "request refused");
        } else {
            tracing::debug!(code = self.code, message = %self.message, "request refused");
        }
        let body = ErrorBody {
            error: ErrorDetail {
                code: self.code,
                message: &self.message,
                status: self.status.as_u16(),
            },
        };
        let mut resp = (self.status, axum::Json(body)).into_response();
        if self.status.is_client_error()
            && let Some(phrase) = reason_phrase(self.status, self.code, &self.message)
        {
            resp.extensions_mut().insert(phrase);
        }
        if self.close {
            resp.headers_mut()
                .insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        if let Some(after) = self.retry_after {
            let secs = after.as_secs_f64().ceil().max(1.0) as u64;
            resp.headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        resp
    }
}

/// The longest reason phrase a refusal carries.
const REASON_PHRASE_MAX: usize = 400;

/// The HTTP/1 reason phrase of a refusal: the status's own words, then the code and the
/// message (`422 Unprocessable Entity (unknown-label: labels[0] is empty ...)`). A trainer that
/// raises on the status alone (OpenRLHF's aiohttp call) logs the phrase and never the body, so
/// the why travels there too: printable ASCII only, cut at [`REASON_PHRASE_MAX`] bytes.
fn reason_phrase(status: StatusCode, code: &str, message: &str) -> Option<hyper::ext::ReasonPhrase> {
    let words = status.canonical_reason().unwrap_or("Refused");
    let mut phrase: String = format!("{words} ({code}: {message})")
        .chars()
        .map(|c| if c.is_ascii_graphic() || c == ' ' { c } else { ' ' })
        .collect();
    if phrase.len() > REASON_PHRASE_MAX {
        phrase.truncate(REASON_PHRASE_MAX - 4);
        phrase.push_str(" ...");
    }
    hyper::ext::ReasonPhrase::try_from(phrase).ok()
}

/// The service could not start.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// A config, task or profile file is missing or wrong.
    #[error(transparent)]
    Load(#[from] aorlta_check::CoreError),
    /// Two profiles share a name.
    #[error("{path}: profile `{name}` is offered twice (names must be unique)")]
    DuplicateProfile {
        /// The second file with the name.
        path: std::path::PathBuf,
        /// The name.
        name: String,
    },
    /// `default-profile` names no offered profile.
    #[error("{config}: field `default-profile`: no profile named `{name}` (offered: {offered})")]
    UnknownDefault {
        /// The config file.
        config: std::path::PathBuf,
        /// The name asked for.
        name: String,
        /// The names offered.
        offered: String,
    },
    /// The token is missing where it is required, or is unusable (the message never holds it).
    #[error("{0}")]
    Auth(String),
    /// A profile needs a kernel environment this build or config does not give.
    #[error("{path}: {message}")]
    Unsupported {
        /// The profile or config file.
        path: std::path::PathBuf,
        /// What is missing.
        message: String,
    },
    /// The scratch folder, a worker thread or the socket failed (the OS error is part of the
    /// message, not a `source()`, so a chain printed whole shows it once).
    #[error("{what}: {error}")]
    Io {
        /// What was being done, naming the path it concerns.
        what: String,
        /// The cause.
        error: std::io::Error,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    #[tokio::test]
    async fn errors_are_json_with_code_and_retry_after() {
        let resp = ApiError::overloaded("queue full", Duration::from_millis(1500)).into_response();
        assert_eq!(resp.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(resp.headers()[header::RETRY_AFTER], "2");
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        let v: serde_json::Value = serde_json::from_slice(&body).unwrap();
        assert_eq!(v["error"]["code"], "overloaded");
        assert_eq!(v["error"]["status"], 503);
        assert_eq!(v["error"]["message"], "queue full");
    }

    #[test]
    fn a_refusal_says_why_in_its_reason_phrase_and_a_failure_does_not() {
        let resp = ApiError::new(
            StatusCode::UNPROCESSABLE_ENTITY,
            "unknown-label",
            "labels[3] `zz` is not a task id\r\nX: y \u{e9}",
        )
        .into_response();
        let phrase = resp.extensions().get::<hyper::ext::ReasonPhrase>().unwrap();
        assert_eq!(
            phrase.as_bytes(),
            b"Unprocessable Entity (unknown-label: labels[3] `zz` is not a task id  X: y  )"
        );
        let long = ApiError::invalid("x".repeat(2000)).into_response();
        let phrase = long.extensions().get::<hyper::ext::ReasonPhrase>().unwrap();
        assert_eq!(phrase.as_bytes().len(), REASON_PHRASE_MAX);
        let resp = ApiError::internal("disk").into_response();
        assert!(resp.extensions().get::<hyper::ext::ReasonPhrase>().is_none());
    }

    #[tokio::test]
    async fn internal_errors_send_no_detail() {
        let resp = ApiError::internal("disk /secret/path exploded").into_response();
        let body = resp.into_body().collect().await.unwrap().to_bytes();
        let text = String::from_utf8(body.to_vec()).unwrap();
        assert!(text.contains("internal-error"), "{text}");
        assert!(!text.contains("/secret/path"), "{text}");
    }
}
