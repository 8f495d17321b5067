//! The invocation loop: asks an invocation's [`InvocationMachine`](super::machine) for steps
//! and performs them through the ports — model calls, retry waits, captured text turns,
//! tool calls and automatic publishes — journaling what only the driver can know, until
//! the machine finishes. Root, child and handoff invocations all run this same loop.

use std::sync::Arc;
use std::time::Duration;

use agent_domain::event::{
    CheckpointReason, DirectOutputCapturedPayload, GuidanceDiscardReason,
    ModelResponseStoredPayload, ProviderStateUpdatedPayload, RunEvent, RunStatus,
};
use agent_domain::model::{AgentModelMessage, AgentModelRequest};
use agent_domain::text::TextMetrics;
use agent_domain::workspace::WorkspacePath;
use serde_json::json;

use super::agents::results;
use super::driver::{Driver, count};
use super::fault::Fault;
use super::invocation::Invocation;
use super::machine::{Action, Outcome};
use super::{commit, guidance, tool_calls};
use crate::ports::{ModelCall, WriteGuard};

/// Steps until the machine finishes; returns how the invocation ended. The model is told
/// the invocation is over (it may keep a socket per invocation).
pub(super) async fn run(d: &Driver, inv: &mut Invocation) -> Outcome {
    let outcome = steps(d, inv).await;
    inv.model
        .end_invocation(&d.facts.run_id, inv.machine.invocation_id());
    outcome
}

async fn steps(d: &Driver, inv: &mut Invocation) -> Outcome {
    let mut protocol_errors = 0;
    loop {
        if !inv.machine.is_finished() && inv.watch.check().await {
            cancelled(d, inv).await;
        }
        if let Err(fault) = guidance::apply(d, inv).await {
            inv.machine.fail(fault.payload());
        }
        let step = match inv.machine.next_step() {
            Ok(step) => step,
            Err(error) => {
                // A driver bug: fail the invocation; a second one in a row means the
                // machine cannot even finish, so stop here.
                protocol_errors += 1;
                let fault = Fault::of(&error);
                if protocol_errors > 1 {
                    return inv.machine.ledger().classify(fault.payload());
                }
                inv.machine.fail(fault.payload());
                continue;
            }
        };
        protocol_errors = 0;
        let mut journaled = true;
        for event in step.events {
            // A model call's status comes right before its request is journaled, so a
            // timeline reads "calling_model, model_request_created, …".
            let calling = matches!(
                event,
                RunEvent::ModelRequestCreated(_) | RunEvent::ModelCallAttemptStarted(_)
            );
            let status = if calling && inv.owns_run() {
                d.rec.set_status(RunStatus::CallingModel).await
            } else {
                Ok(())
            };
            let emitted = match status {
                Ok(()) => d.rec.emit(event).await.map(|_| ()),
                Err(fault) => Err(fault),
            };
            if let Err(fault) = emitted {
                inv.machine.fail(fault.payload());
                journaled = false;
                break;
            }
        }
        let result = match step.action {
            Action::Finish(outcome) => return outcome,
            _ if !journaled => continue,
            Action::CallModel {
                round,
                attempt,
                request,
            } => call_model(d, inv, round, attempt, request).await,
            Action::WaitBeforeRetry { delay_ms, .. } => {
                wait(d, inv, delay_ms).await;
                Ok(())
            }
            Action::CaptureDirectOutput { round, path, text } => {
                capture(d, inv, round, &path, &text).await
            }
            Action::RunTool { round, call, .. } => {
                let ran = tool_calls::run_tool(d, inv, round, call).await;
                deliver_results(d, inv);
                ran
            }
            Action::AutoPublish { path, sha256, .. } => {
                commit::auto_publish(d, inv, path, sha256).await
            }
        };
        if let Err(fault) = result {
            inv.machine.fail(fault.payload());
        }
    }
}

/// Results of this invocation's children that ended unseen join its next request, once
/// each (after a tool call, so they arrive between rounds).
fn deliver_results(d: &Driver, inv: &mut Invocation) {
    let ended = d.board.take_undelivered(&inv.record.id);
    if !ended.is_empty() {
        inv.machine
            .queue_user_message(AgentModelMessage::user(results::capsule(&ended, false)));
    }
}

