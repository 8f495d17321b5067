//! MCP servers: open a session with a registered server, list its tools (every page), call
//! one tool, close; and the registry where registrations and cached catalogs are kept. The
//! adapters own the protocol and the files; these ports speak domain types only.

use agent_domain::mcp::{
    McpCallOutcome, McpCatalog, McpError, McpRegistration, McpToolDefinition, McpTransport,
};
use async_trait::async_trait;
use serde::Serialize;
use serde_json::{Map, Value};
use tokio_util::sync::CancellationToken;

use super::StoreError;

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

/// One open session, shared by the calls of a run. Dropping it ends it too (a stdio
/// server's process group is killed); [`McpSession::close`] ends it politely first.
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
    /// Ends the session and, for stdio, the server's process group. Calls after it fail.
    async fn close(&self);
}

/// What a registration listing found: the usable registrations and the stored ones that
/// are not (reported, never fatal, so one broken file does not hide the others).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct McpRegistrationList {
    /// Sorted by display name (case-insensitive), then id.
    pub registrations: Vec<McpRegistration>,
    pub problems: Vec<McpRegistrationProblem>,
}

/// A stored registration that does not read; its code is `mcp.registration_storage_issue`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpRegistrationProblem {
    /// The file's name without `.json`.
    pub id: String,
    pub code: String,
    pub message: String,
}

/// Where registrations and their cached catalogs are kept. Ids are registration UUIDs;
/// a malformed id is refused (`mcp.registration_id_invalid`) before anything is looked up.
#[async_trait]
pub trait McpRegistry: Send + Sync {
    async fn list(&self) -> Result<McpRegistrationList, StoreError>;
    async fn get(&self, id: &str) -> Result<Option<McpRegistration>, StoreError>;
    /// Stores the registration, replacing any of its id atomically.
    async fn put(&self, registration: &McpRegistration) -> Result<(), StoreError>;
    /// Removes the registration and its cached catalog; `agent.not_found` when absent.
    async fn remove(&self, id: &str) -> Result<(), StoreError>;
    /// The cached catalog; `None` when the server was never refreshed.
    async fn catalog(&self, id: &str) -> Result<Option<McpCatalog>, StoreError>;
    /// Replaces the cached catalog atomically.
    async fn put_catalog(&self, catalog: &McpCatalog) -> Result<(), StoreError>;
}
