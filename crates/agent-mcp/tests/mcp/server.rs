//! The test MCP server, on rmcp's server side: run by this same test binary when
//! `AGENT_MCP_TEST_SERVER` is set (`stdio`, `http` or `malformed`).
//!
//! Tools: `echo` (returns `text`), `structured` (text + structured content), `fail`
//! (`isError`), `big` (200,000 chars), `hang` (never answers), `crash` (the process exits
//! mid-call), `ask_roots` (asks the client for its roots and reports the JSON-RPC error
//! code it got back), `notify` (reports progress on the call's progress token and sends a
//! log message, then answers), `pid` (its process id). The environment adds
//! `MCP_TEST_FILLER` filler tools listed `MCP_TEST_PAGE` per page, with
//! `MCP_TEST_HUGE_TOOL` a tool whose description is 300,000 chars, with
//! `MCP_TEST_LIST_FAILS` a listing answered with a JSON-RPC error, and over HTTP with
//! `MCP_TEST_REQUIRE_TOKEN` a 401 for every request whose `x-test-token` header differs.
//!
//! Logging is deprecated in rmcp (SEP-2577) but still spoken by older servers, so the
//! `notify` tool uses it to check the client passes log notices on.
#![allow(deprecated)]

use std::sync::Arc;
use std::time::Duration;

use http_body_util::BodyExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, JsonObject,
    ListToolsResult, LoggingLevel, LoggingMessageNotificationParam, PaginatedRequestParams,
    ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Value, json};

/// Length of the `big` tool's text.
pub const BIG_CHARS: usize = 200_000;

#[derive(Clone)]
struct TestServer {
    tools: Arc<Vec<Tool>>,
    page: usize,
    list_fails: bool,
}

fn object_schema() -> Arc<JsonObject> {
    let schema = json!({"type": "object", "properties": {"text": {"type": "string"}}});
    Arc::new(serde_json::from_value(schema).unwrap_or_default())
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|value| value.parse().ok())
        .unwrap_or(default)
}

impl TestServer {
    fn from_env() -> Self {
        let mut tools: Vec<Tool> = [
            "echo",
            "structured",
            "fail",
            "big",
            "hang",
            "crash",
            "ask_roots",
            "notify",
            "pid",
        ]
        .into_iter()
        .map(|name| Tool::new(name, format!("The {name} test tool."), object_schema()))
        .collect();
        for index in 0..env_number("MCP_TEST_FILLER", 0) {
            tools.push(Tool::new(
                format!("filler_{index:03}"),
                "A filler tool.",
                object_schema(),
            ));
        }
        if std::env::var_os("MCP_TEST_HUGE_TOOL").is_some() {
            tools.push(Tool::new("huge", "h".repeat(300_000), object_schema()));
        }
        Self {
            tools: Arc::new(tools),
            page: env_number("MCP_TEST_PAGE", 100).max(1),
            list_fails: std::env::var_os("MCP_TEST_LIST_FAILS").is_some(),
        }
    }
}

fn text(value: impl Into<String>) -> Vec<ContentBlock> {
    vec![ContentBlock::text(value)]
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        if self.list_fails {
            return Err(ErrorData::internal_error(
                "the catalog is being rebuilt",
                None,
            ));
        }
        let start = request
            .and_then(|params| params.cursor)
            .and_then(|cursor| cursor.parse::<usize>().ok())
            .unwrap_or(0);
        let end = (start + self.page).min(self.tools.len());
        let mut result = ListToolsResult::with_all_items(self.tools[start..end].to_vec());
        result.next_cursor = (end < self.tools.len()).then(|| end.to_string());
        Ok(result)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let argument = request
            .arguments
            .as_ref()
            .and_then(|args| args.get("text"))
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let result = match request.name.as_ref() {
            "echo" => CallToolResult::success(text(argument)),
            "structured" => {
                let mut result = CallToolResult::structured(json!({"city": "Paris", "temp": 21}));
                result.content = text("It is 21 degrees in Paris.");
                result
            }
            "fail" => CallToolResult::error(text("the tool failed on purpose")),
            "big" => CallToolResult::success(text("x".repeat(BIG_CHARS))),
            "hang" => {
                tokio::time::sleep(Duration::from_secs(3600)).await;
                CallToolResult::success(text("late"))
            }
            "crash" => std::process::exit(3),
            #[allow(deprecated)]
            "ask_roots" => match context.peer.list_roots().await {
                Ok(_) => CallToolResult::success(text("roots answered")),
                Err(rmcp::ServiceError::McpError(error)) => {
                    CallToolResult::success(text(format!("roots error {}", error.code.0)))
                }
                Err(other) => CallToolResult::success(text(format!("roots failed: {other}"))),
            },
            #[allow(deprecated)]
            "notify" => {
                if let Some(token) = context.meta.get_progress_token() {
                    let progress = ProgressNotificationParam::new(token, 1.0)
                        .with_total(2.0)
                        .with_message("halfway");
                    let _ = context.peer.notify_progress(progress).await;
                }
                let log = LoggingMessageNotificationParam::new(
                    LoggingLevel::Warning,
                    json!("disk almost full"),
                );
                let _ = context.peer.notify_logging_message(log).await;
                CallToolResult::success(text("notified"))
            }
            "pid" => CallToolResult::success(text(std::process::id().to_string())),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("no tool named {other}"),
                    Some(json!({"tool": other})),
                ));
            }
        };
        Ok(result.into())
    }
}

