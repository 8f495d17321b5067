//! [`HttpModelGateway`]: the [`ModelGateway`] that calls a real provider over HTTP.
//!
//! One gateway serves one connection (a base URL, a model, a key and a wire format). The
//! format decides the encoder and decoder; the transport and error classification are
//! shared (see [`crate::http`]).

use std::fmt;

use agent_application::ports::{ModelCall, ModelError, ModelErrorKind, ModelGateway};
use agent_domain::model::AgentModelResponse;
use async_trait::async_trait;
use serde_json::{Map, Value};

use crate::http::{HttpTimeouts, ProviderHttp, Redactor};
use crate::openai_chat::{self, Dialect};

/// The wire format a connection speaks. Only Chat Completions exists so far; the other
/// names are recognised so a configuration that asks for them gets a clear error.
pub const FORMAT_OPENAI_CHAT: &str = "openai-chat";

/// Formats that are planned but not implemented yet.
const FORMATS_COMING: &[&str] = &[
    "openai-responses",
    "anthropic",
    "gemini",
    "gemini-interactions",
];

/// Where and how to reach one model.
#[derive(Clone, PartialEq)]
pub struct HttpConnection {
    /// The wire format (`openai-chat`).
    pub format: String,
    /// The API base including its version (`https://api.openai.com/v1`); Chat Completions
    /// posts to `{base_url}/chat/completions`.
    pub base_url: String,
    pub model: String,
    /// The key, read by the caller (the CLI reads a named environment variable at call
    /// time). Never printed: `Debug` and every error message mask it.
    pub api_key: Option<String>,
    /// Extra request headers (`OpenAI-Organization`, `HTTP-Referer`, …).
    pub headers: Vec<(String, String)>,
    /// Body fields merged into every request (`temperature`, `max_tokens`, …); they never
    /// replace the fields the adapter owns (`model`, `messages`, `tools`, …).
    pub params: Map<String, Value>,
    pub dialect: Dialect,
}

impl fmt::Debug for HttpConnection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let header_names: Vec<&str> = self.headers.iter().map(|(k, _)| k.as_str()).collect();
        f.debug_struct("HttpConnection")
            .field("format", &self.format)
            .field("base_url", &self.redactor().redact(&self.base_url))
            .field("model", &self.model)
            .field("api_key", &self.api_key.as_ref().map(|_| "[REDACTED]"))
            .field("headers", &header_names)
            .field("params", &self.params)
            .field("dialect", &self.dialect)
            .finish()
    }
}

impl HttpConnection {
    /// A Chat Completions connection with no key, headers or params.
    pub fn openai_chat(
        base_url: impl Into<String>,
        model: impl Into<String>,
        dialect: Dialect,
    ) -> Self {
        Self {
            format: FORMAT_OPENAI_CHAT.to_owned(),
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            headers: Vec::new(),
            params: Map::new(),
            dialect,
        }
    }

    /// Sets the key.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Masks the key and any header values that look like credentials.
    fn redactor(&self) -> Redactor {
        let header_secrets = self.headers.iter().filter_map(|(name, value)| {
            let name = name.to_ascii_lowercase();
            (name == "authorization" || name.contains("key") || name.contains("token"))
                .then(|| value.clone())
        });
        Redactor::new(self.api_key.clone().into_iter().chain(header_secrets))
    }
}

/// Calls the model of one [`HttpConnection`].
#[derive(Debug, Clone)]
pub struct HttpModelGateway {
    connection: HttpConnection,
    http: ProviderHttp,
    redactor: Redactor,
    url: String,
}

impl HttpModelGateway {
    /// A gateway for `connection` with the default timeouts (connect 30 s, request 600 s).
    pub fn new(connection: HttpConnection) -> Result<Self, ModelError> {
        Self::with_timeouts(connection, HttpTimeouts::default())
    }

    /// A gateway for `connection` with `timeouts`. Fails with `model.format_unsupported`
    /// for a format this build cannot speak yet.
    pub fn with_timeouts(
        connection: HttpConnection,
        timeouts: HttpTimeouts,
    ) -> Result<Self, ModelError> {
        if connection.format != FORMAT_OPENAI_CHAT {
            let status = if FORMATS_COMING.contains(&connection.format.as_str()) {
                "is not implemented yet"
            } else {
                "is unknown"
            };
            let mut error = ModelError::new(
                ModelErrorKind::InvalidRequest,
                format!(
                    "provider format `{}` {status}; supported: {FORMAT_OPENAI_CHAT}",
                    connection.format
                ),
            );
            error.code = "model.format_unsupported";
            return Err(error);
        }
        let url = format!(
            "{}/chat/completions",
            connection.base_url.trim_end_matches('/')
        );
        Ok(Self {
            redactor: connection.redactor(),
            http: ProviderHttp::new(timeouts)?,
            url,
            connection,
        })
    }

    /// The connection this gateway calls.
    pub fn connection(&self) -> &HttpConnection {
        &self.connection
    }

    fn headers(&self) -> Vec<(String, String)> {
        let mut headers = self.connection.headers.clone();
        if let Some(key) = &self.connection.api_key {
            headers.push(("authorization".to_owned(), format!("Bearer {key}")));
        }
        headers
    }
}

#[async_trait]
impl ModelGateway for HttpModelGateway {
    async fn generate(&self, call: ModelCall) -> Result<AgentModelResponse, ModelError> {
        let body = openai_chat::encode(
            &call.request,
            &self.connection.model,
            self.connection.dialect,
            &self.connection.params,
        )?;
        let reply = self
            .http
            .post_json(&self.url, &self.headers(), &body, &self.redactor)
            .await?;
        openai_chat::decode(&reply, &call.request.tools)
    }
}
