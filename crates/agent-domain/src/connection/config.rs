//! [`ConnectionConfig`]: the stored connection document and its rules.

use std::collections::BTreeSet;
use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    ChatDialect, ConnectionError, ConnectionName, ConnectionTransport, ProviderFormat,
    is_websocket_url,
};

/// The only accepted value of `kind`: it tells a connection file from any other JSON.
pub const CONNECTION_KIND: &str = "tavern-agent.llmConnection";
/// The schema version this runtime reads and writes.
pub const CONNECTION_SCHEMA_VERSION: u32 = 1;
/// What [`ConnectionConfig::redacted`] shows instead of a credential-looking header value.
pub const REDACTED: &str = "[REDACTED]";

/// The longest request timeout a connection may set: a day.
pub const MAX_REQUEST_TIMEOUT_SECS: u64 = 86_400;

/// Headers the HTTP transport sets itself; a second copy would make a request ambiguous.
const TRANSPORT_HEADERS: [&str; 5] = [
    "host",
    "content-length",
    "content-type",
    "transfer-encoding",
    "connection",
];

/// One saved LLM connection, exactly as stored.
///
/// Fields serialise in camelCase in the order below; unknown fields are refused so a typo
/// (`apiKeyEnvv`) fails loudly instead of silently sending requests without a key. The
/// document never holds the key itself, only the name of the variable it is read from.
///
/// `headers` is an ordered list of `{name, value}` rather than an object: order is kept,
/// and a header name given twice is refused by [`validate`](Self::validate) instead of
/// silently keeping one of them. `params` is an object of request body fields
/// (`temperature`, `max_tokens`, `reasoning_effort`, `store`, …); its keys are written in
/// sorted order, which does not matter to any provider.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectionConfig {
    /// Always [`CONNECTION_KIND`].
    pub kind: String,
    /// Always [`CONNECTION_SCHEMA_VERSION`].
    pub schema_version: u32,
    /// The connection's name, also its file name; see [`ConnectionName`].
    pub name: String,
    pub format: ProviderFormat,
    /// The API base in the format's convention; absent or empty means
    /// [`ProviderFormat::default_base_url`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_url: Option<String>,
    /// The model id sent to the provider.
    pub model: String,
    /// The environment variable the key is read from at call time; absent means no key is
    /// sent (local servers without auth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub api_key_env: Option<String>,
    /// The Chat Completions dialect (`openai`, `deepseek`, `openrouter`, `generic`); only
    /// for `openai-chat`. Absent means: follow the base URL's host (see `docs/providers.md`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dialect: Option<String>,
    /// How long one model call may take, in seconds (1 to 86,400); absent means the
    /// gateway's default (600). Local servers on slow hardware need more.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_timeout_secs: Option<u64>,
    /// Whether model calls stream their answer (server-sent events); absent means yes.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stream: Option<bool>,
    /// How model calls travel (`http`, `websocket`); only `openai-responses` has the
    /// WebSocket transport. Absent means: follow the base URL's scheme (`ws://`/`wss://` →
    /// `websocket`, anything else → `http`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transport: Option<ConnectionTransport>,
    /// Extra request headers, in order (`OpenAI-Organization`, `anthropic-beta`, …).
    #[serde(default)]
    pub headers: Vec<ConnectionHeader>,
    /// Extra request body fields, merged into every request by the provider adapter.
    #[serde(default)]
    pub params: Map<String, Value>,
}

/// Whether a header of this name likely carries a credential: `authorization`,
/// `proxy-authorization`, `cookie`, or a name containing `key`, `token` or `secret`
/// (`x-api-key`, `x-goog-api-key`). One rule for every place that masks header values: the
/// connection's own display and the gateway's error redaction.
pub fn is_sensitive_header(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    matches!(
        name.as_str(),
        "authorization" | "proxy-authorization" | "cookie"
    ) || ["key", "token", "secret"]
        .iter()
        .any(|word| name.contains(word))
}

/// One extra request header.
///
/// A header may carry a credential (`Authorization`, `x-api-key`); that is allowed, for
/// servers that want something other than the format's usual key header, but the value then
/// sits in the file in clear text. Keys belong in `apiKeyEnv`. `Debug` never prints the value
/// of a [sensitive](Self::is_sensitive) header.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConnectionHeader {
    pub name: String,
    pub value: String,
}

impl ConnectionHeader {
    pub fn new(name: impl Into<String>, value: impl Into<String>) -> Self {
        Self {
            name: name.into(),
            value: value.into(),
        }
    }

