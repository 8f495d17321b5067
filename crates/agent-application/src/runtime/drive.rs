//! The driver: prepares the root invocation, then asks the [`InvocationMachine`] for steps
//! and performs them through the ports, journaling what only it can know, until the
//! machine finishes; then finalises the run.

use std::pin::pin;
use std::sync::Arc;
use std::time::Duration;

use agent_domain::event::{
    CheckpointCreatedPayload, CheckpointReason, DirectOutputCapturedPayload, InvocationKind,
    InvocationStatus, InvocationStatusPayload, ModelResponseStoredPayload,
    ProviderStateUpdatedPayload, RunEvent, RunStatus,
};
use agent_domain::model::{AgentModelRequest, ProviderState};
use agent_domain::run::{AgentInvocation, CommitRecord, InvocationId};
use agent_domain::text::TextMetrics;
use agent_domain::workspace::WorkspacePath;
use futures::future::{Either, select};
use serde_json::json;

use super::cancel::CancelWatch;
use super::facade::Shared;
use super::fault::Fault;
use super::finish;
use super::machine::{Action, CommitLedger, Outcome};
use super::prepare::{self, Invocation};
use super::recorder::{LiveRun, Recorder};
use super::start::{RunFacts, RunOutcome};
use super::{commit, tool_calls};
use crate::ports::{ModelCall, WriteGuard};

/// One run being driven, with what the driver tracks beside the machine.
pub(super) struct Driver {
    pub shared: Arc<Shared>,
    pub rec: Recorder,
    pub facts: RunFacts,
    pub watch: CancelWatch,
    /// The root invocation's record, once created.
    pub invocation: Option<AgentInvocation>,
    /// Where the latest model response was stored (for `direct_output_captured`).
    pub last_response_path: Option<String>,
    /// The latest successful write or patch and the call that made it (auto-publish
    /// names that call).
    pub last_write_call: Option<(WorkspacePath, String)>,
    /// The run's chat message right after its latest confirmed commit.
    pub committed_text: Option<String>,
    /// The message text built by the run's explicit commits (what an `append` adds to).
    pub explicit_text: Option<String>,
    /// Every confirmed commit of the run, as its message's record lists them.
    pub commits: Vec<CommitRecord>,
    /// The reasoning of the latest model response (the committed message's
    /// `extra.reasoning`).
    pub last_reasoning: String,
    /// Tool calls handled (executed or refused).
    pub tool_calls: u32,
}

/// The task of one run: prepare, loop, finalise. Always ends with the terminal event
/// journaled (as far as the journal accepts it). The record's saves that lag behind its
/// per-round statuses run beside it, within the same task.
pub(super) async fn drive(shared: Arc<Shared>, live: Arc<LiveRun>, facts: RunFacts) -> RunOutcome {
    let rec = Recorder::new(shared.ports.clone(), Arc::clone(&live));
    let saving = pin!(rec.save_behind());
    let driving = pin!(drive_run(shared, live, facts, rec.clone()));
    match select(driving, saving).await {
        Either::Left((outcome, _)) => outcome,
        Either::Right(((), driving)) => driving.await,
    }
}

async fn drive_run(
    shared: Arc<Shared>,
    live: Arc<LiveRun>,
    facts: RunFacts,
    rec: Recorder,
) -> RunOutcome {
    let watch = CancelWatch::new(
        facts.run_id.clone(),
        live.token.clone(),
        Arc::clone(&shared.ports.cancel_requests),
    );
    let mut driver = Driver {
        shared: Arc::clone(&shared),
        rec,
        facts,
        watch,
        invocation: None,
        last_response_path: None,
        last_write_call: None,
        committed_text: None,
        explicit_text: None,
        commits: Vec::new(),
        last_reasoning: String::new(),
        tool_calls: 0,
    };
    let (outcome, ledger, rounds) = if driver.watch.check().await {
        let _ = driver.rec.request_cancel().await;
        (Outcome::Cancelled, CommitLedger::new(), 0)
    } else {
        match prepare::prepare(&mut driver).await {
            Ok(mut invocation) => {
                let outcome = driver.run_loop(&mut invocation).await;
                let machine = &invocation.machine;
                (outcome, machine.ledger().clone(), machine.round())
            }
            Err(fault) => {
                let ledger = CommitLedger::new();
                (ledger.classify(fault.payload()), ledger, 0)
            }
        }
    };
    finish::finish(&mut driver, outcome, &ledger, rounds).await
}

