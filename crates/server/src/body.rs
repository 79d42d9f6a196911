//! Reading request bodies: before a request takes a scoring slot, at a minimum rate, and within
//! one byte budget shared by every connection.
//!
//! A request holds no scoring slot while its body arrives, so clients that send a head and a
//! trickle of body (a slow-body flood) hold only their own connections, and only until they
//! fall behind `limits.min-body-rate` (408 `body-too-slow`) or pass `limits.read-timeout`
//! (408 `body-timeout`). The bytes of bodies still arriving count against
//! `limits.max-reading-bytes` as they arrive, never by the `Content-Length` a client declares,
//! so a head that announces 16 MiB and sends one byte holds one byte of the budget; a body that
//! would pass it is refused with 503 ([`crate::reading`] keeps that budget).

use crate::error::ApiError;
use crate::state::AppState;
use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, header};
use http_body_util::BodyExt;
use std::time::Duration;
use tokio::time::Instant;

/// A body may send nothing during its first second; after that it must keep up with the rate.
const GRACE: Duration = Duration::from_secs(1);

/// Refuses a request whose body has not been read: drains the body (up to `max-body-bytes`,
/// for at most two seconds) so that the connection stays usable and the client sees the answer
/// rather than a reset; when it cannot be drained, the answer says `Connection: close`.
pub(crate) async fn refuse_unread(state: &AppState, body: Body, err: ApiError) -> ApiError {
    let limit = state.limits.max_body_bytes;
    let drain = async {
        let mut body = body;
        let mut seen = 0usize;
        while let Some(frame) = body.frame().await {
            let Ok(frame) = frame else { return false };
            seen += frame.data_ref().map_or(0, |d| d.len());
            if seen > limit {
                return false;
            }
        }
        true
    };
    let within = state.limits.read_timeout.min(Duration::from_secs(2));
    match tokio::time::timeout(within, drain).await {
        Ok(true) => err,
        _ => err.closing(),
    }
}

/// Reads a whole request body: 413 past `max-body-bytes` (checked against `Content-Length`
/// before reading anything), 408 when it falls behind `min-body-rate` or passes
/// `read-timeout`, 400 when the connection fails, 503 when the reading budget is spent. An
/// answer given before the body was read to its end says `Connection: close`.
pub(crate) async fn read_body(
    state: &AppState,
    headers: &HeaderMap,
    body: Body,
) -> Result<Vec<u8>, ApiError> {
    let limits = &state.limits;
    let limit = limits.max_body_bytes;
    let declared = headers
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<u64>().ok());
    if declared.is_some_and(|n| n > limit as u64) {
        return Err(ApiError::body_too_large(limit).closing());
    }
    let start = Instant::now();
    let hard = start + limits.read_timeout;
    let rate = limits.min_body_rate as f64;
    let mut share = state.reading.start();
    let mut body = body;
    let mut out = Vec::new();
    loop {
        // The time the bytes received so far pay for, at the minimum rate.
        let paid = GRACE + Duration::from_secs_f64(out.len() as f64 / rate);
        let by = hard.min(start + paid);
        let frame = match tokio::time::timeout_at(by, body.frame()).await {
            Ok(Some(f)) => f,
            Ok(None) => break,
            Err(_) if by == hard => {
                return Err(ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "body-timeout",
                    format!(
                        "the body did not arrive within {} s",
                        limits.read_timeout.as_secs_f64()
                    ),
                )
                .closing());
            }
            Err(_) => {
                return Err(ApiError::new(
                    StatusCode::REQUEST_TIMEOUT,
                    "body-too-slow",
                    format!(
                        "the body arrived slower than {} bytes per second ({} bytes in {:.1} s)",
                        limits.min_body_rate,
                        out.len(),
                        start.elapsed().as_secs_f64()
                    ),
                )
                .closing());
            }
        };
        let frame = frame.map_err(|e| {
            ApiError::new(
                StatusCode::BAD_REQUEST,
                "body-unreadable",
                format!("the body could not be read: {e}"),
            )
            .closing()
        })?;
        let Ok(data) = frame.into_data() else {
            continue; // trailers
        };
        if out.len() + data.len() > limit {
            return Err(ApiError::body_too_large(limit).closing());
        }
        if !share.take(data.len()) {
            drop(out);
            drop(share);
            state.metrics.add_shed();
            let err = ApiError::overloaded(
                format!(
                    "the bodies being read already hold {} bytes (limit {})",
                    state.reading.bytes(),
                    limits.max_reading_bytes
                ),
                limits.retry_after,
            );
            return Err(refuse_unread(state, body, err).await);
        }
        out.extend_from_slice(&data);
    }
    Ok(out)
}
