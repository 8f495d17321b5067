//! The tests proper: one per behaviour and `mcp.*` code, over both transports where the
//! transport matters.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_application::ports::{McpConnector, McpNotice, McpNoticeSink, McpSession};
use agent_domain::mcp::{McpCallOutcome, McpContent, McpError, McpTransport, McpValue, NamedValue};
use agent_mcp::{McpClient, McpLimits};
use serde_json::{Map, Value, json};
use tokio::io::AsyncBufReadExt;
use tokio_util::sync::CancellationToken;

use crate::TestFn;
use crate::server::BIG_CHARS;

macro_rules! tests {
    ($($name:ident),* $(,)?) => {
        pub const TESTS: &[(&str, TestFn)] = &[$((stringify!($name), || Box::pin($name()))),*];
    };
}

tests!(
    echo_structured_and_error_results_over_both_transports,
    a_big_result_arrives_whole_and_an_oversized_one_is_refused,
    an_unknown_tool_is_a_server_error,
    a_hanging_call_times_out_after_it_was_sent,
    a_crash_mid_call_leaves_the_outcome_unknown,
    cancellation_before_and_during_a_call,
    oversized_arguments_are_never_sent,
    a_paged_catalog_is_listed_whole,
    catalog_limits_have_their_codes,
    server_requests_the_client_does_not_support_get_an_error,
    progress_and_log_notifications_reach_the_sink,
    a_refused_listing_and_an_invalid_answer_have_their_codes,
    headers_are_read_from_the_environment_when_connecting,
    closing_or_dropping_a_session_ends_the_process_group,
    connect_failures_have_their_codes,
    malformed_json_rpc_never_completes_the_handshake,
);

#[derive(Default)]
struct Notices(Mutex<Vec<McpNotice>>);

impl McpNoticeSink for Notices {
    fn notice(&self, notice: McpNotice) {
        if let Ok(mut notices) = self.0.lock() {
            notices.push(notice);
        }
    }
}

fn short_limits() -> McpLimits {
    McpLimits {
        connect_timeout: Duration::from_secs(10),
        request_timeout: Duration::from_secs(2),
        ..McpLimits::default()
    }
}

fn stdio_transport(mode: &str, env: &[(&str, &str)]) -> McpTransport {
    let mut entries = vec![NamedValue {
        name: "AGENT_MCP_TEST_SERVER".into(),
        value: McpValue::Literal(mode.into()),
    }];
    entries.extend(env.iter().map(|(name, value)| NamedValue {
        name: (*name).into(),
        value: McpValue::Literal((*value).into()),
    }));
    McpTransport::Stdio {
        program: std::env::current_exe()
            .unwrap()
            .to_string_lossy()
            .into_owned(),
        args: vec![],
        env: entries,
        cwd: None,
    }
}

/// A running HTTP test server; killed with its process when dropped.
struct HttpServer {
    _child: tokio::process::Child,
    url: String,
}

async fn http_server(env: &[(&str, &str)]) -> HttpServer {
    let mut command = tokio::process::Command::new(std::env::current_exe().unwrap());
    command
        .env("AGENT_MCP_TEST_SERVER", "http")
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .kill_on_drop(true);
    let mut child = command.spawn().unwrap();
    let stdout = child.stdout.take().unwrap();
    let port = tokio::io::BufReader::new(stdout)
        .lines()
        .next_line()
        .await
        .unwrap()
        .unwrap();
    HttpServer {
        _child: child,
        url: format!("http://127.0.0.1:{port}/mcp"),
    }
}

fn http_transport(server: &HttpServer) -> McpTransport {
    McpTransport::StreamableHttp {
        url: server.url.clone(),
        headers: vec![],
    }
}

async fn connect(limits: McpLimits, transport: &McpTransport) -> Box<dyn McpSession> {
    McpClient::new(limits)
        .connect(transport, Arc::new(Notices::default()))
        .await
        .unwrap()
}

async fn connect_err(limits: McpLimits, transport: &McpTransport) -> McpError {
    McpClient::new(limits)
        .connect(transport, Arc::new(Notices::default()))
        .await
        .unwrap_err()
}

