//! Ending a run no live process drives (its driver died): marked cancelled
//! ([`AgentRuntime::mark_cancelled`](super::AgentRuntime::mark_cancelled), what `runs cancel`
//! does to such a run) or failed as abandoned
//! ([`AgentRuntime::mark_abandoned`](super::AgentRuntime::mark_abandoned), what
//! `doctor --fix` does). Both journal a proper ending — the run's status, its open
//! invocations, its terminal event — under the journal's lock, so a run another process
//! still drives is refused with [`JournalError::Locked`] having written nothing.

use agent_domain::event::{
    InvocationStatus, InvocationStatusPayload, RunEvent, RunFailurePayload, RunStatus,
    StatusChangedPayload,
};
use agent_domain::run::RunId;

use super::errors::RuntimeError;
use super::recorder::append;
use super::summary::store_summary;
use super::wiring::RuntimePorts;
use crate::ports::{EventDraft, EventQuery, JournalError};

/// The code of the failure `mark_abandoned` journals: the process driving the run ended
/// (killed, crashed, powered off) before the run did. Ours: the upstream vocabulary has no
/// code for a driver that died (`docs/runtime.md`, "A run whose driver died").
pub const RUN_ABANDONED: &str = "agent.run_abandoned";

/// How an abandoned run ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ending {
    /// A person asked to stop it: `run_cancel_requested`, then `run_cancelled`.
    Cancelled,
    /// Nobody asked: it failed with [`RUN_ABANDONED`] (`run_partial_success` when it had
    /// committed to the chat).
    Abandoned,
}

/// Ends `run` as `ending` says, unless it already ended; returns its status.
pub(super) async fn end_inactive_run(
    ports: &RuntimePorts,
    run: &RunId,
    ending: Ending,
) -> Result<RunStatus, RuntimeError> {
    let mut record = ports.runs.load_run(run).await?;
    if record.status.is_terminal() {
        return Ok(record.status);
    }
    let now = ports.clock.now_rfc3339();
    // A driver that died between its terminal event and saving the record left the
    // record behind: the journal is the truth, so the record catches up with it.
    let newest = ports.journal.read(run, &EventQuery::newest(1)).await?;
    if let Some(outcome) = newest.last().and_then(|line| line.event.terminal_outcome()) {
        record.status = outcome.run_status();
        record.updated_at = now;
        ports.runs.save_run(&record).await?;
        let _ = store_summary(ports, &record).await;
        return Ok(record.status);
    }
    let (terminal, invocation_status) = match ending {
        Ending::Cancelled => {
            let draft = EventDraft {
                timestamp: now.clone(),
                event: RunEvent::RunCancelRequested,
            };
            ports.journal.append(run, draft).await?;
            (RunEvent::RunCancelled(None), InvocationStatus::Cancelled)
        }
        Ending::Abandoned => {
            let failure = RunFailurePayload::new(
                RUN_ABANDONED,
                format!(
                    "the process driving run {run} ended before the run did; marked failed \
                     by `tavern-agent doctor --fix`"
                ),
                true,
            );
            let commits = preserved_commits(ports, run).await?;
            (
                failure.into_terminal_event(commits),
                InvocationStatus::Failed,
            )
        }
    };
    let status = terminal
        .terminal_outcome()
        .map_or(RunStatus::Failed, |outcome| outcome.run_status());
    record.status = status;
    record.updated_at = now.clone();
    append(
        ports,
        run,
        RunEvent::StatusChanged(StatusChangedPayload { status }),
    )
    .await?;
    ports.runs.save_run(&record).await?;
    for mut invocation in ports.runs.list_invocations(run).await? {
        if invocation.status.is_terminal() {
            continue;
        }
        invocation.status = invocation_status;
        invocation.updated_at = now.clone();
        ports.runs.save_invocation(&invocation).await?;
        let payload = InvocationStatusPayload {
            invocation_id: invocation.id.to_string(),
            parent_invocation_id: invocation.parent_invocation_id.map(|id| id.to_string()),
            profile_id: invocation.profile_id,
            kind: invocation.kind,
            status: invocation_status,
            message: (ending == Ending::Abandoned)
                .then(|| "the process driving the run ended".to_owned()),
        };
        if let Some(event) = RunEvent::for_invocation_status(payload) {
            append(ports, run, event).await?;
        }
    }
    append(ports, run, terminal).await?;
    let _ = ports.cancel_requests.clear(run).await;
    let _ = store_summary(ports, &record).await;
    Ok(status)
}

/// The commits the host confirmed (`chat_commit_completed`), each with the round of its
/// invocation that made it: they stay in the chat, so the run ends as a partial success.
async fn preserved_commits(
    ports: &RuntimePorts,
    run: &RunId,
) -> Result<Vec<agent_domain::event::PreservedCommit>, JournalError> {
    let mut commits = Vec::new();
    let mut rounds = std::collections::HashMap::new();
    let mut after = 0;
    loop {
        let query = EventQuery {
            after_seq: Some(after),
            limit: Some(EventQuery::MAX_LIMIT),
            ..EventQuery::default()
        };
        let page = ports.journal.read(run, &query).await?;
        for line in &page {
            match &line.event {
                RunEvent::ModelRequestCreated(request) => {
                    rounds.insert(request.invocation_id.clone(), request.round);
                }
                RunEvent::ChatCommitCompleted(commit) => {
                    commits.push(agent_domain::event::PreservedCommit {
                        path: commit.path.clone(),
                        mode: commit.mode,
                        message_id: commit.message_id.clone(),
                        round: rounds.get(&commit.invocation_id).copied().unwrap_or(0),
                    });
                }
                _ => {}
            }
        }
        match page.last() {
            Some(last) if page.len() == EventQuery::MAX_LIMIT as usize => after = last.seq,
            _ => return Ok(commits),
        }
    }
}
