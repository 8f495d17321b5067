//! One invocation's loop as a sans-IO state machine.
//!
//! [`InvocationMachine`] owns the loop state of one invocation (root, return-mode child or
//! handoff target): the message history, the frozen tool snapshot and this turn's
//! contract, the request gate and its budgets, the round counter, the model retry policy,
//! the run's commit ledger and the exit rules. It performs no I/O, awaits nothing and reads
//! no clock. A driver asks it for the next [`Step`], journals the step's events, performs
//! the step's [`Action`] through the ports and feeds the result back:
//!
//! ```text
//! loop {
//!     let step = machine.next_step()?;
//!     journal(step.events);
//!     match step.action {
//!         CallModel { request, .. }      => gateway → on_model_response / on_model_error
//!         WaitBeforeRetry { delay_ms, .. } => sleep (cancel-aware)
//!         CaptureDirectOutput { path, text, .. } => write, journal, checkpoint
//!         RunTool { call, .. }           => audit, execute or reject → on_tool_result
//!         AutoPublish { path, .. }       => host commit (auto) → on_auto_publish
//!         Finish(outcome)                => break
//!     }
//! }
//! ```
//!
//! Any I/O fault goes to [`InvocationMachine::fail`]; a cancellation to
//! [`InvocationMachine::cancel`]. Both are honoured by the next step. The whole machine
//! is plain serialisable data, so an invocation can later resume from a saved state.
//! `docs/runtime-loop.md` describes the rules and who journals what.

mod events;
mod ledger;
mod policy;
mod round;
mod setup;
mod step;
#[cfg(test)]
mod tests;

use std::sync::Arc;

use agent_domain::event::{Presentation, PreservedCommit, RunFailurePayload};
use agent_domain::model::{AgentModelMessage, GenerationParameters, ProviderState};
use agent_domain::profile::ModelRetryPolicy;
use agent_domain::run::InvocationId;
use agent_domain::tool::{
    AgentModelTool, ExitPolicy, InvocationToolSnapshot, ToolChoice, ToolRequestGate,
    ToolTurnContract,
};
use agent_domain::workspace::WorkspacePath;
use serde::{Deserialize, Serialize};

pub use events::{NARRATION_PREVIEW_CHARS, tool_outcome_event};
pub use ledger::CommitLedger;
#[cfg(test)]
use policy::{
    CHILD_FINISH_DENIED, FOREGROUND_COMMIT_REQUIRED, MAX_TOOL_ROUNDS_EXCEEDED, TOOL_CALL_REQUIRED,
    TOOL_CONTROL_MISMATCH,
};
pub use policy::{FinishDenied, RESULT_IDENTITY_MISMATCH, direct_output_path};
pub use setup::{InvocationSetup, MachineError, ModelLabel};
pub use step::{
    Action, AutoPublishReport, Outcome, PlannedCall, Step, ToolCallReport, ToolControl, WrittenFile,
};

use round::Phase;

/// The loop state of one invocation. See the [module docs](self).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvocationMachine {
    invocation_id: InvocationId,
    presentation: Presentation,
    max_rounds: u32,
    model_retry: ModelRetryPolicy,
    direct_output_path: WorkspacePath,
    label: ModelLabel,
    snapshot: InvocationToolSnapshot,
    turn: ToolTurnContract,
    /// `turn` projected onto `snapshot`: every request of the invocation advertises this
    /// same list, so it is built once and shared. Derived, hence not saved: a restored
    /// machine projects it again on its next request.
    #[serde(skip)]
    model_tools: Option<Arc<Vec<AgentModelTool>>>,
    gate: ToolRequestGate,
    /// Shared with the requests built from it; it grows only once the model call that
    /// read it is over, so appending does not copy it.
    history: Arc<Vec<AgentModelMessage>>,
    /// User messages (guidance, child results) waiting for the next round.
    queued: Vec<AgentModelMessage>,
    /// The action [`round_starts_next`](Self::round_starts_next) reached, handed out by the
    /// next step.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    staged: Option<Action>,
    provider_state: ProviderState,
    parameters: GenerationParameters,
    ledger: CommitLedger,
    /// The current round, 1-based; 0 before the first model call.
    round: u32,
    drift_attempts: u32,
    cancel_requested: bool,
    phase: Phase,
    /// Events produced by reports, handed out with the next step.
    outbox: Vec<agent_domain::event::RunEvent>,
    /// The pending call's commit is already in the ledger ([`Self::confirm_commit`]); its
    /// report must not record it again.
    #[serde(default)]
    commit_confirmed: bool,
}

