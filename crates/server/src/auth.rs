//! Who may ask: a bearer token (`Authorization: Bearer TOKEN`) on the scoring and task routes.
//! A client that can only put credentials in its URL (OpenRLHF's remote reward URL,
//! `http://aorlta:TOKEN@HOST:8787/get_reward`, which its HTTP library sends as Basic
//! authentication) may send the token as the password of `Authorization: Basic` (any user).
//!
//! The token comes from `AORLTA_TOKEN` or the file `auth.token-file` names. The service keeps
//! only its BLAKE3 hash and compares hashes, which `blake3::Hash` does in constant time, so
//! neither the token's bytes nor its length show in how long a refusal takes. The token is never
//! logged. `/healthz` and `/metrics` stay open (a load balancer and Prometheus read them; neither
//! shows a task's reference or scores anything). A service that listens on an address other
//! than loopback refuses to start without a token ([`check_bind`]).

use crate::config::AuthConfig;
use crate::error::ServerError;
use std::net::SocketAddr;
use std::path::Path;

/// The environment variable that holds the token; it overrides `auth.token-file`.
pub const TOKEN_VAR: &str = "AORLTA_TOKEN";

/// The shortest token accepted, in bytes.
pub(crate) const MIN_TOKEN_LEN: usize = 16;

/// The most a token file may hold: a token is a line, not a file's worth.
pub(crate) const TOKEN_FILE_LIMIT: u64 = 64 << 10;

/// The token a request must carry, kept as its hash.
#[derive(Clone, PartialEq)]
pub struct Token(blake3::Hash);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(…)")
    }
}

impl Token {
    /// A token from its text (surrounding white space removed); `what` names where it came from
    /// in errors.
    pub fn new(text: &str, what: &str) -> Result<Self, ServerError> {
        let t = text.trim();
        if t.len() < MIN_TOKEN_LEN {
            return Err(ServerError::Auth(format!(
                "{what}: the token is {} bytes; it must be at least {MIN_TOKEN_LEN} (e.g. `openssl rand -hex 32`)",
                t.len()
            )));
        }
        if t.bytes().any(|b| !(0x21..=0x7e).contains(&b)) {
            return Err(ServerError::Auth(format!(
                "{what}: the token must be printable ASCII without spaces (it travels in an HTTP header)"
            )));
        }
        Ok(Token(blake3::hash(t.as_bytes())))
    }

    /// The token of a config: `AORLTA_TOKEN` when set, else the file `auth.token-file` names,
    /// else none.
    pub fn load(auth: &AuthConfig) -> Result<Option<Self>, ServerError> {
        Self::from_sources(
            std::env::var(TOKEN_VAR).ok().as_deref(),
            auth.token_file.as_deref(),
        )
    }

    fn from_sources(var: Option<&str>, file: Option<&Path>) -> Result<Option<Self>, ServerError> {
        if let Some(v) = var.filter(|v| !v.is_empty()) {
            return Token::new(v, TOKEN_VAR).map(Some);
        }
        let Some(path) = file else { return Ok(None) };
        let text = aorlta_check::read_input_text(path, TOKEN_FILE_LIMIT)
            .map_err(|e| ServerError::Auth(format!("the token file (`auth.token-file`): {e}")))?;
        Token::new(&text, &path.display().to_string()).map(Some)
    }

    /// Whether `presented` is the token (compared as hashes, in constant time).
    pub fn matches(&self, presented: &[u8]) -> bool {
        blake3::hash(presented) == self.0
    }
}

/// Refuses to listen on `bind` without a token unless it is a loopback address: anything else
/// can be reached from other hosts.
pub fn check_bind(bind: SocketAddr, token: Option<&Token>) -> Result<(), ServerError> {
    if token.is_some() || bind.ip().is_loopback() {
        return Ok(());
    }
    Err(ServerError::Auth(format!(
        "refusing to listen on {bind} without a token: an address other than loopback can be \
         reached from other hosts. Set `auth.token-file` in the config or {TOKEN_VAR} in the \
         environment (clients send it as `Authorization: Bearer TOKEN`), or bind 127.0.0.1"
    )))
}

