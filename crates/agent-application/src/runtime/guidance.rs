//! User guidance: notes a user sends to a live run from any process, left in the run's
//! [`GuidanceMailbox`] and applied by the driver at the start of the next root or handoff
//! round as one `<user_guidance>` user message (never to a delegated child). Notes still
//! pending when the run is cancelled or ends are discarded. Only the driver journals: it
//! journals `user_guidance_submitted` when it picks a note up, right before applying or
//! discarding it, because the submitting process cannot append to a journal another
//! process holds.

use agent_domain::event::{
    GuidanceAppliedPayload, GuidanceDiscardReason, GuidanceDiscardedPayload, GuidanceStatus,
    GuidanceSubmittedPayload, RunEvent, RunStatus,
};
use agent_domain::model::AgentModelMessage;
use agent_domain::run::RunId;
use agent_domain::text::TextMetrics;
use serde::Serialize;

use super::driver::{Driver, count};
use super::errors::RuntimeError;
use super::fault::Fault;
use super::invocation::Invocation;
use super::shared::Shared;
use crate::ports::{GuidanceItem, MailboxLimits, Submission};

/// The longest note, in characters.
pub const MAX_GUIDANCE_CHARS: usize = 16_000;
/// How many notes may wait unread.
pub const MAX_PENDING_GUIDANCE: usize = 8;
/// How many characters the waiting notes may hold together.
pub const MAX_PENDING_GUIDANCE_CHARS: u64 = 64_000;
/// Characters of the merged text `user_guidance_applied` shows.
const PREVIEW_CHARS: usize = 240;

/// A note for a running run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Guidance {
    pub text: String,
    /// The host's own id for the note, echoed in its events.
    pub client_guidance_id: Option<String>,
}

/// A note the run's mailbox accepted; it is journaled when the driver picks it up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct GuidanceReceipt {
    pub run_id: String,
    pub guidance_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub client_guidance_id: Option<String>,
    pub chars: u64,
    pub words: u64,
    /// Always `pending`: waiting for the next root or handoff round.
    pub status: &'static str,
}

fn refused(code: &'static str, message: impl Into<String>) -> RuntimeError {
    RuntimeError::Fault {
        code,
        message: message.into(),
    }
}

/// Checks the note and the run, then leaves the note in the run's mailbox.
pub(super) async fn submit(
    shared: &Shared,
    run: &RunId,
    guidance: Guidance,
) -> Result<GuidanceReceipt, RuntimeError> {
    let metrics = TextMetrics::of(&guidance.text);
    if guidance.text.trim().is_empty() {
        return Err(refused(
            "agent.guidance_empty",
            "the guidance text is empty",
        ));
    }
    if metrics.chars > MAX_GUIDANCE_CHARS {
        return Err(refused(
            "agent.guidance_too_large",
            format!(
                "the guidance text has {} characters; at most {MAX_GUIDANCE_CHARS} are accepted",
                metrics.chars
            ),
        ));
    }
    let ports = &shared.ports;
    let record = ports.runs.load_run(run).await?;
    if record.status.is_terminal() || record.status == RunStatus::Cancelling {
        return Err(refused(
            "agent.guidance_run_not_accepting",
            format!(
                "run {run} is {} and takes no more guidance",
                record.status.as_str()
            ),
        ));
    }
    let item = GuidanceItem {
        guidance_id: ports.new_id("guidance"),
        client_guidance_id: guidance.client_guidance_id,
        text: guidance.text,
        chars: count(metrics.chars),
    };
    let receipt = GuidanceReceipt {
        run_id: run.to_string(),
        guidance_id: item.guidance_id.clone(),
        client_guidance_id: item.client_guidance_id.clone(),
        chars: item.chars,
        words: count(metrics.words),
        status: "pending",
    };
    let limits = MailboxLimits {
        max_items: MAX_PENDING_GUIDANCE,
        max_chars: MAX_PENDING_GUIDANCE_CHARS,
    };
    match ports.guidance.submit(run, item, limits).await? {
        Submission::Accepted => Ok(receipt),
        Submission::NoDriver => Err(refused(
            "agent.guidance_active_run_missing",
            format!("no process is driving run {run}"),
        )),
        Submission::Closed => Err(refused(
            "agent.guidance_mailbox_closed",
            format!("run {run} is ending and takes no more guidance"),
        )),
        Submission::Full { items, chars } => Err(refused(
            "agent.guidance_mailbox_full",
            format!(
                "run {run} already has {items} notes ({chars} characters) waiting; at most \
                 {MAX_PENDING_GUIDANCE} notes and {MAX_PENDING_GUIDANCE_CHARS} characters may wait"
            ),
        )),
    }
}

