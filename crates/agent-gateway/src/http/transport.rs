//! [`ProviderHttp`]: one `reqwest` client with the timeouts a model call needs, and a
//! JSON POST that hands back either a parsed success body or a classified error.

use std::time::Duration;

use agent_application::ports::{ModelError, ModelErrorKind};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;

use super::{Redactor, classify_reply, classify_transport};

/// Connect and whole-request timeouts. Model calls are slow (long reasoning, long
/// outputs), so the request timeout is generous; connecting should be quick.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HttpTimeouts {
    pub connect: Duration,
    pub request: Duration,
}

impl Default for HttpTimeouts {
    fn default() -> Self {
        Self {
            connect: Duration::from_secs(30),
            request: Duration::from_secs(600),
        }
    }
}

impl HttpTimeouts {
    /// The default timeouts with the request timeout a saved connection sets, if any.
    pub fn for_config(config: &agent_domain::connection::ConnectionConfig) -> Self {
        let default = Self::default();
        Self {
            request: config
                .request_timeout_secs
                .map_or(default.request, Duration::from_secs),
            ..default
        }
    }
}

/// A response that arrived: status, headers and the whole body as text.
#[derive(Debug, Clone)]
pub struct HttpReply {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: String,
}

/// The HTTP client every provider format posts through.
#[derive(Debug, Clone)]
pub struct ProviderHttp {
    client: reqwest::Client,
    /// For streamed calls: no limit on the whole answer (a long reply streams for as long
    /// as it takes), but the request timeout between two reads, so a stalled stream fails.
    streaming: reqwest::Client,
}

/// The answer to a streamed request.
#[derive(Debug)]
pub enum Streamed {
    /// A 2xx event stream, still to be read.
    Events(reqwest::Response),
    /// A 2xx whole JSON answer from a server that ignored the request to stream, redacted.
    Whole(Value),
}

impl ProviderHttp {
    /// A client with `timeouts`.
    pub fn new(timeouts: HttpTimeouts) -> Result<Self, ModelError> {
        let failed = |e: reqwest::Error| {
            ModelError::new(
                ModelErrorKind::Other,
                format!("cannot build the HTTP client: {e}"),
            )
        };
        let client = reqwest::Client::builder()
            .connect_timeout(timeouts.connect)
            .timeout(timeouts.request)
            .build()
            .map_err(failed)?;
        let streaming = reqwest::Client::builder()
            .connect_timeout(timeouts.connect)
            .read_timeout(timeouts.request)
            .build()
            .map_err(failed)?;
        Ok(Self { client, streaming })
    }

    /// POSTs `body` asking for an event stream. A 2xx `text/event-stream` answer comes back
    /// unread; any other answer is read whole and classified exactly as
    /// [`post_json`](Self::post_json) would (so errors look the same either way).
    pub async fn post_stream(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &Value,
        redactor: &Redactor,
    ) -> Result<Streamed, ModelError> {
        let response = self
            .streaming
            .post(url)
            .headers(header_map(headers)?)
            .header(reqwest::header::ACCEPT, "text/event-stream")
            .json(body)
            .send()
            .await
            .map_err(|e| classify_transport(&e, redactor))?;
        let is_events = response
            .headers()
            .get(reqwest::header::CONTENT_TYPE)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.starts_with("text/event-stream"));
        if response.status().is_success() && is_events {
            return Ok(Streamed::Events(response));
        }
        read_whole(response, redactor).await.map(Streamed::Whole)
    }

    /// POSTs `body` as JSON to `url` with `headers` and returns the parsed JSON body of a
    /// successful answer, every string of it redacted (a server that echoes a key into a
    /// reply must not put it into the transcript or a decoder's error). Non-2xx answers,
    /// 2xx answers carrying an `error` envelope, non-JSON bodies and transport failures all
    /// come back as classified errors whose text has passed through `redactor`.
    pub async fn post_json(
        &self,
        url: &str,
        headers: &[(String, String)],
        body: &Value,
        redactor: &Redactor,
    ) -> Result<Value, ModelError> {
        let header_map = header_map(headers)?;
        let response = self
            .client
            .post(url)
            .headers(header_map)
            .json(body)
            .send()
            .await
            .map_err(|e| classify_transport(&e, redactor))?;
        read_whole(response, redactor).await
    }
}

/// Reads an answer whole: its redacted JSON body, or the classified failure.
async fn read_whole(response: reqwest::Response, redactor: &Redactor) -> Result<Value, ModelError> {
    let status = response.status().as_u16();
    let headers = response.headers().clone();
    let body = response
        .text()
        .await
        .map_err(|e| classify_transport(&e, redactor))?;
    let mut parsed = classify_reply(
        HttpReply {
            status,
            headers,
            body,
        },
        redactor,
    )?;
    redactor.redact_json(&mut parsed);
    Ok(parsed)
}

/// Builds the header map. A bad header names only the header, never its value (it may
/// be a key).
fn header_map(headers: &[(String, String)]) -> Result<HeaderMap, ModelError> {
    let mut map = HeaderMap::new();
    for (name, value) in headers {
        let invalid = || {
            let mut e = ModelError::new(
                ModelErrorKind::InvalidRequest,
                format!("header `{name}` is not a valid HTTP header"),
            );
            e.code = "model.invalid_header";
            e
        };
        let name = HeaderName::from_bytes(name.as_bytes()).map_err(|_| invalid())?;
        let mut value = HeaderValue::from_str(value).map_err(|_| invalid())?;
        if name == reqwest::header::AUTHORIZATION || name.as_str().contains("key") {
            value.set_sensitive(true);
        }
        map.append(name, value);
    }
    Ok(map)
}
