//! One open session on rmcp: the tools listing with its catalog bounds, tool calls with
//! their timeout and cancellation, and the mapping of every rmcp outcome to domain types.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use agent_application::ports::McpSession;
use agent_domain::mcp::{
    McpCallOutcome, McpContent, McpError, McpErrorKind, McpToolDefinition, McpToolResult,
};
use async_trait::async_trait;
use rmcp::model::{CallToolRequestParams, CallToolResponse, PaginatedRequestParams};
use rmcp::service::RunningService;
use rmcp::{RoleClient, ServiceError};
use serde_json::{Map, Value};
use tokio::sync::Mutex;
use tokio_util::sync::CancellationToken;

use crate::handler::Handler;
use crate::limits::McpLimits;
use crate::stdio::ChildGuard;

/// An initialized session, plus the stdio child it owns (none for HTTP).
pub(crate) struct RmcpSession {
    pub service: Mutex<Option<RunningService<RoleClient, Handler>>>,
    pub peer: rmcp::Peer<RoleClient>,
    pub child: Mutex<Option<ChildGuard>>,
    /// Set by the stdio reader when a line crossed the response limit.
    pub oversized: Arc<AtomicBool>,
    pub limits: McpLimits,
    pub label: String,
}

impl std::fmt::Debug for RmcpSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RmcpSession")
            .field("server", &self.label)
            .finish_non_exhaustive()
    }
}

impl RmcpSession {
    /// The domain error for an rmcp failure of a request.
    fn failure(&self, error: ServiceError, what: &str) -> McpError {
        if self.oversized.load(Ordering::SeqCst) || says_too_large(&error) {
            return McpError::new(
                McpErrorKind::ResponseTooLarge,
                format!(
                    "{} answered {what} with more than {} bytes",
                    self.label, self.limits.response_bytes
                ),
            );
        }
        match error {
            ServiceError::TransportClosed | ServiceError::TransportSend(_) => McpError::new(
                McpErrorKind::TransportClosed,
                format!("{} went away before answering {what}: {error}", self.label),
            ),
            ServiceError::Timeout { .. } => McpError::new(
                McpErrorKind::RequestTimeout,
                format!("{} did not answer {what} in time", self.label),
            ),
            other => McpError::new(
                McpErrorKind::ProtocolError,
                format!("{} answered {what} unexpectedly: {other}", self.label),
            ),
        }
    }

    async fn list_pages(&self) -> Result<Vec<McpToolDefinition>, McpError> {
        let limits = &self.limits;
        let mut tools = Vec::new();
        let mut catalog_bytes = 0usize;
        let mut cursor = None;
        for page in 1.. {
            if page > limits.catalog_pages {
                return Err(McpError::new(
                    McpErrorKind::CatalogTooManyPages,
                    format!(
                        "{} lists its tools in more than {} pages",
                        self.label, limits.catalog_pages
                    ),
                ));
            }
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let result = match self.peer.list_tools(Some(params)).await {
                Ok(result) => result,
                Err(ServiceError::McpError(error)) => {
                    return Err(McpError::new(
                        McpErrorKind::ListingFailed,
                        format!(
                            "{} refused to list its tools: {} (JSON-RPC {})",
                            self.label, error.message, error.code.0
                        ),
                    ));
                }
                Err(error) => return Err(self.failure(error, "the tools listing")),
            };
            for tool in result.tools {
                let raw = serde_json::to_value(&tool).map_err(|error| {
                    McpError::new(McpErrorKind::ProtocolError, error.to_string())
                })?;
                let bytes = raw.to_string().len();
                if bytes > limits.tool_definition_bytes {
                    return Err(McpError::new(
                        McpErrorKind::ToolDefinitionTooLarge,
                        format!(
                            "{}'s tool `{}` is described in {bytes} bytes, over the limit of {}",
                            self.label, tool.name, limits.tool_definition_bytes
                        ),
                    ));
                }
                catalog_bytes += bytes;
                if catalog_bytes > limits.catalog_bytes {
                    return Err(McpError::new(
                        McpErrorKind::CatalogTooLarge,
                        format!(
                            "{}'s tool definitions take more than {} bytes",
                            self.label, limits.catalog_bytes
                        ),
                    ));
                }
                tools.push(definition(raw));
                if tools.len() > limits.catalog_tools {
                    return Err(McpError::new(
                        McpErrorKind::CatalogTooManyTools,
                        format!(
                            "{} lists more than {} tools",
                            self.label, limits.catalog_tools
                        ),
                    ));
                }
            }
            cursor = result.next_cursor;
            if cursor.is_none() {
                break;
            }
        }
        Ok(tools)
    }
}

