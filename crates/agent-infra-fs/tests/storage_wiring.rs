#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `FsStorage`: the stores of one data directory find a run through one shared locator, so a
//! run created by the run store is at once usable by the journal, workspace, audit and
//! checkpoint stores of the same process — and by a fresh process through the run index.

use agent_application::ports::{
    AuditStore, CheckpointStore, EventDraft, EventJournal, EventQuery, RunStore, WorkspaceStore,
    WriteGuard,
};
use agent_domain::event::{CheckpointReason, RunEvent, RunStatus, StatusChangedPayload};
use agent_domain::run::AgentRun;
use agent_domain::workspace::WorkspacePath;
use agent_infra_fs::FsStorage;
use agent_infra_fs::layout::DataDir;
use serde_json::json;

fn record() -> AgentRun {
    serde_json::from_value(json!({
        "id": "run_wired", "workspaceId": "chat_wired", "stableChatId": "stable",
        "chatRef": {"kind": "character", "characterId": "Alice", "fileName": "one"},
        "generationType": "normal", "profileId": null, "status": "created",
        "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"
    }))
    .unwrap()
}

#[tokio::test]
async fn every_store_finds_a_created_run() {
    let dir = tempfile::tempdir().unwrap();
    let storage = FsStorage::open(DataDir::new(dir.path()));
    let run = record();
    storage.runs.create_run(&run).await.unwrap();
    storage.workspace.initialize(&run.id).await.unwrap();
    let path = WorkspacePath::parse("output/main.md").unwrap();
    storage
        .workspace
        .write(&run.id, &path, "hello", WriteGuard::MustNotExist)
        .await
        .unwrap();
    let event = RunEvent::StatusChanged(StatusChangedPayload {
        status: RunStatus::InitializingWorkspace,
    });
    let line = storage
        .journal
        .append(
            &run.id,
            EventDraft {
                timestamp: "2026-01-01T00:00:01.000Z".into(),
                event,
            },
        )
        .await
        .unwrap();
    assert_eq!(line.seq, 1);
    storage
        .audit
        .write_tool_args(&run.id, "call_1", &json!({"a": 1}))
        .await
        .unwrap();
    let checkpoint = storage
        .checkpoints
        .create(
            &run.id,
            CheckpointReason::ToolWorkspaceWrite,
            1,
            std::slice::from_ref(&path),
            "2026-01-01T00:00:02.000Z",
        )
        .await
        .unwrap();
    assert_eq!(checkpoint.id, "cp_000001");

    // A second process knows nothing but the data directory.
    let fresh = FsStorage::open(DataDir::new(dir.path()));
    let text = fresh.workspace.read(&run.id, &path).await.unwrap().text;
    assert_eq!(text, "hello");
    let lines = fresh
        .journal
        .read(&run.id, &EventQuery::default())
        .await
        .unwrap();
    assert_eq!(lines.len(), 1);
    assert_eq!(fresh.runs.load_run(&run.id).await.unwrap(), run);
}
