#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! MCP tools in runs, on a real data directory with a scripted model and a scripted MCP
//! server behind the connector port: snapshot diagnostics, one shared session per server,
//! every outcome's code, a server that goes away, and an unknown outcome ending the run.
//! (The same paths against real servers: `cli_mcp_reference.rs`.)

mod runtime_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use agent_application::ports::{McpConnector, McpNoticeSink, McpRegistry, McpSession};
use agent_domain::event::RunStatus;
use agent_domain::mcp::{
    McpCallOutcome, McpCatalog, McpContent, McpError, McpErrorKind, McpRegistration,
    McpToolDefinition, McpToolPermission, McpToolResult, McpTransport,
};
use async_trait::async_trait;
use runtime_support::*;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

const SERVER: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

/// Counts the sessions opened and closed.
#[derive(Default)]
struct Counts {
    opened: AtomicUsize,
    closed: AtomicUsize,
}

struct ScriptedConnector(Arc<Counts>);

#[derive(Debug)]
struct ScriptedSession(Arc<Counts>);

impl std::fmt::Debug for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Counts")
    }
}

#[async_trait]
impl McpConnector for ScriptedConnector {
    async fn connect(
        &self,
        _transport: &McpTransport,
        _notices: Arc<dyn McpNoticeSink>,
    ) -> Result<Box<dyn McpSession>, McpError> {
        self.0.opened.fetch_add(1, Ordering::SeqCst);
        Ok(Box::new(ScriptedSession(Arc::clone(&self.0))))
    }
}

fn text_result(is_error: bool, text: &str) -> McpCallOutcome {
    McpCallOutcome::Result {
        result: McpToolResult {
            is_error,
            content: vec![McpContent::Text { text: text.into() }],
            structured_content: None,
        },
    }
}

/// `echo` answers its `text`, `fail` says `isError`, `refuse` is a JSON-RPC error, `gone`
/// finds the server gone before sending, `lost` times out after sending.
#[async_trait]
impl McpSession for ScriptedSession {
    async fn list_tools(&self) -> Result<Vec<McpToolDefinition>, McpError> {
        Ok(Vec::new())
    }
    async fn call_tool(
        &self,
        name: &str,
        arguments: Map<String, Value>,
        _cancel: &CancellationToken,
    ) -> Result<McpCallOutcome, McpError> {
        match name {
            "echo" => Ok(text_result(
                false,
                arguments["text"].as_str().unwrap_or_default(),
            )),
            "fail" => Ok(text_result(true, "the tool failed")),
            "refuse" => Ok(McpCallOutcome::ServerError {
                code: -32602,
                message: "bad params".into(),
                data: Some(json!({"field": "text"})),
            }),
            "gone" => Err(McpError::new(McpErrorKind::TransportClosed, "gone")),
            _ => Err(McpError::new(McpErrorKind::RequestTimeout, "no answer").after_send()),
        }
    }
    async fn close(&self) {
        self.0.closed.fetch_add(1, Ordering::SeqCst);
    }
}

fn tool(name: &str) -> McpToolDefinition {
    McpToolDefinition {
        name: name.into(),
        title: None,
        description: format!("The {name} tool."),
        input_schema: json!({"type": "object"}),
        output_schema: None,
        annotations: Value::Null,
    }
}

/// A world whose runtime reaches the scripted server `box`, with every tool allowed by the
/// registration and by the profile `mcp` (plus `missing`, which the catalog lacks).
async fn world(counts: &Arc<Counts>) -> World {
    let mut world = World::new();
    let transport = McpTransport::StreamableHttp {
        url: "https://box.example/mcp".into(),
        headers: vec![],
    };
    let mut registration = McpRegistration::new(SERVER.into(), "box".into(), transport).unwrap();
    let names = ["echo", "fail", "refuse", "gone", "lost"];
    for name in names {
        registration
            .permissions
            .insert(name.into(), McpToolPermission::Allow);
    }
    world.storage.mcp.put(&registration).await.unwrap();
    let catalog = McpCatalog {
        registration_id: SERVER.into(),
        refreshed_at: "2026-01-01T00:00:00Z".into(),
        tools: names.into_iter().map(tool).collect(),
    };
    world.storage.mcp.put_catalog(&catalog).await.unwrap();
    world.runtime = world.runtime.clone().with_mcp(
        world.storage.mcp.clone(),
        Arc::new(ScriptedConnector(Arc::clone(counts))),
    );
    world
        .save_profile("mcp", |document| {
            let allow = document["tools"]["allow"].as_array_mut().unwrap();
            for name in names.into_iter().chain(["missing"]) {
                allow.push(json!(format!("mcp/{SERVER}:{name}")));
            }
        })
        .await;
    world
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": format!("mcp__box__{name}"), "arguments": arguments})
}

