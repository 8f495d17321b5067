//! MCP adapter: sessions with registered MCP servers, on the `rmcp` SDK.
//!
//! Implements the application's [`McpConnector`] port for both transports: a stdio child
//! process (own process group, killed when the session ends) and Streamable HTTP. Every
//! wire limit and timeout of [`McpLimits`] is enforced here and reported with its own
//! `mcp.*` code. rmcp types never leave this crate (the layering gate keeps the SDK out of
//! every other crate).

mod handler;
mod http;
mod limits;
mod session;
mod stdio;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use agent_application::ports::{McpConnector, McpNoticeSink, McpSession};
use agent_domain::mcp::{McpError, McpErrorKind, McpTransport};
use async_trait::async_trait;
use rmcp::ServiceExt;
use rmcp::service::{ClientInitializeError, RoleClient, RunningService};
use rmcp::transport::async_rw::AsyncRwTransport;
use tokio::sync::Mutex;

pub use http::check_url;
pub use limits::McpLimits;

use handler::Handler;
use session::RmcpSession;

/// Opens sessions within one set of [`McpLimits`].
#[derive(Debug, Clone, Default)]
pub struct McpClient {
    limits: McpLimits,
}

impl McpClient {
    pub fn new(limits: McpLimits) -> Self {
        Self { limits }
    }
}

#[async_trait]
impl McpConnector for McpClient {
    async fn connect(
        &self,
        transport: &McpTransport,
        notices: Arc<dyn McpNoticeSink>,
    ) -> Result<Box<dyn McpSession>, McpError> {
        let handler = Handler { notices };
        let limits = self.limits;
        match transport {
            McpTransport::Stdio {
                program,
                args,
                env,
                cwd,
            } => {
                let spawned =
                    stdio::spawn(program, args, env, cwd.as_deref(), limits.response_bytes)?;
                let label = format!("MCP server `{program}`");
                let rw = AsyncRwTransport::<RoleClient, _, _>::new(spawned.stdout, spawned.stdin)
                    .with_max_line_length(usize::MAX);
                let service = handshake(handler.serve(rw), &label, &limits).await;
                // On failure the guard is dropped here, which kills the process group.
                let service = service?;
                Ok(Box::new(RmcpSession {
                    peer: service.peer().clone(),
                    service: Mutex::new(Some(service)),
                    child: Mutex::new(Some(spawned.guard)),
                    oversized: spawned.oversized,
                    limits,
                    label,
                }))
            }
            McpTransport::StreamableHttp { url, headers } => {
                let oversized = Arc::new(AtomicBool::new(false));
                let http = http::transport(url, headers, &limits, &oversized)?;
                let label = format!("MCP server at {url}");
                let service = handshake(handler.serve(http), &label, &limits).await?;
                Ok(Box::new(RmcpSession {
                    peer: service.peer().clone(),
                    service: Mutex::new(Some(service)),
                    child: Mutex::new(None),
                    oversized,
                    limits,
                    label,
                }))
            }
        }
    }
}

/// Runs the initialize handshake within the connect timeout.
async fn handshake(
    serve: impl Future<Output = Result<RunningService<RoleClient, Handler>, ClientInitializeError>>,
    label: &str,
    limits: &McpLimits,
) -> Result<RunningService<RoleClient, Handler>, McpError> {
    match tokio::time::timeout(limits.connect_timeout, serve).await {
        Ok(Ok(service)) => Ok(service),
        Ok(Err(error)) => Err(McpError::new(
            McpErrorKind::ConnectFailed,
            format!("{label} did not complete the MCP handshake: {error}"),
        )),
        Err(_) => Err(McpError::new(
            McpErrorKind::ConnectTimeout,
            format!(
                "{label} did not complete the MCP handshake within {} s",
                limits.connect_timeout.as_secs()
            ),
        )),
    }
}
