//! [`HttpModelGateway`]: the [`ModelGateway`] that calls a real provider over HTTP.
//!
//! One gateway serves one connection (a base URL, a model, a key and a wire format). The
//! format decides the encoder and decoder; the transport and error classification are
//! shared (see [`crate::http`]).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use agent_application::ports::{ModelCall, ModelError, ModelErrorKind, ModelGateway};
use agent_domain::connection::{ConnectionConfig, ProviderFormat, is_sensitive_header};
use agent_domain::model::{AgentModelContentPart, AgentModelRequest, AgentModelResponse};
use async_trait::async_trait;
use serde_json::{Map, Value};

use crate::anthropic;
use crate::continuation::{self, Answered, Continuation};
use crate::gemini::{self, SchemaMode};
use crate::gemini_interactions;
use crate::http::{HttpTimeouts, ProviderHttp, Redactor};
use crate::openai_chat::{self, Dialect};
use crate::openai_responses;

/// The wire format of OpenAI Chat Completions and compatible servers.
pub const FORMAT_OPENAI_CHAT: &str = ProviderFormat::OpenaiChat.as_str();

/// The wire format of OpenAI Responses (stateless, or chained with `store=true`).
pub const FORMAT_OPENAI_RESPONSES: &str = ProviderFormat::OpenaiResponses.as_str();

/// The wire format of Anthropic Messages.
pub const FORMAT_ANTHROPIC: &str = ProviderFormat::Anthropic.as_str();

/// The wire format of Gemini `generateContent`.
pub const FORMAT_GEMINI: &str = ProviderFormat::Gemini.as_str();

/// The wire format of Gemini Interactions (stateless, or chained with `store=true`).
pub const FORMAT_GEMINI_INTERACTIONS: &str = ProviderFormat::GeminiInteractions.as_str();

/// The formats this build speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    OpenaiChat {
        dialect: Dialect,
    },
    /// `stateful`: the connection set `store=true`, so responses chain server-side.
    OpenaiResponses {
        stateful: bool,
    },
    Anthropic,
    Gemini,
    /// `stateful`: the connection set `store=true`, so interactions chain server-side.
    GeminiInteractions {
        stateful: bool,
    },
}

impl Format {
    /// What the continuation of a call in this format records (see [`continuation`]).
    ///
    /// `thinking`: the request asked for extended thinking, so an Anthropic turn's tool
    /// calls need their thinking block.
    fn answered(self, name: &str, message_count: usize, thinking: bool) -> Answered<'_> {
        let (source, native, calls_need_native, chained) = match self {
            // SillyTavern names the compatible sources it knows; the rest are `custom`.
            // OpenRouter's `reasoning_details` are the only native parts of this format.
            Self::OpenaiChat { dialect } => match dialect {
                Dialect::Openai => ("openai", None, false, false),
                Dialect::Deepseek => ("deepseek", None, false, false),
                Dialect::Openrouter => (
                    "openrouter",
                    Some(openai_chat::OPENROUTER_NATIVE),
                    false,
                    false,
                ),
                Dialect::Generic => ("custom", None, false, false),
            },
            Self::OpenaiResponses { stateful } => {
                ("openai", Some(openai_responses::NATIVE), false, stateful)
            }
            Self::Anthropic => ("claude", Some(anthropic::NATIVE), thinking, false),
            Self::Gemini => ("makersuite", Some(gemini::NATIVE), true, false),
            Self::GeminiInteractions { stateful } => (
                "makersuite",
                Some(gemini_interactions::NATIVE),
                true,
                stateful,
            ),
        };
        Answered {
            format: name,
            chat_completion_source: source,
            native,
            calls_need_native,
            chained,
            message_count,
        }
    }

    /// Whether the provider keeps the session between calls.
    fn chained(self) -> bool {
        matches!(
            self,
            Self::OpenaiResponses { stateful: true } | Self::GeminiInteractions { stateful: true }
        )
    }
}

