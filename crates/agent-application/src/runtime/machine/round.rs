//! The transitions: starting a round, model answers and errors, drift, tool calls one by
//! one, auto-publish, closing a round and ending the loop.

use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::event::{
    AgentLoopFinishedPayload, DriftRecoveryAttemptedPayload, LoopEnding,
    ModelCallAttemptFailedPayload, ModelCallAttemptStartedPayload, ModelCallRetryScheduledPayload,
    ModelRequestCreatedPayload, ModelRequestSummary, PreservedCommit, RunEvent, RunFailurePayload,
    WriteMode,
};
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, AgentModelRequest, AgentModelResponse,
};
use agent_domain::tool::{
    AgentToolResult, BuiltinTool, ExitPolicy, ToolErrorClass, ToolInvocation,
};
use serde::{Deserialize, Serialize};
use serde_json::{Map, json};

use super::events::model_completed;
use super::policy::{self, RESULT_IDENTITY_MISMATCH, TOOL_CALL_REQUIRED, TOOL_CONTROL_MISMATCH};
use super::{
    Action, AutoPublishReport, InvocationMachine, MachineError, Outcome, PlannedCall, Step,
    ToolCallReport, ToolControl, WrittenFile,
};
use crate::ports::ModelError;

/// Where the loop stands.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "phase",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub(super) enum Phase {
    /// The next step starts a round.
    Ready,
    /// A `CallModel` is out; a response or an error is due.
    AwaitingModel {
        attempt: u32,
    },
    /// An attempt failed and will be retried: the next step is the wait.
    RetryScheduled {
        next_attempt: u32,
        delay_ms: u64,
    },
    /// The wait is over: the next step calls the model again.
    RetryDue {
        next_attempt: u32,
    },
    /// A text-only turn: capture it (once), then remind or fail.
    Drift {
        assistant: AgentModelMessage,
        capture: Option<String>,
        captured: bool,
    },
    /// A turn with tool calls, handled one call at a time.
    Tools {
        round: ToolRound,
    },
    Finished {
        outcome: Outcome,
    },
}

/// The tool calls of one round and what became of them so far.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct ToolRound {
    /// The assistant message, with its tool calls in the model's order.
    assistant: AgentModelMessage,
    /// Results of the calls handled so far, in call order.
    results: Vec<AgentToolResult>,
    /// The call handed out whose report is due.
    pending: Option<Pending>,
    /// A finishing call that was accepted.
    ending: Option<Ending>,
    /// The latest successful `workspace.write_file` / `workspace.apply_patch`.
    last_write: Option<WrittenFile>,
    publish: Publish,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Pending {
    Execute,
    Reject,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
enum Ending {
    Finish,
    TaskReturn,
    Handoff,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "snake_case")]
enum Publish {
    NotChecked,
    Awaiting(WrittenFile),
    Done,
}

/// The longest a provider's `retry-after` may hold a run: one minute. A provider asking for
/// more (a daily quota's "try again in 3 hours") gets its retry after a minute instead, so
/// the run fails within its retry budget rather than sitting silently for hours.
pub const MAX_RETRY_AFTER_MS: u64 = 60_000;

impl ToolRound {
    fn new(assistant: AgentModelMessage) -> Self {
        Self {
            assistant,
            results: Vec::new(),
            pending: None,
            ending: None,
            last_write: None,
            publish: Publish::NotChecked,
        }
    }

    fn calls(&self) -> impl Iterator<Item = &ToolInvocation> {
        self.assistant
            .parts
            .iter()
            .filter_map(AgentModelContentPart::as_tool_call)
    }

    fn call_count(&self) -> usize {
        self.calls().count()
    }

    /// The call whose turn it is (the first without a result).
    fn current_call(&self) -> Option<&ToolInvocation> {
        self.calls().nth(self.results.len())
    }
}

impl InvocationMachine {
    /// The next thing the driver must do, with the events to journal before doing it.
    ///
    /// Errors only when a report is due (a model answer, a tool result, an auto-publish
    /// report); the state is unchanged then.
    pub fn next_step(&mut self) -> Result<Step, MachineError> {
        let action = match self.staged.take() {
            Some(action) => action,
            None => loop {
                self.settle_cancel();
                if let Some(action) = self.advance()? {
                    break action;
                }
            },
        };
        Ok(Step {
            events: std::mem::take(&mut self.outbox),
            action,
        })
    }

