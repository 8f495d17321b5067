//! The run loop end to end: real storage in a temp dir, the scripted model, the journal's
//! event sequence and the chat file checked after every scenario.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod runtime_support;

use agent_application::ports::RunListQuery;
use agent_domain::event::{JournalLine, RunStatus};
use agent_domain::run::InvocationId;
use agent_domain::workspace::WorkspacePath;
use runtime_support::{World, payloads, statuses, types};
use serde_json::{Value, json};

const REPLY: &str = "The keeper, Mara, climbs the hundred steps every dusk.";

/// Every run starts like this, up to its first model request.
const PREAMBLE: [&str; 12] = [
    "run_created",
    "profile_resolved",
    "generation_intent_recorded",
    "status_changed",
    "workspace_initialized",
    "agent_invocation_created",
    "agent_invocation_started",
    "persistent_projection_initialized",
    "skill_scopes_resolved",
    "agent_model_binding_resolved",
    "status_changed",
    "context_assembled",
];

/// One model call: the status, the request, the attempt, the stored response.
const MODEL_CALL: [&str; 6] = [
    "status_changed",
    "model_request_created",
    "model_call_attempt_started",
    "model_response_stored",
    "provider_state_updated",
    "model_completed",
];

/// A foreground run's ending after `workspace_finish`: persist promoted, state recorded on
/// the committed message.
const FINISHED_WITH_COMMIT: [&str; 8] = [
    "agent_loop_finished",
    "status_changed",
    "persistent_changes_committed",
    "persistent_state_metadata_update_requested",
    "persistent_state_metadata_updated",
    "agent_invocation_completed",
    "status_changed",
    "run_completed",
];

/// A builtin tool call that changes nothing.
const READ_CALL: [&str; 5] = [
    "status_changed",
    "tool_call_requested",
    "tool_call_started",
    "tool_result_stored",
    "tool_call_completed",
];

/// The types after the preamble, checking the preamble on the way.
fn after_preamble(events: &[JournalLine]) -> Vec<&'static str> {
    let all = types(events);
    assert_eq!(all[..PREAMBLE.len()], PREAMBLE, "{all:?}");
    all[PREAMBLE.len()..].to_vec()
}

