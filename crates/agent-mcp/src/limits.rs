//! Wire limits and timeouts of one client. The defaults are the documented ones
//! (`docs/mcp.md`); tests shrink them to reach each limit quickly.

use std::time::Duration;

/// Every bound a session enforces, each reported with its own `mcp.*` code when crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct McpLimits {
    /// One response (a stdio line, an HTTP JSON body or one SSE event).
    pub response_bytes: usize,
    /// The serialised arguments of one call.
    pub call_arguments_bytes: usize,
    /// One tool definition as listed.
    pub tool_definition_bytes: usize,
    /// All tool definitions of a server together.
    pub catalog_bytes: usize,
    pub catalog_pages: usize,
    pub catalog_tools: usize,
    /// Starting the server or opening the connection, and the initialize handshake.
    pub connect_timeout: Duration,
    /// One tool call.
    pub request_timeout: Duration,
    /// The whole tools listing, all pages.
    pub paging_timeout: Duration,
}

impl Default for McpLimits {
    fn default() -> Self {
        const MIB: usize = 1024 * 1024;
        Self {
            response_bytes: 4 * MIB,
            call_arguments_bytes: 256 * 1024,
            tool_definition_bytes: 256 * 1024,
            catalog_bytes: 8 * MIB,
            catalog_pages: 32,
            catalog_tools: 512,
            connect_timeout: Duration::from_secs(30),
            request_timeout: Duration::from_secs(60),
            paging_timeout: Duration::from_secs(120),
        }
    }
}