    /// Whether the next step starts a round, so that a message queued now joins its
    /// request. Runs the transitions that need nothing from the driver (closing a round, a
    /// drift reminder); an action reached instead is kept for the next step. An error (a
    /// report is due) answers `false` and is the next step's.
    pub fn round_starts_next(&mut self) -> bool {
        if self.staged.is_some() {
            return false;
        }
        loop {
            self.settle_cancel();
            if matches!(self.phase, Phase::Ready) {
                return true;
            }
            match self.advance() {
                Ok(None) => {}
                Ok(Some(action)) => {
                    self.staged = Some(action);
                    return false;
                }
                Err(_) => return false,
            }
        }
    }

    /// A requested cancellation ends the loop at the next transition.
    fn settle_cancel(&mut self) {
        if self.cancel_requested && !self.is_finished() {
            self.phase = Phase::Finished {
                outcome: Outcome::Cancelled,
            };
        }
    }

    /// The model answered a `CallModel`. `response_path` is the run-relative path the
    /// driver stored it at (for `model_completed`). Journal `model_response_stored` and
    /// `provider_state_updated` before calling this.
    pub fn on_model_response(
        &mut self,
        response: AgentModelResponse,
        response_path: impl Into<String>,
    ) -> Result<(), MachineError> {
        let Phase::AwaitingModel { .. } = self.phase else {
            return Err(self.unexpected("a model response"));
        };
        self.outbox.push(RunEvent::ModelCompleted(model_completed(
            self.round,
            self.invocation_id.as_str(),
            &response,
            response_path.into(),
        )));
        if let Err(error) = response.validate_call_ids() {
            self.finish_failed(policy::fault(error.code(), error.to_string()));
            return Ok(());
        }
        if let Some(reused) = response
            .tool_calls()
            .into_iter()
            .find(|call| self.call_id_seen(&call.call_id))
        {
            let message = format!(
                "the model reused tool call id `{}` of an earlier turn",
                reused.call_id
            );
            self.finish_failed(policy::fault("model.duplicate_tool_call_id", message));
            return Ok(());
        }
        let assistant = response.message;
        self.phase = if assistant.tool_calls().is_empty() {
            let text = assistant.text();
            Phase::Drift {
                capture: (!text.trim().is_empty()).then_some(text),
                assistant,
                captured: false,
            }
        } else {
            Phase::Tools {
                round: ToolRound::new(assistant),
            }
        };
        Ok(())
    }

    /// The model call of a `CallModel` failed. Retryable errors (rate limits, overload,
    /// transient faults, timeouts) are retried up to `maxRetries` times after
    /// `max(intervalMs, retryAfterMs)`, the provider's wait capped at
    /// [`MAX_RETRY_AFTER_MS`]; anything else ends the invocation.
    pub fn on_model_error(&mut self, error: &ModelError) -> Result<(), MachineError> {
        let Phase::AwaitingModel { attempt } = self.phase else {
            return Err(self.unexpected("a model error"));
        };
        let retryable = error.is_retryable();
        let max_retries = self.model_retry.max_retries;
        let will_retry = retryable && attempt <= max_retries;
        self.outbox.push(RunEvent::ModelCallAttemptFailed(
            ModelCallAttemptFailedPayload {
                round: self.round,
                invocation_id: self.invocation_id.to_string(),
                attempt,
                max_retries,
                retryable,
                will_retry,
                code: Some(error.code.to_owned()),
                message: error.message.clone(),
            },
        ));
        if will_retry {
            let delay_ms = self
                .model_retry
                .interval_ms
                .max(error.retry_after_ms.unwrap_or(0).min(MAX_RETRY_AFTER_MS));
            let next_attempt = attempt + 1;
            self.outbox.push(RunEvent::ModelCallRetryScheduled(
                ModelCallRetryScheduledPayload {
                    round: self.round,
                    invocation_id: self.invocation_id.to_string(),
                    next_attempt,
                    interval_ms: delay_ms,
                },
            ));
            self.phase = Phase::RetryScheduled {
                next_attempt,
                delay_ms,
            };
        } else {
            self.finish_failed(model_failure(error, attempt));
        }
        Ok(())
    }

