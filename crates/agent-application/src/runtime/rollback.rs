//! Undoing an ended run's output on the chat (`tavern-agent runs rollback`): every message
//! the run committed to is changed back by the strategy its record names (the message the
//! run created is deleted, the swipe it added is removed, and a message the run started
//! from is written back byte for byte when nothing else changed it since), in one atomic
//! write of the chat. The run's journal then notes it (`run_rolled_back`, after the
//! terminal event) and its summary says so.

use agent_domain::event::{RemovedSwipe, RunEvent, RunRolledBackPayload};
use agent_domain::run::RunId;
use serde_json::Value;

use super::errors::RuntimeError;
use super::facade::{Shared, read_all_events, store_summary};
use super::recorder::append;
use crate::ports::{ChatRollbackRequest, InputDocument, RollbackTarget, StoreError};

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
    let events = read_all_events(ports, run).await?;
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
        Ok(document) => Some(document),
        Err(StoreError::NotFound(_)) => None,
        Err(other) => return Err(other.into()),
    };
    let targets = message_ids
        .iter()
        .map(|id| RollbackTarget {
            message_id: id.clone(),
            previous_message: previous_message(base.as_ref(), id),
        })
        .collect();
    let report = ports
        .chat_commits
        .rollback(ChatRollbackRequest {
            chat: record.chat_ref.clone(),
            run_id: run.clone(),
            targets,
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
    };
    append(ports, run, RunEvent::RunRolledBack(payload.clone())).await?;
    store_summary(ports, &record).await?;
    Ok(payload)
}

/// The message as it was before the run, when the run kept it for `message_id`.
fn previous_message(base: Option<&Value>, message_id: &str) -> Option<String> {
    let base = base?;
    (base.get("messageId")?.as_str()? == message_id)
        .then(|| base.get("message")?.as_str().map(str::to_owned))
        .flatten()
}

fn refused(code: &'static str, message: String) -> RuntimeError {
    RuntimeError::Fault { code, message }
}
