//! Shared set-up of the runtime end-to-end tests: a real data directory in a temp dir
//! (every adapter of `FsStorage`), a SillyTavern chat, the scripted model, and helpers to
//! run a script to its end and look at what it left.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::path::PathBuf;
use std::sync::Arc;

use agent_application::ports::{EventJournal, EventQuery};
use agent_application::runtime::{AgentRuntime, RunOutcome, RuntimePorts, StartRun, StartedRun};
use agent_application::testing::snapshot_request;
use agent_domain::event::{ChatRef, JournalLine, RunEvent};
use agent_domain::run::RunId;
use agent_gateway::scripted::ScriptedModel;
use agent_infra_fs::FsStorage;
use agent_infra_fs::layout::DataDir;
use serde_json::{Value, json};
use tempfile::TempDir;

/// The stable id written into the test chat's header, so workspace ids are predictable.
pub const STABLE_CHAT_ID: &str = "stable-alice-chat";

/// A data directory with one chat, `chats/Alice/chat.jsonl`.
pub struct World {
    pub dir: TempDir,
    pub storage: FsStorage,
    pub runtime: AgentRuntime,
    pub chat: ChatRef,
}

/// A finished run and what it left.
pub struct Finished {
    pub outcome: RunOutcome,
    pub run_id: RunId,
    pub events: Vec<JournalLine>,
    pub chat: String,
}

impl Finished {
    /// The event types, in order.
    pub fn types(&self) -> Vec<&'static str> {
        types(&self.events)
    }

    /// The chat's messages (header excluded), parsed.
    pub fn messages(&self) -> Vec<Value> {
        messages(&self.chat)
    }
}

pub fn types(events: &[JournalLine]) -> Vec<&'static str> {
    events.iter().map(JournalLine::event_type).collect()
}

pub fn messages(chat: &str) -> Vec<Value> {
    chat.lines()
        .skip(1)
        .map(|line| serde_json::from_str(line).unwrap())
        .collect()
}

/// The runtime's ports over `storage`, with the real clock, ids, hashing and dice.
pub fn ports(storage: &FsStorage) -> RuntimePorts {
    storage.runtime_ports()
}

/// The chat every test starts from: a header and three messages, ending with the user.
pub fn chat_lines() -> Vec<Value> {
    vec![
        json!({
            "user_name": "Bob",
            "character_name": "Alice",
            "create_date": "2026-01-01@10h00m00s",
            "chat_metadata": {"integrity": STABLE_CHAT_ID}
        }),
        json!({"name": "Bob", "is_user": true, "is_system": false,
               "send_date": "2026-01-01T10:00:00.000Z", "mes": "Hi Alice!", "extra": {}}),
        json!({"name": "Alice", "is_user": false, "is_system": false,
               "send_date": "2026-01-01T10:00:05.000Z", "mes": "Hello, Bob. The lighthouse is dark tonight.", "extra": {}}),
        json!({"name": "Bob", "is_user": true, "is_system": false,
               "send_date": "2026-01-01T10:01:00.000Z", "mes": "Tell me about the lighthouse keeper.", "extra": {}}),
    ]
}

impl World {
    pub fn new() -> Self {
        Self::with_chat(&chat_lines())
    }

    pub fn with_chat(lines: &[Value]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("chats").join("Alice");
        std::fs::create_dir_all(&folder).unwrap();
        let text: String = lines.iter().map(|line| format!("{line}\n")).collect();
        std::fs::write(folder.join("chat.jsonl"), text).unwrap();
        let storage = FsStorage::open(DataDir::new(dir.path()));
        let runtime = AgentRuntime::new(ports(&storage));
        Self {
            dir,
            storage,
            runtime,
            chat: ChatRef::Character {
                character_id: "Alice".into(),
                file_name: "chat".into(),
            },
        }
    }

    pub fn chat_path(&self) -> PathBuf {
        self.dir
            .path()
            .join("chats")
            .join("Alice")
            .join("chat.jsonl")
    }

