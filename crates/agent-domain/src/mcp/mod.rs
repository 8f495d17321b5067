//! MCP servers as tool sources: what a registration says, what a cached catalog holds and
//! what one tool call can come back with.
//!
//! These are the neutral types the application and its MCP port share; the wire protocol and
//! its SDK stay in the `agent-mcp` adapter. A registration never holds a secret: an env entry
//! or header may instead name an environment variable that is read when the server is
//! started or called.

mod catalog;
mod outcome;
mod projection;
mod registration;

pub use catalog::{McpCatalog, McpToolDefinition};
pub use outcome::{McpCallOutcome, McpContent, McpError, McpErrorKind, McpToolResult};
pub use projection::{EMPTY_RESULT, READABLE_LINE_CHARS, hard_wrap, prefix_preview, project};
pub use registration::{
    MCP_REGISTRATION_SCHEMA_VERSION, McpRegistration, McpRegistrationError, McpServerStatus,
    McpToolPermission, McpTransport, McpValue, NamedValue, registration_id,
    registration_id_from_hex, validate_display_name,
};