/// The token an `Authorization` header presents: `Bearer TOKEN`, or `Basic` with the token as
/// the password (any user); schemes are case-insensitive.
pub(crate) fn presented(value: &[u8]) -> Option<Vec<u8>> {
    use base64::Engine;
    let (scheme, rest) = value.split_at(value.iter().position(|&b| b == b' ')?);
    let rest = rest.trim_ascii();
    if scheme.eq_ignore_ascii_case(b"bearer") {
        return Some(rest.to_vec());
    }
    if scheme.eq_ignore_ascii_case(b"basic") {
        let pair = base64::engine::general_purpose::STANDARD.decode(rest).ok()?;
        let colon = pair.iter().position(|&b| b == b':')?;
        return Some(pair[colon + 1..].to_vec());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_come_from_the_variable_first_then_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("token");
        std::fs::write(&file, "file-token-0123456789\n").unwrap();
        let t = Token::from_sources(None, Some(&file)).unwrap().unwrap();
        assert!(t.matches(b"file-token-0123456789"));
        assert!(!t.matches(b"file-token-012345678"));
        let t = Token::from_sources(Some("var-token-0123456789"), Some(&file))
            .unwrap()
            .unwrap();
        assert!(
            t.matches(b"var-token-0123456789"),
            "the variable overrides the file"
        );
        assert!(Token::from_sources(Some(""), None).unwrap().is_none());
        assert!(Token::from_sources(None, None).unwrap().is_none());
        let err = Token::from_sources(Some("short"), None).unwrap_err().to_string();
        assert!(err.contains("at least 16"), "{err}");
        assert!(!err.contains("short"), "the token is never shown: {err}");
        let err = Token::from_sources(None, Some(&dir.path().join("nope")))
            .unwrap_err()
            .to_string();
        assert!(err.contains("auth.token-file"), "{err}");
        assert_eq!(format!("{t:?}"), "Token(…)");
        // A device is refused by name, not read without end; a file is read to a bound.
        let err = Token::from_sources(None, Some(Path::new("/dev/zero")))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/dev/zero") && err.contains("character device"),
            "{err}"
        );
        let big = dir.path().join("big");
        std::fs::write(&big, "x".repeat(TOKEN_FILE_LIMIT as usize + 1)).unwrap();
        let err = Token::from_sources(None, Some(&big)).unwrap_err().to_string();
        assert!(err.contains("larger than the limit"), "{err}");
    }

    #[test]
    fn the_token_is_read_from_bearer_or_from_basics_password() {
        let p = |v: &str| presented(v.as_bytes()).map(|t| String::from_utf8(t).unwrap());
        assert_eq!(p("Bearer abc").as_deref(), Some("abc"));
        assert_eq!(p("bearer  abc ").as_deref(), Some("abc"));
        // "aorlta:s3cret:x" in base64: the password is everything after the first colon.
        assert_eq!(p("Basic YW9ybHRhOnMzY3JldDp4").as_deref(), Some("s3cret:x"));
        assert_eq!(p("Basic !!!"), None);
        assert_eq!(p("Digest abc"), None);
        assert_eq!(p("Bearer"), None);
    }

    #[test]
    fn only_loopback_listens_without_a_token() {
        let t = Token::new("a-token-of-enough-length", "test").unwrap();
        for (addr, open) in [
            ("127.0.0.1:8787", true),
            ("127.0.0.2:0", true),
            ("[::1]:8787", true),
            ("0.0.0.0:8787", false),
            ("[::]:8787", false),
            ("10.1.2.3:8787", false),
        ] {
            let a: SocketAddr = addr.parse().unwrap();
            assert_eq!(check_bind(a, None).is_ok(), open, "{addr}");
            assert!(check_bind(a, Some(&t)).is_ok(), "{addr} with a token");
        }
        let err = check_bind("0.0.0.0:1".parse().unwrap(), None)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("auth.token-file") && err.contains(TOKEN_VAR),
            "{err}"
        );
    }
}
