//! Building an invocation — the root, a delegated child or a handoff target — in two
//! steps: [`create_record`] (the record and `agent_invocation_created`), then
//! [`assemble`] (its skills, model binding, frozen tool snapshot, loop machine and the
//! tools' world, journaled as `skill_scopes_resolved`, `agent_model_binding_resolved` and
//! `context_assembled`). The root does run-level work between the two. [`build_loop`] is
//! the part of [`assemble`] that writes nothing (the tool snapshot, the system prompt's
//! additions, the machine); `prompt prepare` shares it.

use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::event::{
    ContextAssembledPayload, InvocationCreatedPayload, InvocationKind, InvocationStatus,
    ModelRequestSummary, Presentation, RunEvent, RunStatus,
};
use agent_domain::model::{
    AgentModelContentPart, AgentModelMessage, GenerationParameters, ModelRole, ProviderState,
};
use agent_domain::profile::ResolvedAgentProfile;
use agent_domain::run::{AgentInvocation, InvocationId};
use agent_domain::tool::{
    BuiltinTool, ExitPolicy, InvocationToolSnapshot, SnapshotDiagnostic, SnapshotInputs,
    builtin_catalog, compile_snapshot,
};

use super::candidates::{Operation, available_agents, candidates};
use super::driver::Driver;
use super::fault::Fault;
use super::invocation::{Invocation, InvocationIdentity, InvocationStart, ToolWorld};
use super::machine::{CommitLedger, InvocationMachine, InvocationSetup, ModelLabel};
use super::mcp;
use super::shared::Shared;
use crate::ports::InputDocument;
use crate::skills::{invocation_scopes, resolve_skills};
use crate::tools::{InvocationScope, RunScope, SkillAccess, ToolSession};

/// The operations whose tools the snapshot offers.
fn agent_operations(snapshot: &InvocationToolSnapshot) -> Vec<Operation> {
    [
        (BuiltinTool::AgentDelegate, Operation::Delegate),
        (BuiltinTool::AgentHandoff, Operation::Handoff),
    ]
    .into_iter()
    .filter(|(tool, _)| snapshot.contains(&tool.id()))
    .map(|(_, operation)| operation)
    .collect()
}

/// Appends `text` to the leading system message (one is added when the prompt has none).
fn add_to_system_prompt(messages: &mut Vec<AgentModelMessage>, text: &str) {
    match messages.first_mut() {
        Some(first) if first.role == ModelRole::System => first
            .parts
            .push(AgentModelContentPart::text(format!("\n\n{text}"))),
        _ => messages.insert(0, AgentModelMessage::system(text)),
    }
}

pub(super) fn fault<E: ErrorCode + std::fmt::Display>(doing: &'static str) -> impl Fn(E) -> Fault {
    move |error| Fault::of(&error).context(doing)
}

/// Saves the invocation's record (status `created`) and journals `agent_invocation_created`.
pub(super) async fn create_record(
    d: &Driver,
    who: InvocationIdentity,
) -> Result<AgentInvocation, Fault> {
    let now = d.rec.now();
    let record = AgentInvocation {
        id: who.id,
        run_id: d.run_id().clone(),
        parent_invocation_id: who.parent,
        profile_id: who.profile_id,
        kind: who.kind,
        status: InvocationStatus::Created,
        exit_policy: who.exit_policy,
        created_at: now.clone(),
        updated_at: now,
    };
    d.ports()
        .runs
        .save_invocation(&record)
        .await
        .map_err(fault("saving the invocation record"))?;
    d.rec
        .emit(RunEvent::AgentInvocationCreated(InvocationCreatedPayload {
            invocation_id: record.id.to_string(),
            parent_invocation_id: record
                .parent_invocation_id
                .as_ref()
                .map(|id| id.to_string()),
            profile_id: record.profile_id.clone(),
            kind: record.kind,
            status: record.status,
            exit_policy: record.exit_policy,
            task_id: who.task.map(|id| id.to_string()),
        }))
        .await?;
    Ok(record)
}

