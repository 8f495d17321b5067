//! Turning an HTTP answer or a transport failure into a [`ModelError`] (`docs/providers.md`, Errors and retries).
//!
//! The provider's own error code decides first, because the same status means different
//! things (OpenAI answers both a rate limit and an exhausted quota with 429, and only the
//! first is worth retrying). The status decides when the code says nothing we know.

use std::error::Error as _;
use std::time::SystemTime;

use agent_application::ports::{ModelError, ModelErrorKind};
use serde_json::Value;

use super::retry_after::parse_go_duration_ms;
use super::{HttpReply, Redactor, retry_after_ms};

/// The code of a body that is not the JSON the format promises.
pub const UPSTREAM_INVALID_RESPONSE: &str = "model.upstream_invalid_response";

/// Provider codes (OpenAI `code`/`type`, Anthropic `type`, Gemini `status`) with a fixed
/// meaning regardless of the HTTP status they came with. Compared case-insensitively.
const CODE_KINDS: &[(&str, ModelErrorKind)] = &[
    ("insufficient_quota", ModelErrorKind::Quota),
    ("billing_hard_limit_reached", ModelErrorKind::Quota),
    ("billing_not_active", ModelErrorKind::Quota),
    ("billing_error", ModelErrorKind::Quota),
    ("quota_exceeded", ModelErrorKind::Quota),
    ("context_length_exceeded", ModelErrorKind::ContextLength),
    (
        "model_context_window_exceeded",
        ModelErrorKind::ContextLength,
    ),
    ("overloaded_error", ModelErrorKind::Overloaded),
    ("server_is_overloaded", ModelErrorKind::Overloaded),
    ("slow_down", ModelErrorKind::Overloaded),
    ("rate_limit_exceeded", ModelErrorKind::RateLimited),
    // The Responses WebSocket's 60-minute cap: a new socket answers (see `websocket`).
    (
        "websocket_connection_limit_reached",
        ModelErrorKind::Transient,
    ),
    ("rate_limit_error", ModelErrorKind::RateLimited),
    ("invalid_api_key", ModelErrorKind::Auth),
    ("authentication_error", ModelErrorKind::Auth),
    ("permission_error", ModelErrorKind::Auth),
    ("unauthenticated", ModelErrorKind::Auth),
    ("permission_denied", ModelErrorKind::Auth),
];

/// Phrases providers use for an over-long prompt when they give no dedicated code.
const CONTEXT_PHRASES: &[&str] = &[
    "maximum context length",
    "context length",
    "context window",
    "prompt is too long",
    "input token count",
];

/// Codes that only mean something once the status has not already decided (they name a
/// family, not a cause): used for errors inside a 2xx body.
const FAMILY_KINDS: &[(&str, ModelErrorKind)] = &[
    ("server_error", ModelErrorKind::Transient),
    ("api_error", ModelErrorKind::Transient),
    ("internal", ModelErrorKind::Transient),
    ("unavailable", ModelErrorKind::Overloaded),
    ("invalid_request_error", ModelErrorKind::InvalidRequest),
    ("invalid_argument", ModelErrorKind::InvalidRequest),
];

/// The `error` envelope of a body, as far as it can be read.
#[derive(Debug, Default)]
struct Envelope {
    /// The most specific code: `error.code` (string), else `error.status`, else `error.type`.
    provider_code: Option<String>,
    /// Every string code the envelope carries, lowercased, most specific first.
    codes: Vec<String>,
    /// A numeric `error.code` (OpenRouter and Gemini put the HTTP status there).
    numeric_code: Option<u16>,
    message: String,
    /// Gemini's `error.details` (google.rpc.Status): `RetryInfo`, `ErrorInfo`, `QuotaFailure`.
    details: Vec<Value>,
}

impl Envelope {
    fn read(body: &Value) -> Option<Self> {
        let error = body.get("error").filter(|e| !e.is_null())?;
        let Some(object) = error.as_object() else {
            return Some(Self {
                message: error.as_str().unwrap_or_default().to_owned(),
                ..Self::default()
            });
        };
        let string = |key: &str| object.get(key).and_then(Value::as_str).map(str::to_owned);
        let codes: Vec<String> = [string("code"), string("status"), string("type")]
            .into_iter()
            .flatten()
            .filter(|c| !c.is_empty())
            .collect();
        Some(Self {
            provider_code: codes.first().cloned(),
            codes: codes.iter().map(|c| c.to_ascii_lowercase()).collect(),
            numeric_code: object
                .get("code")
                .and_then(Value::as_u64)
                .and_then(|c| u16::try_from(c).ok()),
            message: string("message").unwrap_or_default(),
            details: object
                .get("details")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
        })
    }