    /// The report on the call of the last `RunTool`. A rejected call is reported with the
    /// rejection result, unchanged. A report that does not answer the call, or whose
    /// control outcome does not fit the tool, ends the invocation as a runtime fault.
    pub fn on_tool_result(&mut self, report: ToolCallReport) -> Result<(), MachineError> {
        let (pending, call) = match &self.phase {
            Phase::Tools { round } => match (round.pending, round.current_call()) {
                (Some(pending), Some(call)) => (pending, call.clone()),
                _ => return Err(self.unexpected("a tool result")),
            },
            _ => return Err(self.unexpected("a tool result")),
        };
        if let Err(error) = report.result.validate_identity(&call) {
            self.finish_failed(policy::fault(RESULT_IDENTITY_MISMATCH, error.to_string()));
            return Ok(());
        }
        if let Err(message) = check_report(&call, pending, &report) {
            self.finish_failed(policy::fault(TOOL_CONTROL_MISMATCH, message));
            return Ok(());
        }
        let round_number = self.round;
        let Phase::Tools { round } = &mut self.phase else {
            return Err(self.unexpected("a tool result"));
        };
        let confirmed = std::mem::take(&mut self.commit_confirmed);
        match report.control {
            ToolControl::None => {}
            ToolControl::Committed { .. } if confirmed => {}
            ToolControl::Committed {
                path,
                mode,
                message_id,
            } => self.ledger.record(
                PreservedCommit {
                    path,
                    mode,
                    message_id,
                    round: round_number,
                },
                true,
            ),
            ToolControl::Finished => round.ending = Some(Ending::Finish),
            ToolControl::TaskReturned => round.ending = Some(Ending::TaskReturn),
            ToolControl::HandoffAccepted => round.ending = Some(Ending::Handoff),
        }
        if let Some(written) = report.written {
            round.last_write = Some(written);
        }
        round.results.push(report.result);
        round.pending = None;
        Ok(())
    }

    /// The report on the last `AutoPublish`. A confirmed publish joins the ledger as an
    /// automatic commit: it makes a later failure a partial success, but it does not
    /// permit a foreground finish.
    pub fn on_auto_publish(&mut self, report: AutoPublishReport) -> Result<(), MachineError> {
        let round_number = self.round;
        let Phase::Tools { round } = &mut self.phase else {
            return Err(self.unexpected("an auto-publish report"));
        };
        let Publish::Awaiting(file) = &round.publish else {
            return Err(self.unexpected("an auto-publish report"));
        };
        let confirmed = std::mem::take(&mut self.commit_confirmed);
        if let AutoPublishReport::Published { message_id } = report
            && !confirmed
        {
            self.ledger.record(
                PreservedCommit {
                    path: file.path.clone(),
                    mode: WriteMode::Replace,
                    message_id,
                    round: round_number,
                },
                false,
            );
        }
        round.publish = Publish::Done;
        Ok(())
    }

    /// One transition. `None` means "keep going": the phase changed without anything for
    /// the driver to do yet.
    fn advance(&mut self) -> Result<Option<Action>, MachineError> {
        match std::mem::replace(&mut self.phase, Phase::Ready) {
            Phase::Ready => Ok(Some(self.start_round())),
            Phase::RetryScheduled {
                next_attempt,
                delay_ms,
            } => {
                self.phase = Phase::RetryDue { next_attempt };
                Ok(Some(Action::WaitBeforeRetry {
                    round: self.round,
                    next_attempt,
                    delay_ms,
                }))
            }
            Phase::RetryDue { next_attempt } => Ok(Some(self.call_model(next_attempt, None))),
            phase @ Phase::AwaitingModel { .. } => {
                self.phase = phase;
                Err(self.unexpected("a step request"))
            }
            Phase::Drift {
                assistant,
                capture,
                captured,
            } => Ok(self.drift(assistant, capture, captured)),
            Phase::Tools { round } => self.tools(round),
            Phase::Finished { outcome } => {
                self.phase = Phase::Finished {
                    outcome: outcome.clone(),
                };
                Ok(Some(Action::Finish(outcome)))
            }
        }
    }

