//! Undoing an ended run's output on the chat (`tavern-agent runs rollback`): every message
//! the run committed to is changed back by the strategy its record names (the message the
//! run created is deleted, the swipe it added is removed, and a message the run started
//! from is written back byte for byte when nothing else changed it since), in one atomic
//! write of the chat. The run's journal then notes it (`run_rolled_back`, after the
//! terminal event) and its summary says so.

use agent_domain::event::{RemovedSwipe, RunEvent, RunRolledBackPayload};
use agent_domain::json::OrderedJson;
use agent_domain::run::RunId;
use serde_json::{Value, json};

use super::errors::RuntimeError;
use super::recorder::append;
use super::shared::Shared;
use super::summary::{read_all_events, store_summary};
use crate::ports::{
    ChatRollbackRequest, InputDocument, MetadataChange, RollbackTarget, StoreError,
};

/// The run is still going.
const RUN_ACTIVE: &str = "agent.rollback_run_active";
/// The run committed nothing to undo.
const NOTHING_COMMITTED: &str = "agent.rollback_nothing_committed";
/// The run was rolled back already.
const ALREADY_ROLLED_BACK: &str = "agent.rollback_already_applied";

pub(super) async fn rollback(
    shared: &Shared,
    run: &RunId,
) -> Result<RunRolledBackPayload, RuntimeError> {
    let ports = &shared.ports;
    let record = ports.runs.load_run(run).await?;
    if shared.active.get(run).is_some() || !record.status.is_terminal() {
        return Err(refused(
            RUN_ACTIVE,
            format!(
                "run {run} is {}; roll a run back after it ended (cancel it first with \
                 `runs cancel`)",
                record.status.as_str()
            ),
        ));
    }
    let events = read_all_events(ports.journal.as_ref(), run).await?;
    if events.iter().any(|line| line.event.is_after_end()) {
        return Err(refused(
            ALREADY_ROLLED_BACK,
            format!("run {run} was rolled back already"),
        ));
    }
    let mut message_ids: Vec<String> = Vec::new();
    for line in &events {
        if let RunEvent::ChatCommitCompleted(done) = &line.event
            && !message_ids.contains(&done.message_id)
        {
            message_ids.push(done.message_id.clone());
        }
    }
    if message_ids.is_empty() {
        return Err(refused(
            NOTHING_COMMITTED,
            format!("run {run} committed nothing to the chat, so there is nothing to undo"),
        ));
    }
    let base = match ports
        .audit
        .read_input(run, InputDocument::RollbackBase)
        .await
    {
        Ok(document) => RollbackBase::from_json(&document),
        Err(StoreError::NotFound(_)) => None,
        Err(other) => return Err(other.into()),
    };
    let targets = message_ids
        .iter()
        .map(|id| RollbackTarget {
            message_id: id.clone(),
            previous_message: base
                .as_ref()
                .filter(|base| base.message_id == *id)
                .and_then(|base| base.message.clone()),
        })
        .collect();
    let report = ports
        .chat_commits
        .rollback(ChatRollbackRequest {
            chat: record.chat_ref.clone(),
            run_id: run.clone(),
            targets,
            metadata: base.map(|base| base.metadata).unwrap_or_default(),
        })
        .await?;
    let index = |i: &usize| u64::try_from(*i).unwrap_or(u64::MAX);
    let payload = RunRolledBackPayload {
        message_ids,
        deleted_messages: report.deleted_messages.iter().map(index).collect(),
        removed_swipes: report
            .removed_swipes
            .iter()
            .map(|(message, swipe)| RemovedSwipe {
                message_index: index(message),
                swipe_id: *swipe,
            })
            .collect(),
        restored_messages: report.restored_messages.iter().map(index).collect(),
        restored_metadata: report.restored_metadata,
    };
    append(ports, run, RunEvent::RunRolledBack(payload.clone())).await?;
    store_summary(ports, &record).await?;
    Ok(payload)
}

/// What a run keeps for an exact rollback (`input/rollback_base.json`): the message its
/// first commit changed, as it was (`message`, for a new swipe), and the `chat_metadata` keys
/// it set. Values are kept as JSON text, so their key order survives.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RollbackBase {
    pub message_id: String,
    pub message: Option<String>,
    pub metadata: Vec<MetadataChange>,
}

impl RollbackBase {
    /// `{"messageId", "message"?, "metadata": [{"key", "before": text | null, "after": text}]}`.
    pub(super) fn to_json(&self) -> Value {
        let metadata: Vec<Value> = self
            .metadata
            .iter()
            .map(|change| {
                json!({
                    "key": change.key,
                    "before": change.before.as_ref().map(OrderedJson::to_js_string),
                    "after": change.after.to_js_string(),
                })
            })
            .collect();
        let mut document = json!({"messageId": self.message_id, "metadata": metadata});
        if let Some(message) = &self.message {
            document["message"] = json!(message);
        }
        document
    }

    /// The base a run kept; `None` when the document is not one (a rollback then removes
    /// what the run added without restoring anything byte for byte).
    pub(super) fn from_json(document: &Value) -> Option<Self> {
        let text = |value: &Value| OrderedJson::from_slice(value.as_str()?.as_bytes()).ok();
        let metadata = document
            .get("metadata")
            .and_then(Value::as_array)
            .map(|changes| {
                changes
                    .iter()
                    .filter_map(|change| {
                        Some(MetadataChange {
                            key: change.get("key")?.as_str()?.to_owned(),
                            before: change.get("before").and_then(text),
                            after: text(change.get("after")?)?,
                        })
                    })
                    .collect()
            })
            .unwrap_or_default();
        Some(Self {
            message_id: document.get("messageId")?.as_str()?.to_owned(),
            message: document
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_owned),
            metadata,
        })
    }
}

fn refused(code: &'static str, message: String) -> RuntimeError {
    RuntimeError::Fault { code, message }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_base_reads_back_with_its_key_order() {
        let value = |text: &str| OrderedJson::from_slice(text.as_bytes()).unwrap();
        let base = RollbackBase {
            message_id: "4".into(),
            message: Some(r#"{"z":1,"a":2}"#.into()),
            metadata: vec![
                MetadataChange {
                    key: "timedWorldInfo".into(),
                    before: Some(value(r#"{"sticky":{},"cooldown":{}}"#)),
                    after: value(r#"{"sticky":{"B.2":{"hash":1}},"cooldown":{}}"#),
                },
                MetadataChange {
                    key: "fresh".into(),
                    before: None,
                    after: value("true"),
                },
            ],
        };
        let document = base.to_json();
        assert_eq!(
            document["metadata"][0]["after"],
            r#"{"sticky":{"B.2":{"hash":1}},"cooldown":{}}"#
        );
        assert_eq!(document["metadata"][1]["before"], Value::Null);
        assert_eq!(RollbackBase::from_json(&document), Some(base));
        // A base kept before metadata was recorded still reads.
        let older = json!({"messageId": "4", "message": "{}"});
        let read = RollbackBase::from_json(&older).unwrap();
        assert_eq!(
            (read.message.as_deref(), read.metadata.len()),
            (Some("{}"), 0)
        );
        assert_eq!(RollbackBase::from_json(&json!([])), None);
    }
}
