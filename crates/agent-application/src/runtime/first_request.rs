//! [`RunRequest`] → [`PreparedRequest`]: the model request a run's first round would
//! send (the Host ABI's `promptAssembly.prepare`), without creating the run.
//!
//! It goes through the run's own steps — [`check_start`] for the checks and the prompt,
//! [`build_loop`] for the tool snapshot, the system prompt's additions and the machine —
//! and asks the machine for its first step, so nothing here restates how a request is
//! made. It writes nothing: no run, no journal, no chat metadata.

use std::sync::Arc;

use agent_domain::event::{ModelBindingResolvedPayload, Presentation};
use agent_domain::model::AgentModelRequest;
use agent_domain::run::{GenerationType, InvocationId};
use agent_domain::tool::{ExitPolicy, SnapshotDiagnostic};
use serde::Serialize;

use super::errors::StartRunError;
use super::fault::Fault;
use super::invocation_build::{InvocationLoop, LoopInputs, build_loop};
use super::machine::{Action, CommitLedger};
use super::shared::Shared;
use super::start::{Checked, RunRequest, check_start};

/// The run id a prepared request's provider state names: there is no run, and a real run
/// id is a 32-digit hex id, so this one can never be mistaken for one.
pub const PREPARED_RUN_ID: &str = "prepared";

/// The request the root invocation's first model round would send.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PreparedRequest {
    pub profile_id: String,
    /// What the run would do (a regenerate of a chat ending with the user's message is a
    /// normal reply).
    pub generation_type: GenerationType,
    pub presentation: Presentation,
    /// How many chat messages the run would read.
    pub input_message_count: usize,
    /// The model binding: mode, connection name, provider format, model id (never a key).
    pub binding: ModelBindingResolvedPayload,
    /// The request: messages (with the runtime's additions to the system prompt), the
    /// model-facing tools of the frozen tool snapshot, tool choice, provider state and
    /// generation parameters.
    pub request: AgentModelRequest,
    /// MCP tools the profile allows that the snapshot leaves out, and why.
    pub snapshot_diagnostics: Vec<SnapshotDiagnostic>,
}

/// See [`AgentRuntime::prepare_request`](super::AgentRuntime::prepare_request).
pub(super) async fn prepare_request(
    shared: &Arc<Shared>,
    request: RunRequest,
) -> Result<PreparedRequest, StartRunError> {
    let Checked {
        profile,
        presentation,
        generation_type,
        input_count,
        prompt,
        ..
    } = check_start(shared, &request).await?;
    let root = InvocationId::root();
    let InvocationLoop {
        mut machine,
        snapshot_diagnostics,
        ..
    } = build_loop(
        shared,
        LoopInputs {
            run_id: PREPARED_RUN_ID,
            invocation_id: &root,
            exit_policy: ExitPolicy::RunFinishAllowed,
            profile: &profile,
            presentation,
            messages: prompt.messages.clone(),
            parameters: prompt.parameters(),
            ledger: CommitLedger::new(),
            label: request.model_label,
        },
    )
    .await?;
    let step = machine.next_step().map_err(|e| Fault::of(&e))?;
    let Action::CallModel { request: first, .. } = step.action else {
        return Err(Fault::new(
            "agent.runtime_fault",
            "the invocation's first step is not a model call",
        )
        .into());
    };
    let mut binding = request.model_binding;
    binding.invocation_id = root.to_string();
    Ok(PreparedRequest {
        profile_id: profile.id.to_string(),
        generation_type,
        presentation,
        input_message_count: input_count,
        binding,
        request: first,
        snapshot_diagnostics,
    })
}