/// Cancellation noticed: a cancellation of the whole run is journaled (if nobody did yet);
/// then the machine finishes as cancelled.
async fn cancelled(d: &Driver, inv: &mut Invocation) {
    if d.watch.check().await {
        let _ = d.rec.request_cancel().await;
        guidance::discard(d, GuidanceDiscardReason::RunCancelRequested).await;
    }
    inv.machine.cancel();
}

/// One model call attempt, raced against cancellation; the response is stored and
/// reported, an error reported.
async fn call_model(
    d: &Driver,
    inv: &mut Invocation,
    round: u32,
    attempt: u32,
    request: AgentModelRequest,
) -> Result<(), Fault> {
    let invocation_id = inv.machine.invocation_id().clone();
    let call = ModelCall {
        run_id: d.facts.run_id.clone(),
        invocation_id: invocation_id.clone(),
        invocation_kind: inv.kind(),
        profile_id: inv.record.profile_id.clone(),
        round,
        attempt,
        request,
    };
    let model = Arc::clone(&inv.model);
    let streamed = d.shared.activity.call(&*model, call);
    let Some(answer) = inv.watch.race(streamed).await else {
        cancelled(d, inv).await;
        return Ok(());
    };
    let mut response = match answer {
        Ok(response) => response,
        Err(error) => {
            return inv
                .machine
                .on_model_error(&error)
                .map_err(|e| Fault::of(&e));
        }
    };
    let document = json!({
        "round": round,
        "invocationId": invocation_id,
        "response": response,
    });
    let stored = d
        .ports()
        .audit
        .write_model_response(d.run_id(), &invocation_id, round, &document)
        .await
        .map_err(|e| Fault::of(&e).context("storing the model response"))?;
    let path = stored.0;
    d.rec
        .emit(RunEvent::ModelResponseStored(ModelResponseStoredPayload {
            round,
            invocation_id: invocation_id.to_string(),
            path: path.clone(),
            response_id: response.response_id.clone(),
            model: response.model.clone(),
        }))
        .await?;
    if let Some(next) = response.provider_state.take() {
        inv.adopt_provider_state(next)?;
    }
    d.rec
        .emit(RunEvent::ProviderStateUpdated(
            ProviderStateUpdatedPayload {
                round,
                invocation_id: invocation_id.to_string(),
                provider_state: inv.machine.provider_state().summary(),
            },
        ))
        .await?;
    inv.last_response_path = Some(path.clone());
    inv.last_reasoning = response.reasoning_text();
    inv.machine
        .on_model_response(response, path)
        .map_err(|e| Fault::of(&e))
}

/// The wait before a retry, cut short by cancellation.
async fn wait(d: &Driver, inv: &mut Invocation, delay_ms: u64) {
    let sleep = tokio::time::sleep(Duration::from_millis(delay_ms));
    if inv.watch.race(sleep).await.is_none() {
        cancelled(d, inv).await;
    }
}

/// A text-only turn: saved (unguarded), journaled and checkpointed.
async fn capture(
    d: &Driver,
    inv: &Invocation,
    round: u32,
    path: &WorkspacePath,
    text: &str,
) -> Result<(), Fault> {
    let receipt = d
        .ports()
        .workspace
        .write(d.run_id(), path, text, WriteGuard::Unchecked)
        .await
        .map_err(|e| Fault::of(&e).context("capturing direct output"))?;
    let metrics = TextMetrics::of(text);
    let line = d
        .rec
        .emit(RunEvent::DirectOutputCaptured(
            DirectOutputCapturedPayload {
                round,
                invocation_id: inv.machine.invocation_id().to_string(),
                path: path.clone(),
                chars: count(metrics.chars),
                words: count(metrics.words),
                sha256: receipt.sha256,
                model_response_path: inv.last_response_path.clone().unwrap_or_default(),
            },
        ))
        .await?;
    d.checkpoint(CheckpointReason::DirectOutputCapture, line.seq, path)
        .await
        .map(|_| ())
}
