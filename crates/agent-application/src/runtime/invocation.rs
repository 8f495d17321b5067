//! [`Invocation`]: one agent invocation of a run (root, return-mode child or handoff
//! target) — its loop machine, the tools' world, its record, the model it calls and what
//! its loop remembers between steps.

use std::sync::Arc;

use agent_domain::event::{InvocationKind, Presentation};
use agent_domain::model::{AgentModelMessage, ProviderState};
use agent_domain::profile::ResolvedAgentProfile;
use agent_domain::run::{AgentInvocation, InvocationId, TaskId};
use agent_domain::tool::ExitPolicy;
use agent_domain::workspace::WorkspacePath;

use super::cancel::CancelWatch;
use super::facts::RunModel;
use super::fault::Fault;
use super::machine::{CommitLedger, InvocationMachine};
use crate::ports::ModelGateway;
use crate::tools::{InvocationScope, RunScope, ToolPorts, ToolSession};

/// One invocation, ready for (or in) its loop.
pub(super) struct Invocation {
    pub machine: InvocationMachine,
    pub world: ToolWorld,
    /// The invocation's record (`invocations/<id>.json`).
    pub record: AgentInvocation,
    /// The profile this invocation runs.
    pub profile: ResolvedAgentProfile,
    /// The task that created a child or handoff invocation.
    pub task: Option<TaskId>,
    /// The model this invocation calls.
    pub model: Arc<dyn ModelGateway>,
    /// Cancellation of this invocation: the run's, or (for a child) its own.
    pub watch: CancelWatch,
    /// Where the latest model response was stored (for `direct_output_captured`).
    pub last_response_path: Option<String>,
    /// The latest successful write or patch and the call that made it (auto-publish
    /// names that call).
    pub last_write_call: Option<(WorkspacePath, String)>,
    /// The reasoning of the latest model response (a committed message's
    /// `extra.reasoning`).
    pub last_reasoning: String,
}

/// Who an invocation is.
pub(super) struct InvocationIdentity {
    pub id: InvocationId,
    pub kind: InvocationKind,
    pub parent: Option<InvocationId>,
    pub task: Option<TaskId>,
    pub profile_id: String,
    pub exit_policy: ExitPolicy,
}

/// What an invocation starts from.
pub(super) struct InvocationStart {
    /// The task that created a child or handoff invocation.
    pub task: Option<TaskId>,
    pub profile: ResolvedAgentProfile,
    pub presentation: Presentation,
    pub messages: Vec<AgentModelMessage>,
    /// Empty, or the predecessor's for a handoff target.
    pub ledger: CommitLedger,
    pub model: RunModel,
    pub watch: CancelWatch,
}

/// An invocation whose record exists, waiting to be assembled and run: a delegated child
/// for the scheduler, or a handoff target for when its source stops.
pub(super) struct PendingInvocation {
    pub record: AgentInvocation,
    pub start: InvocationStart,
}

/// What builtin tools of the invocation see and share.
pub(super) struct ToolWorld {
    pub run: RunScope,
    pub scope: InvocationScope,
    pub session: ToolSession,
    pub ports: ToolPorts,
}

impl Invocation {
    pub fn kind(&self) -> InvocationKind {
        self.record.kind
    }

    /// Whether this invocation owns the run (the root or a handoff target), so the run's
    /// status follows its steps; a child works beside the owner.
    pub fn owns_run(&self) -> bool {
        self.record.kind != InvocationKind::Subagent
    }

    /// Takes the continuation an adapter handed back. It must continue the invocation's
    /// own session: a state for another session would leak one invocation's provider
    /// context into another, so it fails the run with `agent.provider_state_invalid`.
    pub fn adopt_provider_state(&mut self, next: ProviderState) -> Result<(), Fault> {
        let current = self.machine.provider_state();
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
        self.machine.set_provider_state(next);
        Ok(())
    }
}
