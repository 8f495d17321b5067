//! [`HttpModelGateway`]: the [`ModelGateway`] that calls a real provider over HTTP.
//!
//! One gateway serves one connection (a base URL, a model, a key and a wire format). The
//! format decides the encoder and decoder; the transport and error classification are
//! shared (see [`crate::http`]).

use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

use agent_application::ports::{
    ModelCall, ModelDelta, ModelError, ModelErrorKind, ModelGateway, ModelStreamItem,
};
use agent_domain::ErrorCode;
use agent_domain::connection::{
    ChatDialect, ConnectionConfig, ConnectionTransport, ProviderFormat, is_sensitive_header,
};
use agent_domain::model::{
    AgentModelContentPart, AgentModelRequest, AgentModelResponse, check_transcript,
};
use agent_domain::run::{InvocationId, RunId};
use async_trait::async_trait;
use futures::stream::{BoxStream, StreamExt};
use serde_json::{Map, Value};

use crate::anthropic;
use crate::continuation::{self, Answered, Continuation};
use crate::gemini::{self, SchemaMode};
use crate::gemini_interactions;
use crate::http::{HttpTimeouts, ProviderHttp, Redactor};
use crate::openai_chat;
use crate::openai_responses;
use crate::sse::{self, Assembler};
use crate::websocket::{self, Sockets};
use crate::wire::contract;

/// The formats this build speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    OpenaiChat {
        dialect: ChatDialect,
    },
    /// `stateful`: the connection set `store=true`, so responses chain server-side;
    /// `websocket`: calls go over the connection's persistent sockets, and chain onto the
    /// previous response of their socket in either mode.
    OpenaiResponses {
        stateful: bool,
        websocket: bool,
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
    fn answered(
        self,
        name: &'static str,
        message_count: usize,
        thinking: bool,
    ) -> Answered<'static> {
        let transport = match self {
            Self::OpenaiResponses {
                websocket: true, ..
            } => Some(openai_responses::WEBSOCKET_TRANSPORT),
            _ => None,
        };
        let (source, native, calls_need_native, chained) = match self {
            // SillyTavern names the compatible sources it knows; the rest are `custom`.
            // OpenRouter's `reasoning_details` are the only native parts of this format.
            Self::OpenaiChat { dialect } => match dialect {
                ChatDialect::Openai => ("openai", None, false, false),
                ChatDialect::Deepseek => ("deepseek", None, false, false),
                ChatDialect::Openrouter => (
                    "openrouter",
                    Some(openai_chat::OPENROUTER_NATIVE),
                    false,
                    false,
                ),
                ChatDialect::Generic => ("custom", None, false, false),
            },
            Self::OpenaiResponses { .. } => (
                "openai",
                Some(openai_responses::NATIVE),
                false,
                self.chained(),
            ),
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
            transport,
            message_count,
        }
    }

    /// Whether the provider keeps the session between calls (a socket keeps its last
    /// response even without `store`).
    fn chained(self) -> bool {
        matches!(
            self,
            Self::OpenaiResponses { stateful: true, .. }
                | Self::OpenaiResponses {
                    websocket: true,
                    ..
                }
                | Self::GeminiInteractions { stateful: true }
        )
    }
}

/// Where and how to reach one model.
#[derive(Clone, PartialEq)]
pub struct HttpConnection {
    /// The wire format.
    pub format: ProviderFormat,
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
    pub dialect: ChatDialect,
    /// Whether calls stream (server-sent events) rather than answer whole.
    pub stream: bool,
    /// How calls travel; [`ConnectionTransport::Websocket`] only for Responses (which then
    /// always streams).
    pub transport: ConnectionTransport,
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
            .field("stream", &self.stream)
            .field("transport", &self.transport)
            .finish()
    }
}

impl HttpConnection {
    /// A connection in `format` with no key, headers or params and the generic dialect,
    /// answering whole (streaming is a host's choice, see [`HttpConnection::streaming`]),
    /// over the transport the base URL's scheme implies (`ws://`/`wss://`: WebSocket).
    pub fn new(
        format: ProviderFormat,
        base_url: impl Into<String>,
        model: impl Into<String>,
    ) -> Self {
        let base_url = base_url.into();
        Self {
            format,
            transport: ConnectionTransport::for_base_url(&base_url),
            base_url,
            model: model.into(),
            api_key: None,
            headers: Vec::new(),
            params: Map::new(),
            dialect: ChatDialect::default(),
            stream: false,
        }
    }