/// Both transports to the plain test server (the HTTP server stays up while it is held).
async fn both(env: &[(&str, &str)]) -> (HttpServer, Vec<(&'static str, McpTransport)>) {
    let server = http_server(env).await;
    let transports = vec![
        ("stdio", stdio_transport("stdio", env)),
        ("http", http_transport(&server)),
    ];
    (server, transports)
}

fn args(text: &str) -> Map<String, Value> {
    serde_json::from_value(json!({ "text": text })).unwrap()
}

async fn call(
    session: &dyn McpSession,
    name: &str,
    text: &str,
) -> Result<McpCallOutcome, McpError> {
    session
        .call_tool(name, args(text), &CancellationToken::new())
        .await
}

fn result_text(outcome: &McpCallOutcome) -> (bool, String) {
    let McpCallOutcome::Result { result } = outcome else {
        panic!("not a result: {outcome:?}");
    };
    let text = result
        .content
        .iter()
        .map(|block| match block {
            McpContent::Text { text } => text.clone(),
            McpContent::Other { kind, .. } => format!("<{kind}>"),
        })
        .collect::<Vec<_>>()
        .join("\n");
    (result.is_error, text)
}

async fn echo_structured_and_error_results_over_both_transports() {
    let (_server, transports) = both(&[]).await;
    for (label, transport) in transports {
        let session = connect(short_limits(), &transport).await;
        let echo = call(session.as_ref(), "echo", "héllo").await.unwrap();
        assert_eq!(result_text(&echo), (false, "héllo".to_owned()), "{label}");

        let structured = call(session.as_ref(), "structured", "").await.unwrap();
        let McpCallOutcome::Result { result } = &structured else {
            panic!("{label}: {structured:?}");
        };
        assert_eq!(
            result.structured_content,
            Some(json!({"city": "Paris", "temp": 21})),
            "{label}"
        );
        assert_eq!(result_text(&structured).1, "It is 21 degrees in Paris.");

        let failed = call(session.as_ref(), "fail", "").await.unwrap();
        assert_eq!(
            result_text(&failed),
            (true, "the tool failed on purpose".to_owned()),
            "{label}"
        );
        session.close().await;
    }
}

async fn a_big_result_arrives_whole_and_an_oversized_one_is_refused() {
    let (_server, transports) = both(&[]).await;
    for (label, transport) in transports {
        let session = connect(short_limits(), &transport).await;
        let big = call(session.as_ref(), "big", "").await.unwrap();
        assert_eq!(result_text(&big).1.chars().count(), BIG_CHARS, "{label}");
        session.close().await;

        let small = McpLimits {
            response_bytes: 100_000,
            ..short_limits()
        };
        let session = connect(small, &transport).await;
        let error = call(session.as_ref(), "big", "").await.unwrap_err();
        assert_eq!(
            error.kind.code(),
            "mcp.response_too_large",
            "{label}: {error}"
        );
        assert!(error.sent, "{label}");
        session.close().await;
    }
}

async fn an_unknown_tool_is_a_server_error() {
    let (_server, transports) = both(&[]).await;
    for (label, transport) in transports {
        let session = connect(short_limits(), &transport).await;
        let outcome = call(session.as_ref(), "nope", "").await.unwrap();
        let McpCallOutcome::ServerError {
            code,
            message,
            data,
        } = outcome
        else {
            panic!("{label}: {outcome:?}");
        };
        assert_eq!(code, -32602, "{label}");
        assert!(message.contains("no tool named nope"), "{label}: {message}");
        assert_eq!(data, Some(json!({"tool": "nope"})), "{label}");
        session.close().await;
    }
}

async fn a_hanging_call_times_out_after_it_was_sent() {
    let (_server, transports) = both(&[]).await;
    for (label, transport) in transports {
        let session = connect(short_limits(), &transport).await;
        let error = call(session.as_ref(), "hang", "").await.unwrap_err();
        assert_eq!(error.kind.code(), "mcp.request_timeout", "{label}: {error}");
        assert!(error.sent, "{label}");
        // The session stays usable after an abandoned call.
        let echo = call(session.as_ref(), "echo", "still here").await.unwrap();
        assert_eq!(result_text(&echo).1, "still here", "{label}");
        session.close().await;
    }
}

async fn a_crash_mid_call_leaves_the_outcome_unknown() {
    let (_server, transports) = both(&[]).await;
    for (label, transport) in transports {
        let session = connect(short_limits(), &transport).await;
        let error = call(session.as_ref(), "crash", "").await.unwrap_err();
        assert_eq!(
            error.kind.code(),
            "mcp.transport_closed",
            "{label}: {error}"
        );
        assert!(error.sent, "{label}");
        // Later calls fail too, without hanging.
        let later = call(session.as_ref(), "echo", "x").await.unwrap_err();
        assert_eq!(
            later.kind.code(),
            "mcp.transport_closed",
            "{label}: {later}"
        );
        session.close().await;
    }
}

async fn cancellation_before_and_during_a_call() {
    let (_server, transports) = both(&[]).await;
    for (label, transport) in transports {
        let session = connect(short_limits(), &transport).await;
        let cancelled = CancellationToken::new();
        cancelled.cancel();
        let before = session
            .call_tool("echo", args("x"), &cancelled)
            .await
            .unwrap_err();
        assert_eq!(before.kind.code(), "mcp.call_cancelled", "{label}");
        assert!(!before.sent, "{label}");

        let token = CancellationToken::new();
        let canceller = token.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            canceller.cancel();
        });
        let during = session
            .call_tool("hang", args(""), &token)
            .await
            .unwrap_err();
        assert_eq!(during.kind.code(), "mcp.call_cancelled", "{label}");
        assert!(during.sent, "{label}");
        session.close().await;
    }
}