/// Where and how to reach one model.
#[derive(Clone, PartialEq)]
pub struct HttpConnection {
    /// The wire format (`openai-chat`, `openai-responses`, `anthropic`, `gemini`,
    /// `gemini-interactions`).
    pub format: String,
    /// The API base. Chat Completions: including its version (`https://api.openai.com/v1`),
    /// posting to `{base_url}/chat/completions`. Responses: likewise including the version,
    /// posting to `{base_url}/responses`. Anthropic: without the version
    /// (`https://api.anthropic.com`, also used when empty), posting to
    /// `{base_url}/v1/messages`. Gemini: without the version
    /// (`https://generativelanguage.googleapis.com`, also used when empty), posting to
    /// `{base_url}/v1beta/models/{model}:generateContent`. Gemini Interactions: likewise
    /// without the version (same default), posting to `{base_url}/v1beta/interactions`.
    pub base_url: String,
    pub model: String,
    /// The key, read by the caller (the CLI reads a named environment variable at call
    /// time). Never printed: `Debug` and every error message mask it.
    pub api_key: Option<String>,
    /// Extra request headers (`OpenAI-Organization`, `HTTP-Referer`, `anthropic-beta`, …).
    pub headers: Vec<(String, String)>,
    /// Body fields merged into every request (`temperature`, `max_tokens`, …); they never
    /// replace the fields the adapter owns (`model`, `messages`, `tools`, …).
    pub params: Map<String, Value>,
    /// The Chat Completions dialect; unused by other formats.
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
    /// A connection in `format` with no key, headers or params and the generic dialect.
    pub fn new(
        format: impl Into<String>,
        base_url: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        Self {
            format: format.into(),
            base_url: base_url.into(),
            model: model.into(),
            api_key: None,
            headers: Vec::new(),
            params: Map::new(),
            dialect: Dialect::default(),
        }
    }

    /// The connection a saved [`ConnectionConfig`] describes, calling `model_id` when given
    /// (a profile's binding wins over the connection's default model) with `api_key` (which
    /// the host reads from the variable `apiKeyEnv` names). The Chat Completions dialect is
    /// the one the connection names, else the base URL's host decides
    /// ([`Dialect::for_base_url`]).
    pub fn from_config(
        config: &ConnectionConfig,
        model_id: Option<&str>,
        api_key: Option<String>,
    ) -> Self {
        let base_url = config.effective_base_url();
        let dialect = config
            .dialect
            .as_deref()
            .and_then(|name| name.parse().ok())
            .unwrap_or_else(|| Dialect::for_base_url(base_url));
        Self {
            api_key,
            headers: config
                .headers
                .iter()
                .map(|h| (h.name.clone(), h.value.clone()))
                .collect(),
            params: config.params.clone(),
            dialect,
            ..Self::new(
                config.format.as_str(),
                base_url,
                model_id.unwrap_or(&config.model),
            )
        }
    }

    /// SillyTavern's name for this connection's API (its `chat_completion_source`), which
    /// messages written by SillyTavern record as `extra.api`: `openai`, `claude`,
    /// `makersuite` (Gemini), `deepseek`, `openrouter`, or `custom` for any other
    /// OpenAI-compatible server.
    pub fn sillytavern_api(&self) -> &'static str {
        match self.format.as_str() {
            FORMAT_OPENAI_CHAT => match self.dialect {
                Dialect::Openai => "openai",
                Dialect::Deepseek => "deepseek",
                Dialect::Openrouter => "openrouter",
                Dialect::Generic => "custom",
            },
            FORMAT_ANTHROPIC => "claude",
            FORMAT_GEMINI | FORMAT_GEMINI_INTERACTIONS => "makersuite",
            _ => "openai",
        }
    }

    /// A Chat Completions connection with no key, headers or params.
    pub fn openai_chat(
        base_url: impl Into<String>,
        model: impl Into<String>,
        dialect: Dialect,
    ) -> Self {
        Self {
            dialect,
            ..Self::new(FORMAT_OPENAI_CHAT, base_url, model)
        }
    }

    /// A Responses connection (stateless mode) with no key, headers or params; `base_url`
    /// includes the version (`https://api.openai.com/v1`).
    pub fn openai_responses(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new(FORMAT_OPENAI_RESPONSES, base_url, model)
    }

    /// An Anthropic Messages connection with no key, headers or params. An empty
    /// `base_url` means [`anthropic::DEFAULT_BASE_URL`].
    pub fn anthropic(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new(FORMAT_ANTHROPIC, base_url, model)
    }

    /// A Gemini `generateContent` connection with no key, headers or params. An empty
    /// `base_url` means [`gemini::DEFAULT_BASE_URL`].
    pub fn gemini(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new(FORMAT_GEMINI, base_url, model)
    }

    /// A Gemini Interactions connection (stateless mode) with no key, headers or params. An
    /// empty `base_url` means [`gemini_interactions::DEFAULT_BASE_URL`].
    pub fn gemini_interactions(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new(FORMAT_GEMINI_INTERACTIONS, base_url, model)
    }

    /// Sets the key.
    pub fn with_api_key(mut self, key: impl Into<String>) -> Self {
        self.api_key = Some(key.into());
        self
    }

    /// Masks the key and any header values that look like credentials.
    fn redactor(&self) -> Redactor {
        let header_secrets = self
            .headers
            .iter()
            .filter(|(name, _)| is_sensitive_header(name))
            .map(|(_, value)| value.clone());
        Redactor::new(self.api_key.clone().into_iter().chain(header_secrets))
    }
}