    /// Whether the header likely carries a credential (see [`is_sensitive_header`]). Such
    /// values are masked wherever a connection is shown.
    pub fn is_sensitive(&self) -> bool {
        is_sensitive_header(&self.name)
    }

    /// The header with its value masked when it is sensitive.
    fn redacted(&self) -> Self {
        if self.is_sensitive() {
            Self::new(self.name.clone(), REDACTED)
        } else {
            self.clone()
        }
    }

    fn validate(&self) -> Result<(), ConnectionError> {
        let invalid = |reason: &str| ConnectionError::InvalidHeader {
            header: shown_name(&self.name),
            reason: reason.to_owned(),
        };
        if self.name.is_empty() {
            return Err(invalid("has an empty name"));
        }
        if !self.name.bytes().all(is_token_byte) {
            return Err(invalid(
                "is not a valid header name (letters, digits and !#$%&'*+-.^_`|~ only)",
            ));
        }
        if TRANSPORT_HEADERS.contains(&self.name.to_ascii_lowercase().as_str()) {
            return Err(invalid(
                "is set by the HTTP transport and cannot be overridden",
            ));
        }
        if self.value.chars().any(|c| c.is_control() && c != '\t') {
            return Err(invalid(
                "has a control character (such as a line break) in its value",
            ));
        }
        Ok(())
    }
}

impl fmt::Debug for ConnectionHeader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let shown = self.redacted();
        f.debug_struct("ConnectionHeader")
            .field("name", &shown.name)
            .field("value", &shown.value)
            .finish()
    }
}

/// RFC 9110 `tchar`: the bytes a header name may use.
fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}

impl ConnectionConfig {
    /// A connection with no base URL (the provider default), key, headers or params. Not
    /// validated yet: call [`validate`](Self::validate) once every field is set.
    pub fn new(name: impl Into<String>, format: ProviderFormat, model: impl Into<String>) -> Self {
        Self {
            kind: CONNECTION_KIND.to_owned(),
            schema_version: CONNECTION_SCHEMA_VERSION,
            name: name.into(),
            format,
            base_url: None,
            model: model.into(),
            api_key_env: None,
            dialect: None,
            stream: None,
            transport: None,
            request_timeout_secs: None,
            headers: Vec::new(),
            params: Map::new(),
        }
    }

    /// Parses and validates a stored connection document.
    ///
    /// The header is checked before the shape, so a file of another kind or a newer schema
    /// is reported as such rather than as an unknown field; an unknown `format` gets
    /// `connection.unknown_format` with the list of formats. Malformed JSON, a wrong type or
    /// an unknown field is `connection.contract_invalid` with the parser's message, which
    /// names the field.
    pub fn from_json(text: &str) -> Result<Self, ConnectionError> {
        let value: Value = serde_json::from_str(text).map_err(contract)?;
        Self::from_value(value)
    }

    /// Like [`from_json`](Self::from_json), for an already parsed JSON value.
    pub fn from_value(value: Value) -> Result<Self, ConnectionError> {
        let Some(object) = value.as_object() else {
            return Err(ConnectionError::ContractInvalid {
                detail: "a connection must be a JSON object".to_owned(),
            });
        };
        match object.get("kind") {
            Some(Value::String(kind)) if kind == CONNECTION_KIND => {}
            Some(Value::String(kind)) => {
                return Err(ConnectionError::KindInvalid {
                    found: kind.clone(),
                });
            }
            Some(other) => {
                return Err(ConnectionError::KindInvalid {
                    found: other.to_string(),
                });
            }
            None => {}
        }
        if let Some(version) = object.get("schemaVersion")
            && version.as_u64() != Some(u64::from(CONNECTION_SCHEMA_VERSION))
        {
            return Err(ConnectionError::SchemaUnsupported {
                found: version.to_string(),
            });
        }
        if let Some(Value::String(format)) = object.get("format") {
            ProviderFormat::parse(format)?;
        }
        let config: Self = serde_json::from_value(value).map_err(contract)?;
        config.validate()?;
        Ok(config)
    }