    /// Gemini's `RetryInfo.retryDelay` (`"17s"`, `"34.4s"`), in milliseconds.
    fn retry_delay_ms(&self) -> Option<u64> {
        self.details
            .iter()
            .filter(|d| {
                d.get("@type")
                    .and_then(Value::as_str)
                    .is_some_and(|t| t.ends_with("google.rpc.RetryInfo"))
            })
            .find_map(|d| d.get("retryDelay").and_then(Value::as_str))
            .and_then(parse_go_duration_ms)
    }

    /// What Gemini's details and canonical status say beyond the code table:
    /// `ErrorInfo.reason = API_KEY_INVALID` is an auth failure (Gemini answers it with 400
    /// `INVALID_ARGUMENT`); `RESOURCE_EXHAUSTED` is a rate limit, unless the message speaks of
    /// billing, a `QuotaFailure` names a per-day quota, or it speaks of quota without a
    /// `RetryInfo` delay — then it will not clear soon and is a quota error; a
    /// `FAILED_PRECONDITION` about billing is a quota error.
    fn gemini_kind(&self) -> Option<ModelErrorKind> {
        let reason_is = |wanted: &str| {
            self.details
                .iter()
                .any(|d| d.get("reason").and_then(Value::as_str) == Some(wanted))
        };
        if reason_is("API_KEY_INVALID") {
            return Some(ModelErrorKind::Auth);
        }
        let message = self.message.to_ascii_lowercase();
        let billing = message.contains("billing");
        let status = |wanted: &str| self.codes.iter().any(|c| c == wanted);
        if status("resource_exhausted") {
            let per_day = self.details.iter().any(|d| {
                d.get("violations")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|v| v.get("quotaId").and_then(Value::as_str))
                    .any(|id| id.contains("PerDay"))
            });
            let lasting = billing
                || per_day
                || (message.contains("quota") && self.retry_delay_ms().is_none());
            return Some(if lasting {
                ModelErrorKind::Quota
            } else {
                ModelErrorKind::RateLimited
            });
        }
        if status("failed_precondition") && billing {
            return Some(ModelErrorKind::Quota);
        }
        None
    }

    fn kind_from(&self, table: &[(&str, ModelErrorKind)]) -> Option<ModelErrorKind> {
        self.codes.iter().find_map(|code| {
            table
                .iter()
                .find(|(known, _)| known == code)
                .map(|(_, kind)| *kind)
        })
    }

    fn mentions_context_length(&self) -> bool {
        let message = self.message.to_ascii_lowercase();
        CONTEXT_PHRASES.iter().any(|p| message.contains(p))
    }
}

/// The kind an HTTP status means on its own.
fn kind_of_status(status: u16) -> Option<ModelErrorKind> {
    Some(match status {
        429 => ModelErrorKind::RateLimited,
        503 | 529 => ModelErrorKind::Overloaded,
        401 | 403 => ModelErrorKind::Auth,
        402 => ModelErrorKind::Quota,
        408 | 409 | 425 | 500..=599 => ModelErrorKind::Transient,
        400..=499 => ModelErrorKind::InvalidRequest,
        _ => return None,
    })
}

/// Reads a reply: the parsed body of a 2xx answer without an `error` envelope, or the
/// classified failure.
pub fn classify_reply(reply: HttpReply, redactor: &Redactor) -> Result<Value, ModelError> {
    let parsed = serde_json::from_str::<Value>(&reply.body).ok();
    let success = (200..300).contains(&reply.status);
    let envelope = parsed.as_ref().and_then(Envelope::read);
    match (success, parsed, envelope) {
        (true, Some(body), None) if body.is_object() => Ok(body),
        (true, _, None) => Err(finish(
            ModelError::new(ModelErrorKind::Transient, String::new()),
            UPSTREAM_INVALID_RESPONSE,
            &reply,
            None,
            redactor,
            "the body is not a JSON object",
        )),
        (_, _, envelope) => {
            let envelope = envelope.unwrap_or_default();
            let kind = kind_of_error(reply.status, &envelope);
            let code = kind.default_code();
            let provider_code = envelope.provider_code.clone();
            let mut error = finish(
                ModelError::new(kind, String::new()),
                code,
                &reply,
                provider_code,
                redactor,
                "",
            );
            error.retry_after_ms = error.retry_after_ms.or_else(|| envelope.retry_delay_ms());
            Err(error)
        }
    }
}

