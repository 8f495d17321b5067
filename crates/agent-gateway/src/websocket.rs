//! The OpenAI Responses WebSocket transport (`transport: "responses_websocket"`): one
//! persistent socket per invocation, a `response.create` message per call, answered by the
//! same events a server-sent stream carries.
//!
//! The sockets live here, in the adapter: [`Sockets`] keeps each invocation's socket
//! between its calls (keyed by the run and invocation a [`ModelCall`] names), closes it
//! when the runtime ends the invocation (`ModelGateway::end_invocation`), and closes any
//! left when the gateway is dropped. A call takes its invocation's socket out of the pool and puts it back only after
//! the terminal event, so a failed or cancelled call closes its socket and the next call
//! starts on a fresh one.
//!
//! What a socket remembers decides what a call sends: the server keeps the last response of
//! a connection in memory, so only a call on the socket that answered the provider state's
//! `previousResponseId` chains onto it (`previous_response_id` and only the input after the
//! `messageCursor`); a call on a new socket replays the full input without a predecessor.
//! A pooled socket that turns out dead (the send fails, it closes before the first event)
//! or has reached the server's 60-minute cap (`websocket_connection_limit_reached`) is
//! replaced once, replaying the full input.
//!
//! Events are decoded by the format's stream assembler, exactly as over SSE; only the
//! framing differs. Errors are classified by the shared HTTP table.
//!
//! [`ModelCall`]: agent_application::ports::ModelCall

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;

use agent_application::ports::{ModelDelta, ModelError, ModelErrorKind};
use agent_domain::run::{InvocationId, RunId};
use futures::stream::{BoxStream, StreamExt};
use futures::SinkExt;
use serde_json::{Map, Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::client::IntoClientRequest;
use tokio_tungstenite::tungstenite::http::{HeaderName, HeaderValue};
use tokio_tungstenite::tungstenite::error::ProtocolError;
use tokio_tungstenite::tungstenite::{Error as WsError, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

use crate::http::{HttpReply, HttpTimeouts, Redactor, classify_reply};
use crate::sse::{self, Assembled, Assembler};

/// The provider code of a socket that reached the server's connection age cap.
pub const CONNECTION_LIMIT: &str = "websocket_connection_limit_reached";

/// The code of a socket that failed below the events (a reset, a refused upgrade without a
/// status).
pub const CONNECTION_FAILED: &str = "model.connection_failed";

type Stream = WebSocketStream<MaybeTlsStream<TcpStream>>;

/// One open socket and the last response it answered (the one a call may chain onto).
struct Socket {
    stream: Stream,
    last_response_id: Option<String>,
}

/// The sockets of one connection, by invocation.
pub struct Sockets {
    url: String,
    headers: Vec<(String, String)>,
    timeouts: HttpTimeouts,
    redactor: Redactor,
    idle: Mutex<HashMap<String, Socket>>,
}

impl std::fmt::Debug for Sockets {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sockets")
            .field("url", &self.redactor.redact(&self.url))
            .finish_non_exhaustive()
    }
}

/// The body of one call, as the turn needs it: `chained` (with `previous_response_id` and
/// the incremental input, when the provider state names a predecessor) and the full input.
pub struct Bodies<'b> {
    /// The predecessor the chained body names, if any.
    pub previous_id: Option<&'b str>,
    pub chained: Value,
    /// Builds the body that replays the full input (no predecessor).
    pub full: Box<dyn FnOnce() -> Result<Value, ModelError> + Send + 'b>,
}

impl std::fmt::Debug for Bodies<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bodies")
            .field("previous_id", &self.previous_id)
            .finish_non_exhaustive()
    }
}

/// The socket URL of a Responses base: `ws://` / `wss://` as given, `http(s)://` turned into
/// `ws(s)://`; then `/responses`.
pub fn socket_url(base_url: &str) -> String {
    let base = base_url.trim_end_matches('/');
    let base = if let Some(rest) = strip_scheme(base, "https://") {
        format!("wss://{rest}")
    } else if let Some(rest) = strip_scheme(base, "http://") {
        format!("ws://{rest}")
    } else {
        base.to_owned()
    };
    format!("{base}/responses")
}

