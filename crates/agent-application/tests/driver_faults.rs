//! The runtime driver end to end in memory: whole runs through `AgentRuntime` with
//! `MemoryPorts` and a `FakeModel` (write a reply, commit it, finish), with one journal
//! append, audit write, host commit or promotion made to fail before or after the
//! host-confirmed commit. Each test checks the outcome `docs/runtime.md` and
//! `docs/runtime-loop.md` describe: a failure before any confirmed commit fails the run and
//! writes nothing into the chat; one after it is a partial success that keeps the message.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::sync::Arc;

use agent_application::ports::{
    CancelRequests, ChatError, ChatRole, JournalError, ModelCall, PersistError, RunStore,
    StoreError,
};
use agent_application::runtime::{AgentRuntime, RunOutcome, StartRun};
use agent_application::testing::{
    FakeModel, MemoryAudit, MemoryPorts, snapshot_request, tool_turn,
};
use agent_domain::event::{ChatRef, RunEvent, RunStatus};
use agent_domain::model::AgentModelContentPart;
use agent_domain::run::{GenerationType, RunId, RunSummary};
use agent_domain::tool::BuiltinTool;
use serde_json::json;

const REPLY: &str = "The keeper, Mara, climbs the hundred steps every dusk.";

/// A runtime over memory ports with one chat that ends with the user's message.
struct World {
    ports: MemoryPorts,
    runtime: AgentRuntime,
    model: Arc<FakeModel>,
    chat: ChatRef,
}

/// A finished run.
struct Ran {
    outcome: RunOutcome,
    run_id: RunId,
}

impl World {
    fn new() -> Self {
        let ports = MemoryPorts::new();
        let chat = ChatRef::Character {
            character_id: "Alice".into(),
            file_name: "chat".into(),
        };
        ports.chats.push(&chat, ChatRole::User, "Bob", "Hi Alice!");
        ports
            .chats
            .push(&chat, ChatRole::Assistant, "Alice", "Hello, Bob.");
        ports
            .chats
            .push(&chat, ChatRole::User, "Bob", "Tell me about the keeper.");
        Self {
            runtime: AgentRuntime::new(ports.runtime_ports()),
            ports,
            model: Arc::new(FakeModel::new()),
            chat,
        }
    }

    /// The model writes the reply and commits it in round 1, and finishes in round 2.
    fn write_commit_finish(self) -> Self {
        self.model
            .respond(tool_turn(&[
                (
                    "call_write",
                    BuiltinTool::WorkspaceWriteFile,
                    json!({"path": "output/main.md", "content": REPLY}),
                ),
                ("call_commit", BuiltinTool::WorkspaceCommit, json!({})),
            ]))
            .respond(tool_turn(&[(
                "call_finish",
                BuiltinTool::WorkspaceFinish,
                json!({}),
            )]));
        self
    }

    fn request(&self) -> StartRun {
        StartRun {
            run: snapshot_request(
                self.chat.clone(),
                "fake",
                "fake",
                json!([
                    {"role": "system", "content": "You are Alice. Write the next reply."},
                    {"role": "user", "content": "Tell me about the keeper."}
                ]),
            ),
            model: self.model.clone(),
            models: None,
        }
    }

    /// Starts a run and drives it to its end.
    async fn run(&self) -> Ran {
        let started = self.runtime.start_run(self.request()).await.unwrap();
        let run_id = started.run.id.clone();
        let outcome = started.task.await;
        Ran { outcome, run_id }
    }

    fn types(&self, ran: &Ran) -> Vec<&'static str> {
        self.ports.journal.types(&ran.run_id)
    }

    /// The texts of the chat's messages, in order.
    fn chat_texts(&self) -> Vec<String> {
        let messages = self.ports.chats.messages(&self.chat).unwrap();
        messages.into_iter().map(|m| m.text).collect()
    }

    /// Checks what every run leaves whatever its outcome: the journal ends with exactly one
    /// terminal event matching the outcome, the saved record and the stored summary agree
    /// with it, and every planned fault fired.
    async fn assert_ended(&self, ran: &Ran, status: RunStatus) {
        assert_eq!(ran.outcome.status, status, "{:?}", ran.outcome.failure);
        let lines = self.ports.journal.lines(&ran.run_id);
        let seqs: Vec<u64> = lines.iter().map(|l| l.seq).collect();
        assert_eq!(seqs, (1..=lines.len() as u64).collect::<Vec<_>>());
        let terminal: Vec<_> = lines.iter().filter(|l| l.event.is_terminal()).collect();
        assert_eq!(terminal.len(), 1, "{:?}", self.types(ran));
        assert!(lines.last().unwrap().event.is_terminal());
        let ended = terminal[0].event.terminal_outcome().unwrap().run_status();
        assert_eq!(ended, status);
        let record = self.ports.runs.load_run(&ran.run_id).await.unwrap();
        assert_eq!(record.status, status);
        // The driver folds the summary as it journals (or re-reads the journal after a
        // failed append): either way it is the projection of the whole journal.
        let summary = self.ports.runs.load_run_summary(&ran.run_id).await.unwrap();
        assert_eq!(
            summary,
            Some(RunSummary::project(&record, &lines)),
            "the stored summary of an ended run is its journal's"
        );
        assert_eq!(self.ports.journal.faults().pending(), 0);
        assert_eq!(self.ports.audit.faults().pending(), 0);
        assert_eq!(self.ports.chat_commits.faults().pending(), 0);
        assert_eq!(self.ports.persist.faults().pending(), 0);
    }
}