    pub fn chat_text(&self) -> String {
        std::fs::read_to_string(self.chat_path()).unwrap()
    }

    /// A start request for `script` with a small prompt snapshot.
    pub fn request(&self, script: &Value) -> StartRun {
        StartRun {
            run: snapshot_request(
                self.chat.clone(),
                "scripted",
                "script",
                json!([
                    {"role": "system", "content": "You are Alice. Write the next reply."},
                    {"role": "user", "content": "Tell me about the lighthouse keeper."}
                ]),
            ),
            model: Arc::new(ScriptedModel::from_json(&script.to_string()).unwrap()),
            models: None,
        }
    }

    pub async fn start(&self, script: &Value) -> StartedRun {
        self.runtime.start_run(self.request(script)).await.unwrap()
    }

    /// Starts `script`, drives it to its end and collects the journal and the chat.
    pub async fn run(&self, script: &Value) -> Finished {
        let started = self.start(script).await;
        let run_id = started.run.id.clone();
        let outcome = started.task.await;
        self.finished(run_id, outcome).await
    }

    pub async fn finished(&self, run_id: RunId, outcome: RunOutcome) -> Finished {
        let events = self.events(&run_id).await;
        Finished {
            outcome,
            run_id,
            events,
            chat: self.chat_text(),
        }
    }

    /// Every journaled event of the run.
    pub async fn events(&self, run: &RunId) -> Vec<JournalLine> {
        let query = EventQuery {
            after_seq: Some(0),
            limit: Some(500),
            ..EventQuery::default()
        };
        self.storage.journal.read(run, &query).await.unwrap()
    }

    /// Whether any persistent state was promoted in the chat's workspace.
    pub fn persistent_states(&self) -> Vec<String> {
        let root = self.dir.path().join("_tauritavern/agent-workspaces/chats");
        let mut states = Vec::new();
        for workspace in std::fs::read_dir(&root).into_iter().flatten().flatten() {
            let dir = workspace.path().join("persistent-states");
            for state in std::fs::read_dir(dir).into_iter().flatten().flatten() {
                states.push(state.file_name().to_string_lossy().into_owned());
            }
        }
        states
    }
}

/// The statuses a run went through, from its `status_changed` events.
pub fn statuses(events: &[JournalLine]) -> Vec<String> {
    events
        .iter()
        .filter_map(|line| match &line.event {
            RunEvent::StatusChanged(change) => Some(change.status.as_str().to_owned()),
            _ => None,
        })
        .collect()
}

/// The events of `kind` as JSON payloads.
pub fn payloads(events: &[JournalLine], kind: &str) -> Vec<Value> {
    events
        .iter()
        .filter(|line| line.event_type() == kind)
        .map(|line| serde_json::to_value(line).unwrap()["payload"].clone())
        .collect()
}

impl World {
    /// Starts `request`, drives it to its end and collects the journal and the chat.
    pub async fn run_request(&self, request: StartRun) -> Finished {
        let started = self.runtime.start_run(request).await.unwrap();
        let run_id = started.run.id.clone();
        let outcome = started.task.await;
        self.finished(run_id, outcome).await
    }

    /// Saves a profile `id` through the `ProfileService`: the built-in `default-writer`
    /// document under another id, with `change` applied to its JSON.
    pub async fn save_profile(&self, id: &str, change: impl FnOnce(&mut Value)) {
        let text = agent_domain::profile::default_writer()
            .to_json_pretty()
            .unwrap();
        let mut document: Value = serde_json::from_str(&text).unwrap();
        document["id"] = json!(id);
        document["displayName"] = json!(format!("Test profile {id}"));
        change(&mut document);
        let service =
            agent_application::profiles::ProfileService::new(self.storage.profiles.clone());
        service.save(&document.to_string()).await.unwrap();
    }
}