fn strip_scheme<'a>(url: &'a str, scheme: &str) -> Option<&'a str> {
    url.get(..scheme.len())
        .filter(|s| s.eq_ignore_ascii_case(scheme))
        .map(|_| &url[scheme.len()..])
}

impl Sockets {
    pub fn new(
        url: String,
        headers: Vec<(String, String)>,
        timeouts: HttpTimeouts,
        redactor: Redactor,
    ) -> Self {
        Self {
            url,
            headers,
            timeouts,
            redactor,
            idle: Mutex::new(HashMap::new()),
        }
    }

    /// The pool key of an invocation.
    pub fn key(run_id: &RunId, invocation_id: &InvocationId) -> String {
        format!("{run_id}/{invocation_id}")
    }

    /// Closes the invocation's socket, if one is kept.
    pub fn close(&self, key: &str) {
        let socket = self.idle.lock().ok().and_then(|mut idle| idle.remove(key));
        drop(socket);
    }

    /// Starts one call of the invocation `key`: sends `response.create` on the invocation's
    /// socket (or a new one, see the module doc) and answers the stream of assembled
    /// events. The socket goes back to the pool after the terminal event.
    pub async fn call<'a>(
        &'a self,
        key: String,
        bodies: Bodies<'_>,
        assembler: Box<dyn Assembler>,
    ) -> Result<BoxStream<'a, Result<Assembled, ModelError>>, ModelError> {
        let pooled = self.idle.lock().ok().and_then(|mut idle| idle.remove(&key));
        let mut full = Some(bodies.full);
        let mut full_body = move || match full.take() {
            Some(build) => build(),
            None => Err(sse::malformed("the full input was built twice")),
        };
        let mut replay = None;
        if let Some(mut socket) = pooled {
            let continues = bodies.previous_id.is_some()
                && socket.last_response_id.as_deref() == bodies.previous_id;
            let body = if continues || bodies.previous_id.is_none() {
                bodies.chained
            } else {
                full_body()?
            };
            let is_full = !continues;
            match self.start(&mut socket.stream, &body).await {
                Ok(first) if !reached_limit(&first) => {
                    return Ok(self.events(key, socket, first, assembler));
                }
                // Dead or too old: replace it once, with the full input.
                _ => replay = is_full.then_some(body),
            }
        } else if bodies.previous_id.is_none() {
            replay = Some(bodies.chained);
        }
        let body = match replay {
            Some(body) => body,
            None => full_body()?,
        };
        let mut socket = self.connect().await?;
        let first = self
            .start(&mut socket.stream, &body)
            .await
            .map_err(|e| e.unwrap_or_else(|| sse::interrupted("Responses WebSocket")))?;
        Ok(self.events(key, socket, first, assembler))
    }

    /// Opens a socket with the connection's headers (the key as `Authorization: Bearer`).
    async fn connect(&self) -> Result<Socket, ModelError> {
        let mut request = self
            .url
            .as_str()
            .into_client_request()
            .map_err(|e| self.failed(&e))?;
        for (name, value) in &self.headers {
            let name = HeaderName::from_bytes(name.as_bytes());
            let value = HeaderValue::from_str(value);
            if let (Ok(name), Ok(value)) = (name, value) {
                request.headers_mut().insert(name, value);
            }
        }
        let connecting = tokio_tungstenite::connect_async(request);
        let (stream, _) = match tokio::time::timeout(self.timeouts.connect, connecting).await {
            Err(_) => return Err(timeout("connecting the WebSocket")),
            Ok(Err(WsError::Http(response))) => {
                let reply = HttpReply {
                    status: response.status().as_u16(),
                    headers: response.headers().clone(),
                    body: response
                        .body()
                        .as_deref()
                        .map(|b| String::from_utf8_lossy(b).into_owned())
                        .unwrap_or_default(),
                };
                return Err(match classify_reply(reply, &self.redactor) {
                    Err(error) => error,
                    Ok(_) => sse::malformed("the server refused the WebSocket upgrade"),
                });
            }
            Ok(Err(e)) => return Err(self.failed(&e)),
            Ok(Ok(opened)) => opened,
        };
        Ok(Socket {
            stream,
            last_response_id: None,
        })
    }

    /// Sends one `response.create` and reads the first event's text. `Err(None)`: the
    /// socket closed before it (a dead pooled socket, worth one reconnect).
    async fn start(&self, stream: &mut Stream, body: &Value) -> Result<String, Option<ModelError>> {
        let message = create_message(body);
        stream
            .send(Message::text(message.to_string()))
            .await
            .map_err(|_| None)?;
        match self.next_text(stream).await {
            Ok(Some(text)) => Ok(text),
            Ok(None) => Err(None),
            Err(e) => Err(Some(e)),
        }
    }

    /// The next text frame, `None` when the socket closed. Pings are answered by the
    /// library while reading; a gap longer than the connection's timeout is `model.timeout`.
    async fn next_text(&self, stream: &mut Stream) -> Result<Option<String>, ModelError> {
        loop {
            let read = tokio::time::timeout(self.timeouts.request, stream.next()).await;
            match read {
                Err(_) => return Err(timeout("waiting for the next WebSocket event")),
                Ok(
                    None
                    | Some(Err(
                        WsError::ConnectionClosed
                        | WsError::AlreadyClosed
                        | WsError::Protocol(ProtocolError::ResetWithoutClosingHandshake),
                    )),
                ) => return Ok(None),
                Ok(Some(Err(e))) => return Err(self.failed(&e)),
                Ok(Some(Ok(Message::Text(text)))) => return Ok(Some(text.as_str().to_owned())),
                Ok(Some(Ok(Message::Close(_)))) => return Ok(None),
                Ok(Some(Ok(Message::Binary(_)))) => {
                    return Err(sse::malformed("a binary WebSocket frame"));
                }
                Ok(Some(Ok(_))) => {}
            }
        }
    }

    /// The events of one call, starting with `first`, fed to `assembler`; the socket goes
    /// back to the pool under `key` after the terminal event, remembering its response.
    fn events<'a>(
        &'a self,
        key: String,
        socket: Socket,
        first: String,
        assembler: Box<dyn Assembler>,
    ) -> BoxStream<'a, Result<Assembled, ModelError>> {
        let turn = Turn {
            key,
            socket: Some(socket),
            first: Some(first),
            assembler,
            ready: VecDeque::new(),
        };
        futures::stream::unfold(turn, move |mut turn| async move {
            let item = turn.step(self).await?;
            Some((item, turn))
        })
        .boxed()
    }

    fn failed(&self, error: &WsError) -> ModelError {
        let mut model_error = ModelError::new(
            ModelErrorKind::Transient,
            format!(
                "the WebSocket failed: {}",
                self.redactor.redact(&error.to_string())
            ),
        );
        model_error.code = CONNECTION_FAILED;
        model_error
    }
}