async fn oversized_arguments_are_never_sent() {
    let transport = stdio_transport("stdio", &[]);
    let session = connect(short_limits(), &transport).await;
    let error = call(session.as_ref(), "echo", &"a".repeat(300 * 1024))
        .await
        .unwrap_err();
    assert_eq!(error.kind.code(), "mcp.call_arguments_size_limit");
    assert!(!error.sent);
    session.close().await;
}

async fn a_paged_catalog_is_listed_whole() {
    let env = [("MCP_TEST_FILLER", "300"), ("MCP_TEST_PAGE", "100")];
    let (_server, transports) = both(&env).await;
    for (label, transport) in transports {
        let session = connect(short_limits(), &transport).await;
        let tools = session.list_tools().await.unwrap();
        assert_eq!(tools.len(), 9 + 300, "{label}");
        assert_eq!(tools[0].name, "echo");
        assert_eq!(tools[0].input_schema["type"], "object");
        assert_eq!(tools[308].name, "filler_299");
        session.close().await;
    }
}

async fn catalog_limits_have_their_codes() {
    type Env = &'static [(&'static str, &'static str)];
    let cases: [(Env, McpLimits, &str); 4] = [
        // A 600-tool catalog in pages of 100 is more than 512 tools.
        (
            &[("MCP_TEST_FILLER", "600")],
            short_limits(),
            "mcp.catalog_too_many_tools",
        ),
        (
            &[("MCP_TEST_FILLER", "40"), ("MCP_TEST_PAGE", "1")],
            short_limits(),
            "mcp.catalog_too_many_pages",
        ),
        (
            &[("MCP_TEST_HUGE_TOOL", "1")],
            short_limits(),
            "mcp.tool_definition_too_large",
        ),
        (
            &[("MCP_TEST_FILLER", "100")],
            McpLimits {
                catalog_bytes: 4_000,
                ..short_limits()
            },
            "mcp.catalog_too_large",
        ),
    ];
    for (env, limits, expected) in cases {
        let (_server, transports) = both(env).await;
        for (label, transport) in transports {
            let session = connect(limits, &transport).await;
            let error = session.list_tools().await.unwrap_err();
            assert_eq!(error.kind.code(), expected, "{label}: {error}");
            session.close().await;
        }
    }
}

async fn server_requests_the_client_does_not_support_get_an_error() {
    let (_server, transports) = both(&[]).await;
    for (label, transport) in transports {
        let session = connect(short_limits(), &transport).await;
        let outcome = call(session.as_ref(), "ask_roots", "").await.unwrap();
        assert_eq!(result_text(&outcome).1, "roots error -32601", "{label}");
        session.close().await;
    }
}

async fn progress_and_log_notifications_reach_the_sink() {
    let (_server, transports) = both(&[]).await;
    for (label, transport) in transports {
        let notices = Arc::new(Notices::default());
        let session = McpClient::new(short_limits())
            .connect(&transport, notices.clone())
            .await
            .unwrap();
        call(session.as_ref(), "notify", "").await.unwrap();
        // Notices are delivered on the session's own task, and over HTTP not necessarily in
        // the order they were sent: wait (bounded) for both, then compare in any order.
        let deadline = std::time::Instant::now() + Duration::from_secs(10);
        while notices.0.lock().unwrap().len() < 2 && std::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let seen = notices.0.lock().unwrap().clone();
        let progress = McpNotice::Progress {
            progress: 1.0,
            total: Some(2.0),
            message: Some("halfway".into()),
        };
        let log = McpNotice::Log {
            level: "warning".into(),
            data: json!("disk almost full"),
        };
        assert_eq!(seen.len(), 2, "{label}: {seen:?}");
        assert!(
            seen.contains(&progress) && seen.contains(&log),
            "{label}: {seen:?}"
        );
        session.close().await;
    }
}