/// Everything an invocation needs for its first model call.
pub(super) async fn assemble(
    d: &Driver,
    record: AgentInvocation,
    start: InvocationStart,
) -> Result<Invocation, Fault> {
    let ports = d.ports().clone();
    let run_id = d.run_id().clone();
    let profile = &start.profile;
    let id = record.id.clone();
    let own_inputs = (!id.is_root()).then_some(&id);

    // Skills.
    let run = d.rec.record().await;
    let scopes = invocation_scopes(profile, &run.skill_scope_refs)
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
            own_inputs,
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
    let mut binding = start.model.binding.clone();
    binding.invocation_id = id.to_string();
    d.rec
        .emit(RunEvent::AgentModelBindingResolved(binding))
        .await?;

    // The tool snapshot and the machine. The run's status follows the invocation that
    // owns the run (root, handoff target), never a child working beside it.
    if record.kind != InvocationKind::Subagent {
        d.rec.set_status(RunStatus::AssemblingContext).await?;
    }
    let label = start.model.label.clone();
    let built = build_loop(
        &d.shared,
        LoopInputs {
            run_id: run_id.as_str(),
            invocation_id: &id,
            exit_policy: record.exit_policy,
            profile,
            presentation: start.presentation,
            messages: start.messages,
            parameters: d.facts.prompt.parameters(),
            ledger: start.ledger,
            label: label.clone(),
        },
    )
    .await?;
    let InvocationLoop {
        machine,
        snapshot,
        snapshot_diagnostics,
        message_count,
    } = built;
    let snapshot_ref = ports
        .audit
        .write_tool_snapshot(&run_id, &snapshot)
        .await
        .map_err(fault("writing the tool snapshot"))?;
    d.rec
        .emit(RunEvent::ContextAssembled(ContextAssembledPayload {
            invocation_id: id.to_string(),
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
            snapshot_diagnostics,
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
            invocation_id: id,
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
        record,
        profile: start.profile,
        model: start.model.gateway,
        task: start.task,
        watch: start.watch,
        last_response_path: None,
        last_write_call: None,
        last_reasoning: String::new(),
    })
}

/// What an invocation's loop is built from: who it is, the profile it runs and what it
/// starts with.
pub(super) struct LoopInputs<'a> {
    pub run_id: &'a str,
    pub invocation_id: &'a InvocationId,
    pub exit_policy: ExitPolicy,
    pub profile: &'a ResolvedAgentProfile,
    pub presentation: Presentation,
    /// The prompt, before the runtime's additions to its system message.
    pub messages: Vec<AgentModelMessage>,
    pub parameters: GenerationParameters,
    pub ledger: CommitLedger,
    pub label: ModelLabel,
}

/// An invocation's loop machine, about to make its first model call, and the frozen tool
/// snapshot it advertises.
pub(super) struct InvocationLoop {
    pub machine: InvocationMachine,
    pub snapshot: InvocationToolSnapshot,
    /// MCP tools the profile allows that were left out, and why.
    pub snapshot_diagnostics: Vec<SnapshotDiagnostic>,
    /// How many messages the first request carries.
    pub message_count: usize,
}

/// Compiles the invocation's tool snapshot, adds the agents it may call to the system
/// prompt, and builds its machine. Both a run ([`assemble`]) and a prepared request
/// ([`AgentRuntime::prepare_request`](super::AgentRuntime::prepare_request)) come through
/// here, so what `prompt prepare` shows is what the run's first round sends. Writes
/// nothing.
pub(super) async fn build_loop(
    shared: &Shared,
    inputs: LoopInputs<'_>,
) -> Result<InvocationLoop, Fault> {
    let profile = inputs.profile;
    let id = inputs.invocation_id;
    let catalog = builtin_catalog().map_err(|e| Fault::of(&e))?;
    let policy = profile.tool_policy();
    let mcp_entries = mcp::snapshot_entries(shared.mcp.as_ref(), &policy.allow).await;
    let compiled = compile_snapshot(SnapshotInputs {
        invocation_id: id.as_str(),
        policy: &policy,
        exit_policy: inputs.exit_policy,
        builtins: &catalog,
        mcp: &mcp_entries,
    })
    .map_err(fault("compiling the tool snapshot"))?;
    let snapshot = compiled.snapshot;
    let mut messages = inputs.messages;
    let operations = agent_operations(&snapshot);
    if !operations.is_empty() {
        let listed = candidates(&shared.ports.profiles, profile).await;
        add_to_system_prompt(&mut messages, &available_agents(&listed, &operations));
    }
    let message_count = messages.len();
    let machine = InvocationMachine::new(InvocationSetup {
        invocation_id: id.clone(),
        presentation: inputs.presentation,
        max_rounds: profile.max_rounds(),
        model_retry: profile.model_retry,
        message_body_path: profile.message_body_path().clone(),
        snapshot: snapshot.clone(),
        messages,
        provider_state: ProviderState::initial(inputs.run_id, id.as_str()),
        parameters: inputs.parameters,
        ledger: inputs.ledger,
        label: inputs.label,
    })
    .map_err(|e| Fault::of(&e))?;
    Ok(InvocationLoop {
        machine,
        snapshot,
        snapshot_diagnostics: compiled.diagnostics,
        message_count,
    })
}