/// One call's events: the socket while it is read (`None` once the call is over), the
/// first frame `start` already read, and the items of a frame still to hand out.
struct Turn {
    key: String,
    socket: Option<Socket>,
    first: Option<String>,
    assembler: Box<dyn Assembler>,
    ready: VecDeque<Result<Assembled, ModelError>>,
}

impl Turn {
    async fn step(&mut self, sockets: &Sockets) -> Option<Result<Assembled, ModelError>> {
        loop {
            if let Some(item) = self.ready.pop_front() {
                return Some(item);
            }
            let socket = self.socket.as_mut()?;
            let text = match self.first.take() {
                Some(text) => text,
                None => match sockets.next_text(&mut socket.stream).await {
                    Ok(Some(text)) => text,
                    Ok(None) => {
                        self.socket = None;
                        return Some(Err(sse::interrupted("Responses WebSocket")));
                    }
                    Err(e) => {
                        self.socket = None;
                        return Some(Err(e));
                    }
                },
            };
            let mut deltas: Vec<ModelDelta> = Vec::new();
            let fed = self.assembler.feed("", &text, &mut deltas);
            if !deltas.is_empty() {
                self.ready.push_back(Ok(Assembled::Deltas(deltas)));
            }
            match fed {
                Ok(None) => {}
                Ok(Some(body)) => {
                    if let Some(mut socket) = self.socket.take() {
                        socket.last_response_id =
                            body.get("id").and_then(Value::as_str).map(str::to_owned);
                        if let Ok(mut idle) = sockets.idle.lock() {
                            idle.insert(std::mem::take(&mut self.key), socket);
                        }
                    }
                    self.ready.push_back(Ok(Assembled::Body(body)));
                }
                Err(e) => {
                    self.socket = None;
                    self.ready.push_back(Err(e));
                }
            }
        }
    }
}

