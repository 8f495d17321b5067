//! What talking to an MCP server can come back with: a known outcome of a tool call, or an
//! [`McpError`] whose code names the rule or failure (facts of wire limits, timeouts and
//! transport failures), with whether a call may already have run.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::error::ErrorCode;

/// One content block of a tool result. Text is kept; other kinds are kept raw so the audit
/// has them, and the projection turns them into notes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum McpContent {
    Text { text: String },
    Other { kind: String, raw: Value },
}

/// A `tools/call` result the server answered with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolResult {
    pub is_error: bool,
    pub content: Vec<McpContent>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
}

/// A known response to a tool call: the server answered, so the call's fate is known.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum McpCallOutcome {
    /// A result (which may itself say `isError`).
    #[serde(rename_all = "camelCase")]
    Result { result: McpToolResult },
    /// A JSON-RPC error response.
    #[serde(rename_all = "camelCase")]
    ServerError {
        code: i64,
        message: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        data: Option<Value>,
    },
    /// A response of a shape this client does not handle (a task, an input request).
    #[serde(rename_all = "camelCase")]
    Unsupported {
        response_type: String,
        message: String,
    },
}

/// Why talking to a server failed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum McpErrorKind {
    /// An environment variable the registration names is not set.
    EnvVarMissing,
    /// The stdio program could not be started.
    SpawnFailed,
    /// Plain HTTP to a host that is not loopback, private or local.
    InsecureUrl,
    /// The URL or a header does not parse.
    UrlInvalid,
    /// The connection or the initialize handshake failed.
    ConnectFailed,
    /// The initialize handshake did not finish in time.
    ConnectTimeout,
    /// A listing or call did not get its answer in time.
    RequestTimeout,
    /// The server went away (process exit, connection drop) before answering.
    TransportClosed,
    /// The server answered something that is not a valid response.
    ProtocolError,
    /// One response was larger than the response limit.
    ResponseTooLarge,
    /// One tool definition was larger than its limit.
    ToolDefinitionTooLarge,
    /// The whole catalog was larger than its limit.
    CatalogTooLarge,
    /// The catalog took more pages than allowed.
    CatalogTooManyPages,
    /// The catalog listed more tools than allowed.
    CatalogTooManyTools,
    /// The call's arguments were larger than their limit.
    ArgumentsTooLarge,
    /// The call was cancelled before or while it ran.
    Cancelled,
    /// The server failed the tools listing with a JSON-RPC error.
    ListingFailed,
}

impl McpErrorKind {
    /// The stable code.
    pub fn code(self) -> &'static str {
        match self {
            Self::EnvVarMissing => "mcp.env_var_missing",
            Self::SpawnFailed => "mcp.spawn_failed",
            Self::InsecureUrl => "mcp.insecure_url",
            Self::UrlInvalid => "mcp.url_invalid",
            Self::ConnectFailed => "mcp.connect_failed",
            Self::ConnectTimeout => "mcp.connect_timeout",
            Self::RequestTimeout => "mcp.request_timeout",
            Self::TransportClosed => "mcp.transport_closed",
            Self::ProtocolError => "mcp.protocol_error",
            Self::ResponseTooLarge => "mcp.response_too_large",
            Self::ToolDefinitionTooLarge => "mcp.tool_definition_too_large",
            Self::CatalogTooLarge => "mcp.catalog_too_large",
            Self::CatalogTooManyPages => "mcp.catalog_too_many_pages",
            Self::CatalogTooManyTools => "mcp.catalog_too_many_tools",
            Self::ArgumentsTooLarge => "mcp.call_arguments_size_limit",
            Self::Cancelled => "mcp.call_cancelled",
            Self::ListingFailed => "mcp.listing_failed",
        }
    }
}

/// A failure talking to a server.
///
/// `sent` says whether a tool call's request had left this client: when it had, the server
/// may have run the tool, so the call's outcome is unknown and must not be retried.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct McpError {
    pub kind: McpErrorKind,
    pub message: String,
    pub sent: bool,
}

impl McpError {
    /// A failure before anything was sent.
    pub fn new(kind: McpErrorKind, message: impl Into<String>) -> Self {
        Self {
            kind,
            message: message.into(),
            sent: false,
        }
    }

    /// The same failure, marked as having happened after the call was sent.
    pub fn after_send(mut self) -> Self {
        self.sent = true;
        self
    }
}

impl ErrorCode for McpError {
    fn code(&self) -> &'static str {
        self.kind.code()
    }
}
