//! The run loop's rules end to end (issue 5): real storage in a temp dir, the scripted model
//! and the `AgentRuntime` facade. Each scenario pins the journal as a readable timeline
//! snapshot (`runtime_support::timeline`) and checks the chat file afterwards.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod runtime_support;

use std::time::Duration;

use agent_domain::event::RunStatus;
use agent_domain::run::GenerationType;
use agent_domain::workspace::WorkspacePath;
use runtime_support::{World, chat_lines, payloads, timeline, types};
use serde_json::{Value, json};

const REPLY: &str = "The keeper, Mara, climbs the hundred steps every dusk.";
const EXTRA: &str = "Below, the sea keeps its own counsel.";

fn write(path: &str, content: &str) -> Value {
    json!({"name": "workspace_write_file", "arguments": {"path": path, "content": content}})
}

fn commit() -> Value {
    json!({"name": "workspace_commit", "arguments": {}})
}

fn finish() -> Value {
    json!({"name": "workspace_finish", "arguments": {}})
}

/// A turn that writes the reply and commits it.
fn write_and_commit(text: &str) -> Value {
    json!({"tool_calls": [write("output/main.md", text), commit()]})
}

fn finish_turn() -> Value {
    json!({"tool_calls": [finish()]})
}

/// The error codes of the run's `tool_call_failed` events, in order.
fn failed_codes(events: &[agent_domain::event::JournalLine]) -> Vec<String> {
    payloads(events, "tool_call_failed")
        .iter()
        .map(|p| p["errorCode"].as_str().unwrap().to_owned())
        .collect()
}

