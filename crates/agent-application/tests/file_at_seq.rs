//! `AgentRuntime::read_workspace_file_at` over a whole run in memory: the model writes
//! `output/main.md` twice, commits and finishes; the file read at each event of the run is
//! the text that event saw (`docs/runtime.md`, Reading a file at an event), and the read
//! refuses with its code before the first write, after retention pruned the checkpoints,
//! outside the readable roots and for an unknown run.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_application::ports::{ChatRole, RunStore};
use agent_application::runtime::{AgentRuntime, RuntimeError, StartRun};
use agent_application::testing::{FakeModel, MemoryPorts, snapshot_request, tool_turn};
use agent_domain::ErrorCode;
use agent_domain::event::{ChatRef, JournalLine, RunEvent, RunStatus};
use agent_domain::run::{RunId, RunSummary, SlimmedRun};
use agent_domain::tool::BuiltinTool;
use agent_domain::workspace::WorkspacePath;
use serde_json::json;

const FIRST: &str = "The keeper climbs the steps.";
const SECOND: &str = "The keeper, Mara, climbs the hundred steps every dusk.";

/// A finished run that wrote `output/main.md` as [`FIRST`], then as [`SECOND`].
struct Ran {
    ports: MemoryPorts,
    runtime: AgentRuntime,
    run: RunId,
    lines: Vec<JournalLine>,
}

impl Ran {
    async fn new() -> Self {
        let ports = MemoryPorts::new();
        let chat = ChatRef::Character {
            character_id: "Alice".into(),
            file_name: "chat".into(),
        };
        ports
            .chats
            .push(&chat, ChatRole::User, "Bob", "Tell me about the keeper.");
        let write = |call: &str, text: &str| {
            tool_turn(&[(
                call,
                BuiltinTool::WorkspaceWriteFile,
                json!({"path": "output/main.md", "content": text}),
            )])
        };
        let model = Arc::new(FakeModel::new());
        model
            .respond(write("call_1", FIRST))
            .respond(write("call_2", SECOND))
            .respond(tool_turn(&[
                ("call_commit", BuiltinTool::WorkspaceCommit, json!({})),
                ("call_finish", BuiltinTool::WorkspaceFinish, json!({})),
            ]));
        let runtime = AgentRuntime::new(ports.runtime_ports());
        let started = runtime
            .start_run(StartRun {
                run: snapshot_request(
                    chat,
                    "fake",
                    "fake",
                    json!([{"role": "user", "content": "Tell me about the keeper."}]),
                ),
                model,
                models: None,
            })
            .await
            .unwrap();
        let run = started.run.id.clone();
        let outcome = started.task.await;
        assert_eq!(
            outcome.status,
            RunStatus::Completed,
            "{:?}",
            outcome.failure
        );
        let lines = ports.journal.lines(&run);
        Self {
            ports,
            runtime,
            run,
            lines,
        }
    }

    /// The seq of the `nth` (0-based) event that `matches`.
    fn seq(&self, nth: usize, matches: impl Fn(&RunEvent) -> bool) -> u64 {
        let mut found = self.lines.iter().filter(|line| matches(&line.event));
        found.nth(nth).expect("the event").seq
    }

    async fn at(&self, path: &str, seq: u64) -> Result<String, RuntimeError> {
        let path = WorkspacePath::parse(path).unwrap();
        let read = self.runtime.read_workspace_file_at(&self.run, &path, seq);
        read.await.map(|file| file.file.text)
    }
}

fn call_event(call: &'static str, kind: &'static str) -> impl Fn(&RunEvent) -> bool {
    move |event| {
        event.event_type() == kind
            && match event {
                RunEvent::ToolCallRequested(p) => p.call_id == call,
                RunEvent::ToolCallStarted(p) => p.call_id == call,
                RunEvent::ToolResultStored(p) => p.call_id == call,
                RunEvent::ToolCallCompleted(p) => p.call_id == call,
                _ => false,
            }
    }
}