/// The kind of an error answer: a known provider code first, then context-length wording
/// on a 400-family answer, then the status (for a 2xx body, the numeric code in the
/// envelope, then the family code).
fn kind_of_error(status: u16, envelope: &Envelope) -> ModelErrorKind {
    if let Some(kind) = envelope
        .gemini_kind()
        .or_else(|| envelope.kind_from(CODE_KINDS))
    {
        return kind;
    }
    let success = (200..300).contains(&status);
    let effective = if success {
        envelope.numeric_code.filter(|c| (400..600).contains(c))
    } else {
        Some(status)
    };
    let client_error = effective.is_none_or(|s| s == 400 || s == 413);
    if client_error && envelope.mentions_context_length() {
        return ModelErrorKind::ContextLength;
    }
    effective
        .and_then(kind_of_status)
        .or_else(|| envelope.kind_from(FAMILY_KINDS))
        .unwrap_or(ModelErrorKind::Other)
}

/// Fills status, codes, retry hint and a redacted message into `error`.
fn finish(
    mut error: ModelError,
    code: &'static str,
    reply: &HttpReply,
    provider_code: Option<String>,
    redactor: &Redactor,
    note: &str,
) -> ModelError {
    let provider_code = provider_code.map(|c| redactor.redact(&c));
    let mut message = format!("HTTP {}", reply.status);
    if let Some(c) = &provider_code {
        message.push_str(&format!(" ({c})"));
    }
    if !note.is_empty() {
        message.push_str(&format!(": {note}"));
    }
    if reply.body.trim().is_empty() {
        message.push_str(" with an empty body");
    } else {
        message.push_str(&format!("; body: {}", redactor.excerpt(&reply.body)));
    }
    error.code = code;
    error.message = message;
    error.status = Some(reply.status);
    error.provider_code = provider_code;
    error.retry_after_ms = retry_after_ms(&reply.headers, SystemTime::now());
    error
}