impl InvocationMachine {
    /// A machine about to make its first model call. The turn contract is every tool of the
    /// snapshot with `ToolChoice::Auto`.
    pub fn new(setup: InvocationSetup) -> Result<Self, MachineError> {
        if setup.max_rounds == 0 {
            return Err(MachineError::MaxRoundsInvalid);
        }
        if setup.snapshot.id() != setup.invocation_id.as_str() {
            return Err(MachineError::SnapshotMismatch {
                snapshot: setup.snapshot.id().to_owned(),
                invocation: setup.invocation_id.to_string(),
            });
        }
        let turn = ToolTurnContract::all(&setup.snapshot, ToolChoice::Auto)?;
        let model_tools = Arc::new(turn.model_tools(&setup.snapshot)?);
        Ok(Self {
            direct_output_path: direct_output_path(&setup.message_body_path),
            invocation_id: setup.invocation_id,
            presentation: setup.presentation,
            max_rounds: setup.max_rounds,
            model_retry: setup.model_retry,
            label: setup.label,
            snapshot: setup.snapshot,
            turn,
            model_tools: Some(model_tools),
            gate: ToolRequestGate::new(),
            history: Arc::new(setup.messages),
            queued: Vec::new(),
            staged: None,
            provider_state: setup.provider_state,
            parameters: setup.parameters,
            ledger: setup.ledger,
            round: 0,
            drift_attempts: 0,
            cancel_requested: false,
            phase: Phase::Ready,
            outbox: Vec::new(),
            commit_confirmed: false,
        })
    }

    pub fn invocation_id(&self) -> &InvocationId {
        &self.invocation_id
    }

    /// How this invocation may end (from its snapshot).
    pub fn exit_policy(&self) -> ExitPolicy {
        self.snapshot.exit_policy()
    }

    /// The current round (1-based; 0 before the first model call).
    pub fn round(&self) -> u32 {
        self.round
    }

    /// The conversation so far: the prompt, then every completed round.
    #[cfg(test)]
    pub fn history(&self) -> &[AgentModelMessage] {
        &self.history
    }

    pub fn turn(&self) -> &ToolTurnContract {
        &self.turn
    }

    #[cfg(test)]
    pub fn gate(&self) -> &ToolRequestGate {
        &self.gate
    }

    pub fn ledger(&self) -> &CommitLedger {
        &self.ledger
    }

    /// The ledger, consumed (the tests read what an invocation leaves).
    #[cfg(test)]
    pub fn into_ledger(self) -> CommitLedger {
        self.ledger
    }

    pub fn provider_state(&self) -> &ProviderState {
        &self.provider_state
    }

    /// Where text-only turns are captured.
    #[cfg(test)]
    pub fn direct_output_path(&self) -> &WorkspacePath {
        &self.direct_output_path
    }

    /// How the invocation ended, once it has.
    pub fn outcome(&self) -> Option<&Outcome> {
        match &self.phase {
            Phase::Finished { outcome } => Some(outcome),
            _ => None,
        }
    }

    pub fn is_finished(&self) -> bool {
        self.outcome().is_some()
    }

    /// Whether `workspace.finish` may run now. The machine applies this itself when it
    /// plans a finish call; it is public for UIs and diagnostics.
    pub fn finish_allowed(&self) -> Result<(), FinishDenied> {
        policy::check_finish(&self.snapshot, self.presentation, &self.ledger)
    }

    /// Requests cancellation: the next step is `Finish(Cancelled)`. A finished invocation
    /// stays as it ended.
    pub fn cancel(&mut self) {
        if !self.is_finished() {
            self.cancel_requested = true;
        }
    }

    /// Ends the invocation on a runtime fault the driver hit (I/O, journal, audit, a host
    /// commit that failed, a tool's fatal error). The next step is `Finish` with the
    /// failure classified by the ledger: partial success after any confirmed commit,
    /// failed otherwise. Ignored once the invocation has ended.
    pub fn fail(&mut self, failure: RunFailurePayload) {
        if !self.is_finished() {
            let outcome = self.ledger.classify(failure);
            self.phase = Phase::Finished { outcome };
        }
    }

    /// Records a chat commit the moment the host confirms it, before its result is stored
    /// or journaled: from then on a fault is a partial success that keeps the message. The
    /// call's report (or the auto-publish report) that follows does not record it again.
    pub fn confirm_commit(&mut self, commit: PreservedCommit, explicit: bool) {
        if !self.is_finished() {
            self.ledger.record(commit, explicit);
            self.commit_confirmed = true;
        }
    }

    /// Replaces the provider continuation state after a successful call.
    pub fn set_provider_state(&mut self, state: ProviderState) {
        self.provider_state = state;
    }

    /// Queues a user message (user guidance, rendered child results) for the start of the
    /// next round; it joins the history right before the next request is built.
    pub fn queue_user_message(&mut self, message: AgentModelMessage) {
        self.queued.push(message);
    }

    /// Where a user message queued now lands in the next round's request.
    pub fn next_message_index(&self) -> usize {
        self.history.len() + self.queued.len()
    }
}