fn written(event: &RunEvent) -> bool {
    matches!(event, RunEvent::WorkspaceFileWritten(_))
}

fn code(result: Result<String, RuntimeError>) -> &'static str {
    result.expect_err("a refusal").code()
}

#[tokio::test]
async fn each_event_sees_the_text_of_the_writes_before_it() {
    let ran = Ran::new().await;
    let (first, second) = (ran.seq(0, written), ran.seq(1, written));
    assert_eq!(ran.at("output/main.md", first).await.unwrap(), FIRST);
    // The checkpoint_created right after the first write.
    assert_eq!(ran.at("output/main.md", first + 1).await.unwrap(), FIRST);
    assert_eq!(ran.at("output/main.md", second).await.unwrap(), SECOND);
    let last = ran.lines.last().unwrap().seq;
    assert_eq!(ran.at("output/main.md", last).await.unwrap(), SECOND);

    let file = ran
        .runtime
        .read_workspace_file_at(
            &ran.run,
            &WorkspacePath::parse("output/main.md").unwrap(),
            first,
        )
        .await
        .unwrap();
    assert_eq!(file.checkpoint_event_seq, first);
    assert_eq!(file.checkpoint_id, "cp_000001");
    assert_eq!(file.file.bytes, FIRST.len() as u64);
}

#[tokio::test]
async fn a_write_tools_result_shows_what_that_write_produced() {
    let ran = Ran::new().await;
    for call in ["call_1", "call_2"] {
        let result = ran.seq(0, call_event(call, "tool_result_stored"));
        let completed = ran.seq(0, call_event(call, "tool_call_completed"));
        let want = if call == "call_1" { FIRST } else { SECOND };
        assert_eq!(ran.at("output/main.md", result).await.unwrap(), want);
        assert_eq!(ran.at("output/main.md", completed).await.unwrap(), want);
    }
    // Before the second call has run, the file is still the first text.
    let started = ran.seq(0, call_event("call_2", "tool_call_started"));
    assert_eq!(ran.at("output/main.md", started).await.unwrap(), FIRST);
}

#[tokio::test]
async fn before_the_first_write_the_file_is_not_found() {
    let ran = Ran::new().await;
    let started = ran.seq(0, call_event("call_1", "tool_call_started"));
    assert_eq!(
        code(ran.at("output/main.md", started).await),
        "workspace.file_not_found"
    );
    assert_eq!(
        code(ran.at("output/main.md", 0).await),
        "workspace.file_not_found"
    );
    let last = ran.lines.last().unwrap().seq;
    assert_eq!(
        code(ran.at("output/other.md", last).await),
        "workspace.file_not_found"
    );
}

#[tokio::test]
async fn paths_and_runs_are_checked_like_the_current_read() {
    let ran = Ran::new().await;
    assert_eq!(
        code(ran.at("input/chat.json", 1).await),
        "workspace.path_not_visible"
    );
    let path = WorkspacePath::parse("output/main.md").unwrap();
    let ghost = RunId::parse("run_ghost").unwrap();
    let unknown = ran.runtime.read_workspace_file_at(&ghost, &path, 1).await;
    assert_eq!(unknown.unwrap_err().code(), "agent.not_found");
}

#[tokio::test]
async fn a_pruned_run_says_its_checkpoints_were_pruned() {
    let ran = Ran::new().await;
    let record = ran.ports.runs.load_run(&ran.run).await.unwrap();
    let mut summary = RunSummary::project(&record, &ran.lines);
    summary.slimmed = Some(SlimmedRun {
        at: "2026-01-01T00:00:00Z".into(),
        removed_files: 9,
        removed_bytes: 900,
    });
    ran.ports.checkpoints.prune(&ran.run);
    ran.ports.runs.save_run_summary(&summary).await.unwrap();
    let first = ran.seq(0, written);
    let refused = ran.at("output/main.md", first).await.unwrap_err();
    assert_eq!(refused.code(), "workspace.checkpoints_pruned");
    assert!(
        refused.to_string().contains("pruned by retention"),
        "{refused}"
    );
}