impl Driver {
    pub fn run_id(&self) -> &agent_domain::run::RunId {
        &self.facts.run_id
    }

    pub fn ports(&self) -> &super::wiring::RuntimePorts {
        &self.shared.ports
    }

    /// Steps until the machine finishes.
    async fn run_loop(&mut self, invocation: &mut Invocation) -> Outcome {
        let mut protocol_errors = 0;
        loop {
            if !invocation.machine.is_finished() && self.watch.check().await {
                let _ = self.rec.request_cancel().await;
                invocation.machine.cancel();
            }
            let step = match invocation.machine.next_step() {
                Ok(step) => step,
                Err(error) => {
                    // A driver bug: fail the invocation; a second one in a row means the
                    // machine cannot even finish, so stop here.
                    protocol_errors += 1;
                    let fault = Fault::of(&error);
                    if protocol_errors > 1 {
                        return invocation.machine.ledger().classify(fault.payload());
                    }
                    invocation.machine.fail(fault.payload());
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
                let status = if calling {
                    self.rec.set_status(RunStatus::CallingModel).await
                } else {
                    Ok(())
                };
                let emitted = match status {
                    Ok(()) => self.rec.emit(event).await.map(|_| ()),
                    Err(fault) => Err(fault),
                };
                if let Err(fault) = emitted {
                    invocation.machine.fail(fault.payload());
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
                } => self.call_model(invocation, round, attempt, request).await,
                Action::WaitBeforeRetry { delay_ms, .. } => {
                    self.wait(invocation, delay_ms).await;
                    Ok(())
                }
                Action::CaptureDirectOutput { round, path, text } => {
                    self.capture(invocation, round, &path, &text).await
                }
                Action::RunTool { round, call, .. } => {
                    tool_calls::run_tool(self, invocation, round, call).await
                }
                Action::AutoPublish { path, sha256, .. } => {
                    commit::auto_publish(self, invocation, path, sha256).await
                }
            };
            if let Err(fault) = result {
                invocation.machine.fail(fault.payload());
            }
        }
    }

    /// One model call attempt, raced against cancellation; the response is stored and
    /// reported, an error reported.
    async fn call_model(
        &mut self,
        invocation: &mut Invocation,
        round: u32,
        attempt: u32,
        request: AgentModelRequest,
    ) -> Result<(), Fault> {
        let invocation_id = invocation.machine.invocation_id().clone();
        let call = ModelCall {
            run_id: self.facts.run_id.clone(),
            invocation_id: invocation_id.clone(),
            invocation_kind: InvocationKind::Root,
            profile_id: self.facts.profile.id.to_string(),
            round,
            attempt,
            request,
        };
        let model = Arc::clone(&self.facts.model);
        let streamed = self.shared.activity.call(&*model, call);
        let Some(answer) = self.watch.race(streamed).await else {
            self.cancelled(invocation).await;
            return Ok(());
        };
        let mut response = match answer {
            Ok(response) => response,
            Err(error) => {
                return invocation
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
        let stored = self
            .ports()
            .audit
            .write_model_response(self.run_id(), &invocation_id, round, &document)
            .await
            .map_err(|e| Fault::of(&e).context("storing the model response"))?;
        let path = stored.0;
        self.rec
            .emit(RunEvent::ModelResponseStored(ModelResponseStoredPayload {
                round,
                invocation_id: invocation_id.to_string(),
                path: path.clone(),
                response_id: response.response_id.clone(),
                model: response.model.clone(),
            }))
            .await?;
        if let Some(next) = response.provider_state.take() {
            adopt_provider_state(invocation, next)?;
        }
        self.rec
            .emit(RunEvent::ProviderStateUpdated(
                ProviderStateUpdatedPayload {
                    round,
                    invocation_id: invocation_id.to_string(),
                    provider_state: invocation.machine.provider_state().summary(),
                },
            ))
            .await?;
        self.last_response_path = Some(path.clone());
        self.last_reasoning = response.reasoning_text();
        invocation
            .machine
            .on_model_response(response, path)
            .map_err(|e| Fault::of(&e))
    }

    /// The wait before a retry, cut short by cancellation.
    async fn wait(&mut self, invocation: &mut Invocation, delay_ms: u64) {
        let sleep = tokio::time::sleep(Duration::from_millis(delay_ms));
        if self.watch.race(sleep).await.is_none() {
            self.cancelled(invocation).await;
        }
    }

    /// Cancellation noticed while waiting: journal the request (if nobody did) and let the
    /// machine finish as cancelled.
    async fn cancelled(&mut self, invocation: &mut Invocation) {
        let _ = self.rec.request_cancel().await;
        invocation.machine.cancel();
    }

    /// A text-only turn: saved (unguarded), journaled and checkpointed.
    async fn capture(
        &mut self,
        invocation: &Invocation,
        round: u32,
        path: &WorkspacePath,
        text: &str,
    ) -> Result<(), Fault> {
        let receipt = self
            .ports()
            .workspace
            .write(self.run_id(), path, text, WriteGuard::Unchecked)
            .await
            .map_err(|e| Fault::of(&e).context("capturing direct output"))?;
        let metrics = TextMetrics::of(text);
        let line = self
            .rec
            .emit(RunEvent::DirectOutputCaptured(
                DirectOutputCapturedPayload {
                    round,
                    invocation_id: invocation.machine.invocation_id().to_string(),
                    path: path.clone(),
                    chars: count(metrics.chars),
                    words: count(metrics.words),
                    sha256: receipt.sha256,
                    model_response_path: self.last_response_path.clone().unwrap_or_default(),
                },
            ))
            .await?;
        self.checkpoint(CheckpointReason::DirectOutputCapture, line.seq, path)
            .await
            .map(|_| ())
    }

    /// Copies `path` into the next checkpoint (after the event `event_seq`) and journals
    /// `checkpoint_created`. Returns the checkpoint id.
    pub async fn checkpoint(
        &self,
        reason: CheckpointReason,
        event_seq: u64,
        path: &WorkspacePath,
    ) -> Result<String, Fault> {
        let record = self
            .ports()
            .checkpoints
            .create(
                self.run_id(),
                reason,
                event_seq,
                std::slice::from_ref(path),
                &self.rec.now(),
            )
            .await
            .map_err(|e| Fault::of(&e).context("creating a checkpoint"))?;
        self.rec
            .emit(RunEvent::CheckpointCreated(CheckpointCreatedPayload {
                checkpoint_id: record.id.clone(),
                reason,
            }))
            .await?;
        Ok(record.id)
    }

    /// Moves the root invocation to `status` (record and event). Nothing happens before
    /// the invocation exists or when it already has that status.
    pub async fn set_invocation_status(
        &mut self,
        status: InvocationStatus,
        message: Option<String>,
    ) -> Result<(), Fault> {
        let now = self.rec.now();
        let Some(invocation) = self.invocation.as_mut() else {
            return Ok(());
        };
        if invocation.status == status {
            return Ok(());
        }
        invocation.status = status;
        invocation.updated_at = now;
        let saved = invocation.clone();
        self.shared
            .ports
            .runs
            .save_invocation(&saved)
            .await
            .map_err(|e| Fault::of(&e).context("saving the invocation record"))?;
        let payload = InvocationStatusPayload {
            invocation_id: saved.id.to_string(),
            parent_invocation_id: saved
                .parent_invocation_id
                .as_ref()
                .map(InvocationId::to_string),
            profile_id: saved.profile_id.clone(),
            kind: saved.kind,
            status,
            message,
        };
        if let Some(event) = RunEvent::for_invocation_status(payload) {
            self.rec.emit(event).await?;
        }
        Ok(())
    }
}

/// A count for an event payload.
pub(super) fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}

/// Takes the continuation an adapter handed back. It must continue the invocation's own
/// session: a state for another session would leak one invocation's provider context into
/// another, so it fails the run with `agent.provider_state_invalid`.
fn adopt_provider_state(invocation: &mut Invocation, next: ProviderState) -> Result<(), Fault> {
    let current = invocation.machine.provider_state();
    if next.session_id() != current.session_id() {
        return Err(Fault::new(
            "agent.provider_state_invalid",
            format!(
                "the model adapter returned provider state for session `{}`, not `{}`",
                next.session_id(),
                current.session_id()
            ),
        ));
    }
    invocation.machine.set_provider_state(next);
    Ok(())
}