/// The stored summary agrees with what the task returned and the journal shows.
async fn assert_summary_agrees(world: &World, run: &runtime_support::Finished) {
    let summary = world.runtime.run_summary(&run.run_id).await.unwrap();
    assert_eq!(summary.status, run.outcome.status);
    assert_eq!(summary.model_rounds, run.outcome.rounds, "model rounds");
    assert_eq!(summary.tool_calls, run.outcome.tool_calls, "tool calls");
    let commits = payloads(&run.events, "chat_commit_completed").len();
    assert_eq!(summary.commit_count as usize, commits, "commits");
    assert_eq!(
        summary.error.map(|e| e.code),
        run.outcome.failure.as_ref().map(|f| f.code.clone())
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_commit_then_an_append_builds_one_message() {
    let world = World::new();
    let run = world
        .run(&json!({"turns": [
            write_and_commit(REPLY),
            {"tool_calls": [
                write("output/extra.md", EXTRA),
                {"name": "workspace_commit", "arguments": {"path": "output/extra.md", "mode": "append"}}
            ]},
            finish_turn()
        ]}))
        .await;
    insta::assert_snapshot!("commit_then_append", timeline(&run.events));
    assert_summary_agrees(&world, &run).await;

    let joined = format!("{REPLY}\n\n{EXTRA}");
    assert_eq!(run.outcome.status, RunStatus::Completed);
    assert_eq!(run.outcome.committed_text.as_deref(), Some(joined.as_str()));
    // The ledger: two explicit commits, both to message 3.
    let recorded = payloads(&run.events, "chat_commit_recorded");
    assert_eq!(recorded.len(), 2);
    assert_eq!(recorded[1]["commitCount"], 2);
    assert_eq!(recorded[1]["mode"], "append");
    let summary = world.runtime.run_summary(&run.run_id).await.unwrap();
    assert_eq!(summary.commit_count, 2);
    assert_eq!(summary.message_id.as_deref(), Some("3"));

    // The run's one message holds both texts, joined by a blank line.
    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["mes"], joined.as_str());
    assert_eq!(messages[3]["swipes"], json!([joined]));
    let agent = &messages[3]["extra"]["tauritavern"]["agent"];
    assert_eq!(agent["runId"], run.run_id.as_str());
    assert_eq!(agent["persistStateStatus"], "committed");
}

/// Saves the profile `drifter`: the default writer with three rounds.
async fn drifter(world: &World) {
    world
        .save_profile("drifter", |doc| doc["tools"]["maxRounds"] = json!(3))
        .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn text_only_turns_until_the_rounds_run_out_fail_the_run() {
    let world = World::new();
    drifter(&world).await;
    let before = world.chat_text();
    let mut request = world.request(&json!({"turns": [
        {"text": "First, a thought."},
        {"text": "Second, a longer thought."},
        {"text": "Third and last thought."}
    ]}));
    request.run.profile_id = Some("drifter".into());
    let run = world.run_request(request).await;
    insta::assert_snapshot!("drift_until_rounds_run_out", timeline(&run.events));
    assert_summary_agrees(&world, &run).await;

    assert_eq!(run.outcome.status, RunStatus::Failed);
    let failure = run.outcome.failure.clone().unwrap();
    assert_eq!(failure.code, "model.tool_call_required");
    assert!(failure.user_retryable);
    let failed = &payloads(&run.events, "run_failed")[0];
    assert_eq!(failed["code"], "model.tool_call_required");
    assert_eq!(failed["userRetryable"], true);

    // Every round's text was captured, each replacing the last.
    let captured = payloads(&run.events, "direct_output_captured");
    let rounds: Vec<&Value> = captured.iter().map(|c| &c["round"]).collect();
    assert_eq!(rounds, [1, 2, 3]);
    assert!(
        captured
            .iter()
            .all(|c| c["path"] == "output/direct_output.md")
    );
    let drift = payloads(&run.events, "drift_recovery_attempted");
    assert_eq!(drift.len(), 2);
    assert_eq!(drift[0]["maxAttempts"], 2);
    assert_eq!(drift[0]["maxRounds"], 3);
    let saved = world
        .runtime
        .read_workspace_file(
            &run.run_id,
            &WorkspacePath::parse("output/direct_output.md").unwrap(),
        )
        .await
        .unwrap();
    assert_eq!(saved.text, "Third and last thought.");

    // Nothing reached the chat.
    assert_eq!(run.chat, before);
    assert!(world.persistent_states().is_empty());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn drifting_after_a_commit_is_a_partial_success_that_keeps_the_message() {
    let world = World::new();
    drifter(&world).await;
    let mut request = world.request(&json!({"turns": [
        write_and_commit(REPLY),
        {"text": "I think it is done."},
        {"text": "Really done."}
    ]}));
    request.run.profile_id = Some("drifter".into());
    let run = world.run_request(request).await;
    insta::assert_snapshot!("drift_after_a_commit", timeline(&run.events));
    assert_summary_agrees(&world, &run).await;

    assert_eq!(run.outcome.status, RunStatus::PartialSuccess);
    let failure = run.outcome.failure.clone().unwrap();
    assert_eq!(failure.code, "model.tool_call_required");
    assert_eq!(run.outcome.committed_text.as_deref(), Some(REPLY));
    let partial = &payloads(&run.events, "run_partial_success")[0];
    assert_eq!(partial["preservedCommitCount"], 1);
    assert_eq!(partial["preservedCommits"][0]["messageId"], "3");
    let drift = payloads(&run.events, "drift_recovery_attempted");
    assert_eq!(drift.len(), 1);
    assert_eq!(drift[0]["committedCount"], 1);

    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["mes"], REPLY);
    assert_eq!(
        messages[3]["extra"]["tauritavern"]["agent"]["persistStateStatus"],
        "not_committed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_finish_before_another_call_is_refused_and_the_other_call_runs() {
    let world = World::new();
    let run = world
        .run(&json!({"turns": [
            write_and_commit(REPLY),
            {"tool_calls": [
                finish(),
                {"name": "workspace_read_file", "arguments": {"path": "output/main.md"}}
            ]},
            finish_turn()
        ]}))
        .await;
    insta::assert_snapshot!("tool_after_finish", timeline(&run.events));
    assert_summary_agrees(&world, &run).await;

    assert_eq!(run.outcome.status, RunStatus::Completed);
    assert_eq!((run.outcome.rounds, run.outcome.tool_calls), (3, 5));
    assert_eq!(failed_codes(&run.events), ["agent.tool_after_finish"]);
    // The refused finish never started; the read after it did, and succeeded.
    let started: Vec<Value> = payloads(&run.events, "tool_call_started")
        .iter()
        .map(|p| p["callId"].clone())
        .collect();
    assert_eq!(started, ["call_1", "call_2", "call_4", "call_5"]);
    let completed = payloads(&run.events, "tool_call_completed");
    assert_eq!(completed[2]["callId"], "call_4");
    assert_eq!(completed[2]["toolId"], "builtin:workspace.read_file");
    let finished = &payloads(&run.events, "agent_loop_finished")[0];
    assert_eq!(finished["round"], 3);

    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["mes"], REPLY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_alias_fails_fast_and_commits_nothing() {
    let world = World::new();
    let before = world.chat_text();
    let run = world
        .run(&json!({"turns": [
            {"tool_calls": [{"name": "workspace_shell", "arguments": {"command": "ls"}}]},
            finish_turn()
        ]}))
        .await;
    insta::assert_snapshot!("unknown_alias", timeline(&run.events));
    assert_summary_agrees(&world, &run).await;

    assert_eq!(run.outcome.status, RunStatus::Failed);
    let failure = run.outcome.failure.clone().unwrap();
    assert_eq!(failure.code, "model.unknown_tool_call");
    assert!(!failure.retryable);
    // One attempt, not retried: the second turn was never taken.
    assert_eq!(payloads(&run.events, "model_call_attempt_started").len(), 1);
    let attempt = &payloads(&run.events, "model_call_attempt_failed")[0];
    assert_eq!(attempt["code"], "model.unknown_tool_call");
    assert_eq!(attempt["willRetry"], false);
    assert!(payloads(&run.events, "model_response_stored").is_empty());
    assert!(payloads(&run.events, "tool_call_requested").is_empty());

    assert!(payloads(&run.events, "chat_commit_started").is_empty());
    assert_eq!(run.chat, before);
    assert!(world.persistent_states().is_empty());
}

/// Arguments cut off mid-object, as a truncated provider stream leaves them.
const MALFORMED: &str = r#"{"path": "output/main.md", "content": "#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_arguments_are_an_error_the_model_recovers_from() {
    let world = World::new();
    let run = world
        .run(&json!({"turns": [
            {"tool_calls": [{"name": "workspace_write_file",
                             "arguments": MALFORMED}]},
            write_and_commit(REPLY),
            finish_turn()
        ]}))
        .await;
    insta::assert_snapshot!("malformed_arguments", timeline(&run.events));
    assert_summary_agrees(&world, &run).await;

    assert_eq!(run.outcome.status, RunStatus::Completed);
    assert_eq!(failed_codes(&run.events), ["tool.invalid_arguments"]);
    let failed = &payloads(&run.events, "tool_call_failed")[0];
    assert_eq!(failed["isError"], true);
    assert!(failed.get("fatal").is_none());
    // The stored result is the error the model saw.
    let stored = &payloads(&run.events, "tool_result_stored")[0];
    let result = world
        .runtime
        .read_workspace_file(
            &run.run_id,
            &WorkspacePath::parse(stored["path"].as_str().unwrap()).unwrap(),
        )
        .await
        .unwrap();
    assert!(
        result.text.contains("tool.invalid_arguments"),
        "{}",
        result.text
    );
    // The turn shows the raw arguments exactly as the model sent them.
    let turn = world
        .runtime
        .read_model_turn(&run.run_id, None, 1)
        .await
        .unwrap();
    assert_eq!(turn.tool_calls[0].arguments_preview, MALFORMED);
    // Nothing was written by the malformed call.
    assert_eq!(payloads(&run.events, "workspace_file_written").len(), 1);

    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["mes"], REPLY);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_spent_tool_budget_is_an_error_the_model_recovers_from() {
    let world = World::new();
    world
        .save_profile("thrifty", |doc| {
            doc["tools"]["maxCallsPerTool"] = json!({"builtin:chat.search": 1});
        })
        .await;
    let search =
        json!({"tool_calls": [{"name": "chat_search", "arguments": {"query": "lighthouse"}}]});
    let mut request = world.request(&json!({"turns": [
        search, search, write_and_commit(REPLY), finish_turn()
    ]}));
    request.run.profile_id = Some("thrifty".into());
    let run = world.run_request(request).await;
    insta::assert_snapshot!("budget_exhausted", timeline(&run.events));
    assert_summary_agrees(&world, &run).await;

    assert_eq!(run.outcome.status, RunStatus::Completed);
    assert_eq!(failed_codes(&run.events), ["agent.tool_budget_exhausted"]);
    let failed = &payloads(&run.events, "tool_call_failed")[0];
    assert_eq!(failed["callId"], "call_2");
    assert_eq!(failed["toolId"], "builtin:chat.search");
    // The refused search was never started.
    let started = payloads(&run.events, "tool_call_started");
    assert!(started.iter().all(|p| p["callId"] != "call_2"));

    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["mes"], REPLY);
}

/// Paused time: the default 3,000 ms between attempts is skipped by the Tokio clock, while
/// the storage's blocking file I/O keeps the clock from jumping past work in progress.
#[tokio::test(flavor = "current_thread", start_paused = true)]
async fn two_retryable_errors_are_retried_then_the_run_succeeds() {
    let world = World::new();
    let clock = tokio::time::Instant::now();
    let run = world
        .run(&json!({"turns": [
            {"error": {"kind": "rate_limit", "message": "slow down"}},
            {"error": {"kind": "transient"}},
            write_and_commit(REPLY),
            finish_turn()
        ]}))
        .await;
    insta::assert_snapshot!("retry_twice_then_success", timeline(&run.events));
    assert_summary_agrees(&world, &run).await;

    assert_eq!(run.outcome.status, RunStatus::Completed);
    assert_eq!(run.outcome.rounds, 2);
    let failed = payloads(&run.events, "model_call_attempt_failed");
    let codes: Vec<&Value> = failed.iter().map(|p| &p["code"]).collect();
    assert_eq!(codes, ["model.rate_limited", "model.transient"]);
    assert_eq!(failed[0]["message"], "slow down");
    assert!(failed.iter().all(|p| p["willRetry"] == true));
    let retries = payloads(&run.events, "model_call_retry_scheduled");
    let next: Vec<&Value> = retries.iter().map(|p| &p["nextAttempt"]).collect();
    assert_eq!(next, [2, 3]);
    assert!(retries.iter().all(|p| p["intervalMs"] == 3000));
    // Both waits happened, on the paused clock.
    assert!(clock.elapsed() >= Duration::from_millis(6000));

    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    assert_eq!(messages[3]["mes"], REPLY);
}

const EARLIER: &str = "The keeper? An old man who hates visitors.";

/// The test chat followed by Alice's reply, with its one swipe, as SillyTavern saves it.
fn chat_ending_with_a_reply() -> Vec<Value> {
    let mut lines = chat_lines();
    lines.push(json!({
        "name": "Alice", "is_user": false, "is_system": false,
        "send_date": "2026-01-01T10:01:30.000Z", "mes": EARLIER, "extra": {"api": "openai"},
        "swipes": [EARLIER], "swipe_id": 0,
        "swipe_info": [{"send_date": "2026-01-01T10:01:30.000Z", "extra": {"api": "openai"}}]
    }));
    lines
}

/// A run that reads the hidden reply (and fails to), then writes, commits and finishes.
fn hidden_reply_script() -> Value {
    json!({"turns": [
        {"tool_calls": [{"name": "chat_read_messages", "arguments": {"messages": [{"index": 3}]}}]},
        write_and_commit(REPLY),
        finish_turn()
    ]})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_swipe_hides_the_last_reply_and_adds_a_swipe_to_it() {
    let world = World::with_chat(&chat_ending_with_a_reply());
    let mut request = world.request(&hidden_reply_script());
    request.run.generation_type = GenerationType::Swipe;
    let started = world.runtime.start_run(request).await.unwrap();
    assert_eq!(started.run.input_message_count, Some(3));
    let run_id = started.run.id.clone();
    let outcome = started.task.await;
    let run = world.finished(run_id, outcome).await;
    insta::assert_snapshot!("swipe", timeline(&run.events));
    assert_summary_agrees(&world, &run).await;

    assert_eq!(run.outcome.status, RunStatus::Completed);
    // The prefix excludes the reply being swiped: index 3 does not exist for the run.
    assert_eq!(failed_codes(&run.events), ["chat.message_not_found"]);
    let commit = &payloads(&run.events, "chat_commit_completed")[0];
    assert_eq!(commit["messageId"], "3");

    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    let reply = &messages[3];
    assert_eq!(reply["mes"], REPLY);
    assert_eq!(reply["swipes"], json!([EARLIER, REPLY]));
    assert_eq!(reply["swipe_id"], 1);
    let infos = reply["swipe_info"].as_array().unwrap();
    assert_eq!(infos.len(), 2);
    // The earlier swipe keeps its metadata; the new one carries the run's.
    assert_eq!(infos[0]["extra"], json!({"api": "openai"}));
    let agent = &reply["extra"]["tauritavern"]["agent"];
    assert_eq!(agent["runId"], run.run_id.as_str());
    assert_eq!(agent["persistStateStatus"], "committed");
    assert_eq!(infos[1]["extra"], reply["extra"]);
    // The messages before it are untouched.
    assert_eq!(messages[..3], chat_ending_with_a_reply()[1..4]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_regenerate_hides_the_last_reply_and_adds_a_selected_swipe_to_it() {
    let world = World::with_chat(&chat_ending_with_a_reply());
    let mut request = world.request(&hidden_reply_script());
    request.run.generation_type = GenerationType::Regenerate;
    let run = world.run_request(request).await;
    assert_summary_agrees(&world, &run).await;

    assert_eq!(run.outcome.status, RunStatus::Completed);
    assert_eq!(failed_codes(&run.events), ["chat.message_not_found"]);
    assert_eq!(
        payloads(&run.events, "generation_intent_recorded")[0]["generationType"],
        "regenerate"
    );
    let messages = run.messages();
    assert_eq!(messages.len(), 4);
    let reply = &messages[3];
    assert_eq!(reply["mes"], REPLY);
    assert_eq!(
        reply["swipes"],
        json!([EARLIER, REPLY]),
        "the earlier swipe stays"
    );
    assert_eq!(reply["swipe_id"], 1);
    let agent = &reply["extra"]["tauritavern"]["agent"];
    assert_eq!(agent["runId"], run.run_id.as_str());
    assert_eq!(
        agent["rollback"],
        json!({"strategy": "deleteSwipe", "swipeId": 1})
    );
    assert_eq!(types(&run.events).last(), Some(&"run_completed"));
}