fn seq(parts: &[&[&'static str]]) -> Vec<&'static str> {
    parts.iter().flat_map(|part| part.iter().copied()).collect()
}

/// A journal line for snapshots: envelope ids and times left out, random ids redacted.
fn stable(line: &JournalLine) -> Value {
    let mut value = serde_json::to_value(line).unwrap();
    let object = value.as_object_mut().unwrap();
    for key in ["id", "runId", "timestamp"] {
        object.remove(key);
    }
    if line.event_type() == "model_request_created" {
        // The turn contract is the one `context_assembled` shows.
        object["payload"].as_object_mut().unwrap().remove("turn");
    }
    value
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn happy_path_reads_writes_commits_and_finishes() {
    let world = World::new();
    let script = json!({"turns": [
        {"tool_calls": [{"name": "chat_read_messages", "arguments": {"messages": [{"index": 2}]}}]},
        {"text": "Drafting the reply.", "tool_calls": [
            {"name": "workspace_write_file", "arguments": {"path": "output/main.md", "content": REPLY}},
            {"name": "workspace_commit", "arguments": {"reason": "draft ready"}}
        ]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {"reason": "done"}}]}
    ]});
    let run = world.run(&script).await;

    assert_eq!(run.outcome.status, RunStatus::Completed);
    assert_eq!(run.outcome.committed_text.as_deref(), Some(REPLY));
    assert_eq!((run.outcome.rounds, run.outcome.tool_calls), (3, 4));
    assert_eq!(run.outcome.failure, None);

    // The journal, pinned.
    let lines: Vec<Value> = run.events.iter().map(stable).collect();
    insta::assert_json_snapshot!("happy_path_journal", lines, {
        "[].payload.commitId" => "[commit-id]",
        "[].payload.updateId" => "[update-id]",
        "[].payload.runId" => "[run-id]",
        "[].payload.stateId" => "[run-id]",
        "[].payload.responseId" => "[response-id]",
        "[].payload.elapsedMs" => "[ms]",
    });
    let expected = seq(&[
        &MODEL_CALL,
        &READ_CALL,
        &MODEL_CALL,
        &[
            "status_changed",
            "tool_call_requested",
            "tool_call_started",
            "tool_result_stored",
            "tool_call_completed",
            "workspace_file_written",
            "checkpoint_created",
            "tool_call_requested",
            "tool_call_started",
            "chat_commit_started",
            "status_changed",
            "checkpoint_created",
            "status_changed",
            "chat_commit_requested",
            "status_changed",
            "chat_commit_completed",
            "tool_result_stored",
            "tool_call_completed",
            "chat_commit_recorded",
        ],
        &MODEL_CALL,
        &READ_CALL,
        &FINISHED_WITH_COMMIT,
    ]);
    assert_eq!(after_preamble(&run.events), expected);
    assert_eq!(
        statuses(&run.events),
        [
            "initializing_workspace",
            "assembling_context",
            "calling_model",
            "dispatching_tool",
            "calling_model",
            "dispatching_tool",
            "creating_checkpoint",
            "awaiting_host_commit",
            "dispatching_tool",
            "calling_model",
            "dispatching_tool",
            "finishing",
            "completed",
        ]
    );

    // The chat gained one message with the text, carrying the promoted state.
    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    let reply = &messages[3];
    assert_eq!(reply["mes"], REPLY);
    assert_eq!(reply["is_user"], false);
    let agent = &reply["extra"]["tauritavern"]["agent"];
    assert_eq!(agent["runId"], run.run_id.as_str());
    assert_eq!(agent["persistStateStatus"], "committed");
    assert_eq!(agent["persistStateId"], run.run_id.as_str());
    assert_eq!(world.persistent_states(), [run.run_id.to_string()]);

    // What the facade reads back.
    let record = world.runtime.load_run(&run.run_id).await.unwrap();
    assert_eq!(record.status, RunStatus::Completed);
    assert_eq!(record.input_message_count, Some(3));
    let summary = world.runtime.run_summary(&run.run_id).await.unwrap();
    assert_eq!(summary.commit_count, 1);
    assert_eq!(summary.message_id.as_deref(), Some("3"));
    assert_eq!((summary.model_rounds, summary.tool_calls), (3, 4));
    assert_eq!(summary.terminal.unwrap().event_type, "run_completed");
    let listed = world
        .runtime
        .list_runs(&RunListQuery::default())
        .await
        .unwrap();
    assert_eq!(listed.runs.len(), 1);
    let file = world
        .runtime
        .read_workspace_file(
            &run.run_id,
            &WorkspacePath::parse("output/main.md").unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(file.text, REPLY);
    let hidden = world
        .runtime
        .read_workspace_file(
            &run.run_id,
            &WorkspacePath::parse("input/prompt_snapshot.json").unwrap(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        agent_domain::ErrorCode::code(&hidden),
        "workspace.path_not_visible"
    );
    let turn = world
        .runtime
        .read_model_turn(&run.run_id, Some(&InvocationId::root()), 2)
        .await
        .unwrap();
    assert_eq!(turn.assistant_text, "Drafting the reply.");
    let aliases: Vec<&str> = turn.tool_calls.iter().map(|c| c.alias.as_str()).collect();
    assert_eq!(aliases, ["workspace_write_file", "workspace_commit"]);
    assert!(
        turn.tool_calls[0]
            .arguments_preview
            .contains("output/main.md")
    );
    assert_eq!(world.runtime.tools_list().len(), 19);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn finishing_without_a_commit_is_refused_then_succeeds() {
    let world = World::new();
    let script = json!({"turns": [
        {"tool_calls": [{"name": "workspace_write_file", "arguments": {"path": "output/main.md", "content": "A first draft."}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]},
        {"tool_calls": [
            {"name": "workspace_write_file", "arguments": {"path": "output/main.md", "content": REPLY}},
            {"name": "workspace_commit", "arguments": {}}
        ]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]});
    let run = world.run(&script).await;
    assert_eq!(run.outcome.status, RunStatus::Completed);

    let write = [
        "status_changed",
        "tool_call_requested",
        "tool_call_started",
        "tool_result_stored",
        "tool_call_completed",
        "workspace_file_written",
        "checkpoint_created",
    ];
    // The round-1 draft is published automatically (a foreground run without a commit).
    let auto_publish = [
        "chat_commit_started",
        "status_changed",
        "checkpoint_created",
        "status_changed",
        "chat_commit_requested",
        "status_changed",
        "chat_commit_completed",
        "chat_commit_recorded",
    ];
    let refused_finish = [
        "status_changed",
        "tool_call_requested",
        "tool_result_stored",
        "tool_call_failed",
    ];
    let commit = [
        "tool_call_requested",
        "tool_call_started",
        "chat_commit_started",
        "status_changed",
        "checkpoint_created",
        "status_changed",
        "chat_commit_requested",
        "status_changed",
        "chat_commit_completed",
        "tool_result_stored",
        "tool_call_completed",
        "chat_commit_recorded",
    ];
    let expected = seq(&[
        &MODEL_CALL,
        &write,
        &auto_publish,
        &MODEL_CALL,
        &refused_finish,
        &MODEL_CALL,
        &write,
        &commit,
        &MODEL_CALL,
        &READ_CALL,
        &FINISHED_WITH_COMMIT,
    ]);
    assert_eq!(after_preamble(&run.events), expected);

    let failed = payloads(&run.events, "tool_call_failed");
    assert_eq!(failed[0]["errorCode"], "agent.foreground_commit_required");
    let commits = payloads(&run.events, "chat_commit_completed");
    assert_eq!(commits.len(), 2);
    assert_eq!(commits[0]["isExplicit"], false);
    assert_eq!(commits[1]["isExplicit"], true);
    assert_eq!(commits[0]["messageId"], "3");
    assert_eq!(commits[1]["messageId"], "3");

    // One message, revised in place.
    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["mes"], REPLY);
    assert_eq!(
        messages[3]["extra"]["tauritavern"]["agent"]["persistStateStatus"],
        "committed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_text_only_turn_is_captured_and_the_model_recovers() {
    let world = World::new();
    let script = json!({"turns": [
        {"text": REPLY},
        {"tool_calls": [
            {"name": "workspace_write_file", "arguments": {"path": "output/main.md", "content": REPLY}},
            {"name": "workspace_commit", "arguments": {}}
        ]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]});
    let run = world.run(&script).await;
    assert_eq!(run.outcome.status, RunStatus::Completed);

    let events = after_preamble(&run.events);
    assert_eq!(
        events[..MODEL_CALL.len() + 3],
        seq(&[
            &MODEL_CALL,
            &[
                "direct_output_captured",
                "checkpoint_created",
                "drift_recovery_attempted",
            ]
        ])[..]
    );
    assert_eq!(events.last(), Some(&"run_completed"));
    let captured = &payloads(&run.events, "direct_output_captured")[0];
    assert_eq!(captured["path"], "output/direct_output.md");
    assert_eq!(
        captured["modelResponsePath"],
        "model-responses/round-001.json"
    );
    let drift = &payloads(&run.events, "drift_recovery_attempted")[0];
    assert_eq!(drift["reasonCode"], "model.tool_call_required");
    assert_eq!(drift["maxAttempts"], 79);
    let checkpoints = payloads(&run.events, "checkpoint_created");
    assert_eq!(checkpoints[0]["reason"], "direct_output_capture");

    let saved = world
        .runtime
        .read_workspace_file(
            &run.run_id,
            &WorkspacePath::parse("output/direct_output.md").unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(saved.text, REPLY);
    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["mes"], REPLY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_fatal_model_error_after_a_commit_is_a_partial_success() {
    let world = World::new();
    let script = json!({"turns": [
        {"tool_calls": [
            {"name": "workspace_write_file", "arguments": {"path": "output/main.md", "content": REPLY}},
            {"name": "workspace_commit", "arguments": {}}
        ]},
        {"error": {"kind": "fatal", "message": "the provider fell over"}}
    ]});
    let run = world.run(&script).await;
    assert_eq!(run.outcome.status, RunStatus::PartialSuccess);
    let failure = run.outcome.failure.clone().unwrap();
    assert_eq!(failure.code, "model.provider_error");
    assert!(!failure.user_retryable);
    assert_eq!(run.outcome.committed_text.as_deref(), Some(REPLY));

    let events = after_preamble(&run.events);
    let tail = [
        "status_changed",
        "model_request_created",
        "model_call_attempt_started",
        "model_call_attempt_failed",
        "agent_invocation_failed",
        "status_changed",
        "run_partial_success",
    ];
    assert_eq!(events[events.len() - tail.len()..], tail);
    let partial = &payloads(&run.events, "run_partial_success")[0];
    assert_eq!(partial["preservedCommitCount"], 1);
    assert_eq!(partial["preservedCommits"][0]["messageId"], "3");
    assert_eq!(statuses(&run.events).last().unwrap(), "partial_success");

    // The reply stays in the chat, but no state was promoted: the next run skips it.
    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["mes"], REPLY);
    let agent = &messages[3]["extra"]["tauritavern"]["agent"];
    assert_eq!(agent["persistStateStatus"], "not_committed");
    assert!(agent.get("persistStateId").is_none());
    assert!(world.persistent_states().is_empty());
    assert_eq!(
        payloads(&run.events, "persistent_changes_committed").len(),
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failure_before_any_commit_fails_the_run() {
    let world = World::new();
    let script = json!({"turns": [
        {"tool_calls": [{"name": "workspace_list_files", "arguments": {}}]}
    ]});
    let run = world.run(&script).await;
    assert_eq!(run.outcome.status, RunStatus::Failed);
    assert_eq!(
        run.outcome.failure.as_ref().unwrap().code,
        "model.script_exhausted"
    );
    assert_eq!(types(&run.events).last(), Some(&"run_failed"));
    assert_eq!(run.chat, world.chat_text());
    assert_eq!(run.messages().len(), 3);
    assert!(world.persistent_states().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_background_run_may_finish_without_committing() {
    let world = World::new();
    let mut request = world.request(&json!({"turns": [
        {"tool_calls": [{"name": "workspace_write_file", "arguments": {"path": "persist/notes.md", "content": "Mara keeps the light."}}]},
        {"tool_calls": [{"name": "workspace_finish", "arguments": {}}]}
    ]}));
    request.run.presentation = Some(agent_domain::event::Presentation::Background);
    let started = world.runtime.start_run(request).await.unwrap();
    let run_id = started.run.id.clone();
    let outcome = started.task.await;
    let run = world.finished(run_id, outcome).await;
    assert_eq!(run.outcome.status, RunStatus::Completed);
    // Nothing reached the chat, and no message was asked to record the state.
    assert_eq!(run.messages().len(), 3);
    assert!(payloads(&run.events, "chat_commit_started").is_empty());
    assert!(payloads(&run.events, "persistent_state_metadata_update_requested").is_empty());
    let committed = &payloads(&run.events, "persistent_changes_committed")[0];
    assert_eq!(committed["changeCount"], 1);
    assert_eq!(committed["changes"][0]["path"], "persist/notes.md");
    assert_eq!(world.persistent_states(), [run.run_id.to_string()]);
}
