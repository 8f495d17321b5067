//! Everything between `run_created` and the root invocation's first model call
//! (TauriTavern's order, "background body"): the workspace and its frozen inputs, the root
//! invocation's record, the persist projection, then the invocation itself (skills, model
//! binding, tool snapshot, machine).

use agent_domain::event::{
    InvocationKind, InvocationStatus, PersistentProjectionInitializedPayload, RunEvent, RunStatus,
    WorkspaceInitializedPayload,
};
use agent_domain::run::{AgentInvocation, InvocationId};
use agent_domain::tool::ExitPolicy;
use agent_domain::workspace::WorkspaceRoot;

use super::driver::Driver;
use super::fault::Fault;
use super::invocation::{Invocation, InvocationIdentity, InvocationStart};
use super::invocation_build::{assemble, create_record, fault};
use super::machine::CommitLedger;
use crate::ports::InputDocument;

/// Sets the run up; any failure here fails the run (nothing was committed yet), and the
/// root invocation's record, when it was created, comes back with the fault.
pub(super) async fn prepare(d: &Driver) -> Result<Invocation, (Option<AgentInvocation>, Fault)> {
    let mut root = None;
    match prepare_root(d, &mut root).await {
        Ok(invocation) => Ok(invocation),
        Err(fault) => Err((root, fault)),
    }
}

async fn prepare_root(d: &Driver, root: &mut Option<AgentInvocation>) -> Result<Invocation, Fault> {
    let ports = d.ports().clone();
    let run_id = d.facts.run_id.clone();
    let profile = d.facts.profile.clone();

    // The workspace and the run's frozen inputs.
    d.rec.set_status(RunStatus::InitializingWorkspace).await?;
    ports
        .workspace
        .initialize(&run_id)
        .await
        .map_err(fault("initializing the workspace"))?;
    ports
        .audit
        .write_input(
            &run_id,
            None,
            InputDocument::PromptSnapshot,
            &d.facts.prompt.raw,
        )
        .await
        .map_err(fault("writing the prompt snapshot"))?;
    let profile_document = serde_json::to_value(&profile)
        .map_err(|e| Fault::new("agent.runtime_fault", e.to_string()))?;
    ports
        .audit
        .write_input(
            &run_id,
            None,
            InputDocument::ResolvedProfile,
            &profile_document,
        )
        .await
        .map_err(fault("writing the resolved profile"))?;
    d.rec
        .emit(RunEvent::WorkspaceInitialized(
            WorkspaceInitializedPayload {
                workspace_id: d.facts.workspace_id.to_string(),
                stable_chat_id: d.facts.stable_chat_id.clone(),
            },
        ))
        .await?;

    // The root invocation.
    let record = root.insert(
        create_record(
            d,
            InvocationIdentity {
                id: InvocationId::root(),
                kind: InvocationKind::Root,
                parent: None,
                task: None,
                profile_id: profile.id.to_string(),
                exit_policy: ExitPolicy::RunFinishAllowed,
            },
        )
        .await?,
    );
    d.set_invocation_status(record, InvocationStatus::Running, None)
        .await?;
    let record = record.clone();

    // The persist projection of the base state.
    let run = d.rec.record().await;
    ports
        .persist
        .project_base(&run)
        .await
        .map_err(fault("projecting the persistent state"))?;
    d.rec
        .emit(RunEvent::PersistentProjectionInitialized(
            PersistentProjectionInitializedPayload {
                roots: vec![WorkspaceRoot::Persist],
            },
        ))
        .await?;

    let model = d.facts.run_model();
    assemble(
        d,
        record,
        InvocationStart {
            task: None,
            profile,
            presentation: d.facts.presentation,
            messages: d.facts.prompt.messages.clone(),
            ledger: CommitLedger::new(),
            model,
            watch: d.watch.clone(),
        },
    )
    .await
}
