#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! MCP tools in runs, on a real data directory with a scripted model and a scripted MCP
//! server behind the connector port: snapshot diagnostics, one shared session per server,
//! every outcome's code, every refusal of the send-time gate, a server that goes away, an
//! unknown outcome ending the run, and the server's notices in the journal. (The same
//! paths against real servers: `cli_mcp_reference.rs`.)

mod runtime_support;

use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use agent_application::ports::{
    CancelRequests, McpConnector, McpNotice, McpNoticeSink, McpRegistry, McpSession, StoreError,
};
use agent_application::runtime::AgentRuntime;
use agent_domain::event::RunStatus;
use agent_domain::mcp::{
    McpCallOutcome, McpCatalog, McpContent, McpError, McpErrorKind, McpRegistration,
    McpServerStatus, McpToolDefinition, McpToolPermission, McpToolResult, McpTransport,
};
use agent_domain::run::RunId;
use agent_infra_fs::FsStorage;
use agent_infra_fs::layout::DataDir;
use async_trait::async_trait;
use runtime_support::*;
use serde_json::{Map, Value, json};
use tokio_util::sync::CancellationToken;

const SERVER: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

/// The scripted server's side: the sessions opened and closed, the notice sink of the
/// last one, and the data directory (whose registration some tools change mid-run).
struct Counts {
    opened: AtomicUsize,
    closed: AtomicUsize,
    sink: Mutex<Option<Arc<dyn McpNoticeSink>>>,
    dir: PathBuf,
    cancel: Arc<LateCancel>,
}

impl Counts {
    fn new(dir: PathBuf, cancel: Arc<LateCancel>) -> Arc<Self> {
        Arc::new(Self {
            opened: AtomicUsize::new(0),
            closed: AtomicUsize::new(0),
            sink: Mutex::new(None),
            dir,
            cancel,
        })
    }

    fn notice(&self, notice: McpNotice) {
        let sink = self.sink.lock().unwrap().clone().unwrap();
        sink.notice(notice);
    }

    fn storage(&self) -> FsStorage {
        FsStorage::open(DataDir::new(&self.dir))
    }

    /// Changes the registration as a person would while the run goes on.
    async fn change(&self, change: impl FnOnce(&mut McpRegistration)) {
        let registry = self.storage().mcp;
        let mut registration = registry.get(SERVER).await.unwrap().unwrap();
        change(&mut registration);
        registry.put(&registration).await.unwrap();
    }
}

/// Cancellation requests as the data directory keeps them, plus a request that arrives
/// just after the run last looked before a call: once armed (by the `cancel` tool), the
/// next look says "not requested" and every later one "requested". The run's loop looks
/// before each call and the send-time gate looks again, so the gate is the one to see it.
struct LateCancel {
    inner: Arc<dyn CancelRequests>,
    looks_left: Mutex<Option<u32>>,
}