/// At the start of a root or handoff round, the pending notes join its request as one
/// user message; journals `user_guidance_submitted` for each, then `user_guidance_applied`.
pub(super) async fn apply(d: &Driver, inv: &mut Invocation) -> Result<(), Fault> {
    if !inv.owns_run() || !inv.machine.round_starts_next() {
        return Ok(());
    }
    let items = d
        .ports()
        .guidance
        .take(d.run_id())
        .await
        .map_err(|e| Fault::of(&e).context("taking user guidance"))?;
    if items.is_empty() {
        return Ok(());
    }
    journal_submitted(d, &items).await?;
    let index = inv.machine.next_message_index();
    inv.machine
        .queue_user_message(AgentModelMessage::user(message_text(&items)));
    let merged = merged_text(&items);
    let metrics = TextMetrics::of(&merged);
    let (guidance_ids, client_guidance_ids) = ids(&items);
    d.rec
        .emit(RunEvent::UserGuidanceApplied(GuidanceAppliedPayload {
            guidance_ids,
            client_guidance_ids,
            invocation_id: inv.machine.invocation_id().to_string(),
            round: inv.machine.round() + 1,
            count: u32::try_from(items.len()).unwrap_or(u32::MAX),
            chars: count(metrics.chars),
            words: count(metrics.words),
            preview: merged.chars().take(PREVIEW_CHARS).collect(),
            message_index: u32::try_from(index).unwrap_or(u32::MAX),
            request_message_count: u32::try_from(index + 1).unwrap_or(u32::MAX),
            status: GuidanceStatus::Applied,
        }))
        .await?;
    Ok(())
}

/// Closes the run's mailbox; notes still pending are journaled as submitted and then
/// discarded. Best effort: the run is ending and a mailbox that cannot be read keeps its
/// notes unjournaled.
pub(super) async fn discard(d: &Driver, reason: GuidanceDiscardReason) {
    let Ok(items) = d.ports().guidance.close(d.run_id()).await else {
        return;
    };
    if items.is_empty() || journal_submitted(d, &items).await.is_err() {
        return;
    }
    let (guidance_ids, client_guidance_ids) = ids(&items);
    let _ = d
        .rec
        .emit(RunEvent::UserGuidanceDiscarded(GuidanceDiscardedPayload {
            guidance_ids,
            client_guidance_ids,
            count: u32::try_from(items.len()).unwrap_or(u32::MAX),
            chars: items.iter().map(|item| item.chars).sum(),
            reason,
            status: GuidanceStatus::Discarded,
        }))
        .await;
}

/// Why notes pending when the run ended with `status` never reached the model.
pub(super) fn discard_reason(status: RunStatus) -> GuidanceDiscardReason {
    match status {
        RunStatus::Completed => GuidanceDiscardReason::RunFinishedBeforeNextModelRequest,
        RunStatus::Cancelled => GuidanceDiscardReason::RunCancelledBeforeNextModelRequest,
        RunStatus::PartialSuccess => GuidanceDiscardReason::RunPartialSuccessBeforeNextModelRequest,
        _ => GuidanceDiscardReason::RunFailedBeforeNextModelRequest,
    }
}

async fn journal_submitted(d: &Driver, items: &[GuidanceItem]) -> Result<(), Fault> {
    for item in items {
        let metrics = TextMetrics::of(&item.text);
        d.rec
            .emit(RunEvent::UserGuidanceSubmitted(GuidanceSubmittedPayload {
                guidance_id: item.guidance_id.clone(),
                client_guidance_id: item.client_guidance_id.clone(),
                text: item.text.clone(),
                chars: item.chars,
                words: count(metrics.words),
            }))
            .await?;
    }
    Ok(())
}

/// The notes' texts in submission order, a blank line apart.
fn merged_text(items: &[GuidanceItem]) -> String {
    items
        .iter()
        .map(|item| item.text.as_str())
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// The user message the notes become.
fn message_text(items: &[GuidanceItem]) -> String {
    format!("<user_guidance>\n{}\n</user_guidance>", merged_text(items))
}

fn ids(items: &[GuidanceItem]) -> (Vec<String>, Vec<String>) {
    let guidance = items.iter().map(|item| item.guidance_id.clone()).collect();
    let client = items
        .iter()
        .filter_map(|item| item.client_guidance_id.clone())
        .collect();
    (guidance, client)
}