async fn run(world: &World, turns: Value) -> Finished {
    let mut request = world.request(&json!({ "turns": turns }));
    request.profile_id = Some("mcp".into());
    world.run_request(request).await
}

fn results(finished: &Finished) -> Vec<(String, Option<String>, String)> {
    payloads(&finished.events, "tool_call_completed")
        .into_iter()
        .chain(payloads(&finished.events, "tool_call_failed"))
        .map(|payload| {
            (
                payload["toolId"].as_str().unwrap().to_owned(),
                payload["errorCode"].as_str().map(str::to_owned),
                payload["callId"].as_str().unwrap().to_owned(),
            )
        })
        .collect()
}

fn code_of(finished: &Finished, call_id: &str) -> Option<String> {
    results(finished)
        .into_iter()
        .find(|(_, _, id)| id == call_id)
        .unwrap_or_else(|| panic!("no outcome for {call_id}"))
        .1
}

#[tokio::test]
async fn every_outcome_has_its_code_and_one_session_serves_the_run() {
    let counts = Arc::new(Counts::default());
    let world = world(&counts).await;
    let finished = run(
        &world,
        json!([
            {"tool_calls": [
                call("echo", json!({"text": "hello"})),
                call("fail", json!({})),
                call("refuse", json!({})),
                call("gone", json!({})),
            ]},
            {"tool_calls": [call("echo", json!({"text": "again"}))]},
            {"tool_calls": [{"name": "workspace_write_file",
                             "arguments": {"path": "output/main.md", "content": "Done."}}]},
            {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
            {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
        ]),
    )
    .await;
    assert_eq!(
        finished.outcome.status,
        RunStatus::Completed,
        "{:?}",
        payloads(&finished.events, "run_failed")
    );

    let assembled = &payloads(&finished.events, "context_assembled")[0];
    assert_eq!(
        assembled["snapshotDiagnostics"][0]["code"], "mcp.tool_not_in_cached_catalog",
        "{assembled}"
    );

    let ids: Vec<String> = payloads(&finished.events, "tool_call_requested")
        .iter()
        .filter(|payload| payload["toolId"].as_str().unwrap().starts_with("mcp/"))
        .map(|payload| payload["callId"].as_str().unwrap().to_owned())
        .collect();
    let codes: Vec<Option<String>> = ids.iter().map(|id| code_of(&finished, id)).collect();
    let expected = [
        None,
        Some("mcp.tool_error"),
        Some("mcp.server_error"),
        Some("mcp.transport_closed"),
        // The server went away: later calls in the run fail without a new session.
        Some("mcp.transport_closed"),
    ];
    assert_eq!(
        codes,
        expected.map(|code| code.map(str::to_owned)).to_vec(),
        "{ids:?}"
    );
    assert_eq!(counts.opened.load(Ordering::SeqCst), 1);
    assert_eq!(counts.closed.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn an_unknown_outcome_ends_the_run() {
    let counts = Arc::new(Counts::default());
    let world = world(&counts).await;
    let finished = run(
        &world,
        json!([
            {"tool_calls": [call("lost", json!({})), call("echo", json!({"text": "never"}))]},
            {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
        ]),
    )
    .await;
    assert_eq!(finished.outcome.status, RunStatus::Failed);
    let failed = payloads(&finished.events, "run_failed");
    assert_eq!(failed[0]["code"], "mcp.call_outcome_unknown", "{failed:?}");
    let calls = results(&finished);
    assert_eq!(calls.len(), 1, "the rest of the turn is not run: {calls:?}");
    assert_eq!(calls[0].1.as_deref(), Some("mcp.call_outcome_unknown"));
    assert_eq!(counts.closed.load(Ordering::SeqCst), 1);
}