/// `{"type": "response.create", …the HTTP body…}` without `stream` (a socket always
/// streams) and `background` (not spoken over a socket).
pub fn create_message(body: &Value) -> Value {
    let mut message = Map::new();
    message.insert("type".into(), json!("response.create"));
    if let Some(fields) = body.as_object() {
        for (key, value) in fields {
            if key != "stream" && key != "background" {
                message.insert(key.clone(), value.clone());
            }
        }
    }
    Value::Object(message)
}

/// Whether the first event of a call says the socket reached the server's age cap.
fn reached_limit(first: &str) -> bool {
    serde_json::from_str::<Value>(first).is_ok_and(|event| {
        event.get("type").and_then(Value::as_str) == Some("error")
            && event
                .get("error")
                .and_then(|e| e.get("code"))
                .and_then(Value::as_str)
                == Some(CONNECTION_LIMIT)
    })
}

fn timeout(what: &str) -> ModelError {
    let mut error = ModelError::new(ModelErrorKind::Timeout, format!("timed out {what}"));
    error.code = "model.timeout";
    error
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_socket_url_follows_the_base() {
        assert_eq!(
            socket_url("https://api.openai.com/v1/"),
            "wss://api.openai.com/v1/responses"
        );
        assert_eq!(socket_url("http://127.0.0.1:9/v1"), "ws://127.0.0.1:9/v1/responses");
        assert_eq!(socket_url("wss://h/v1"), "wss://h/v1/responses");
    }

    #[test]
    fn a_create_message_drops_what_a_socket_does_not_speak() {
        let message = create_message(&json!({"model": "m", "stream": true, "input": []}));
        assert_eq!(
            message,
            json!({"type": "response.create", "model": "m", "input": []})
        );
    }

    #[test]
    fn the_age_cap_is_recognised_and_error_frames_keep_their_status() {
        let cap = json!({"type": "error", "status": 400,
            "error": {"type": "invalid_request_error", "code": CONNECTION_LIMIT,
                      "message": "Responses websocket connection limit reached (60 minutes)."}});
        assert!(reached_limit(&cap.to_string()));
        assert!(!reached_limit(r#"{"type":"response.created"}"#));
        let error = sse::status_error(&cap, &Redactor::default()).unwrap();
        assert_eq!(error.kind, ModelErrorKind::Transient, "retried after reconnecting");
        let limited = json!({"type": "error", "status": 429,
            "error": {"type": "requests", "code": "rate_limit_exceeded", "message": "slow"},
            "headers": {"retry-after-ms": "1500"}});
        let error = sse::status_error(&limited, &Redactor::default()).unwrap();
        assert_eq!(error.code, "model.rate_limited");
        assert_eq!(error.retry_after_ms, Some(1500));
        assert_eq!(error.status, Some(429));
        assert!(sse::status_error(&json!({"type": "error"}), &Redactor::default()).is_none());
    }
}