/// Calls the model of one [`HttpConnection`].
#[derive(Debug, Clone)]
pub struct HttpModelGateway {
    connection: HttpConnection,
    format: Format,
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
        let format = match connection.format.as_str() {
            FORMAT_OPENAI_CHAT => Format::OpenaiChat {
                dialect: connection.dialect,
            },
            FORMAT_OPENAI_RESPONSES => Format::OpenaiResponses {
                stateful: openai_responses::mode(&connection.base_url, &connection.params)?,
            },
            FORMAT_ANTHROPIC => Format::Anthropic,
            FORMAT_GEMINI => Format::Gemini,
            FORMAT_GEMINI_INTERACTIONS => Format::GeminiInteractions {
                stateful: gemini_interactions::mode(&connection.params)?,
            },
            other => {
                let mut error = ModelError::new(
                    ModelErrorKind::InvalidRequest,
                    format!(
                        "provider format `{other}` is unknown; supported: \
                         {FORMAT_OPENAI_CHAT}, {FORMAT_OPENAI_RESPONSES}, {FORMAT_ANTHROPIC}, \
                         {FORMAT_GEMINI}, {FORMAT_GEMINI_INTERACTIONS}"
                    ),
                );
                error.code = "model.format_unsupported";
                return Err(error);
            }
        };
        let base = connection.base_url.trim_end_matches('/');
        let url = match format {
            Format::OpenaiChat { .. } => format!("{base}/chat/completions"),
            Format::OpenaiResponses { .. } => format!("{base}/responses"),
            Format::Anthropic if base.is_empty() => {
                format!("{}/v1/messages", anthropic::DEFAULT_BASE_URL)
            }
            Format::Anthropic => format!("{base}/v1/messages"),
            Format::Gemini => {
                let base = if base.is_empty() {
                    gemini::DEFAULT_BASE_URL
                } else {
                    base
                };
                let model = connection.model.trim_start_matches("models/");
                format!("{base}/v1beta/models/{model}:generateContent")
            }
            Format::GeminiInteractions { .. } => {
                let base = if base.is_empty() {
                    gemini_interactions::DEFAULT_BASE_URL
                } else {
                    base
                };
                format!("{base}/v1beta/interactions")
            }
        };
        Ok(Self {
            redactor: connection.redactor(),
            http: ProviderHttp::new(timeouts)?,
            url,
            format,
            connection,
        })
    }

    /// The connection this gateway calls.
    pub fn connection(&self) -> &HttpConnection {
        &self.connection
    }

    /// The connection's headers plus the format's auth (only when a key is set) and, for
    /// Anthropic, `anthropic-version` unless the connection sets its own.
    fn headers(&self) -> Vec<(String, String)> {
        let mut headers = self.connection.headers.clone();
        let key = self.connection.api_key.as_ref();
        match self.format {
            Format::OpenaiChat { .. } | Format::OpenaiResponses { .. } => {
                if let Some(key) = key {
                    headers.push(("authorization".to_owned(), format!("Bearer {key}")));
                }
            }
            Format::Anthropic => {
                if let Some(key) = key {
                    headers.push(("x-api-key".to_owned(), key.clone()));
                }
                let has_version = headers
                    .iter()
                    .any(|(name, _)| name.eq_ignore_ascii_case("anthropic-version"));
                if !has_version {
                    headers.push((
                        "anthropic-version".to_owned(),
                        anthropic::API_VERSION.to_owned(),
                    ));
                }
            }
            Format::Gemini | Format::GeminiInteractions { .. } => {
                if let Some(key) = key {
                    headers.push(("x-goog-api-key".to_owned(), key.clone()));
                }
            }
        }
        headers
    }
}

