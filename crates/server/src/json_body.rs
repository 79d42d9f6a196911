//! [`JsonBody`]: the one way a JSON request body enters the service. It reads the body under
//! the service's limits ([`crate::body::read_body`]: size, minimum rate, time, reading budget)
//! and parses it, and its rejection is the API's own [`ApiError`]: 400 `malformed-json`
//! whenever the text is not JSON (whatever else is wrong with it), 422 `invalid-request` when it
//! is JSON but not a request object of the right shape, naming the field.

use crate::body::read_body;
use crate::error::ApiError;
use crate::state::AppState;
use axum::extract::{FromRequest, Request};
use serde::de::DeserializeOwned;
use std::sync::Arc;

/// A request body read and parsed as a `T`, an object with named fields (a positional array
/// in place of the object is refused).
#[derive(Debug)]
pub(crate) struct JsonBody<T>(pub T);

impl<T: DeserializeOwned> FromRequest<Arc<AppState>> for JsonBody<T> {
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &Arc<AppState>) -> Result<Self, ApiError> {
        let (parts, body) = req.into_parts();
        let bytes = read_body(state, &parts.headers, body).await?;
        parse(&bytes).map(JsonBody)
    }
}

/// Parses a whole body: 400 `malformed-json` or 422 `invalid-request`.
fn parse<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, ApiError> {
    let is_object = bytes.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{');
    if is_object && let Ok(v) = serde_json::from_slice(bytes) {
        // The fast path.
        return Ok(v);
    }
    // Not JSON at all is 400 before any question of shape, so a body that is both malformed
    // and of the wrong shape is reported as malformed.
    if let Err(e) = serde_json::from_slice::<serde::de::IgnoredAny>(bytes) {
        return Err(ApiError::malformed_json(e));
    }
    if !is_object {
        return Err(ApiError::invalid(
            "the request must be a JSON object with named fields, not an array or a scalar",
        ));
    }
    use serde_json::error::Category;
    let mut de = serde_json::Deserializer::from_slice(bytes);
    let value: T = serde_path_to_error::deserialize(&mut de).map_err(|e| {
        let path = e.path().to_string();
        let inner = e.into_inner();
        match inner.classify() {
            // Text the syntax check lets through but a typed parse does not (an invalid
            // escape or code point in a string).
            Category::Syntax | Category::Eof | Category::Io => ApiError::malformed_json(inner),
            Category::Data if path == "." || path.is_empty() => {
                ApiError::invalid(format!("the request: {inner}"))
            }
            Category::Data => ApiError::invalid(format!("field `{path}`: {inner}")),
        }
    })?;
    de.end().map_err(ApiError::malformed_json)?;
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::StatusCode;

    #[derive(Debug, serde::Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Req {
        #[allow(dead_code)]
        items: Vec<String>,
    }

    #[test]
    fn not_json_is_400_and_json_of_the_wrong_shape_is_422_naming_the_field() {
        for (body, status, code, says) in [
            (&b"{\"items\": 42"[..], 400, "malformed-json", "not valid JSON"),
            (b"{\"items\": [1], \"x\"", 400, "malformed-json", "not valid JSON"),
            (b"\xff", 400, "malformed-json", "not valid JSON"),
            (b"{} {}", 400, "malformed-json", "trailing"),
            (b"{\"items\": [1]}", 422, "invalid-request", "field `items[0]`"),
            (
                b"{\"itemz\": []}",
                422,
                "invalid-request",
                "unknown field `itemz`",
            ),
            (b"{}", 422, "invalid-request", "missing field `items`"),
            (b"[[\"a\"]]", 422, "invalid-request", "not an array"),
        ] {
            let e = parse::<Req>(body).unwrap_err();
            let shown = String::from_utf8_lossy(body);
            assert_eq!(e.status, StatusCode::from_u16(status).unwrap(), "{shown}: {e}");
            assert_eq!(e.code, code, "{shown}: {e}");
            assert!(e.message.contains(says), "{shown}: {e}");
        }
        assert_eq!(parse::<Req>(b" {\"items\": [\"a\"]} ").unwrap().items, ["a"]);
    }
}