fn io(message: &str) -> JournalError {
    JournalError::Io(message.into())
}

/// The call ids of the tool calls among a message's parts, in order.
fn tool_call_ids(parts: &[AgentModelContentPart]) -> Vec<String> {
    parts
        .iter()
        .filter_map(AgentModelContentPart::as_tool_call)
        .map(|call| call.call_id.clone())
        .collect()
}

/// Every request after the first repeats the one before it (same tools, its messages as a
/// prefix), and each tool call of the model's turn is answered by a tool result, in order,
/// before the next request goes out.
fn assert_requests_build_on_each_other(calls: &[ModelCall]) {
    for pair in calls.windows(2) {
        let (before, after) = (&pair[0].request, &pair[1].request);
        assert_eq!(before.tools, after.tools);
        assert_eq!(
            after.messages[..before.messages.len()],
            before.messages[..],
            "round {} does not extend round {}",
            pair[1].round,
            pair[0].round
        );
        let added = &after.messages[before.messages.len()..];
        let asked = tool_call_ids(&added[0].parts);
        assert!(!asked.is_empty(), "the model's turn comes first");
        let answered: Vec<String> = added[1..]
            .iter()
            .flat_map(|m| m.tool_results())
            .map(|result| result.call_id.clone())
            .collect();
        assert_eq!(answered, asked);
    }
}

#[tokio::test]
async fn a_clean_run_commits_and_completes() {
    let world = World::new().write_commit_finish();
    let ran = world.run().await;

    world.assert_ended(&ran, RunStatus::Completed).await;
    assert_eq!(ran.outcome.committed_text.as_deref(), Some(REPLY));
    assert_eq!((ran.outcome.rounds, ran.outcome.tool_calls), (2, 3));
    let types = world.types(&ran);
    for expected in [
        "chat_commit_requested",
        "chat_commit_completed",
        "chat_commit_recorded",
        "persistent_changes_committed",
        "persistent_state_metadata_updated",
        "run_completed",
    ] {
        assert!(types.contains(&expected), "{expected} missing: {types:?}");
    }

    // The host received one commit, a new reply that now ends the chat with the run's
    // record and the promoted state.
    let commits = world.ports.chat_commits.commits();
    assert_eq!(commits.len(), 1);
    assert_eq!(commits[0].text, REPLY);
    assert_eq!(world.chat_texts().last().map(String::as_str), Some(REPLY));
    let updates = world.ports.chat_commits.persist_updates();
    assert_eq!(updates.len(), 1);
    assert_eq!(updates[0].message_id, "3");
    assert_eq!(world.ports.persist.states().len(), 1);

    // The audit holds the model's turns and every tool result.
    let audit = world.ports.audit.paths(&ran.run_id);
    for call in ["call_write", "call_commit", "call_finish"] {
        assert!(
            audit.contains(&MemoryAudit::tool_result_path(call)),
            "{call}"
        );
    }
    assert!(audit.contains(&"model-responses/round-002.json".to_owned()));

    let calls = world.model.calls();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        calls
            .iter()
            .map(|c| (c.round, c.attempt))
            .collect::<Vec<_>>(),
        [(1, 1), (2, 1)]
    );
    assert_requests_build_on_each_other(&calls);
    assert_eq!(world.model.queued(), 0);
}