    /// The connection a saved [`ConnectionConfig`] describes, calling `model_id` when given
    /// (a profile's binding wins over the connection's default model) with `api_key` (which
    /// the host reads from the variable `apiKeyEnv` names), streaming unless the connection
    /// turned it off. The Chat Completions dialect is [`ConnectionConfig::chat_dialect`].
    pub fn from_config(
        config: &ConnectionConfig,
        model_id: Option<&str>,
        api_key: Option<String>,
    ) -> Self {
        Self {
            api_key,
            headers: config
                .headers
                .iter()
                .map(|h| (h.name.clone(), h.value.clone()))
                .collect(),
            params: config.params.clone(),
            dialect: config.chat_dialect(),
            stream: config.streams(),
            transport: config.transport(),
            ..Self::new(
                config.format,
                config.effective_base_url(),
                model_id.unwrap_or(&config.model),
            )
        }
    }

    /// SillyTavern's name for this connection's API (its `chat_completion_source`), which
    /// messages written by SillyTavern record as `extra.api`: `openai`, `claude`,
    /// `makersuite` (Gemini), `deepseek`, `openrouter`, or `custom` for any other
    /// OpenAI-compatible server.
    pub fn sillytavern_api(&self) -> &'static str {
        match self.format {
            ProviderFormat::OpenaiChat => match self.dialect {
                ChatDialect::Openai => "openai",
                ChatDialect::Deepseek => "deepseek",
                ChatDialect::Openrouter => "openrouter",
                ChatDialect::Generic => "custom",
            },
            ProviderFormat::Anthropic => "claude",
            ProviderFormat::Gemini | ProviderFormat::GeminiInteractions => "makersuite",
            _ => "openai",
        }
    }

    /// A Chat Completions connection with no key, headers or params.
    pub fn openai_chat(
        base_url: impl Into<String>,
        model: impl Into<String>,
        dialect: ChatDialect,
    ) -> Self {
        Self {
            dialect,
            ..Self::new(ProviderFormat::OpenaiChat, base_url, model)
        }
    }

    /// A Responses connection (stateless mode) with no key, headers or params; `base_url`
    /// includes the version (`https://api.openai.com/v1`).
    pub fn openai_responses(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new(ProviderFormat::OpenaiResponses, base_url, model)
    }

    /// An Anthropic Messages connection with no key, headers or params. An empty
    /// `base_url` means [`anthropic::DEFAULT_BASE_URL`].
    pub fn anthropic(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new(ProviderFormat::Anthropic, base_url, model)
    }

    /// A Gemini `generateContent` connection with no key, headers or params. An empty
    /// `base_url` means [`gemini::DEFAULT_BASE_URL`].
    pub fn gemini(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new(ProviderFormat::Gemini, base_url, model)
    }

    /// A Gemini Interactions connection (stateless mode) with no key, headers or params. An
    /// empty `base_url` means [`gemini_interactions::DEFAULT_BASE_URL`].
    pub fn gemini_interactions(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self::new(ProviderFormat::GeminiInteractions, base_url, model)
    }

    /// Sets the transport.
    pub fn over(mut self, transport: ConnectionTransport) -> Self {
        self.transport = transport;
        self
    }

    /// Turns streaming on or off.
    pub fn streaming(mut self, stream: bool) -> Self {
        self.stream = stream;
        self
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
    /// Where a streamed call goes (Gemini streams at another endpoint).
    stream_url: String,
    /// The persistent sockets of a Responses connection over WebSocket.
    sockets: Option<Arc<Sockets>>,
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
        let format = match connection.format {
            ProviderFormat::OpenaiChat => Format::OpenaiChat {
                dialect: connection.dialect,
            },
            ProviderFormat::OpenaiResponses => Format::OpenaiResponses {
                stateful: openai_responses::mode(&connection.params)?,
                websocket: connection.transport == ConnectionTransport::Websocket,
            },
            ProviderFormat::Anthropic => Format::Anthropic,
            ProviderFormat::Gemini => Format::Gemini,
            ProviderFormat::GeminiInteractions => Format::GeminiInteractions {
                stateful: gemini_interactions::mode(&connection.params)?,
            },
            // `ProviderFormat` may grow; a format this build predates is refused, not guessed.
            other => {
                let mut error = ModelError::new(
                    ModelErrorKind::InvalidRequest,
                    format!("provider format `{other}` is not spoken by this build"),
                );
                error.code = "model.format_unsupported";
                return Err(error);
            }
        };
        if connection.transport == ConnectionTransport::Websocket
            && !matches!(format, Format::OpenaiResponses { .. })
        {
            let mut error = ModelError::new(
                ModelErrorKind::InvalidRequest,
                format!(
                    "provider format `{}` has no WebSocket transport",
                    connection.format
                ),
            );
            error.code = "model.format_unsupported";
            return Err(error);
        }
        let base = connection.base_url.trim_end_matches('/');
        let (url, stream_url) = match format {
            Format::OpenaiChat { .. } => (format!("{base}/chat/completions"), None),
            Format::OpenaiResponses { .. } => (format!("{base}/responses"), None),
            Format::Anthropic => {
                let base = if base.is_empty() {
                    anthropic::DEFAULT_BASE_URL
                } else {
                    base
                };
                (format!("{base}/v1/messages"), None)
            }
            Format::Gemini => {
                let base = if base.is_empty() {
                    gemini::DEFAULT_BASE_URL
                } else {
                    base
                };
                let model = connection.model.trim_start_matches("models/");
                (
                    format!("{base}/v1beta/models/{model}:generateContent"),
                    Some(format!(
                        "{base}/v1beta/models/{model}:streamGenerateContent?alt=sse"
                    )),
                )
            }
            Format::GeminiInteractions { .. } => {
                let base = if base.is_empty() {
                    gemini_interactions::DEFAULT_BASE_URL
                } else {
                    base
                };
                (format!("{base}/v1beta/interactions"), None)
            }
        };
        let mut gateway = Self {
            redactor: connection.redactor(),
            http: ProviderHttp::new(timeouts)?,
            stream_url: stream_url.unwrap_or_else(|| url.clone()),
            url,
            format,
            connection,
            sockets: None,
        };
        if let Format::OpenaiResponses {
            websocket: true, ..
        } = format
        {
            gateway.sockets = Some(Arc::new(Sockets::new(
                websocket::socket_url(&gateway.connection.base_url),
                gateway.headers(),
                timeouts,
                gateway.redactor.clone(),
            )));
        }
        Ok(gateway)
    }

    /// The connection this gateway calls.
    pub fn connection(&self) -> &HttpConnection {
        &self.connection
    }

    /// Whether calls through this gateway stream: the connection asks for it and the format
    /// can. Gemini Interactions answers whole (see `docs/providers.md`, Streaming); a
    /// WebSocket always streams.
    pub fn streams(&self) -> bool {
        self.sockets.is_some()
            || (self.connection.stream && !matches!(self.format, Format::GeminiInteractions { .. }))
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

    /// The checks every format shares, then the format's body: the request as the model may
    /// see it ([`for_model`]), its transcript's tool-call pairing checked (so a request that
    /// would be rejected upstream for unpaired calls fails here with a precise code), the
    /// chained formats' resume point read from the provider state. `stream` asks the
    /// provider to stream.
    fn prepare<'a>(
        &self,
        call: &'a ModelCall,
        stream: bool,
    ) -> Result<(Cow<'a, AgentModelRequest>, Value), ModelError> {
        let request = self.checked(call)?;
        let resume = self.resume(&request)?;
        let body = self.body(&request, resume, stream)?;
        Ok((request, body))
    }

    /// The request as the model may see it, its transcript checked.
    fn checked<'a>(&self, call: &'a ModelCall) -> Result<Cow<'a, AgentModelRequest>, ModelError> {
        let request = for_model(&call.request, &self.connection.model);
        check_transcript(&request.messages).map_err(|e| contract(e.code(), e.to_string()))?;
        Ok(request)
    }

    /// Where a chained format resumes (always [`Continuation::Full`] for the others).
    fn resume<'r>(&self, request: &'r AgentModelRequest) -> Result<Continuation<'r>, ModelError> {
        if !self.format.chained() {
            return Ok(Continuation::Full);
        }
        continuation::resume(
            &request.provider_state,
            self.connection.format.as_str(),
            request.messages.len(),
        )
    }

    /// The format's body for `request` from `resume` on.
    fn body(
        &self,
        request: &AgentModelRequest,
        resume: Continuation<'_>,
        stream: bool,
    ) -> Result<Value, ModelError> {
        let (model, params) = (&self.connection.model, &self.connection.params);
        let mut body = match self.format {
            Format::OpenaiChat { dialect } => openai_chat::encode(request, model, dialect, params)?,
            Format::OpenaiResponses { stateful, .. } => {
                openai_responses::encode(request, model, params, stateful, resume)?
            }
            Format::Anthropic => anthropic::encode(request, model, params)?,
            Format::Gemini => gemini::encode(request, params, SchemaMode::JsonSchema)?,
            Format::GeminiInteractions { stateful } => {
                gemini_interactions::encode(request, model, params, stateful, resume)?
            }
        };
        if stream {
            match self.format {
                Format::OpenaiChat { .. } => {
                    body["stream"] = Value::Bool(true);
                    // Usage comes only when asked for, on a last chunk without choices.
                    body["stream_options"] = serde_json::json!({"include_usage": true});
                }
                Format::OpenaiResponses { .. } | Format::Anthropic => {
                    body["stream"] = Value::Bool(true);
                }
                // Gemini streams by endpoint, not by a body field.
                Format::Gemini | Format::GeminiInteractions { .. } => {}
            }
        }
        Ok(body)
    }

    /// A provider body as a canonical response, then the checks every format shares: call
    /// ids unique and present, a chained Interactions turn resumable; then the native parts
    /// stamped with the model and the invocation's next provider state attached (see
    /// [`continuation`]).
    fn finish(
        &self,
        request: &AgentModelRequest,
        reply: &Value,
    ) -> Result<AgentModelResponse, ModelError> {
        let tools = &request.tools;
        let mut response = match self.format {
            Format::OpenaiChat { .. } => openai_chat::decode(reply, tools),
            Format::OpenaiResponses { .. } => openai_responses::decode(reply, tools),
            Format::Anthropic => anthropic::decode(reply, tools),
            Format::Gemini => gemini::decode(reply, tools),
            Format::GeminiInteractions { .. } => gemini_interactions::decode(reply, tools),
        }?;
        response
            .validate_call_ids()
            .map_err(|e| contract(e.code(), e.to_string()))?;
        if let Format::GeminiInteractions { stateful: true } = self.format {
            gemini_interactions::check_chainable(&response)?;
        }
        let model = &self.connection.model;
        response.message.stamp_native_model(model);
        let answered = self.format.answered(
            self.connection.format.as_str(),
            request.messages.len(),
            anthropic::thinking_requested(&request.parameters, &self.connection.params),
        );
        response.provider_state = Some(continuation::next_state(
            &request.provider_state,
            &answered,
            &response,
        )?);
        Ok(response)
    }

    /// The format's stream assembler.
    fn assembler(&self) -> Box<dyn Assembler> {
        let redactor = self.redactor.clone();
        match self.format {
            Format::OpenaiChat { .. } => Box::new(openai_chat::ChatAssembler::new(redactor)),
            Format::OpenaiResponses { .. } => {
                Box::new(openai_responses::ResponsesAssembler::new(redactor))
            }
            Format::Anthropic => Box::new(anthropic::AnthropicAssembler::new(redactor)),
            Format::Gemini | Format::GeminiInteractions { .. } => {
                Box::new(gemini::GeminiAssembler::new(redactor))
            }
        }
    }

    /// Opens a streamed call: the classified failure of the request, or the assembled
    /// stream of its events (a server that ignored the request to stream and answered whole
    /// is read as a whole answer).
    async fn open_stream(
        &self,
        call: &ModelCall,
    ) -> Result<(AgentModelRequest, Opened<'_>), ModelError> {
        if let Some(sockets) = &self.sockets {
            return self.open_socket(sockets, call).await;
        }
        let (request, body) = self.prepare(call, true)?;
        let request = request.into_owned();
        let opened = self
            .http
            .post_stream(&self.stream_url, &self.headers(), &body, &self.redactor)
            .await?;
        let opened = match opened {
            crate::http::Streamed::Whole(reply) => Opened::Whole(reply),
            crate::http::Streamed::Events(response) => {
                let redactor = self.redactor.clone();
                Opened::Events(sse::assemble(
                    response.bytes_stream(),
                    self.assembler(),
                    move |e: reqwest::Error| crate::http::classify_transport(&e, &redactor),
                ))
            }
        };
        Ok((request, opened))
    }
}