#[async_trait]
impl McpSession for RmcpSession {
    async fn list_tools(&self) -> Result<Vec<McpToolDefinition>, McpError> {
        tokio::time::timeout(self.limits.paging_timeout, self.list_pages())
            .await
            .unwrap_or_else(|_| {
                Err(McpError::new(
                    McpErrorKind::RequestTimeout,
                    format!(
                        "{} did not finish listing its tools within {} s",
                        self.label,
                        self.limits.paging_timeout.as_secs()
                    ),
                ))
            })
    }

    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        cancel: &CancellationToken,
    ) -> Result<McpCallOutcome, McpError> {
        if cancel.is_cancelled() {
            return Err(McpError::new(
                McpErrorKind::Cancelled,
                "the call was cancelled before it was sent",
            ));
        }
        let size = Value::Object(arguments.clone()).to_string().len();
        if size > self.limits.call_arguments_bytes {
            return Err(McpError::new(
                McpErrorKind::ArgumentsTooLarge,
                format!(
                    "the arguments take {size} bytes, over the limit of {}",
                    self.limits.call_arguments_bytes
                ),
            ));
        }
        let params = CallToolRequestParams::new(name.to_owned()).with_arguments(arguments);
        // Dropping the request future (timeout or cancel) tells the server it was abandoned.
        let call = tokio::time::timeout(
            self.limits.request_timeout,
            self.peer.call_tool_once(params),
        );
        let answer = tokio::select! {
            answer = call => answer,
            () = cancel.cancelled() => {
                return Err(McpError::new(
                    McpErrorKind::Cancelled,
                    format!("the call to `{name}` was cancelled while it ran"),
                )
                .after_send());
            }
        };
        match answer {
            Err(_) => Err(McpError::new(
                McpErrorKind::RequestTimeout,
                format!(
                    "{} did not answer `{name}` within {} s",
                    self.label,
                    self.limits.request_timeout.as_secs()
                ),
            )
            .after_send()),
            Ok(Ok(CallToolResponse::Complete(result))) => {
                let content = result.content.iter().map(content).collect();
                Ok(McpCallOutcome::Result {
                    result: McpToolResult {
                        is_error: result.is_error.unwrap_or(false),
                        content,
                        structured_content: result.structured_content,
                    },
                })
            }
            Ok(Ok(CallToolResponse::InputRequired(_))) => Ok(unsupported(
                "inputRequired",
                "the server asked for more input, which this client does not provide",
            )),
            Ok(Ok(CallToolResponse::Task(_))) => Ok(unsupported(
                "task",
                "the server answered with a task, which this client does not follow",
            )),
            Ok(Ok(_)) => Ok(unsupported(
                "unknown",
                "the server answered with a response this client does not know",
            )),
            Ok(Err(ServiceError::McpError(error))) => Ok(McpCallOutcome::ServerError {
                code: i64::from(error.code.0),
                message: error.message.into_owned(),
                data: error.data,
            }),
            Ok(Err(ServiceError::UnexpectedResponse)) => Ok(unsupported(
                "unexpected",
                "the server answered the call with a response of another request type",
            )),
            Ok(Err(error)) => Err(self.failure(error, &format!("`{name}`")).after_send()),
        }
    }

    async fn close(&self) {
        if let Some(mut service) = self.service.lock().await.take() {
            let _ = tokio::time::timeout(self.limits.connect_timeout, service.close()).await;
        }
        if let Some(child) = self.child.lock().await.take() {
            child.kill().await;
        }
    }
}

fn unsupported(response_type: &str, message: &str) -> McpCallOutcome {
    McpCallOutcome::Unsupported {
        response_type: response_type.to_owned(),
        message: message.to_owned(),
    }
}

/// A content block: text stays text, anything else is kept raw under its type.
fn content(block: &rmcp::model::ContentBlock) -> McpContent {
    let raw = serde_json::to_value(block).unwrap_or(Value::Null);
    match (raw.get("type").and_then(Value::as_str), raw.get("text")) {
        (Some("text"), Some(Value::String(text))) => McpContent::Text { text: text.clone() },
        (kind, _) => McpContent::Other {
            kind: kind.unwrap_or("unknown").to_owned(),
            raw,
        },
    }
}

/// A listed tool, read from its JSON form so every field keeps the server's spelling.
fn definition(raw: Value) -> McpToolDefinition {
    let text = |key: &str| raw.get(key).and_then(Value::as_str).map(str::to_owned);
    McpToolDefinition {
        name: text("name").unwrap_or_default(),
        title: text("title"),
        description: text("description").unwrap_or_default(),
        input_schema: raw.get("inputSchema").cloned().unwrap_or(Value::Null),
        output_schema: raw.get("outputSchema").cloned(),
        annotations: raw.get("annotations").cloned().unwrap_or(Value::Null),
    }
}

/// Whether rmcp refused an HTTP body or SSE event for its size (its errors say so only in
/// their text, the SSE one through a private type).
pub(crate) fn says_too_large(error: &(dyn std::error::Error + 'static)) -> bool {
    let mut source = Some(error);
    while let Some(current) = source {
        if current.to_string().contains("exceeded the maximum size") {
            return true;
        }
        source = current.source();
    }
    false
}