#[tokio::test]
async fn a_journal_failure_before_the_host_commit_fails_the_run_and_commits_nothing() {
    let world = World::new().write_commit_finish();
    world.ports.journal.faults().fail_first(
        |event| matches!(event, RunEvent::ChatCommitRequested(_)),
        io("disk full"),
    );
    let ran = world.run().await;

    assert_failed_before_commit(&world, &ran, "agent.journal_io").await;
    let message = &ran.outcome.failure.as_ref().unwrap().message;
    assert!(message.contains("disk full"), "{message}");
    assert!(world.ports.persist.states().is_empty(), "nothing promoted");
    let types = world.types(&ran);
    assert!(!types.contains(&"chat_commit_requested"));
    assert!(types.contains(&"tool_call_failed"), "{types:?}");
    assert_eq!(types.last(), Some(&"run_failed"));
    assert_eq!(world.model.calls().len(), 1, "no round after the fault");
}

#[tokio::test]
async fn a_host_commit_that_fails_fails_the_run() {
    let world = World::new().write_commit_finish();
    world
        .ports
        .chat_commits
        .faults()
        .fail_first(|_| true, ChatError::Io("chat locked".into()));
    let ran = world.run().await;

    assert_failed_before_commit(&world, &ran, "agent.chat_commit_failed").await;
    assert!(world.types(&ran).contains(&"chat_commit_failed"));
}

/// A fault before the host confirmed anything: the run failed with `code`, no commit
/// reached the host, and the chat is as it was.
async fn assert_failed_before_commit(world: &World, ran: &Ran, code: &str) {
    world.assert_ended(ran, RunStatus::Failed).await;
    assert_eq!(ran.outcome.failure.as_ref().unwrap().code, code);
    assert_eq!(ran.outcome.committed_text, None);
    assert!(world.ports.chat_commits.commits().is_empty());
    assert_eq!(world.chat_texts().len(), 3, "the chat is as it was");
}

/// A journal failure once the commit is in the ledger (the next round's request) ends the
/// run as a partial success that keeps the committed message.
#[tokio::test]
async fn a_journal_failure_after_the_commit_is_a_partial_success() {
    let world = World::new().write_commit_finish();
    world.ports.journal.faults().fail_nth(
        2,
        |event| matches!(event, RunEvent::ModelRequestCreated(_)),
        io("disk full"),
    );
    let ran = world.run().await;

    world.assert_ended(&ran, RunStatus::PartialSuccess).await;
    assert_eq!(
        ran.outcome.failure.as_ref().unwrap().code,
        "agent.journal_io"
    );
    assert_eq!(ran.outcome.committed_text.as_deref(), Some(REPLY));
    assert_eq!(world.chat_texts().last().map(String::as_str), Some(REPLY));
    let lines = world.ports.journal.lines(&ran.run_id);
    let Some(RunEvent::RunPartialSuccess(partial)) = lines.last().map(|l| &l.event) else {
        panic!("{:?}", world.types(&ran));
    };
    assert_eq!(partial.preserved_commit_count, 1);
    assert!(world.ports.persist.states().is_empty(), "nothing promoted");
    assert_eq!(world.model.calls().len(), 1);
}

/// A promotion that fails after a commit is classified by the ledger: partial success.
#[tokio::test]
async fn a_promotion_failure_after_the_commit_is_a_partial_success() {
    let world = World::new().write_commit_finish();
    world
        .ports
        .persist
        .faults()
        .fail_first(|_| true, PersistError::Io("disk full".into()));
    let ran = world.run().await;

    world.assert_ended(&ran, RunStatus::PartialSuccess).await;
    assert_eq!(
        ran.outcome.failure.as_ref().unwrap().code,
        "agent.storage_io"
    );
    assert_eq!(ran.outcome.committed_text.as_deref(), Some(REPLY));
    let types = world.types(&ran);
    assert!(
        types.contains(&"persistent_changes_commit_failed"),
        "{types:?}"
    );
    assert!(!types.contains(&"persistent_state_metadata_update_requested"));
    assert!(world.ports.chat_commits.persist_updates().is_empty());
}

/// The commit tool's result cannot be stored after the host confirmed the commit: the
/// message is in the chat, so the docs make this a partial success.
#[tokio::test]
async fn an_audit_failure_after_the_host_commit_is_a_partial_success() {
    let world = World::new().write_commit_finish();
    world.ports.audit.faults().fail_first(
        |path| path == MemoryAudit::tool_result_path("call_commit"),
        StoreError::Io("disk full".into()),
    );
    let ran = world.run().await;
    assert_kept_after_commit(&world, &ran).await;
    assert_eq!(
        ran.outcome.failure.as_ref().unwrap().code,
        "agent.storage_io"
    );
}

/// The journal refuses `chat_commit_completed` after the host confirmed the commit: the
/// message is in the chat, so the docs make this a partial success too.
#[tokio::test]
async fn a_journal_failure_right_after_the_host_commit_is_a_partial_success() {
    let world = World::new().write_commit_finish();
    world.ports.journal.faults().fail_first(
        |event| matches!(event, RunEvent::ChatCommitCompleted(_)),
        io("disk full"),
    );
    let ran = world.run().await;
    assert_kept_after_commit(&world, &ran).await;
}