#[async_trait]
impl CancelRequests for LateCancel {
    async fn request(&self, run: &RunId) -> Result<(), StoreError> {
        self.inner.request(run).await
    }
    async fn is_requested(&self, run: &RunId) -> Result<bool, StoreError> {
        let armed = match self.looks_left.lock().unwrap().as_mut() {
            Some(0) => Some(true),
            Some(left) => {
                *left -= 1;
                Some(false)
            }
            None => None,
        };
        match armed {
            Some(requested) => Ok(requested),
            None => self.inner.is_requested(run).await,
        }
    }
    async fn clear(&self, run: &RunId) -> Result<(), StoreError> {
        self.inner.clear(run).await
    }
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
        notices: Arc<dyn McpNoticeSink>,
    ) -> Result<Box<dyn McpSession>, McpError> {
        self.0.opened.fetch_add(1, Ordering::SeqCst);
        *self.0.sink.lock().unwrap() = Some(notices);
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

fn progress(step: f64) -> McpNotice {
    McpNotice::Progress {
        progress: step,
        total: Some(100.0),
        message: None,
    }
}

/// `echo` answers its `text`, `fail` says `isError`, `refuse` is a JSON-RPC error, `task`
/// an unsupported response, `gone` finds the server gone before sending, `lost` times out
/// after sending. `chatty` reports progress and a log line, `flood` 100 progress notices.
/// `lock` turns `echo` off, `pause` pauses the server, `unregister` removes it, `corrupt`
/// damages its registration file and
/// `cancel` arms a late cancellation request ([`LateCancel`]), each then answering "done".
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
        let server = &self.0;
        match name {
            "echo" => {
                return Ok(text_result(
                    false,
                    arguments["text"].as_str().unwrap_or_default(),
                ));
            }
            "fail" => return Ok(text_result(true, "the tool failed")),
            "refuse" => {
                return Ok(McpCallOutcome::ServerError {
                    code: -32602,
                    message: "bad params".into(),
                    data: Some(json!({"field": "text"})),
                });
            }
            "task" => {
                return Ok(McpCallOutcome::Unsupported {
                    response_type: "task".into(),
                    message: "the server answered with a task".into(),
                });
            }
            "gone" => return Err(McpError::new(McpErrorKind::TransportClosed, "gone")),
            "lost" => {
                return Err(McpError::new(McpErrorKind::RequestTimeout, "no answer").after_send());
            }
            "chatty" => {
                server.notice(McpNotice::Progress {
                    progress: 1.0,
                    total: Some(2.0),
                    message: Some("half way".into()),
                });
                server.notice(McpNotice::Log {
                    level: "info".into(),
                    data: json!({"said": "hello"}),
                });
            }
            "flood" => (0..100).for_each(|step| server.notice(progress(f64::from(step)))),
            "lock" => {
                server
                    .change(|r| {
                        r.permissions.insert("echo".into(), McpToolPermission::Off);
                    })
                    .await;
            }
            "pause" => server.change(|r| r.status = McpServerStatus::Paused).await,
            "unregister" => server.storage().mcp.remove(SERVER).await.unwrap(),
            "corrupt" => {
                let file = DataDir::new(&server.dir)
                    .mcp_servers()
                    .join(format!("{SERVER}.json"));
                std::fs::write(file, "{ not json").unwrap();
            }
            "cancel" => *server.cancel.looks_left.lock().unwrap() = Some(1),
            other => panic!("no scripted tool {other}"),
        }
        Ok(text_result(false, "done"))
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
async fn world() -> (World, Arc<Counts>) {
    let mut world = World::new();
    let mut ports = ports(&world.storage);
    let cancel = Arc::new(LateCancel {
        inner: ports.cancel_requests,
        looks_left: Mutex::new(None),
    });
    ports.cancel_requests = cancel.clone();
    world.runtime = AgentRuntime::new(ports);
    let counts = Counts::new(world.dir.path().to_owned(), cancel);
    let transport = McpTransport::StreamableHttp {
        url: "https://box.example/mcp".into(),
        headers: vec![],
    };
    let mut registration = McpRegistration::new(SERVER.into(), "box".into(), transport).unwrap();
    let names = [
        "echo",
        "fail",
        "refuse",
        "task",
        "gone",
        "lost",
        "chatty",
        "flood",
        "lock",
        "pause",
        "unregister",
        "corrupt",
        "cancel",
    ];
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
        Arc::new(ScriptedConnector(Arc::clone(&counts))),
    );
    world
        .save_profile("mcp", |document| {
            let allow = document["tools"]["allow"].as_array_mut().unwrap();
            for name in names.into_iter().chain(["missing"]) {
                allow.push(json!(format!("mcp/{SERVER}:{name}")));
            }
        })
        .await;
    (world, counts)
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": format!("mcp__box__{name}"), "arguments": arguments})
}

