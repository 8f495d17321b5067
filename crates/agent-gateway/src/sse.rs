//! Streamed answers: server-sent events parsed by `eventsource-stream`, fed to a format's
//! [`Assembler`], which reports live [`ModelDelta`]s and, at the end, rebuilds the body the
//! same answer would have had unstreamed.
//!
//! Rebuilding the whole body (rather than decoding deltas into canonical parts) is the
//! design choice that keeps one decoder per format: a streamed call is decoded by exactly
//! the code that decodes a whole one, so ids, argument JSON, signatures, encrypted
//! reasoning and usage cannot drift between the two paths.
//!
//! Faults are classified like HTTP errors: an `error` event by the provider's code (the
//! shared classifier), a stream that ends before its terminal event as
//! `model.stream_interrupted` and event data that is not the promised JSON as
//! `model.upstream_invalid_response` (both transient, so retried), a gap between events
//! longer than the connection's timeout as `model.timeout`.

use agent_application::ports::{ModelDelta, ModelError, ModelErrorKind};
use eventsource_stream::{EventStreamError, Eventsource};
use futures::stream::{BoxStream, Stream, StreamExt};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::{Value, json};

use crate::http::{HttpReply, Redactor, UPSTREAM_INVALID_RESPONSE, classify_reply};

/// The code of a stream that ended before its terminal event.
pub const STREAM_INTERRUPTED: &str = "model.stream_interrupted";

/// Reads one format's events and rebuilds the unstreamed body.
pub trait Assembler: Send {
    /// One event (`event` is the SSE event name, often empty; `data` its data). Pushes the
    /// deltas it carries to `out`; answers the rebuilt body when this was the terminal
    /// event, after which nothing more is read.
    fn feed(
        &mut self,
        event: &str,
        data: &str,
        out: &mut Vec<ModelDelta>,
    ) -> Result<Option<Value>, ModelError>;

    /// The stream ended: the rebuilt body, if this format's stream may end without a
    /// terminal event (Gemini's does), else [`interrupted`].
    fn end(&mut self) -> Result<Value, ModelError>;
}

/// What an assembler makes of a stream: the deltas in order, then the body or a fault.
#[derive(Debug)]
pub enum Assembled {
    Deltas(Vec<ModelDelta>),
    Body(Value),
}

/// Drives `assembler` over the SSE byte stream `bytes`: yields batches of deltas, then
/// exactly one body or one error, then ends (dropping `bytes`, so the connection closes at
/// the terminal event). `transport` classifies a failure to read the bytes (a reset, an
/// idle timeout).
pub fn assemble<'a, S, B, E>(
    bytes: S,
    assembler: Box<dyn Assembler + 'a>,
    transport: impl Fn(E) -> ModelError + Send + 'a,
) -> BoxStream<'a, Result<Assembled, ModelError>>
where
    S: Stream<Item = Result<B, E>> + Send + 'a,
    B: AsRef<[u8]>,
    E: Send + 'a,
{
    let driver = Driver {
        events: Some(bytes.eventsource().boxed()),
        assembler,
        transport,
        last: None,
    };
    futures::stream::unfold(driver, |mut driver| async move {
        let item = driver.step().await?;
        Some((item, driver))
    })
    .boxed()
}

/// The state of [`assemble`]: the events still to read (none once the end is reached) and
/// the end held back while the deltas of the same event go out first.
struct Driver<'a, S, F> {
    events: Option<S>,
    assembler: Box<dyn Assembler + 'a>,
    transport: F,
    last: Option<Result<Assembled, ModelError>>,
}

impl<'a, S, F, E> Driver<'a, S, F>
where
    S: Stream<Item = Result<eventsource_stream::Event, EventStreamError<E>>> + Unpin,
    F: Fn(E) -> ModelError,
{
    async fn step(&mut self) -> Option<Result<Assembled, ModelError>> {
        if let Some(last) = self.last.take() {
            return Some(last);
        }
        let events = self.events.as_mut()?;
        loop {
            let end = match events.next().await {
                None => Some(self.assembler.end().map(Assembled::Body)),
                Some(Err(EventStreamError::Transport(e))) => Some(Err((self.transport)(e))),
                Some(Err(EventStreamError::Utf8(_))) => {
                    Some(Err(malformed("event data is not UTF-8")))
                }
                Some(Err(EventStreamError::Parser(e))) => Some(Err(malformed(&format!(
                    "unreadable event stream: {e}"
                )))),
                Some(Ok(event)) => {
                    let mut deltas = Vec::new();
                    let fed = self.assembler.feed(&event.event, &event.data, &mut deltas);
                    let end = match fed {
                        Ok(None) => None,
                        Ok(Some(body)) => Some(Ok(Assembled::Body(body))),
                        Err(e) => Some(Err(e)),
                    };
                    if !deltas.is_empty() {
                        if end.is_some() {
                            self.events = None;
                        }
                        self.last = end;
                        return Some(Ok(Assembled::Deltas(deltas)));
                    }
                    end
                }
            };
            if let Some(end) = end {
                self.events = None;
                return Some(end);
            }
        }
    }
}

/// Event data read as JSON; anything else is a malformed stream.
pub fn json(data: &str) -> Result<Value, ModelError> {
    serde_json::from_str(data).map_err(|e| malformed(&format!("event data is not JSON: {e}")))
}

/// Event data that is not what the format promises.
pub fn malformed(what: &str) -> ModelError {
    let mut error = ModelError::new(
        ModelErrorKind::Transient,
        format!("malformed event stream: {what}"),
    );
    error.code = UPSTREAM_INVALID_RESPONSE;
    error
}

/// A stream that ended before `format`'s terminal event.
pub fn interrupted(format: &str) -> ModelError {
    let mut error = ModelError::new(
        ModelErrorKind::Transient,
        format!("the {format} stream ended before its terminal event"),
    );
    error.code = STREAM_INTERRUPTED;
    error
}

/// An error the provider sent inside a stream, classified like the same error answered
/// over HTTP. `error` is the provider's error object (`{type, code, message, …}`).
pub fn provider_error(error: &Value, redactor: &Redactor) -> ModelError {
    let reply = HttpReply {
        status: 200,
        headers: HeaderMap::new(),
        body: json!({ "error": error }).to_string(),
    };
    match classify_reply(reply, redactor) {
        Err(mut classified) => {
            classified.status = None;
            classified.message = classified
                .message
                .replacen("HTTP 200", "error event in the stream", 1);
            classified
        }
        Ok(_) => malformed("an error event without an error"),
    }
}

/// An error event that names the HTTP status it stands for (the Responses WebSocket's
/// `{type: "error", status, error, headers}` frames), classified like the same error
/// answered over HTTP with that status and those headers; `None` without a status.
pub fn status_error(frame: &Value, redactor: &Redactor) -> Option<ModelError> {
    let status = frame.get("status").and_then(Value::as_u64)?;
    let status = u16::try_from(status).ok()?;
    let mut headers = HeaderMap::new();
    if let Some(given) = frame.get("headers").and_then(Value::as_object) {
        for (name, value) in given {
            let name = HeaderName::from_bytes(name.as_bytes());
            let value = value.as_str().map(HeaderValue::from_str);
            if let (Ok(name), Some(Ok(value))) = (name, value) {
                headers.insert(name, value);
            }
        }
    }
    let error = frame.get("error").cloned().unwrap_or(Value::Null);
    let reply = HttpReply {
        status,
        headers,
        body: json!({ "error": error }).to_string(),
    };
    classify_reply(reply, redactor).err()
}
