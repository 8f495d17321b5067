//! Everything between `run_created` and the first model call (TauriTavern's order, "background
//! body"): the workspace and its frozen inputs, the root invocation, the persist
//! projection, skills, the model binding, and the tool snapshot with its machine.

use std::collections::BTreeMap;
use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::event::{
    ContextAssembledPayload, InvocationCreatedPayload, InvocationKind, InvocationStatus,
    ModelRequestSummary, PersistentProjectionInitializedPayload, RunEvent, RunStatus,
    WorkspaceInitializedPayload,
};
use agent_domain::model::ProviderState;
use agent_domain::run::{AgentInvocation, InvocationId};
use agent_domain::tool::{ExitPolicy, SnapshotInputs, builtin_catalog, compile_snapshot};
use agent_domain::workspace::WorkspaceRoot;

use super::driver::Driver;
use super::fault::Fault;
use super::invocation::{Invocation, ToolWorld};
use super::machine::{CommitLedger, InvocationMachine, InvocationSetup};
use crate::ports::InputDocument;
use crate::skills::{invocation_scopes, resolve_skills};
use crate::tools::{InvocationScope, RunScope, SkillAccess, ToolSession};

fn fault<E: ErrorCode + std::fmt::Display>(doing: &'static str) -> impl Fn(E) -> Fault {
    move |error| Fault::of(&error).context(doing)
}

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
    let now = d.rec.now();
    let invocation = AgentInvocation {
        id: InvocationId::root(),
        run_id: run_id.clone(),
        parent_invocation_id: None,
        profile_id: profile.id.to_string(),
        kind: InvocationKind::Root,
        status: InvocationStatus::Created,
        exit_policy: ExitPolicy::RunFinishAllowed,
        created_at: now.clone(),
        updated_at: now,
    };
    ports
        .runs
        .save_invocation(&invocation)
        .await
        .map_err(fault("saving the invocation record"))?;
    let record = root.insert(invocation);
    d.rec
        .emit(RunEvent::AgentInvocationCreated(InvocationCreatedPayload {
            invocation_id: record.id.to_string(),
            parent_invocation_id: None,
            profile_id: record.profile_id.clone(),
            kind: record.kind,
            status: record.status,
            exit_policy: record.exit_policy,
            task_id: None,
        }))
        .await?;
    d.set_invocation_status(record, InvocationStatus::Running, None)
        .await?;
    let root_record = record.clone();

    // The persist projection of the base state.
    let record = d.rec.record().await;
    ports
        .persist
        .project_base(&record)
        .await
        .map_err(fault("projecting the persistent state"))?;
    d.rec
        .emit(RunEvent::PersistentProjectionInitialized(
            PersistentProjectionInitializedPayload {
                roots: vec![WorkspaceRoot::Persist],
            },
        ))
        .await?;

    // Skills.
    let scopes = invocation_scopes(&profile, &record.skill_scope_refs)
        .map_err(fault("resolving skill scopes"))?;
    let skills = resolve_skills(ports.skills.as_ref(), &scopes, &profile.skills)
        .await
        .map_err(fault("listing skills"))?;
    let skills_document = skills
        .document()
        .map_err(|e| Fault::new("agent.runtime_fault", e.to_string()))?;
    ports
        .audit
        .write_input(
            &run_id,
            None,
            InputDocument::ResolvedSkills,
            &skills_document,
        )
        .await
        .map_err(fault("writing the resolved skills"))?;
    d.rec
        .emit(RunEvent::SkillScopesResolved(
            skills.scopes_resolved_payload(),
        ))
        .await?;

    // The model binding.
    let mut binding = d.facts.model_binding.clone();
    binding.invocation_id = InvocationId::ROOT.to_owned();
    d.rec
        .emit(RunEvent::AgentModelBindingResolved(binding))
        .await?;

    // The tool snapshot and the loop.
    d.rec.set_status(RunStatus::AssemblingContext).await?;
    let catalog = builtin_catalog().map_err(|e| Fault::of(&e))?;
    let compiled = compile_snapshot(SnapshotInputs {
        invocation_id: InvocationId::ROOT,
        policy: &profile.tool_policy(),
        exit_policy: ExitPolicy::RunFinishAllowed,
        builtins: &catalog,
        mcp: &BTreeMap::new(),
    })
    .map_err(fault("compiling the tool snapshot"))?;
    let snapshot = compiled.snapshot;
    let snapshot_ref = ports
        .audit
        .write_tool_snapshot(&run_id, &snapshot)
        .await
        .map_err(fault("writing the tool snapshot"))?;
    let messages = d.facts.prompt.messages.clone();
    let message_count = messages.len();
    let machine = InvocationMachine::new(InvocationSetup {
        invocation_id: InvocationId::root(),
        presentation: d.facts.presentation,
        max_rounds: profile.max_rounds(),
        model_retry: profile.model_retry,
        message_body_path: profile.message_body_path().clone(),
        snapshot: snapshot.clone(),
        messages,
        provider_state: ProviderState::initial(run_id.as_str(), InvocationId::ROOT),
        parameters: d.facts.prompt.parameters(),
        ledger: CommitLedger::new(),
        label: d.facts.model_label.clone(),
    })
    .map_err(|e| Fault::of(&e))?;
    let label = &d.facts.model_label;
    d.rec
        .emit(RunEvent::ContextAssembled(ContextAssembledPayload {
            invocation_id: InvocationId::ROOT.to_owned(),
            tool_snapshot_path: snapshot_ref.0,
            snapshot: snapshot.summary(),
            turn: machine.turn().clone(),
            request: ModelRequestSummary {
                provider_format: label.provider_format.clone(),
                model: label.model.clone(),
                message_count: u32::try_from(message_count).unwrap_or(u32::MAX),
                tool_count: u32::try_from(snapshot.bindings().len()).unwrap_or(u32::MAX),
            },
            max_rounds: profile.max_rounds(),
            model_retry: profile.model_retry,
            context_policy: Some(profile.context),
        }))
        .await?;

    let world = ToolWorld {
        run: RunScope {
            run_id: run_id.clone(),
            chat: d.facts.chat.clone(),
            input_message_count: d.facts.input_message_count,
            world_info: d.facts.prompt.world_info.clone(),
        },
        scope: InvocationScope {
            invocation_id: InvocationId::root(),
            roots: profile.roots.clone(),
            snapshot: Arc::new(snapshot),
            skills: SkillAccess {
                resolved: skills,
                max_chars_per_call: u64::from(profile.skills.max_read_chars_per_call),
                max_chars_per_invocation: u64::from(profile.skills.max_read_chars_per_run),
            },
        },
        session: ToolSession::default(),
        ports: ports.tool_ports(),
    };
    Ok(Invocation {
        machine,
        world,
        record: root_record,
        model: Arc::clone(&d.facts.model),
        watch: d.watch.clone(),
        last_response_path: None,
        last_write_call: None,
        last_reasoning: String::new(),
    })
}
