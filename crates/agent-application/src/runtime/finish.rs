//! The end of a run, in TauriTavern's order: a completed loop is finalised (persist promotion, the
//! state id recorded on the chat message), then every ending is journaled — the
//! invocation's terminal status, the run's terminal status and its terminal event — and
//! the run's summary stored.

use agent_domain::event::{
    InvocationStatus, PersistentChangesCommitFailedPayload, PersistentChangesCommittedPayload,
    PersistentStateMetadataUpdateFailedPayload, PersistentStateMetadataUpdateRequestedPayload,
    PersistentStateMetadataUpdatedPayload, RunCancelledPayload, RunEvent, RunStatus,
};

use agent_domain::run::AgentInvocation;

use super::driver::Driver;
use super::facts::RunOutcome;
use super::fault::Fault;
use super::guidance;
use super::machine::{CommitLedger, Outcome};
use super::summary::store_summary;
use crate::ports::PersistStateUpdate;

/// Journals the run's end and reports it; `owner` is the invocation that ended the run
/// (none when the run ended before its root invocation existed).
pub(super) async fn finish(
    d: &Driver,
    owner: Option<&mut AgentInvocation>,
    outcome: Outcome,
    ledger: &CommitLedger,
    rounds: u32,
) -> RunOutcome {
    let outcome = match outcome {
        Outcome::Completed => complete(d, ledger).await,
        Outcome::TaskReturned | Outcome::HandedOff => ledger.classify(
            Fault::new(
                "agent.runtime_protocol_violation",
                "the root invocation ended as a child or a handoff source",
            )
            .payload(),
        ),
        other => other,
    };
    let (status, event, invocation_status, message, failure) = match outcome {
        Outcome::Completed => (
            RunStatus::Completed,
            RunEvent::RunCompleted,
            InvocationStatus::Completed,
            None,
            None,
        ),
        Outcome::Cancelled => (
            RunStatus::Cancelled,
            RunEvent::RunCancelled(Some(RunCancelledPayload {
                message: "the run was cancelled".to_owned(),
            })),
            InvocationStatus::Cancelled,
            None,
            None,
        ),
        Outcome::PartialSuccess(partial) => (
            RunStatus::PartialSuccess,
            RunEvent::RunPartialSuccess(partial.clone()),
            InvocationStatus::Failed,
            Some(partial.failure.message.clone()),
            Some(partial.failure),
        ),
        Outcome::Failed(failure) => (
            RunStatus::Failed,
            RunEvent::RunFailed(failure.clone()),
            InvocationStatus::Failed,
            Some(failure.message.clone()),
            Some(failure),
        ),
        // Mapped above; kept for completeness.
        Outcome::TaskReturned | Outcome::HandedOff => {
            let failure =
                Fault::new("agent.runtime_protocol_violation", "unexpected ending").payload();
            (
                RunStatus::Failed,
                RunEvent::RunFailed(failure.clone()),
                InvocationStatus::Failed,
                Some(failure.message.clone()),
                Some(failure),
            )
        }
    };
    // Best effort from here on: the terminal event is written whatever failed before it.
    if let Some(owner) = owner {
        let _ = d
            .set_invocation_status(owner, invocation_status, message)
            .await;
    }
    guidance::discard(d, guidance::discard_reason(status)).await;
    let record = match d.rec.terminate(status, event).await {
        Ok(record) => record,
        Err(_) => d.rec.record().await,
    };
    let ports = d.ports().clone();
    let _ = ports.cancel_requests.clear(d.run_id()).await;
    match d.rec.summary(&record) {
        Some(summary) if summary.is_final() => {
            let _ = ports.runs.save_run_summary(&summary).await;
        }
        _ => {
            let _ = store_summary(&ports, &record).await;
        }
    }
    RunOutcome {
        run_id: d.run_id().clone(),
        status,
        committed_text: d.message().committed_text.clone(),
        rounds,
        tool_calls: d.tool_calls(),
        failure,
    }
}

/// `workspace.finish` was accepted: status `finishing`, promote `persist/`, and record the
/// new state on the committed message. A failure here is classified by the ledger (partial
/// success after a commit).
async fn complete(d: &Driver, ledger: &CommitLedger) -> Outcome {
    match finalise(d, ledger).await {
        Ok(()) => Outcome::Completed,
        Err(fault) => ledger.classify(fault.payload()),
    }
}

async fn finalise(d: &Driver, ledger: &CommitLedger) -> Result<(), Fault> {
    d.rec.set_status(RunStatus::Finishing).await?;
    let ports = d.ports().clone();
    let record = d.rec.record().await;
    let promoted = match ports.persist.promote(&record, &d.rec.now()).await {
        Ok(promoted) => promoted,
        Err(error) => {
            d.rec
                .emit(RunEvent::PersistentChangesCommitFailed(
                    PersistentChangesCommitFailedPayload {
                        message: error.to_string(),
                    },
                ))
                .await?;
            return Err(Fault::of(&error).context("promoting the persistent state"));
        }
    };
    let state_id = promoted.state_id.to_string();
    let base_state_id = promoted.base_state_id.as_ref().map(|s| s.to_string());
    let change_count = u32::try_from(promoted.changes.len()).unwrap_or(u32::MAX);
    d.rec
        .emit(RunEvent::PersistentChangesCommitted(
            PersistentChangesCommittedPayload {
                state_id: state_id.clone(),
                base_state_id: base_state_id.clone(),
                change_count,
                changes: promoted.changes.clone(),
                browsable_copy_error: promoted.browsable_copy_error.clone(),
            },
        ))
        .await?;
    let Some(message_id) = ledger.last_message_id() else {
        return Ok(());
    };
    let update_id = ports.new_id("update");
    d.rec
        .emit(RunEvent::PersistentStateMetadataUpdateRequested(
            PersistentStateMetadataUpdateRequestedPayload {
                update_id: update_id.clone(),
                run_id: record.id.to_string(),
                workspace_id: record.workspace_id.to_string(),
                stable_chat_id: record.stable_chat_id.clone(),
                chat_ref: record.chat_ref.clone(),
                generation_type: record.generation_type.as_str().to_owned(),
                profile_id: record.profile_id.clone(),
                message_id: message_id.to_owned(),
                state_id: state_id.clone(),
                base_state_id,
                change_count,
                changes: promoted.changes,
            },
        ))
        .await?;
    let update = PersistStateUpdate {
        chat: record.chat_ref.clone(),
        run_id: record.id.clone(),
        message_id: message_id.to_owned(),
        state_id: promoted.state_id,
        base_state_id: promoted.base_state_id,
        change_count,
    };
    match ports.chat_commits.record_persist_state(update).await {
        Ok(()) => {
            d.rec
                .emit(RunEvent::PersistentStateMetadataUpdated(
                    PersistentStateMetadataUpdatedPayload {
                        update_id,
                        message_id: message_id.to_owned(),
                        state_id,
                    },
                ))
                .await?;
            Ok(())
        }
        Err(error) => {
            d.rec
                .emit(RunEvent::PersistentStateMetadataUpdateFailed(
                    PersistentStateMetadataUpdateFailedPayload {
                        update_id,
                        message_id: message_id.to_owned(),
                        state_id,
                        message: error.to_string(),
                    },
                ))
                .await?;
            Err(Fault::of(&error).context("recording the persistent state on the message"))
        }
    }
}
