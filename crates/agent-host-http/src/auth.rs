//! The bearer token every `/api` request must carry. The comparison takes the same time
//! wherever the first differing byte is (`subtle`), so response timing does not leak the
//! token byte by byte.

use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::http::header::AUTHORIZATION;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::error::{ApiError, codes};

/// The secret a client proves it knows.
#[derive(Clone)]
pub struct Token(String);

impl std::fmt::Debug for Token {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Token(..)")
    }
}

impl Token {
    pub fn new(secret: impl Into<String>) -> Self {
        Self(secret.into())
    }

    /// 32 random bytes from the operating system, as 64 hex digits.
    pub fn generate() -> std::io::Result<Self> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|err| std::io::Error::other(err.to_string()))?;
        Ok(Self(bytes.iter().map(|b| format!("{b:02x}")).collect()))
    }

    pub fn secret(&self) -> &str {
        &self.0
    }

    /// Whether `offered` is the token, in constant time for tokens of equal length.
    fn matches(&self, offered: &str) -> bool {
        self.0.as_bytes().ct_eq(offered.as_bytes()).into()
    }
}

/// Lets the request through when it carries `Authorization: Bearer <token>`; otherwise 401
/// `serve.unauthorized`, the same answer for a missing and a wrong token.
pub async fn require_token(State(token): State<Token>, request: Request, next: Next) -> Response {
    let offered = request
        .headers()
        .get(AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "));
    match offered {
        Some(offered) if token.matches(offered.trim()) => next.run(request).await,
        _ => ApiError::new(
            StatusCode::UNAUTHORIZED,
            codes::UNAUTHORIZED,
            "send the server's token as `Authorization: Bearer <token>`",
        )
        .into_response(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_exact_token_matches() {
        let token = Token::new("abc123");
        assert!(token.matches("abc123"));
        assert!(!token.matches("abc124"));
        assert!(!token.matches("abc12"));
        assert!(!token.matches(""));
    }

    #[test]
    fn generated_tokens_are_64_hex_digits_and_differ() {
        let (a, b) = (Token::generate().unwrap(), Token::generate().unwrap());
        assert_eq!(a.secret().len(), 64);
        assert!(a.secret().bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(a.secret(), b.secret());
    }
}