impl HttpModelGateway {
    /// Opens a call over the invocation's socket (see [`websocket`]): the chained body and,
    /// for a new socket, the full one.
    async fn open_socket<'a>(
        &'a self,
        sockets: &'a Sockets,
        call: &ModelCall,
    ) -> Result<(AgentModelRequest, Opened<'a>), ModelError> {
        let request = self.checked(call)?;
        let resume = self.resume(&request)?;
        let bodies = websocket::Bodies {
            previous_id: resume.previous_id(),
            chained: self.body(&request, resume, false)?,
            full: Box::new(|| self.body(&request, Continuation::Full, false)),
        };
        let key = Sockets::key(&call.run_id, &call.invocation_id);
        let events = sockets.call(key, bodies, self.assembler()).await?;
        Ok((request.into_owned(), Opened::Events(events)))
    }
}

/// A streamed call once the provider answered.
enum Opened<'a> {
    Whole(Value),
    Events(BoxStream<'a, Result<sse::Assembled, ModelError>>),
}

/// Where a streamed call is.
enum Phase<'a> {
    Start(Box<ModelCall>),
    /// Deltas to hand out before the next read.
    Pending(
        Box<AgentModelRequest>,
        BoxStream<'a, Result<sse::Assembled, ModelError>>,
        std::vec::IntoIter<ModelDelta>,
    ),
    Done,
}

