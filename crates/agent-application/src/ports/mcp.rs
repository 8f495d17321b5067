//! MCP servers: open a session with a registered server, list its tools (every page), call
//! one tool, close. The adapter owns the protocol; this port speaks domain types only.

use agent_domain::mcp::{McpCallOutcome, McpError, McpToolDefinition, McpTransport};
use async_trait::async_trait;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

/// Something a server said on the side of a request: progress or a log message. Notices
/// are delivered without waiting, so a slow consumer never blocks a call.
#[derive(Debug, Clone, PartialEq)]
pub enum McpNotice {
    Progress {
        progress: f64,
        total: Option<f64>,
        message: Option<String>,
    },
    Log {
        level: String,
        data: Value,
    },
}

/// Where a session delivers its [`McpNotice`]s.
pub trait McpNoticeSink: Send + Sync {
    fn notice(&self, notice: McpNotice);
}

/// Opens sessions with servers.
#[async_trait]
pub trait McpConnector: Send + Sync {
    /// Starts (stdio) or connects to (HTTP) the server and completes the handshake.
    /// Environment variables named by the transport are read now.
    async fn connect(
        &self,
        transport: &McpTransport,
        notices: std::sync::Arc<dyn McpNoticeSink>,
    ) -> Result<Box<dyn McpSession>, McpError>;
}

/// One open session. Dropping it ends it too (a stdio server's process group is killed);
/// [`McpSession::close`] ends it politely first.
#[async_trait]
pub trait McpSession: Send + Sync + std::fmt::Debug {
    /// Every tool of the server, following pages, within the catalog limits.
    async fn list_tools(&self) -> Result<Vec<McpToolDefinition>, McpError>;
    /// Calls the native tool `name`. When `cancel` fires the request is abandoned (the
    /// server is told) and the error says whether it had been sent.
    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<McpCallOutcome, McpError>;
    /// Ends the session and, for stdio, the server's process group.
    async fn close(self: Box<Self>);
}
