//! Streamable HTTP servers: the URL policy (HTTPS, or plain HTTP only to loopback, private
//! or local names), headers resolved at connect time, and a client that never follows
//! redirects, never retries and never reconnects an SSE stream.
//!
//! rmcp's reqwest client enforces the response limits but, once a response is refused, the
//! session just closes; [`LimitedClient`] wraps it to note that a limit was the reason, so the
//! failure is reported as `mcp.response_too_large` rather than a vanished server.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::StreamExt;
use futures::stream::BoxStream;
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

use agent_domain::mcp::{McpError, McpErrorKind, NamedValue};
use reqwest::Url;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::common::client_side_sse::NeverRetry;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use crate::limits::McpLimits;
use crate::stdio::resolve;

/// Checks the URL policy and builds the transport.
pub(crate) fn transport(
    url: &str,
    headers: &[NamedValue],
    limits: &McpLimits,
    oversized: &Arc<AtomicBool>,
) -> Result<StreamableHttpClientTransport<LimitedClient>, McpError> {
    check_url(url)?;
    let mut custom = HashMap::new();
    for entry in headers {
        let value = resolve(entry)?;
        let invalid = |what: &str| {
            McpError::new(
                McpErrorKind::UrlInvalid,
                format!("header `{}` has an invalid {what}", entry.name),
            )
        };
        let name = HeaderName::from_bytes(entry.name.as_bytes()).map_err(|_| invalid("name"))?;
        let value = HeaderValue::from_str(&value).map_err(|_| invalid("value"))?;
        custom.insert(name, value);
    }
    let client = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(limits.connect_timeout)
        .build()
        .map_err(|error| {
            McpError::new(
                McpErrorKind::ConnectFailed,
                format!("could not build the HTTP client: {error}"),
            )
        })?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(custom)
        .max_json_response_size(limits.response_bytes)
        .max_sse_event_size(limits.response_bytes)
        .reinit_on_expired_session(false);
    config.retry_config = Arc::new(NeverRetry::default());
    let client = LimitedClient {
        inner: client,
        oversized: Arc::clone(oversized),
    };
    Ok(StreamableHttpClientTransport::with_client(client, config))
}

/// rmcp's reqwest client, noting in `oversized` when a response broke a size limit.
#[derive(Clone)]
pub(crate) struct LimitedClient {
    inner: reqwest::Client,
    oversized: Arc<AtomicBool>,
}

type Result_<T> = Result<T, StreamableHttpError<reqwest::Error>>;
type SseStream = BoxStream<'static, Result<sse_stream::Sse, sse_stream::Error>>;

impl LimitedClient {
    fn note<T>(&self, result: Result_<T>) -> Result_<T> {
        if let Err(error) = &result
            && crate::session::says_too_large(error)
        {
            self.oversized.store(true, Ordering::SeqCst);
        }
        result
    }

    fn watch(&self, stream: SseStream) -> SseStream {
        let oversized = Arc::clone(&self.oversized);
        stream
            .inspect(move |item| {
                if let Err(error) = item
                    && crate::session::says_too_large(error)
                {
                    oversized.store(true, Ordering::SeqCst);
                }
            })
            .boxed()
    }
}

impl StreamableHttpClient for LimitedClient {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result_<StreamableHttpPostResponse> {
        let response = self
            .inner
            .post_message(uri, message, session_id, auth_header, custom_headers)
            .await;
        self.note(response)
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result_<StreamableHttpPostResponse> {
        let response = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        match self.note(response)? {
            StreamableHttpPostResponse::Sse(stream, id) => {
                Ok(StreamableHttpPostResponse::Sse(self.watch(stream), id))
            }
            other => Ok(other),
        }
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result_<()> {
        self.inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result_<SseStream> {
        let stream = self
            .inner
            .get_stream(uri, session_id, last_event_id, auth_header, custom_headers)
            .await;
        self.note(stream).map(|stream| self.watch(stream))
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result_<SseStream> {
        let stream = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.note(stream).map(|stream| self.watch(stream))
    }
}

/// HTTPS anywhere; plain HTTP only where traffic stays on this machine or network. Hosts
/// call it before saving a registration, so one that could never connect is refused early.
pub fn check_url(raw: &str) -> Result<(), McpError> {
    let url = Url::parse(raw).map_err(|error| {
        McpError::new(
            McpErrorKind::UrlInvalid,
            format!("`{raw}` is not a valid URL: {error}"),
        )
    })?;
    match url.scheme() {
        "https" => Ok(()),
        "http" if url.host_str().is_some_and(is_local_host) => Ok(()),
        "http" => Err(McpError::new(
            McpErrorKind::InsecureUrl,
            format!(
                "`{raw}` uses plain HTTP to a public host; use https:// (plain HTTP is only \
                 allowed for loopback, private and .local/.localhost hosts)"
            ),
        )),
        other => Err(McpError::new(
            McpErrorKind::UrlInvalid,
            format!("`{raw}` has scheme `{other}`; MCP servers are reached over http(s)"),
        )),
    }
}

fn is_local_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if let Ok(ip) = host.parse::<IpAddr>() {
        return match ip {
            IpAddr::V4(v4) => v4.is_loopback() || v4.is_private() || v4.is_link_local(),
            IpAddr::V6(v6) => {
                v6.is_loopback() || v6.is_unique_local() || v6.is_unicast_link_local()
            }
        };
    }
    let host = host.to_ascii_lowercase();
    host == "localhost" || host.ends_with(".localhost") || host.ends_with(".local")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_is_only_for_hosts_that_stay_local() {
        for ok in [
            "https://mcp.example.com/mcp",
            "http://127.0.0.1:8080/mcp",
            "http://localhost/mcp",
            "http://[::1]:9/mcp",
            "http://192.168.1.4/mcp",
            "http://10.0.0.2/mcp",
            "http://printer.local/mcp",
        ] {
            assert!(check_url(ok).is_ok(), "{ok}");
        }
        let code = |url: &str| check_url(url).unwrap_err().kind.code();
        assert_eq!(code("http://mcp.example.com/mcp"), "mcp.insecure_url");
        assert_eq!(code("http://8.8.8.8/mcp"), "mcp.insecure_url");
        assert_eq!(code("ftp://localhost/mcp"), "mcp.url_invalid");
        assert_eq!(code("not a url"), "mcp.url_invalid");
    }
}