/// A fault after the host confirmed the commit: one commit, the reply in the chat and in
/// the outcome, and the run a partial success.
async fn assert_kept_after_commit(world: &World, ran: &Ran) {
    assert_eq!(
        world.ports.chat_commits.commits().len(),
        1,
        "the host committed"
    );
    assert_eq!(world.chat_texts().last().map(String::as_str), Some(REPLY));
    world.assert_ended(ran, RunStatus::PartialSuccess).await;
    assert_eq!(ran.outcome.committed_text.as_deref(), Some(REPLY));
}

/// A journal that refuses the run's first events: the start fails with the journal's code
/// and the record it had created is saved as `failed`, so it is never listed as pending.
#[tokio::test]
async fn a_journal_that_refuses_the_start_fails_the_start() {
    let world = World::new().write_commit_finish();
    world.ports.journal.faults().fail_first(
        |event| matches!(event, RunEvent::ProfileResolved(_)),
        io("disk full"),
    );
    let error = world.runtime.start_run(world.request()).await.unwrap_err();
    assert_eq!(agent_domain::ErrorCode::code(&error), "agent.journal_io");
    let page = world
        .ports
        .runs
        .list_runs(&agent_application::ports::RunListQuery::default())
        .await
        .unwrap();
    assert_eq!(page.runs.len(), 1);
    let run = &page.runs[0];
    assert_eq!(run.status, RunStatus::Failed);
    assert_eq!(world.ports.journal.types(&run.id), ["run_created"]);
    assert!(world.model.calls().is_empty());
}

/// The terminal status line cannot be journaled: the terminal event still is (the journal
/// is the run's truth), the record stays behind it, and `cancel` brings the record up to
/// date instead of cancelling a run that ended.
#[tokio::test]
async fn the_terminal_event_is_journaled_even_when_its_status_line_is_not() {
    let world = World::new().write_commit_finish();
    world.ports.journal.faults().fail_first(
        |event| matches!(event, RunEvent::StatusChanged(change) if change.status == RunStatus::Completed),
        io("disk full"),
    );
    let ran = world.run().await;

    assert_eq!(ran.outcome.status, RunStatus::Completed);
    let types = world.types(&ran);
    assert_eq!(types.last(), Some(&"run_completed"));
    assert_eq!(world.ports.journal.faults().pending(), 0);
    let record = world.ports.runs.load_run(&ran.run_id).await.unwrap();
    assert_eq!(record.status, RunStatus::Finishing, "the record is behind");

    let status = world.runtime.cancel(&ran.run_id).await.unwrap();
    assert_eq!(status, RunStatus::Completed);
    let record = world.ports.runs.load_run(&ran.run_id).await.unwrap();
    assert_eq!(record.status, RunStatus::Completed);
    assert_eq!(
        world.types(&ran).last(),
        Some(&"run_completed"),
        "nothing journaled"
    );
}

/// A completed run rolls back through the host: the reply it added is deleted, and
/// `run_rolled_back` follows the terminal event.
#[tokio::test]
async fn a_completed_run_rolls_back_its_reply() {
    let world = World::new().write_commit_finish();
    let ran = world.run().await;
    world.assert_ended(&ran, RunStatus::Completed).await;

    let rolled = world.runtime.rollback_run(&ran.run_id).await.unwrap();
    assert_eq!(rolled.message_ids, ["3"]);
    assert_eq!(rolled.deleted_messages, [3]);
    assert_eq!(world.chat_texts().len(), 3, "the chat is as before the run");
    assert_eq!(world.ports.chat_commits.rollbacks().len(), 1);
    let types = world.types(&ran);
    assert_eq!(
        types[types.len() - 2..],
        ["run_completed", "run_rolled_back"]
    );
    let again = world.runtime.rollback_run(&ran.run_id).await.unwrap_err();
    assert_eq!(
        agent_domain::ErrorCode::code(&again),
        "agent.rollback_already_applied"
    );
}