#[async_trait]
impl ModelGateway for HttpModelGateway {
    /// Encodes, posts and decodes one call answered whole (over a WebSocket: the streamed
    /// call, its deltas dropped).
    async fn generate(&self, call: ModelCall) -> Result<AgentModelResponse, ModelError> {
        if self.sockets.is_some() {
            let mut items = self.stream(call);
            while let Some(item) = items.next().await {
                if let ModelStreamItem::Completed(response) = item? {
                    return Ok(response);
                }
            }
            return Err(sse::interrupted("Responses WebSocket"));
        }
        let (request, body) = self.prepare(&call, false)?;
        let reply = self
            .http
            .post_json(&self.url, &self.headers(), &body, &self.redactor)
            .await?;
        self.finish(&request, &reply)
    }

    /// Streams when [`HttpModelGateway::streams`], else answers whole. A failed stream ends
    /// with its classified error and no response: the partial output is never assembled.
    fn stream(&self, call: ModelCall) -> BoxStream<'_, Result<ModelStreamItem, ModelError>> {
        if !self.streams() {
            return futures::stream::once(async move {
                self.generate(call).await.map(ModelStreamItem::Completed)
            })
            .boxed();
        }
        futures::stream::unfold(Phase::Start(Box::new(call)), move |phase| async move {
            let (item, next) = self.advance(phase).await?;
            Some((item, next))
        })
        .boxed()
    }

    /// Closes the invocation's socket (WebSocket transport; nothing to do over HTTP).
    fn end_invocation(&self, run_id: &RunId, invocation_id: &InvocationId) {
        if let Some(sockets) = &self.sockets {
            sockets.close(&Sockets::key(run_id, invocation_id));
        }
    }
}

