//! [`Invocation`]: one agent invocation of a run (root, return-mode child or handoff
//! target) — its loop machine, the tools' world, its record, the model it calls and what
//! its loop remembers between steps.

use std::sync::Arc;

use agent_domain::event::InvocationKind;
use agent_domain::model::ProviderState;
use agent_domain::run::AgentInvocation;
use agent_domain::workspace::WorkspacePath;

use super::cancel::CancelWatch;
use super::fault::Fault;
use super::machine::InvocationMachine;
use crate::ports::ModelGateway;
use crate::tools::{InvocationScope, RunScope, ToolPorts, ToolSession};

/// One invocation, ready for (or in) its loop.
pub(super) struct Invocation {
    pub machine: InvocationMachine,
    pub world: ToolWorld,
    /// The invocation's record (`invocations/<id>.json`).
    pub record: AgentInvocation,
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