async fn run(world: &World, turns: Value) -> Finished {
    let mut request = world.request(&json!({ "turns": turns }));
    request.run.profile_id = Some("mcp".into());
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
    let (world, counts) = world().await;
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
    let (world, counts) = world().await;
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

#[tokio::test]
async fn an_unknown_outcome_after_a_commit_is_a_partial_success() {
    let (world, _) = world().await;
    let finished = run(
        &world,
        json!([
            {"tool_calls": [{"name": "workspace_write_file",
                             "arguments": {"path": "output/main.md", "content": "Kept."}}]},
            {"tool_calls": [{"name": "workspace_commit", "arguments": {}}]},
            {"tool_calls": [call("lost", json!({}))]},
            {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
        ]),
    )
    .await;
    assert_eq!(finished.outcome.status, RunStatus::PartialSuccess);
    let partial = payloads(&finished.events, "run_partial_success");
    assert_eq!(
        partial[0]["code"], "mcp.call_outcome_unknown",
        "{partial:?}"
    );
    assert!(finished.chat.contains("Kept."), "{}", finished.chat);
}

/// The codes of the run's MCP calls, in the order they were asked for.
fn mcp_codes(finished: &Finished) -> Vec<Option<String>> {
    payloads(&finished.events, "tool_call_requested")
        .iter()
        .filter(|payload| payload["toolId"].as_str().unwrap().starts_with("mcp/"))
        .map(|payload| code_of(finished, payload["callId"].as_str().unwrap()))
        .collect()
}

fn codes(expected: &[Option<&str>]) -> Vec<Option<String>> {
    expected
        .iter()
        .map(|code| code.map(str::to_owned))
        .collect()
}

/// `turns` followed by the turns that write, commit and finish.
fn then_finish(turns: Value) -> Value {
    let mut turns = turns.as_array().unwrap().clone();
    turns.extend([
        json!({"tool_calls": [{"name": "workspace_write_file",
                               "arguments": {"path": "output/main.md", "content": "Done."}}]}),
        json!({"tool_calls": [{"name": "workspace_commit", "arguments": {}}]}),
        json!({"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}),
    ]);
    Value::Array(turns)
}

#[tokio::test]
async fn the_send_time_gate_refuses_with_its_code_and_sends_nothing() {
    let (first, _) = world().await;
    let finished = run(
        &first,
        json!([
            {"tool_calls": [
                call("echo", json!("not an object")),
                call("echo", json!({"text": "x".repeat(300 * 1024)})),
                call("task", json!({})),
            ]},
            {"tool_calls": [call("lock", json!({})), call("echo", json!({"text": "hi"}))]},
            {"tool_calls": [call("cancel", json!({})), call("echo", json!({"text": "hi"}))]},
        ]),
    )
    .await;
    assert_eq!(finished.outcome.status, RunStatus::Cancelled);
    assert_eq!(
        mcp_codes(&finished),
        codes(&[
            Some("mcp.call_arguments_not_object"),
            Some("mcp.call_arguments_size_limit"),
            Some("mcp.unsupported_response"),
            None,
            Some("mcp.call_permission_off"),
            None,
            Some("mcp.call_cancelled_before_send"),
        ])
    );

    for (tool, code) in [
        ("pause", "mcp.call_server_paused"),
        ("unregister", "mcp.call_registration_not_found"),
        ("corrupt", "mcp.registration_storage_issue"),
    ] {
        let (fresh, _) = world().await;
        let finished = run(
            &fresh,
            then_finish(json!([
                {"tool_calls": [call(tool, json!({})), call("echo", json!({"text": "hi"}))]},
            ])),
        )
        .await;
        assert_eq!(finished.outcome.status, RunStatus::Completed);
        assert_eq!(mcp_codes(&finished), codes(&[None, Some(code)]), "{tool}");
    }
}

#[tokio::test]
async fn a_servers_notices_are_journaled_with_the_call_within_a_bound() {
    let (world, _) = world().await;
    let finished = run(
        &world,
        then_finish(json!([
            {"tool_calls": [call("chatty", json!({})), call("flood", json!({}))]},
        ])),
    )
    .await;
    assert_eq!(
        finished.outcome.status,
        RunStatus::Completed,
        "{:?}",
        payloads(&finished.events, "run_failed")
    );
    let ids: Vec<String> = payloads(&finished.events, "tool_call_requested")
        .iter()
        .map(|payload| payload["callId"].as_str().unwrap().to_owned())
        .collect();
    let notices = payloads(&finished.events, "mcp_notice_received");
    let of = |call: &str| -> Vec<Value> {
        notices
            .iter()
            .filter(|payload| payload["callId"] == call)
            .map(|payload| payload["notice"].clone())
            .collect()
    };
    assert_eq!(
        of(&ids[0]),
        [
            json!({"kind": "progress", "progress": 1.0, "total": 2.0, "message": "half way"}),
            json!({"kind": "log", "level": "info", "data": {"said": "hello"}}),
        ]
    );
    let flood = of(&ids[1]);
    assert_eq!(
        flood.len(),
        21,
        "20 notices and a count of the rest: {flood:?}"
    );
    assert_eq!(
        flood[0],
        json!({"kind": "progress", "progress": 0.0, "total": 100.0})
    );
    assert_eq!(flood[20], json!({"kind": "suppressed", "count": 80}));
    assert_eq!(notices[0]["toolId"], format!("mcp/{SERVER}:chatty"));
    assert_eq!(notices[0]["round"], 1);

    // Each notice is journaled before its call's outcome.
    let types = types(&finished.events);
    let first_outcome = types.iter().position(|t| *t == "tool_call_completed");
    let first_notice = types.iter().position(|t| *t == "mcp_notice_received");
    assert!(first_notice < first_outcome, "{types:?}");
}