    /// Checks every rule, in field order, and reports the first broken one with its code.
    pub fn validate(&self) -> Result<(), ConnectionError> {
        if self.kind != CONNECTION_KIND {
            return Err(ConnectionError::KindInvalid {
                found: self.kind.clone(),
            });
        }
        if self.schema_version != CONNECTION_SCHEMA_VERSION {
            return Err(ConnectionError::SchemaUnsupported {
                found: self.schema_version.to_string(),
            });
        }
        ConnectionName::parse(&self.name)?;
        if let Some(url) = &self.base_url {
            validate_base_url(url)?;
        }
        if self.model.trim().is_empty() {
            return Err(ConnectionError::ModelRequired);
        }
        if let Some(var) = &self.api_key_env
            && !is_env_var_name(var)
        {
            return Err(ConnectionError::InvalidEnvVar);
        }
        if let Some(dialect) = &self.dialect {
            if self.format != ProviderFormat::OpenaiChat {
                return Err(ConnectionError::InvalidDialect {
                    found: dialect.clone(),
                    reason: "only openai-chat connections have a dialect",
                });
            }
            if dialect.parse::<ChatDialect>().is_err() {
                return Err(ConnectionError::InvalidDialect {
                    found: dialect.clone(),
                    reason: "is not one of openai, deepseek, openrouter, generic",
                });
            }
        }
        if let Some(secs) = self.request_timeout_secs
            && !(1..=MAX_REQUEST_TIMEOUT_SECS).contains(&secs)
        {
            return Err(ConnectionError::InvalidTimeout { secs });
        }
        self.validate_transport()?;
        let mut seen = BTreeSet::new();
        for header in &self.headers {
            header.validate()?;
            if !seen.insert(header.name.to_ascii_lowercase()) {
                return Err(ConnectionError::InvalidHeader {
                    header: header.name.clone(),
                    reason: "is given more than once; join its values with `, ` instead".to_owned(),
                });
            }
        }
        for key in self.params.keys() {
            validate_param_name(key)?;
        }
        Ok(())
    }

    /// The validated name, for building a store key.
    pub fn connection_name(&self) -> Result<ConnectionName, ConnectionError> {
        ConnectionName::parse(&self.name)
    }

    /// The base URL the connection set, or `None` when it relies on the provider default
    /// (absent and empty mean the same thing).
    pub fn explicit_base_url(&self) -> Option<&str> {
        self.base_url.as_deref().filter(|url| !url.is_empty())
    }

    /// The base URL requests go to: the one set, else the format's default.
    pub fn effective_base_url(&self) -> &str {
        self.explicit_base_url()
            .unwrap_or_else(|| self.format.default_base_url())
    }

    /// Whether model calls stream: yes unless the connection turned it off.
    pub fn streams(&self) -> bool {
        self.stream.unwrap_or(true)
    }

    /// How model calls travel: the transport the connection names, else the one its base
    /// URL's scheme implies ([`ConnectionTransport::for_base_url`]).
    pub fn transport(&self) -> ConnectionTransport {
        self.transport
            .unwrap_or_else(|| ConnectionTransport::for_base_url(self.effective_base_url()))
    }

    /// The WebSocket transport is OpenAI Responses' alone, always streams, and a `ws://` /
    /// `wss://` base URL cannot be reached over HTTP.
    fn validate_transport(&self) -> Result<(), ConnectionError> {
        let invalid = |reason| Err(ConnectionError::InvalidTransport { reason });
        let ws_url = self.explicit_base_url().is_some_and(is_websocket_url);
        if self.transport() != ConnectionTransport::Websocket {
            return if ws_url {
                invalid("a ws:// or wss:// base URL needs the websocket transport")
            } else {
                Ok(())
            };
        }
        if self.format != ProviderFormat::OpenaiResponses {
            return invalid("websocket is only spoken by openai-responses connections");
        }
        if self.stream == Some(false) {
            return invalid("websocket always streams; leave stream on or use http");
        }
        Ok(())
    }

    /// The Chat Completions dialect this connection speaks: the one it names, else the one
    /// its base URL's host implies ([`ChatDialect::for_base_url`]).
    pub fn chat_dialect(&self) -> ChatDialect {
        self.dialect
            .as_deref()
            .and_then(|name| name.parse().ok())
            .unwrap_or_else(|| ChatDialect::for_base_url(self.effective_base_url()))
    }

    /// A copy safe to print: every [sensitive](ConnectionHeader::is_sensitive) header value
    /// replaced by [`REDACTED`]. (The document never holds the key itself.)
    pub fn redacted(&self) -> Self {
        Self {
            headers: self
                .headers
                .iter()
                .map(ConnectionHeader::redacted)
                .collect(),
            ..self.clone()
        }
    }
}