    fn start_round(&mut self) -> Action {
        self.round += 1;
        if !self.queued.is_empty() {
            Arc::make_mut(&mut self.history).append(&mut self.queued);
        }
        let request = match self.build_request() {
            Ok(request) => request,
            Err(failure) => return self.finish_failed(failure),
        };
        self.outbox
            .push(RunEvent::ModelRequestCreated(ModelRequestCreatedPayload {
                round: self.round,
                invocation_id: self.invocation_id.to_string(),
                request: ModelRequestSummary::of(
                    &request,
                    self.label.provider_format.clone(),
                    self.label.model.clone(),
                ),
                turn: self.turn.clone(),
            }));
        self.call_model(1, Some(request))
    }

    /// Hands out attempt `attempt` of this round's call; retries rebuild the same request.
    fn call_model(&mut self, attempt: u32, request: Option<AgentModelRequest>) -> Action {
        let request = match request.map_or_else(|| self.build_request(), Ok) {
            Ok(request) => request,
            Err(failure) => return self.finish_failed(failure),
        };
        self.outbox.push(RunEvent::ModelCallAttemptStarted(
            ModelCallAttemptStartedPayload {
                round: self.round,
                invocation_id: self.invocation_id.to_string(),
                attempt,
                max_retries: self.model_retry.max_retries,
            },
        ));
        self.phase = Phase::AwaitingModel { attempt };
        Action::CallModel {
            round: self.round,
            attempt,
            request,
        }
    }

    /// The request of this round: the history and the projected tools are shared with the
    /// machine, not copied.
    fn build_request(&mut self) -> Result<AgentModelRequest, RunFailurePayload> {
        let tools = match &self.model_tools {
            Some(tools) => Arc::clone(tools),
            None => {
                let tools = self
                    .turn
                    .model_tools(&self.snapshot)
                    .map_err(|error| policy::fault(error.code(), error.to_string()))?;
                Arc::clone(self.model_tools.insert(Arc::new(tools)))
            }
        };
        Ok(AgentModelRequest {
            messages: Arc::clone(&self.history),
            tools,
            tool_choice: self.turn.choice().clone(),
            provider_state: self.provider_state.clone(),
            parameters: self.parameters.clone(),
        })
    }

    /// A text-only turn: capture the text once, then remind the model while rounds
    /// remain, or fail with `model.tool_call_required`.
    fn drift(
        &mut self,
        assistant: AgentModelMessage,
        capture: Option<String>,
        captured: bool,
    ) -> Option<Action> {
        if let Some(text) = capture {
            self.phase = Phase::Drift {
                assistant,
                capture: None,
                captured: true,
            };
            return Some(Action::CaptureDirectOutput {
                round: self.round,
                path: self.direct_output_path.clone(),
                text,
            });
        }
        if self.round >= self.max_rounds {
            return Some(self.finish_failed(policy::tool_call_required(&self.snapshot)));
        }
        if has_content(&assistant) {
            self.history_mut().push(assistant);
        }
        let reminder = policy::drift_reminder(
            &self.snapshot,
            self.presentation,
            &self.ledger,
            captured.then_some(&self.direct_output_path),
        );
        self.history_mut().push(AgentModelMessage::user(reminder));
        self.drift_attempts += 1;
        self.outbox.push(RunEvent::DriftRecoveryAttempted(
            DriftRecoveryAttemptedPayload {
                round: self.round,
                invocation_id: self.invocation_id.to_string(),
                attempt: self.drift_attempts,
                max_attempts: self.max_rounds - 1,
                max_rounds: self.max_rounds,
                limit_reason: "max_rounds".into(),
                committed_count: self.ledger.confirmed_count(),
                reason_code: TOOL_CALL_REQUIRED.into(),
            },
        ));
        self.phase = Phase::Ready;
        None
    }

    fn tools(&mut self, mut round: ToolRound) -> Result<Option<Action>, MachineError> {
        if round.pending.is_some() {
            self.phase = Phase::Tools { round };
            return Err(self.unexpected("a step request"));
        }
        let count = round.call_count();
        let index = round.results.len();
        if let Some(call) = round.current_call().cloned() {
            let planned = match self.plan_call(call, index, count) {
                Ok(planned) => planned,
                Err(failure) => return Ok(Some(self.finish_failed(failure))),
            };
            round.pending = Some(match planned {
                PlannedCall::Execute { .. } => Pending::Execute,
                PlannedCall::Reject { .. } => Pending::Reject,
            });
            self.phase = Phase::Tools { round };
            return Ok(Some(Action::RunTool {
                round: self.round,
                index,
                count,
                call: planned,
            }));
        }
        match round.publish {
            Publish::NotChecked => match self.auto_publish_candidate(&round) {
                Some(file) => {
                    round.publish = Publish::Awaiting(file.clone());
                    self.phase = Phase::Tools { round };
                    return Ok(Some(Action::AutoPublish {
                        round: self.round,
                        path: file.path,
                        sha256: file.sha256,
                    }));
                }
                None => round.publish = Publish::Done,
            },
            Publish::Awaiting(_) => {
                self.phase = Phase::Tools { round };
                return Err(self.unexpected("a step request"));
            }
            Publish::Done => {}
        }
        Ok(self.close_round(round))
    }