/// Serves over this process's stdin/stdout until the client goes away.
pub async fn stdio() {
    let transport = rmcp::transport::stdio();
    if let Ok(service) = TestServer::from_env().serve(transport).await {
        let _ = service.waiting().await;
    }
}

/// Serves Streamable HTTP on a free loopback port, printed as the first stdout line.
pub async fn http() {
    let server = TestServer::from_env();
    let service: StreamableHttpService<TestServer, LocalSessionManager> =
        StreamableHttpService::new(
            move || Ok(server.clone()),
            Arc::default(),
            StreamableHttpServerConfig::default(),
        );
    let Ok(listener) = tokio::net::TcpListener::bind("127.0.0.1:0").await else {
        return;
    };
    let Ok(address) = listener.local_addr() else {
        return;
    };
    println!("{}", address.port());
    let token = std::env::var("MCP_TEST_REQUIRE_TOKEN").ok();
    while let Ok((stream, _)) = listener.accept().await {
        let (service, token) = (service.clone(), token.clone());
        let service = hyper::service::service_fn(move |request: hyper::Request<_>| {
            let (service, token) = (service.clone(), token.clone());
            async move {
                let sent = request
                    .headers()
                    .get("x-test-token")
                    .and_then(|value| value.to_str().ok());
                if token.is_some() && sent != token.as_deref() {
                    let mut refused = hyper::Response::new(
                        http_body_util::Full::new(bytes::Bytes::from_static(b"no token")).boxed(),
                    );
                    *refused.status_mut() = hyper::StatusCode::UNAUTHORIZED;
                    return Ok::<_, std::convert::Infallible>(refused);
                }
                Ok(service.handle(request).await)
            }
        });
        tokio::spawn(async move {
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                .await;
        });
    }
}

/// Never speaks JSON-RPC: answers every line with garbage, then with a JSON value that is
/// not a JSON-RPC message.
pub async fn malformed() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stdout = tokio::io::stdout();
    while let Ok(Some(_)) = lines.next_line().await {
        let _ = stdout.write_all(b"{not json at all\n[1,2,3]\n").await;
        let _ = stdout.flush().await;
    }
}

/// Completes the handshake by hand, then answers the tools listing with a result whose
/// `tools` is not a list: valid JSON-RPC carrying an invalid answer.
pub async fn wrong_shape() {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let mut lines = BufReader::new(tokio::io::stdin()).lines();
    let mut stdout = tokio::io::stdout();
    while let Ok(Some(line)) = lines.next_line().await {
        let Ok(request) = serde_json::from_str::<Value>(&line) else {
            continue;
        };
        let Some(id) = request.get("id").cloned() else {
            continue;
        };
        let result = match request["method"].as_str() {
            Some("initialize") => json!({
                "protocolVersion": request["params"]["protocolVersion"],
                "capabilities": {"tools": {}},
                "serverInfo": {"name": "wrong-shape", "version": "1"}
            }),
            _ => json!({"tools": 42}),
        };
        let answer = json!({"jsonrpc": "2.0", "id": id, "result": result});
        let _ = stdout.write_all(format!("{answer}\n").as_bytes()).await;
        let _ = stdout.flush().await;
    }
}