/// Classifies a failure below HTTP: no answer in time, no connection, or a body that
/// broke off.
pub fn classify_transport(error: &reqwest::Error, redactor: &Redactor) -> ModelError {
    let (kind, code, what) = if error.is_timeout() {
        (ModelErrorKind::Timeout, "model.timeout", "timed out")
    } else if error.is_connect() {
        (
            ModelErrorKind::Transient,
            "model.connection_failed",
            "could not connect",
        )
    } else if error.is_builder() {
        (
            ModelErrorKind::InvalidRequest,
            "model.invalid_endpoint",
            "could not build the request",
        )
    } else if error.is_body() || error.is_decode() {
        (
            ModelErrorKind::Transient,
            "model.response_interrupted",
            "the response broke off",
        )
    } else {
        (
            ModelErrorKind::Transient,
            "model.transient",
            "request failed",
        )
    };
    let mut chain = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        chain.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    let mut model_error = ModelError::new(kind, format!("{what}: {}", redactor.redact(&chain)));
    model_error.code = code;
    model_error.status = error.status().map(|s| s.as_u16());
    model_error
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::HeaderMap;
    use serde_json::json;

    fn reply(status: u16, body: Value) -> HttpReply {
        HttpReply {
            status,
            headers: HeaderMap::new(),
            body: body.to_string(),
        }
    }

    fn kind(status: u16, body: Value) -> ModelErrorKind {
        match classify_reply(reply(status, body), &Redactor::default()) {
            Err(e) => e.kind,
            Ok(_) => ModelErrorKind::Other,
        }
    }

    #[test]
    fn codes_win_over_status() {
        use ModelErrorKind::*;
        let err = |code: &str| json!({"error": {"message": "m", "type": code, "code": code}});
        assert_eq!(kind(429, err("insufficient_quota")), Quota);
        assert_eq!(kind(429, err("rate_limit_exceeded")), RateLimited);
        assert_eq!(kind(400, err("context_length_exceeded")), ContextLength);
        assert_eq!(kind(500, err("overloaded_error")), Overloaded);
        let ctx = json!({"error": {"message": "This model's maximum context length is 8192 tokens", "type": "invalid_request_error"}});
        assert_eq!(kind(400, ctx.clone()), ContextLength);
        assert_eq!(kind(500, ctx), Transient);
        assert_eq!(kind(404, err("model_not_found")), InvalidRequest);
        assert_eq!(kind(422, json!({"detail": "x"})), InvalidRequest);
        assert_eq!(kind(402, json!({})), Quota);
        assert_eq!(kind(403, json!({})), Auth);
        for s in [408, 425, 500, 502, 504] {
            assert_eq!(kind(s, json!({})), Transient, "{s}");
        }
        for s in [503, 529] {
            assert_eq!(kind(s, json!({})), Overloaded, "{s}");
        }
    }

    #[test]
    fn errors_inside_a_success_body() {
        use ModelErrorKind::*;
        assert_eq!(
            kind(
                200,
                json!({"error": {"code": 429, "message": "Rate limited upstream"}})
            ),
            RateLimited
        );
        assert_eq!(
            kind(
                200,
                json!({"error": {"type": "server_error", "message": "boom"}})
            ),
            Transient
        );
        assert_eq!(kind(200, json!({"error": "something"})), Other);
        assert!(
            classify_reply(
                reply(200, json!({"ok": true, "error": null})),
                &Redactor::default()
            )
            .is_ok()
        );
    }

    #[test]
    fn gemini_status_envelopes() {
        use ModelErrorKind::*;
        let err = |code: u16, status: &str, message: &str, details: Value| json!({"error": {"code": code, "status": status, "message": message, "details": details}});
        let retry =
            json!([{"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "34.4s"}]);
        let limited = err(
            429,
            "RESOURCE_EXHAUSTED",
            "You exceeded your current quota, please check your plan.",
            retry.clone(),
        );
        assert_eq!(kind(429, limited.clone()), RateLimited);
        let error = classify_reply(reply(429, limited), &Redactor::default()).unwrap_err();
        assert_eq!(error.retry_after_ms, Some(34_400));
        assert_eq!(error.provider_code.as_deref(), Some("RESOURCE_EXHAUSTED"));
        assert_eq!(
            kind(
                429,
                err(
                    429,
                    "RESOURCE_EXHAUSTED",
                    "You exceeded your current quota.",
                    json!([])
                )
            ),
            Quota
        );
        assert_eq!(
            kind(
                429,
                err(
                    429,
                    "RESOURCE_EXHAUSTED",
                    "Check your billing details.",
                    retry.clone()
                )
            ),
            Quota
        );
        let per_day = json!([{"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{"quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier"}]}, retry[0]]);
        assert_eq!(
            kind(
                429,
                err(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", per_day)
            ),
            Quota
        );
        assert_eq!(
            kind(
                429,
                err(429, "RESOURCE_EXHAUSTED", "Too many requests.", json!([]))
            ),
            RateLimited
        );
        assert_eq!(
            kind(
                503,
                err(503, "UNAVAILABLE", "The model is overloaded.", json!([]))
            ),
            Overloaded
        );
        assert_eq!(
            kind(
                400,
                err(400, "INVALID_ARGUMENT", "Penalty is not enabled", json!([]))
            ),
            InvalidRequest
        );
        assert_eq!(
            kind(
                400,
                err(
                    400,
                    "INVALID_ARGUMENT",
                    "The input token count (1180345) exceeds the maximum number of tokens allowed (1048576).",
                    json!([])
                )
            ),
            ContextLength
        );
        let bad_key = json!([{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID"}]);
        assert_eq!(
            kind(
                400,
                err(400, "INVALID_ARGUMENT", "API key not valid.", bad_key)
            ),
            Auth
        );
        assert_eq!(
            kind(403, err(403, "PERMISSION_DENIED", "denied", json!([]))),
            Auth
        );
        assert_eq!(
            kind(401, err(401, "UNAUTHENTICATED", "no", json!([]))),
            Auth
        );
        assert_eq!(
            kind(
                400,
                err(
                    400,
                    "FAILED_PRECONDITION",
                    "Billing is not enabled.",
                    json!([])
                )
            ),
            Quota
        );
        assert_eq!(
            kind(500, err(500, "INTERNAL", "boom", json!([]))),
            Transient
        );
    }

    #[test]
    fn an_empty_error_body_is_said_plainly() {
        let empty = HttpReply {
            status: 405,
            headers: HeaderMap::new(),
            body: String::new(),
        };
        let error = classify_reply(empty, &Redactor::default()).unwrap_err();
        assert_eq!(error.message, "HTTP 405 with an empty body");
        assert_eq!(error.kind, ModelErrorKind::InvalidRequest);
    }
}