    /// Decides one call, in this order: a finishing tool that is not last in its round is
    /// refused (`agent.tool_after_finish`); a finish the exit rules forbid is refused
    /// (`agent.foreground_commit_required`); then the gate checks visibility and reserves
    /// budget. Refusals before the gate reserve nothing. A gate fault ends the invocation.
    fn plan_call(
        &mut self,
        call: ToolInvocation,
        index: usize,
        count: usize,
    ) -> Result<PlannedCall, RunFailurePayload> {
        if policy::ends_invocation(&call) && index + 1 < count {
            let result = policy::tool_after_finish(&self.snapshot, &call);
            return Ok(PlannedCall::Reject { call, result });
        }
        if BuiltinTool::from_id(&call.tool_id) == Some(BuiltinTool::WorkspaceFinish)
            && let Err(denied) = self.finish_allowed()
        {
            let result = AgentToolResult::error(&call, &denied.code, denied.message);
            return Ok(PlannedCall::Reject { call, result });
        }
        match self.gate.admit(&self.snapshot, &self.turn, &call.tool_id) {
            Ok(()) => Ok(PlannedCall::Execute { call }),
            Err(rejection) if rejection.class() == ToolErrorClass::SystemFailure => {
                Err(policy::fault(rejection.code(), rejection.to_string()))
            }
            Err(rejection) => {
                let result = AgentToolResult::error(&call, rejection.code(), rejection.to_string());
                Ok(PlannedCall::Reject { call, result })
            }
        }
    }

    /// Auto-publish (`docs/spec-map.md`, Workspace tools and commit): in a foreground run without a confirmed explicit
    /// commit, once all calls of a round are handled, the round's last successful write or
    /// patch is published if it is a text file.
    fn auto_publish_candidate(&self, round: &ToolRound) -> Option<WrittenFile> {
        let eligible = self.exit_policy() == ExitPolicy::RunFinishAllowed
            && self.presentation == agent_domain::event::Presentation::Foreground
            && !self.ledger.has_explicit();
        round
            .last_write
            .clone()
            .filter(|file| eligible && policy::is_publishable_text(&file.path))
    }

    /// Appends the round to the history, then ends the loop or starts the next round.
    fn close_round(&mut self, round: ToolRound) -> Option<Action> {
        let ToolRound {
            assistant,
            results,
            ending,
            ..
        } = round;
        let history = self.history_mut();
        history.push(assistant);
        history.extend(results.into_iter().map(AgentModelMessage::tool_result));
        if let Some(ending) = ending {
            return Some(self.finish_loop(ending));
        }
        if self.round >= self.max_rounds {
            let failure = policy::max_rounds_exceeded(self.exit_policy(), self.max_rounds);
            return Some(self.finish_failed(failure));
        }
        self.phase = Phase::Ready;
        None
    }

    fn finish_loop(&mut self, ending: Ending) -> Action {
        let (ended_by, outcome) = match ending {
            Ending::Finish => (LoopEnding::Finish, Outcome::Completed),
            Ending::TaskReturn => (LoopEnding::TaskReturn, Outcome::TaskReturned),
            Ending::Handoff => (LoopEnding::Handoff, Outcome::HandedOff),
        };
        self.outbox
            .push(RunEvent::AgentLoopFinished(AgentLoopFinishedPayload {
                round: self.round,
                invocation_id: self.invocation_id.to_string(),
                commit_count: self.ledger.confirmed_count(),
                ended_by: Some(ended_by),
            }));
        self.phase = Phase::Finished {
            outcome: outcome.clone(),
        };
        Action::Finish(outcome)
    }

