//! Starting a run: every refusal has its code and leaves nothing behind.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod runtime_support;

use agent_application::ports::RunListQuery;
use agent_application::prompt::PromptInput;
use agent_domain::ErrorCode;
use agent_domain::event::RunStatus;
use agent_domain::run::GenerationType;
use runtime_support::{World, chat_lines, types};
use serde_json::json;

fn script() -> serde_json::Value {
    json!({"turns": [{"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}]})
}

/// Starts with `change` applied to the request and expects the refusal `code`, with no
/// run created.
async fn refused(
    world: &World,
    change: impl FnOnce(&mut agent_application::runtime::StartRun),
    code: &str,
) {
    let mut request = world.request(&script());
    change(&mut request);
    let error = world.runtime.start_run(request).await.unwrap_err();
    assert_eq!(error.code(), code, "{error}");
    let runs = world
        .runtime
        .list_runs(&RunListQuery::default())
        .await
        .unwrap();
    assert!(runs.runs.is_empty());
    assert!(
        !world
            .dir
            .path()
            .join("_tauritavern/agent-workspaces")
            .exists(),
        "a refused start wrote run data"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refusals_have_their_codes_and_create_nothing() {
    let world = World::new();
    refused(
        &world,
        |r| {
            r.run.prompt = PromptInput::Snapshot(
                json!({"messages": [{"role": "user", "content": "x"}], "stream": true}),
            )
        },
        "agent.phase2b_stream_unsupported",
    )
    .await;
    refused(
        &world,
        |r| {
            r.run.prompt = PromptInput::Snapshot(json!({
                "messages": [{"role": "user", "content": "x"}],
                "tools": [{"type": "function", "function": {"name": "f"}}]
            }))
        },
        "agent.external_tools_unsupported_phase2b",
    )
    .await;
    refused(
        &world,
        |r| {
            r.run.prompt = PromptInput::Snapshot(
                json!({"messages": [{"role": "user", "content": "x"}], "tool_choice": null}),
            )
        },
        "agent.external_tool_choice_unsupported_phase2b",
    )
    .await;
    refused(
        &world,
        |r| r.run.profile_id = Some("nobody".into()),
        "agent.profile_not_found",
    )
    .await;
    // The chat ends with a user message: there is nothing to swipe.
    refused(
        &world,
        |r| r.run.generation_type = GenerationType::Swipe,
        "agent.swipe_target_invalid",
    )
    .await;
    refused(
        &world,
        |r| {
            r.run.chat = agent_domain::event::ChatRef::Character {
                character_id: "Nobody".into(),
                file_name: "chat".into(),
            }
        },
        "chat.not_found",
    )
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_persist_marker_in_the_prefix_is_refused() {
    let mut lines = chat_lines();
    lines.push(json!({"name": "Alice", "is_user": false, "is_system": false, "mes": "x",
        "extra": {"tauritavern": {"agent": {"runId": "run_0", "persistStateStatus": "committed"}}}}));
    let world = World::with_chat(&lines);
    refused(&world, |_| {}, "agent.persist_state_missing").await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_regenerate_hides_the_reply_it_replaces_and_builds_on_the_previous_state() {
    let world = World::new();
    let first = world
        .run(&json!({"turns": [
            {"tool_calls": [
                {"name": "workspace_write_file", "arguments": {"path": "persist/memory.md", "content": "Mara"}},
                {"name": "workspace_write_file", "arguments": {"path": "output/main.md", "content": "First reply."}},
                {"name": "workspace_commit", "arguments": {}}
            ]},
            {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
        ]}))
        .await;
    assert_eq!(first.outcome.status, RunStatus::Completed);

    // A normal run after it starts from the state the first run promoted.
    let mut request = world.request(&json!({"turns": [
        {"tool_calls": [{"name": "workspace_read_file", "arguments": {"path": "persist/memory.md"}}]},
        {"tool_calls": [
            {"name": "workspace_write_file", "arguments": {"path": "output/main.md", "content": "Second take."}},
            {"name": "workspace_commit", "arguments": {}}
        ]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]}));
    request.run.generation_type = GenerationType::Regenerate;
    let started = world.runtime.start_run(request).await.unwrap();
    // Regenerate hides the assistant reply it replaces: the prefix is the first three.
    assert_eq!(started.run.input_message_count, Some(3));
    assert_eq!(started.run.persist_base_state_id, None);
    let run_id = started.run.id.clone();
    let outcome = started.task.await;
    let second = world.finished(run_id, outcome).await;
    assert_eq!(second.outcome.status, RunStatus::Completed);
    // The regenerated reply replaced message 3.
    let messages = second.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["mes"], "Second take.");
    // Without the hidden reply in the prefix, the read found no base state.
    let failed = runtime_support::payloads(&second.events, "tool_call_failed");
    assert_eq!(failed[0]["errorCode"], "workspace.file_not_found");
    assert_eq!(types(&second.events).last(), Some(&"run_completed"));

    // A normal run now continues from the regenerated reply's state.
    let started = world
        .start(&json!({"turns": [
            {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
        ]}))
        .await;
    assert_eq!(
        started
            .run
            .persist_base_state_id
            .as_ref()
            .map(|s| s.to_string()),
        Some(second.run_id.to_string())
    );
    drop(started.task);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_prompt_can_be_assembled_from_the_chat() {
    let world = World::new();
    let mut request = world.request(&json!({"turns": [
        {"tool_calls": [
            {"name": "workspace_write_file", "arguments": {"path": "output/main.md", "content": "Hello."}},
            {"name": "workspace_commit", "arguments": {}}
        ]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]}));
    request.run.prompt = PromptInput::Assemble;
    let started = world.runtime.start_run(request).await.unwrap();
    let run_id = started.run.id.clone();
    let outcome = started.task.await;
    let run = world.finished(run_id, outcome).await;
    assert_eq!(run.outcome.status, RunStatus::Completed);
    let context = &runtime_support::payloads(&run.events, "context_assembled")[0];
    // The system prompt, the three chat messages and the task, at least.
    assert!(
        context["request"]["messageCount"].as_u64().unwrap() >= 4,
        "{context}"
    );
}