/// A readable digest of a journal for snapshots: one line per event, its type and a few key
/// payload fields. Ids that differ between runs, timestamps, hashes and durations are never
/// among them (a run id inside a message is redacted).
pub fn timeline(events: &[JournalLine]) -> String {
    let mut out = String::new();
    for line in events {
        let kind = line.event_type();
        let payload = serde_json::to_value(line).unwrap()["payload"].take();
        let fields: Vec<String> = key_fields(kind)
            .iter()
            .filter_map(|key| {
                let value = payload.get(*key)?;
                (!value.is_null()).then(|| format!("{key}={}", show(value)))
            })
            .collect();
        let text = format!("{kind:<36} {}", fields.join(" "));
        out.push_str(redact_run_ids(text.trim_end()).as_str());
        out.push('\n');
    }
    out
}

/// The payload fields [`timeline`] shows for each event type.
fn key_fields(kind: &str) -> &'static [&'static str] {
    match kind {
        "run_created" => &["presentation", "persistBaseStateId"],
        "profile_resolved" => &["profileId", "source"],
        "generation_intent_recorded" => &["generationType"],
        "status_changed" => &["status"],
        "context_assembled" => &["maxRounds", "modelRetry"],
        "model_request_created" | "model_response_stored" => &["round"],
        "model_call_attempt_started" => &["round", "attempt"],
        "model_call_attempt_failed" => &["round", "attempt", "code", "retryable", "willRetry"],
        "model_call_retry_scheduled" => &["round", "nextAttempt", "intervalMs"],
        "model_completed" => &["round", "textChars", "toolCallCount"],
        "direct_output_captured" => &["round", "path", "chars"],
        "checkpoint_created" => &["reason"],
        "drift_recovery_attempted" => &[
            "round",
            "attempt",
            "maxAttempts",
            "committedCount",
            "reasonCode",
        ],
        "tool_call_requested" => &["round", "callId", "toolId"],
        "tool_call_started" | "tool_result_stored" => &["callId"],
        "tool_call_completed" => &["callId", "toolId"],
        "tool_call_failed" => &["callId", "toolId", "errorCode", "fatal"],
        "workspace_file_written" => &["path", "mode", "chars"],
        "chat_commit_started" => &["callId", "path", "mode", "isExplicit"],
        "chat_commit_requested" => &["path", "mode", "chars"],
        "chat_commit_completed" => &["messageId", "mode", "isExplicit"],
        "chat_commit_failed" => &["code", "message"],
        "chat_commit_recorded" => &["commitCount", "messageId", "path", "mode"],
        "agent_loop_finished" => &["round", "commitCount", "endedBy"],
        "persistent_changes_committed" => &["changeCount"],
        "persistent_state_metadata_update_requested" | "persistent_state_metadata_updated" => {
            &["messageId"]
        }
        "agent_invocation_completed" | "agent_invocation_failed" | "agent_invocation_cancelled" => {
            &["status"]
        }
        "run_failed" => &["code", "retryable", "userRetryable", "message"],
        "run_partial_success" => &["code", "userRetryable", "preservedCommitCount", "message"],
        "run_cancelled" => &["message"],
        _ => &[],
    }
}

/// A field value: plain words bare, other strings quoted, anything else as compact JSON.
fn show(value: &Value) -> String {
    match value {
        Value::String(text) if !text.is_empty() && !text.contains(char::is_whitespace) => {
            text.clone()
        }
        other => other.to_string(),
    }
}

/// `run_` followed by 32 hex digits becomes `[run-id]`.
fn redact_run_ids(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find("run_") {
        let (before, from) = rest.split_at(at);
        out.push_str(before);
        let id = from
            .get(4..36)
            .filter(|hex| hex.bytes().all(|b| b.is_ascii_hexdigit()));
        if id.is_some() {
            out.push_str("[run-id]");
            rest = &from[36..];
        } else {
            out.push_str("run_");
            rest = &from[4..];
        }
    }
    out.push_str(rest);
    out
}