/// A swipe run's commit becomes the new text of the message it set aside; the message as
/// it was is kept in `input/rollback_base.json`, and a rollback puts it back.
#[tokio::test]
async fn a_swipe_run_replaces_the_last_reply_and_rolls_back_exactly() {
    let world = World::new().write_commit_finish();
    world.ports.chats.push(
        &world.chat,
        ChatRole::Assistant,
        "Alice",
        "The keeper? Nobody.",
    );
    let mut request = world.request();
    request.run.generation_type = GenerationType::Swipe;
    let started = world.runtime.start_run(request).await.unwrap();
    let ran = Ran {
        run_id: started.run.id.clone(),
        outcome: started.task.await,
    };
    world.assert_ended(&ran, RunStatus::Completed).await;

    let commits = world.ports.chat_commits.commits();
    assert_eq!(
        commits[0].target,
        agent_application::ports::CommitTarget::NewSwipe { index: 3 }
    );
    assert_eq!(world.chat_texts().len(), 4);
    assert_eq!(world.chat_texts()[3], REPLY);
    let base = world
        .ports
        .audit
        .document(&ran.run_id, "input/rollback_base.json")
        .unwrap();
    assert_eq!(base["messageId"], "3");

    let rolled = world.runtime.rollback_run(&ran.run_id).await.unwrap();
    assert_eq!(rolled.restored_messages, [3]);
    assert_eq!(world.chat_texts()[3], "The keeper? Nobody.");
}

/// The commit call's arguments cannot be audited: the commit never starts, so the run fails
/// and the chat is untouched.
#[tokio::test]
async fn an_audit_failure_before_the_host_commit_fails_the_run() {
    let world = World::new().write_commit_finish();
    let commit_args = MemoryAudit::tool_args_path("call_commit");
    world.ports.audit.faults().fail_first(
        move |path| path == commit_args,
        StoreError::Io("disk full".into()),
    );
    let ran = world.run().await;

    assert_failed_before_commit(&world, &ran, "agent.storage_io").await;
    assert!(!world.types(&ran).contains(&"chat_commit_started"));
}

/// The next round's model response cannot be audited once the commit is in the ledger:
/// a partial success that keeps the message.
#[tokio::test]
async fn an_audit_failure_after_the_commit_is_recorded_is_a_partial_success() {
    let world = World::new().write_commit_finish();
    world.ports.audit.faults().fail_first(
        |path| path == "model-responses/round-002.json",
        StoreError::Io("disk full".into()),
    );
    let ran = world.run().await;

    world.assert_ended(&ran, RunStatus::PartialSuccess).await;
    assert_eq!(
        ran.outcome.failure.as_ref().unwrap().code,
        "agent.storage_io"
    );
    assert_eq!(ran.outcome.committed_text.as_deref(), Some(REPLY));
    assert_eq!(world.chat_texts().last().map(String::as_str), Some(REPLY));
    assert_eq!(world.model.calls().len(), 2);
    assert!(world.ports.persist.states().is_empty(), "nothing promoted");
}

/// A cancellation another process left before the driver's first step: the run is
/// cancelled without a model call, and the request is cleared when it ends.
#[tokio::test]
async fn a_cancellation_request_from_another_process_cancels_the_run() {
    let world = World::new().write_commit_finish();
    let started = world.runtime.start_run(world.request()).await.unwrap();
    let run_id = started.run.id.clone();
    world.ports.cancel_requests.request(&run_id).await.unwrap();
    let ran = Ran {
        outcome: started.task.await,
        run_id,
    };

    world.assert_ended(&ran, RunStatus::Cancelled).await;
    let types = world.types(&ran);
    assert!(types.contains(&"run_cancel_requested"), "{types:?}");
    assert_eq!(types.last(), Some(&"run_cancelled"));
    assert!(world.model.calls().is_empty());
    assert!(
        !world
            .ports
            .cancel_requests
            .is_requested(&ran.run_id)
            .await
            .unwrap()
    );
}

/// A host that subscribes before it drives the task follows every event after the three
/// `start_run` journals, through the terminal one, and the stream then ends.
#[tokio::test]
async fn a_subscriber_follows_the_run_to_its_terminal_event() {
    use futures::StreamExt;

    let world = World::new().write_commit_finish();
    let started = world.runtime.start_run(world.request()).await.unwrap();
    let run_id = started.run.id.clone();
    let first = world
        .runtime
        .read_events(&run_id, &agent_application::ports::EventQuery::default())
        .await
        .unwrap();
    assert_eq!(first.len(), 3);
    let follower = world.runtime.subscribe(&run_id).await.unwrap();
    let ran = Ran {
        outcome: started.task.await,
        run_id,
    };
    world.assert_ended(&ran, RunStatus::Completed).await;

    let following = follower.map(|line| line.unwrap().seq).collect::<Vec<u64>>();
    let followed = tokio::time::timeout(std::time::Duration::from_secs(5), following)
        .await
        .expect("the stream ends after the terminal event");
    let all = world.ports.journal.lines(&ran.run_id);
    assert_eq!(followed, all[3..].iter().map(|l| l.seq).collect::<Vec<_>>());
}