    fn finish_failed(&mut self, failure: RunFailurePayload) -> Action {
        let outcome = self.ledger.classify(failure);
        self.phase = Phase::Finished {
            outcome: outcome.clone(),
        };
        Action::Finish(outcome)
    }

    /// The history to append to. It is copied only if a request built from it is still
    /// alive (a driver that kept one); normally the model call is over and it is not.
    fn history_mut(&mut self) -> &mut Vec<AgentModelMessage> {
        Arc::make_mut(&mut self.history)
    }

    /// Whether an earlier turn used `call_id`; walks the parts without collecting each
    /// message's calls, since it runs for every call of every response.
    fn call_id_seen(&self, call_id: &str) -> bool {
        self.history
            .iter()
            .flat_map(|message| &message.parts)
            .filter_map(AgentModelContentPart::as_tool_call)
            .any(|call| call.call_id == call_id)
    }

    fn unexpected(&self, input: &'static str) -> MachineError {
        let phase = match &self.phase {
            Phase::Ready | Phase::RetryDue { .. } => "ready to call the model",
            Phase::AwaitingModel { .. } => "awaiting a model response",
            Phase::RetryScheduled { .. } => "about to wait before a retry",
            Phase::Drift { .. } => "handling a text-only turn",
            Phase::Tools { round } if round.pending.is_some() => "awaiting a tool result",
            Phase::Tools { round } if matches!(round.publish, Publish::Awaiting(_)) => {
                "awaiting an auto-publish report"
            }
            Phase::Tools { .. } => "handling tool calls",
            Phase::Finished { .. } => "finished",
        };
        MachineError::UnexpectedInput { phase, input }
    }
}

/// Checks that a report fits its call: a rejected call or an error result achieves
/// nothing; a successful finishing or commit call carries its matching control; a written
/// file comes only from a successful write or patch.
fn check_report(
    call: &ToolInvocation,
    pending: Pending,
    report: &ToolCallReport,
) -> Result<(), String> {
    let tool = BuiltinTool::from_id(&call.tool_id);
    let quiet = report.control == ToolControl::None && report.written.is_none();
    if pending == Pending::Reject || report.result.is_error {
        return if quiet {
            Ok(())
        } else {
            Err(format!(
                "call `{}` was refused or failed, yet its report claims an effect",
                call.call_id
            ))
        };
    }
    let expected = match tool {
        Some(BuiltinTool::WorkspaceCommit) => Some("committed"),
        Some(BuiltinTool::WorkspaceFinish) => Some("finished"),
        Some(BuiltinTool::TaskReturn) => Some("task_returned"),
        Some(BuiltinTool::AgentHandoff) => Some("handoff_accepted"),
        _ => None,
    };
    let actual = match &report.control {
        ToolControl::None => None,
        ToolControl::Committed { .. } => Some("committed"),
        ToolControl::Finished => Some("finished"),
        ToolControl::TaskReturned => Some("task_returned"),
        ToolControl::HandoffAccepted => Some("handoff_accepted"),
    };
    if expected != actual {
        return Err(format!(
            "call `{}` of `{}` reported control `{}`, expected `{}`",
            call.call_id,
            call.tool_id,
            actual.unwrap_or("none"),
            expected.unwrap_or("none")
        ));
    }
    let writes = matches!(
        tool,
        Some(BuiltinTool::WorkspaceWriteFile | BuiltinTool::WorkspaceApplyPatch)
    );
    if report.written.is_some() && !writes {
        return Err(format!(
            "call `{}` of `{}` reported a written file",
            call.call_id, call.tool_id
        ));
    }
    Ok(())
}

/// Whether an assistant message says anything worth keeping in the history.
fn has_content(message: &AgentModelMessage) -> bool {
    message.parts.iter().any(|part| match part {
        AgentModelContentPart::Text { text } => !text.trim().is_empty(),
        _ => true,
    })
}

/// The failure of a model call that will not be retried.
fn model_failure(error: &ModelError, attempts: u32) -> RunFailurePayload {
    let mut details = Map::new();
    details.insert("attempts".into(), json!(attempts));
    if let Some(status) = error.status {
        details.insert("status".into(), json!(status));
    }
    if let Some(provider_code) = &error.provider_code {
        details.insert("providerCode".into(), json!(provider_code));
    }
    RunFailurePayload::new(error.code, error.message.clone(), error.is_retryable())
        .with_technical_message(error.to_string())
        .with_details(details)
}