async fn a_refused_listing_and_an_invalid_answer_have_their_codes() {
    let (_server, transports) = both(&[("MCP_TEST_LIST_FAILS", "1")]).await;
    for (label, transport) in transports {
        let session = connect(short_limits(), &transport).await;
        let error = session.list_tools().await.unwrap_err();
        assert_eq!(error.kind.code(), "mcp.listing_failed", "{label}: {error}");
        assert!(
            error.message.contains("the catalog is being rebuilt"),
            "{label}: {error}"
        );
        session.close().await;
    }

    let session = connect(short_limits(), &stdio_transport("wrong_shape", &[])).await;
    let error = session.list_tools().await.unwrap_err();
    assert_eq!(error.kind.code(), "mcp.protocol_error", "{error}");
    session.close().await;
}

/// A header whose value is an environment variable's is read when the session opens: the
/// server (which inherits this process's environment) accepts only that value.
async fn headers_are_read_from_the_environment_when_connecting() {
    // Cargo sets this for every test process; its value is what the server requires.
    let var = "CARGO_PKG_NAME";
    let token = std::env::var(var).expect("cargo sets CARGO_PKG_NAME for tests");
    let server = http_server(&[("MCP_TEST_REQUIRE_TOKEN", &token)]).await;
    let with = |value: McpValue| McpTransport::StreamableHttp {
        url: server.url.clone(),
        headers: vec![NamedValue {
            name: "x-test-token".into(),
            value,
        }],
    };

    let session = connect(short_limits(), &with(McpValue::FromEnv(var.into()))).await;
    assert_eq!(
        result_text(&call(session.as_ref(), "echo", "hi").await.unwrap()).1,
        "hi"
    );
    session.close().await;

    let wrong = connect_err(short_limits(), &with(McpValue::Literal("guess".into()))).await;
    assert_eq!(wrong.kind.code(), "mcp.connect_failed", "{wrong}");
    let unset = with(McpValue::FromEnv("AGENT_MCP_TEST_SURELY_UNSET".into()));
    let missing = connect_err(short_limits(), &unset).await;
    assert_eq!(missing.kind.code(), "mcp.env_var_missing", "{missing}");
}

fn process_exists(pid: &str) -> bool {
    // A zombie (state `Z`) has exited and only waits to be reaped.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        stat.split_whitespace()
            .nth(2)
            .is_some_and(|state| state != "Z")
    })
}

async fn closing_or_dropping_a_session_ends_the_process_group() {
    let transport = stdio_transport("stdio", &[]);
    let session = connect(short_limits(), &transport).await;
    let pid = result_text(&call(session.as_ref(), "pid", "").await.unwrap()).1;
    assert!(process_exists(&pid));
    session.close().await;
    assert!(!process_exists(&pid), "closed server {pid} still runs");

    let session = connect(short_limits(), &transport).await;
    let pid = result_text(&call(session.as_ref(), "pid", "").await.unwrap()).1;
    drop(session);
    // The kill is immediate; reaping happens on tokio's side, so allow a moment.
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!process_exists(&pid), "dropped server {pid} still runs");
}

async fn connect_failures_have_their_codes() {
    let missing = McpTransport::Stdio {
        program: "/nonexistent/mcp-server".into(),
        args: vec![],
        env: vec![],
        cwd: None,
    };
    let error = connect_err(short_limits(), &missing).await;
    assert_eq!(error.kind.code(), "mcp.spawn_failed", "{error}");

    let mut unset = stdio_transport("stdio", &[]);
    if let McpTransport::Stdio { env, .. } = &mut unset {
        env.push(NamedValue {
            name: "TOKEN".into(),
            value: McpValue::FromEnv("AGENT_MCP_TEST_SURELY_UNSET".into()),
        });
    }
    let error = connect_err(short_limits(), &unset).await;
    assert_eq!(error.kind.code(), "mcp.env_var_missing", "{error}");

    let public = McpTransport::StreamableHttp {
        url: "http://mcp.example.com/mcp".into(),
        headers: vec![],
    };
    assert_eq!(
        connect_err(short_limits(), &public).await.kind.code(),
        "mcp.insecure_url"
    );

    // Nothing listens on the port a finished server held.
    let url = {
        let server = http_server(&[]).await;
        server.url.clone()
    };
    tokio::time::sleep(Duration::from_millis(200)).await;
    let closed = McpTransport::StreamableHttp {
        url,
        headers: vec![],
    };
    let error = connect_err(short_limits(), &closed).await;
    assert_eq!(error.kind.code(), "mcp.connect_failed", "{error}");
}

async fn malformed_json_rpc_never_completes_the_handshake() {
    let limits = McpLimits {
        connect_timeout: Duration::from_secs(2),
        ..short_limits()
    };
    let error = connect_err(limits, &stdio_transport("malformed", &[])).await;
    assert_eq!(error.kind.code(), "mcp.connect_timeout", "{error}");
}