fn contract(err: serde_json::Error) -> ConnectionError {
    ConnectionError::ContractInvalid {
        detail: err.to_string(),
    }
}

/// `^[A-Za-z_][A-Za-z0-9_]*$`: a name every shell can export.
pub(super) fn is_env_var_name(raw: &str) -> bool {
    let mut bytes = raw.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// A parameter is a top-level body field: a non-empty name without whitespace or control
/// characters.
pub(super) fn validate_param_name(key: &str) -> Result<(), ConnectionError> {
    let reason = if key.is_empty() {
        "has an empty name"
    } else if key.chars().any(|c| c.is_whitespace() || c.is_control()) {
        "has whitespace or a control character in its name"
    } else {
        return Ok(());
    };
    Err(ConnectionError::InvalidParam {
        param: shown_name(key),
        reason: reason.to_owned(),
    })
}

/// How a refused header or parameter name is named in a message: up to the first character
/// that cannot be part of a name (`Authorization: Bearer sk-…` pasted whole shows as
/// `Authorization…`), at most 40 characters. What follows may be a credential.
pub(super) fn shown_name(raw: &str) -> String {
    let name: String = raw
        .chars()
        .take_while(|c| c.is_ascii() && is_token_byte(*c as u8))
        .take(40)
        .collect();
    if name.len() < raw.len() {
        format!("{name}…")
    } else {
        name
    }
}

/// An empty base URL means the default. Otherwise it must be an `http://` or `https://` URL
/// (or `ws://` / `wss://`, which the transport rules allow for OpenAI Responses only) with a
/// host, to which the adapter appends paths: so no query or fragment (it would end
/// up in the middle of the request URL) and no `user:password@` (credentials belong in
/// `apiKeyEnv`, never in a file that gets printed). Messages do not repeat the URL, which
/// may be exactly where someone pasted a key.
fn validate_base_url(url: &str) -> Result<(), ConnectionError> {
    if url.is_empty() {
        return Ok(());
    }
    let invalid = |reason| Err(ConnectionError::InvalidBaseUrl { reason });
    let lower = url.to_ascii_lowercase();
    let Some(rest) = ["https://", "http://", "wss://", "ws://"]
        .iter()
        .find_map(|scheme| lower.strip_prefix(scheme))
    else {
        return invalid("must start with http:// or https:// (ws:// or wss:// for a WebSocket)");
    };
    if url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return invalid("must not contain whitespace or control characters");
    }
    if url.contains(['?', '#']) {
        return invalid("must not have a query or fragment; paths are appended to it");
    }
    let authority = rest.split('/').next().unwrap_or_default();
    if authority.contains('@') {
        return invalid("must not contain credentials; name a key variable with apiKeyEnv");
    }
    if authority.is_empty() {
        return invalid("has no host");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ErrorCode;

    fn full() -> ConnectionConfig {
        let mut config = ConnectionConfig::new("openai", ProviderFormat::OpenaiChat, "gpt-4o");
        config.base_url = Some("https://api.openai.com/v1".into());
        config.api_key_env = Some("OPENAI_API_KEY".into());
        config.headers = vec![ConnectionHeader::new("OpenAI-Organization", "org-1")];
        config.params.insert("temperature".into(), json!(0.2));
        config.params.insert("store".into(), json!(false));
        config
    }

    fn code_of(config: &ConnectionConfig) -> &'static str {
        config.validate().unwrap_err().code()
    }

    #[test]
    fn a_full_connection_round_trips_through_json() {
        let config = full();
        config.validate().unwrap();
        let text = serde_json::to_string_pretty(&config).unwrap();
        assert_eq!(ConnectionConfig::from_json(&text).unwrap(), config);
        insta::assert_snapshot!(text);
    }

    #[test]
    fn a_minimal_document_reads_with_defaults() {
        let config = ConnectionConfig::from_value(json!({
            "kind": CONNECTION_KIND, "schemaVersion": 1, "name": "local",
            "format": "anthropic", "model": "claude-sonnet-4-5"
        }))
        .unwrap();
        assert_eq!(config.explicit_base_url(), None);
        assert_eq!(config.effective_base_url(), "https://api.anthropic.com");
        assert!(config.headers.is_empty() && config.params.is_empty());
        let mut empty = config.clone();
        empty.base_url = Some(String::new());
        empty.validate().unwrap();
        assert_eq!(empty.explicit_base_url(), None);
    }

    #[test]
    fn reading_reports_the_most_basic_problem() {
        let base = serde_json::to_value(full()).unwrap();
        let with = |key: &str, value: Value| {
            let mut doc = base.clone();
            doc[key] = value;
            ConnectionConfig::from_value(doc).unwrap_err().code()
        };
        assert_eq!(
            with("kind", json!("tauritavern.agentProfile")),
            "connection.kind_invalid"
        );
        assert_eq!(with("kind", json!(7)), "connection.kind_invalid");
        assert_eq!(
            with("schemaVersion", json!(2)),
            "connection.schema_unsupported"
        );
        assert_eq!(
            with("schemaVersion", json!("1")),
            "connection.schema_unsupported"
        );
        assert_eq!(with("format", json!("openai")), "connection.unknown_format");
        assert_eq!(
            with("apiKeyEnvv", json!("X")),
            "connection.contract_invalid"
        );
        assert_eq!(with("model", json!(5)), "connection.contract_invalid");
        assert_eq!(with("model", json!("  ")), "connection.model_required");
        assert_eq!(with("name", json!("../x")), "connection.invalid_name");
        let err = ConnectionConfig::from_json("{\"kind\":").unwrap_err();
        assert_eq!(err.code(), "connection.contract_invalid");
        let err = ConnectionConfig::from_json("[]").unwrap_err();
        assert_eq!(err.code(), "connection.contract_invalid");
        let mut missing = base.clone();
        missing.as_object_mut().unwrap().remove("model");
        let err = ConnectionConfig::from_value(missing).unwrap_err();
        assert!(err.to_string().contains("model"), "{err}");
    }

    #[test]
    fn header_and_schema_are_checked_on_built_values_too() {
        let mut config = full();
        config.kind = "other".into();
        assert_eq!(code_of(&config), "connection.kind_invalid");
        let mut config = full();
        config.schema_version = 2;
        assert_eq!(code_of(&config), "connection.schema_unsupported");
        let mut config = full();
        config.name = String::new();
        assert_eq!(code_of(&config), "connection.invalid_name");
        assert_eq!(
            full().connection_name().unwrap(),
            ConnectionName::parse("openai").unwrap()
        );
    }

    #[test]
    fn env_var_names_are_shell_names() {
        for ok in ["OPENAI_API_KEY", "_x", "a1", "K"] {
            let mut config = full();
            config.api_key_env = Some(ok.into());
            config.validate().unwrap();
        }
        for bad in ["", "1KEY", "MY-KEY", "MY KEY", "KEY=1", "$KEY", "ключ"] {
            let mut config = full();
            config.api_key_env = Some(bad.into());
            assert_eq!(code_of(&config), "connection.invalid_env_var", "{bad:?}");
        }
    }

    #[test]
    fn base_urls_must_be_http_prefixes() {
        for ok in [
            "https://api.openai.com/v1",
            "http://127.0.0.1:8080/v1/",
            "HTTPS://Example.com",
            "",
        ] {
            let mut config = full();
            config.base_url = Some(ok.into());
            config.validate().unwrap();
        }
        for bad in [
            "api.openai.com/v1",
            "ftp://x",
            "https://",
            "https:///v1",
            "https://x/v1?key=secret",
            "https://x/#frag",
            "https://user:secret@x/v1",
            "https://x/ v1",
        ] {
            let mut config = full();
            config.base_url = Some(bad.into());
            let err = config.validate().unwrap_err();
            assert_eq!(err.code(), "connection.invalid_base_url", "{bad:?}");
            assert!(!err.to_string().contains("secret"), "{err}");
        }
    }

    #[test]
    fn headers_must_be_valid_and_distinct() {
        let with = |headers: Vec<ConnectionHeader>| {
            let mut config = full();
            config.headers = headers;
            config.validate()
        };
        with(vec![
            ConnectionHeader::new("HTTP-Referer", "https://example.com"),
            ConnectionHeader::new("X-Title", ""),
            ConnectionHeader::new("Authorization", "Bearer literal\tvalue"),
        ])
        .unwrap();
        for header in [
            ConnectionHeader::new("", "v"),
            ConnectionHeader::new("Bad Name", "v"),
            ConnectionHeader::new("Bad:Name", "v"),
            ConnectionHeader::new("X-Ok", "line\r\nInjected: yes"),
            ConnectionHeader::new("Content-Type", "text/plain"),
            ConnectionHeader::new("host", "example.com"),
        ] {
            let err = with(vec![header.clone()]).unwrap_err();
            assert_eq!(err.code(), "connection.invalid_header", "{header:?}");
            assert!(!err.to_string().contains("Injected"), "{err}");
        }
        let err = with(vec![
            ConnectionHeader::new("X-Title", "a"),
            ConnectionHeader::new("x-title", "b"),
        ])
        .unwrap_err();
        assert_eq!(err.code(), "connection.invalid_header");
    }

    #[test]
    fn params_need_plain_names() {
        for bad in ["", "max tokens", "a\nb"] {
            let mut config = full();
            config.params.insert(bad.into(), json!(1));
            assert_eq!(code_of(&config), "connection.invalid_param", "{bad:?}");
        }
    }

    #[test]
    fn sensitive_header_values_never_show() {
        let mut config = full();
        config.headers = vec![
            ConnectionHeader::new("Authorization", "Bearer sk-literal"),
            ConnectionHeader::new("x-goog-api-key", "AIza-literal"),
            ConnectionHeader::new("X-Title", "My App"),
        ];
        let shown = config.redacted();
        assert_eq!(shown.headers[0].value, REDACTED);
        assert_eq!(shown.headers[1].value, REDACTED);
        assert_eq!(shown.headers[2].value, "My App");
        let debug = format!("{config:?}");
        assert!(!debug.contains("literal"), "{debug}");
        assert!(debug.contains("My App"), "{debug}");
        // The document itself keeps what was given.
        assert_eq!(config.headers[0].value, "Bearer sk-literal");
    }

    #[test]
    fn a_dialect_is_named_only_for_chat_completions() {
        let mut chat = ConnectionConfig::new("local", ProviderFormat::OpenaiChat, "m");
        chat.dialect = Some("deepseek".into());
        assert!(chat.validate().is_ok());
        chat.dialect = Some("klingon".into());
        assert_eq!(
            chat.validate().unwrap_err().code(),
            "connection.invalid_dialect"
        );
        let mut claude = ConnectionConfig::new("c", ProviderFormat::Anthropic, "m");
        claude.dialect = Some("openai".into());
        assert_eq!(
            claude.validate().unwrap_err().code(),
            "connection.invalid_dialect"
        );
    }

    #[test]
    fn a_request_timeout_is_between_a_second_and_a_day() {
        let mut config = ConnectionConfig::new("local", ProviderFormat::OpenaiChat, "m");
        for (secs, ok) in [
            (1, true),
            (3_600, true),
            (86_400, true),
            (0, false),
            (86_401, false),
        ] {
            config.request_timeout_secs = Some(secs);
            let result = config.validate();
            assert_eq!(result.is_ok(), ok, "{secs}");
            if let Err(error) = result {
                assert_eq!(error.code(), "connection.invalid_timeout");
            }
        }
    }

    #[test]
    fn the_websocket_transport_is_for_streamed_responses_only() {
        let responses = |base: Option<&str>, transport| {
            let mut config = ConnectionConfig::new("ws", ProviderFormat::OpenaiResponses, "gpt-5");
            config.base_url = base.map(str::to_owned);
            config.transport = transport;
            config
        };
        let by_scheme = responses(Some("wss://api.openai.com/v1"), None);
        by_scheme.validate().unwrap();
        assert_eq!(by_scheme.transport(), ConnectionTransport::Websocket);
        let named = responses(None, Some(ConnectionTransport::Websocket));
        named.validate().unwrap();
        assert_eq!(named.transport(), ConnectionTransport::Websocket);
        assert_eq!(responses(None, None).transport(), ConnectionTransport::Http);
        let text = serde_json::to_string(&named).unwrap();
        assert!(text.contains(r#""transport":"websocket""#), "{text}");
        assert_eq!(ConnectionConfig::from_json(&text).unwrap(), named);

        let invalid = "connection.invalid_transport";
        let mut unstreamed = named.clone();
        unstreamed.stream = Some(false);
        assert_eq!(code_of(&unstreamed), invalid);
        let ws_over_http = responses(Some("ws://127.0.0.1:9/v1"), Some(ConnectionTransport::Http));
        assert_eq!(code_of(&ws_over_http), invalid);
        let mut chat = full();
        chat.transport = Some(ConnectionTransport::Websocket);
        assert_eq!(code_of(&chat), invalid);
        chat.transport = None;
        chat.base_url = Some("wss://api.openai.com/v1".into());
        assert_eq!(code_of(&chat), invalid);
        chat.base_url = Some("ftp://x/v1".into());
        assert_eq!(code_of(&chat), "connection.invalid_base_url");
    }
}