#[async_trait]
impl ModelGateway for HttpModelGateway {
    /// Encodes, posts and decodes one call, then hands back the invocation's next provider
    /// state (see [`continuation`]).
    async fn generate(&self, call: ModelCall) -> Result<AgentModelResponse, ModelError> {
        let (model, params) = (&self.connection.model, &self.connection.params);
        let request = &*for_model(&call.request, model);
        let resume = if self.format.chained() {
            continuation::resume(
                &request.provider_state,
                &self.connection.format,
                request.messages.len(),
            )?
        } else {
            Continuation::Full
        };
        let body = match self.format {
            Format::OpenaiChat { dialect } => openai_chat::encode(request, model, dialect, params)?,
            Format::OpenaiResponses { stateful } => {
                openai_responses::encode(request, model, params, stateful, resume)?
            }
            Format::Anthropic => anthropic::encode(request, model, params)?,
            Format::Gemini => gemini::encode(request, params, SchemaMode::JsonSchema)?,
            Format::GeminiInteractions { stateful } => {
                gemini_interactions::encode(request, model, params, stateful, resume)?
            }
        };
        let reply = self
            .http
            .post_json(&self.url, &self.headers(), &body, &self.redactor)
            .await?;
        let mut response = match self.format {
            Format::OpenaiChat { .. } => openai_chat::decode(&reply, &request.tools),
            Format::OpenaiResponses { .. } => openai_responses::decode(&reply, &request.tools),
            Format::Anthropic => anthropic::decode(&reply, &request.tools),
            Format::Gemini => gemini::decode(&reply, &request.tools),
            Format::GeminiInteractions { stateful } => {
                gemini_interactions::decode(&reply, &request.tools).and_then(|response| {
                    if stateful {
                        gemini_interactions::check_chainable(&response)?;
                    }
                    Ok(response)
                })
            }
        }?;
        response.message.stamp_native_model(model);
        let answered = self.format.answered(
            &self.connection.format,
            request.messages.len(),
            anthropic::thinking_requested(&request.parameters, params),
        );
        response.provider_state = Some(continuation::next_state(
            &request.provider_state,
            &answered,
            &response,
        )?);
        Ok(response)
    }
}

/// The request as `model` may see it: native parts another model produced are left out
/// (their signatures and encrypted reasoning are bound to that model; the format rebuilds
/// such a turn from its portable parts). Borrowed unchanged in the usual case, where every
/// native part is the model's own or of unknown origin.
fn for_model<'a>(request: &'a AgentModelRequest, model: &str) -> Cow<'a, AgentModelRequest> {
    let foreign = |part: &AgentModelContentPart| part.is_native_of_another_model(model);
    if !request
        .messages
        .iter()
        .any(|message| message.parts.iter().any(foreign))
    {
        return Cow::Borrowed(request);
    }
    let mut own = request.clone();
    for message in Arc::make_mut(&mut own.messages) {
        message.parts.retain(|part| !foreign(part));
    }
    Cow::Owned(own)
}

#[cfg(test)]
mod tests {
    use super::*;
    use agent_domain::connection::ConnectionHeader;
    use serde_json::json;

    fn saved(format: ProviderFormat, base_url: Option<&str>) -> ConnectionConfig {
        let mut config = ConnectionConfig::new("main", format, "default-model");
        config.base_url = base_url.map(str::to_owned);
        config
            .headers
            .push(ConnectionHeader::new("Proxy-Authorization", "hdr-secret"));
        config.params.insert("temperature".into(), json!(0.2));
        config
    }

    #[test]
    fn a_saved_connection_maps_onto_the_gateway_connection() {
        let config = saved(
            ProviderFormat::OpenaiChat,
            Some("https://api.deepseek.com/v1"),
        );
        let connection = HttpConnection::from_config(&config, None, Some("k".into()));
        assert_eq!(connection.format, "openai-chat");
        assert_eq!(connection.base_url, "https://api.deepseek.com/v1");
        assert_eq!(connection.model, "default-model");
        assert_eq!(connection.dialect, Dialect::Deepseek, "from the host");
        assert_eq!(connection.api_key.as_deref(), Some("k"));
        assert_eq!(connection.params["temperature"], json!(0.2));

        let mut named = config.clone();
        named.dialect = Some("openrouter".into());
        let connection = HttpConnection::from_config(&named, Some("profile-model"), None);
        assert_eq!(connection.dialect, Dialect::Openrouter, "named wins");
        assert_eq!(
            connection.model, "profile-model",
            "the binding's model wins"
        );

        let defaulted =
            HttpConnection::from_config(&saved(ProviderFormat::Gemini, None), None, None);
        assert_eq!(
            defaulted.base_url,
            "https://generativelanguage.googleapis.com"
        );
    }

    #[test]
    fn a_saved_request_timeout_replaces_the_default_one() {
        let mut config = saved(ProviderFormat::OpenaiChat, None);
        assert_eq!(HttpTimeouts::for_config(&config), HttpTimeouts::default());
        config.request_timeout_secs = Some(1_800);
        let timeouts = HttpTimeouts::for_config(&config);
        assert_eq!(timeouts.request, std::time::Duration::from_secs(1_800));
        assert_eq!(timeouts.connect, HttpTimeouts::default().connect);
    }

    #[test]
    fn credential_headers_are_masked_by_the_shared_rule() {
        let config = saved(ProviderFormat::Anthropic, None);
        let connection = HttpConnection::from_config(&config, None, Some("the-key".into()));
        let masked = connection.redactor().redact("echo: the-key and hdr-secret");
        assert!(
            !masked.contains("the-key") && !masked.contains("hdr-secret"),
            "{masked}"
        );
        assert!(!format!("{connection:?}").contains("the-key"));
    }
}