impl HttpModelGateway {
    /// One step of a streamed call: the next item and where the call is then.
    async fn advance<'a>(
        &'a self,
        phase: Phase<'a>,
    ) -> Option<(Result<ModelStreamItem, ModelError>, Phase<'a>)> {
        let (request, mut events) = match phase {
            Phase::Done => return None,
            Phase::Start(call) => match self.open_stream(&call).await {
                Err(e) => return Some((Err(e), Phase::Done)),
                Ok((request, Opened::Whole(reply))) => {
                    let item = self
                        .finish(&request, &reply)
                        .map(ModelStreamItem::Completed);
                    return Some((item, Phase::Done));
                }
                Ok((request, Opened::Events(events))) => (Box::new(request), events),
            },
            Phase::Pending(request, events, mut deltas) => match deltas.next() {
                Some(delta) => {
                    let next = Phase::Pending(request, events, deltas);
                    return Some((Ok(ModelStreamItem::Delta(delta)), next));
                }
                None => (request, events),
            },
        };
        match events.next().await {
            None => Some((Err(sse::interrupted("event")), Phase::Done)),
            Some(Err(e)) => Some((Err(e), Phase::Done)),
            Some(Ok(sse::Assembled::Body(mut body))) => {
                self.redactor.redact_json(&mut body);
                let item = self.finish(&request, &body).map(ModelStreamItem::Completed);
                Some((item, Phase::Done))
            }
            Some(Ok(sse::Assembled::Deltas(deltas))) => {
                let mut deltas = deltas.into_iter();
                let first = deltas.next()?;
                let next = Phase::Pending(request, events, deltas);
                Some((Ok(ModelStreamItem::Delta(first)), next))
            }
        }
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
        assert_eq!(connection.format, ProviderFormat::OpenaiChat);
        assert!(connection.stream, "streaming unless turned off");
        assert_eq!(connection.base_url, "https://api.deepseek.com/v1");
        assert_eq!(connection.model, "default-model");
        assert_eq!(connection.dialect, ChatDialect::Deepseek, "from the host");
        assert_eq!(connection.api_key.as_deref(), Some("k"));
        assert_eq!(connection.params["temperature"], json!(0.2));

        let mut named = config.clone();
        named.dialect = Some("openrouter".into());
        let connection = HttpConnection::from_config(&named, Some("profile-model"), None);
        assert_eq!(connection.dialect, ChatDialect::Openrouter, "named wins");
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
