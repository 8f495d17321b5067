//! Starting a run: every check first (TauriTavern's order), then the run record
//! and its first events, then a task the host spawns to drive it.

use std::sync::Arc;

use agent_domain::event::{
    ChatRef, ModelBindingResolvedPayload, Presentation, ProfileResolvedPayload, RunCreatedPayload,
    RunStatus,
};
use agent_domain::profile::ResolvedAgentProfile;
use agent_domain::run::{
    AgentRun, GenerationType, PrefixMessage, RunId, SkillScopeRefs, StateId, WorkspaceId,
    input_message_count, parse_stable_chat_id, resolve_persist_base,
};
use agent_domain::tool::BuiltinTool;
use futures::future::BoxFuture;
use serde_json::{Value, json};

use super::cancel::Registration;
use super::drive;
use super::errors::StartRunError;
use super::facts::{ModelBinder, RunFacts, RunOutcome};
use super::machine::ModelLabel;
use super::recorder::LiveRun;
use super::shared::Shared;
use crate::chat_workspaces::workspace_of;
use crate::ports::{ChatInfo, EventDraft, ModelGateway};
use crate::profiles::ProfileService;
use crate::prompt::{
    AssembledPrompt, PromptInput, PromptPorts, PromptRequest, PromptSnapshot, assemble_prompt,
};
use crate::scene::{ChatScene, SceneError, SceneFrame, SceneRequest, gather};

/// What a host asks to preview: the prompt a run would start from.
#[derive(Debug, Clone)]
pub struct PreviewPrompt {
    pub chat: ChatRef,
    pub profile_id: Option<String>,
    pub generation_type: GenerationType,
    /// The model whose tokenizer counts the world-info budget (`None`: the default one).
    pub model: Option<String>,
    pub scene: SceneRequest,
}

/// The prompt a run would start from, with world info as it would activate, without
/// creating a run or writing the chat's messages or metadata (timed effects are neither
/// read nor written).
pub(super) async fn preview(
    shared: &Arc<Shared>,
    request: PreviewPrompt,
) -> Result<AssembledPrompt, StartRunError> {
    let ports = &shared.ports;
    let profile = ProfileService::new(Arc::clone(&ports.profiles))
        .resolve(request.profile_id.as_deref())
        .await?;
    let chat = ports.chats.open(&request.chat).await?;
    let (generation, input_count) = frozen_prefix(shared, &chat, request.generation_type).await?;
    let scene = gather_scene(shared, &chat, generation, input_count, &request.scene).await?;
    Ok(assemble_prompt(
        &prompt_ports(shared),
        PromptRequest {
            chat: &chat,
            scene: &scene,
            input_message_count: input_count,
            generation,
            requested: request.generation_type,
            profile: &profile,
            model: request.model.as_deref(),
            preview: true,
        },
    )
    .await?)
}

/// The chat metadata key of world info's timed effects.
const TIMED_WORLD_INFO: &str = "timedWorldInfo";

/// Who is in `chat` for a run of `generation` whose frozen prefix is its first `prefix`
/// messages.
async fn gather_scene(
    shared: &Shared,
    chat: &ChatInfo,
    generation: GenerationType,
    prefix: usize,
    request: &SceneRequest,
) -> Result<ChatScene, SceneError> {
    let ports = &shared.ports;
    let frame = SceneFrame {
        prefix,
        swipes_next: generation.adds_swipe(),
    };
    gather(
        &shared.user_data,
        ports.chats.as_ref(),
        ports.clock.as_ref(),
        chat,
        frame,
        request,
    )
    .await
}

/// The assembler's ports, from the runtime's.
pub(super) fn prompt_ports(shared: &Shared) -> PromptPorts {
    PromptPorts {
        chats: Arc::clone(&shared.ports.chats),
        lorebooks: Arc::clone(&shared.user_data.lorebooks),
        lore_engines: shared.lore_engines.clone(),
        rng: Arc::clone(&shared.ports.rng),
        clock: Arc::clone(&shared.ports.clock),
    }
}

/// Messages read per page while looking for the persist base.
const PREFIX_PAGE: usize = 200;

/// What a run is asked to do: everything a host decides except the gateway. A run
/// ([`StartRun`]) and a prepared first request (`prompt prepare`) both start from it.
#[derive(Debug, Clone)]
pub struct RunRequest {
    pub chat: ChatRef,
    /// `None` runs the built-in `default-writer` (or a stored profile of that id).
    pub profile_id: Option<String>,
    pub generation_type: GenerationType,
    /// `None` uses the profile's presentation.
    pub presentation: Option<Presentation>,
    pub prompt: PromptInput,
    /// Provider format and model, for request summaries.
    pub model_label: ModelLabel,
    /// Journaled as `agent_model_binding_resolved` (its `invocationId` is set to the root).
    pub model_binding: ModelBindingResolvedPayload,
    /// The user's name and, in a group chat, the member to speak as, when the host decides
    /// them (`run --user-name`, `run --as`).
    pub scene: SceneRequest,
}

/// What a host asks for when it starts a run.
pub struct StartRun {
    pub run: RunRequest,
    /// The model every call of this run goes to.
    pub model: Arc<dyn ModelGateway>,
    /// How invocations of other profiles (delegated children, handoff targets) find their
    /// model; `None`: every invocation of the run calls `model`.
    pub models: Option<Arc<dyn ModelBinder>>,
}

impl std::fmt::Debug for StartRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartRun")
            .field("run", &self.run)
            .finish_non_exhaustive()
    }
}

/// The driving of one run, for the host to spawn (or await). It always ends with the
/// run's terminal event journaled, whatever happened.
pub type RunTask = BoxFuture<'static, RunOutcome>;

/// A created run (status `created`, its first events journaled) and its task.
pub struct StartedRun {
    pub run: AgentRun,
    pub task: RunTask,
}

impl std::fmt::Debug for StartedRun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StartedRun")
            .field("run", &self.run)
            .finish_non_exhaustive()
    }
}

/// What a run's checks settle: everything a run is created from.
pub(super) struct Checked {
    pub profile: ResolvedAgentProfile,
    pub presentation: Presentation,
    pub stable_chat_id: String,
    pub workspace_id: WorkspaceId,
    pub generation_type: GenerationType,
    pub input_count: usize,
    pub persist_base: Option<StateId>,
    pub scene: ChatScene,
    pub prompt: PromptSnapshot,
    /// Chat metadata the run's commit writes (world info's timed effects).
    pub commit_metadata: Vec<(String, agent_domain::json::OrderedJson)>,
}

/// The checks of a run, in TauriTavern's order, writing nothing: a run
/// ([`start_run`]) and a prepared request (`prompt prepare`) both pass them.
pub(super) async fn check_start(
    shared: &Arc<Shared>,
    request: &RunRequest,
) -> Result<Checked, StartRunError> {
    let ports = &shared.ports;
    // 1. A snapshot is checked before anything else (stream, external tools, tool turns).
    let validated = match &request.prompt {
        PromptInput::Snapshot(value) => Some(crate::prompt::validate_prompt_snapshot(value)?),
        PromptInput::Assemble => None,
    };
    // 2. The profile, and whether it may run here.
    let profile = ProfileService::new(Arc::clone(&ports.profiles))
        .resolve(request.profile_id.as_deref())
        .await?;
    profile.ensure_direct_runnable()?;
    profile.ensure_model_configured()?;
    let presentation = request.presentation.unwrap_or(profile.presentation);
    if presentation == Presentation::Foreground
        && !profile.is_tool_visible(&BuiltinTool::WorkspaceCommit.id())
    {
        return Err(StartRunError::ForegroundCommitUnavailable {
            profile_id: profile.id.to_string(),
        });
    }
    // 3. The chat, its workspace, the frozen prefix and the persist base.
    let chat = ports.chats.open(&request.chat).await?;
    let stable_chat_id = parse_stable_chat_id(&chat.stable_chat_id)?;
    let workspace_id = workspace_of(ports.digest.as_ref(), &request.chat, &stable_chat_id);
    let (generation_type, input_count) =
        frozen_prefix(shared, &chat, request.generation_type).await?;
    let persist_base = persist_base(shared, &chat.chat, input_count).await?;
    // 4. Who is in the chat, and the prompt.
    let scene = gather_scene(shared, &chat, generation_type, input_count, &request.scene).await?;
    let (prompt, commit_metadata) = match validated {
        Some(snapshot) => (snapshot, Vec::new()),
        None => {
            let assembled = assemble_prompt(
                &prompt_ports(shared),
                PromptRequest {
                    chat: &chat,
                    scene: &scene,
                    input_message_count: input_count,
                    generation: generation_type,
                    requested: request.generation_type,
                    profile: &profile,
                    model: request.model_label.model.as_deref(),
                    preview: false,
                },
            )
            .await?;
            let timed = assembled.lore.and_then(|lore| lore.timed_state);
            let metadata = timed
                .map(|state| vec![(TIMED_WORLD_INFO.to_owned(), state)])
                .unwrap_or_default();
            (assembled.snapshot, metadata)
        }
    };
    Ok(Checked {
        profile,
        presentation,
        stable_chat_id,
        workspace_id,
        generation_type,
        input_count,
        persist_base,
        scene,
        prompt,
        commit_metadata,
    })
}

/// The checks, in order; then the run. See [`AgentRuntime::start_run`](super::AgentRuntime::start_run).
pub(super) async fn start_run(
    shared: &Arc<Shared>,
    request: StartRun,
) -> Result<StartedRun, StartRunError> {
    let ports = &shared.ports;
    let Checked {
        profile,
        presentation,
        stable_chat_id,
        workspace_id,
        generation_type,
        input_count,
        persist_base,
        scene,
        prompt,
        commit_metadata,
    } = check_start(shared, &request.run).await?;

    // Everything checked: create the run.
    let run_id = RunId::from_uuid_hex(&ports.ids.new_hex_id())?;
    let now = ports.clock.now_rfc3339();
    let record = AgentRun {
        id: run_id.clone(),
        workspace_id: workspace_id.clone(),
        stable_chat_id: stable_chat_id.clone(),
        chat_ref: request.run.chat.clone(),
        generation_type,
        profile_id: Some(profile.id.to_string()),
        skill_scope_refs: ambient_skill_scopes(&request.run.chat),
        persist_base_state_id: persist_base.clone(),
        input_message_count: u64::try_from(input_count).ok(),
        presentation,
        status: RunStatus::Created,
        created_at: now.clone(),
        updated_at: now,
    };
    ports.runs.create_run(&record).await?;
    if let Err(error) = journal_start(shared, &record, &profile, request.run.generation_type).await
    {
        // The record exists but its journal does not start: mark it failed so it is not
        // listed as pending forever.
        let mut failed = record.clone();
        failed.status = RunStatus::Failed;
        failed.updated_at = ports.clock.now_rfc3339();
        let _ = ports.runs.save_run(&failed).await;
        return Err(error);
    }

    let live = Arc::new(LiveRun::new(record.clone()));
    let registration = Registration::new(Arc::clone(&shared.active), Arc::clone(&live));
    let facts = RunFacts {
        run_id,
        workspace_id,
        stable_chat_id,
        chat: request.run.chat,
        profile,
        presentation,
        input_message_count: input_count,
        prompt,
        model: request.model,
        author: scene.author,
        reply_model: request.run.model_label.reply_model(),
        model_label: request.run.model_label,
        model_binding: request.run.model_binding,
        models: request.models,
        commit_metadata,
    };
    let shared = Arc::clone(shared);
    let task: RunTask = Box::pin(async move {
        let _registration = registration;
        drive::drive(shared, live, facts).await
    });
    Ok(StartedRun { run: record, task })
}

/// The payload of `generation_intent_recorded`: what the run does, and what was asked for
/// when that differs (a regenerate that became a normal reply).
fn generation_intent(generation: GenerationType, requested: GenerationType) -> Value {
    let mut intent = json!({"generationType": generation.as_str(), "source": "cli"});
    if requested != generation {
        intent["requestedGenerationType"] = json!(requested.as_str());
    }
    intent
}

/// `run_created`, `profile_resolved`, `generation_intent_recorded`.
async fn journal_start(
    shared: &Shared,
    record: &AgentRun,
    profile: &ResolvedAgentProfile,
    requested: GenerationType,
) -> Result<(), StartRunError> {
    use agent_domain::event::RunEvent;
    let events = [
        RunEvent::RunCreated(RunCreatedPayload {
            workspace_id: record.workspace_id.to_string(),
            stable_chat_id: record.stable_chat_id.clone(),
            persist_base_state_id: record.persist_base_state_id.as_ref().map(|s| s.to_string()),
            presentation: record.presentation,
        }),
        RunEvent::ProfileResolved(ProfileResolvedPayload {
            profile_id: profile.id.to_string(),
            source: profile.source,
        }),
        RunEvent::GenerationIntentRecorded(generation_intent(record.generation_type, requested)),
    ];
    for event in events {
        let draft = EventDraft {
            timestamp: shared.ports.clock.now_rfc3339(),
            event,
        };
        shared.ports.journal.append(&record.id, draft).await?;
    }
    Ok(())
}

/// What the run does and how many messages it may read: a regenerate of a chat that ends
/// with the user's message is a normal reply; a swipe needs the chat to end with an
/// assistant message and hides it; a regenerate hides a last non-user message.
async fn frozen_prefix(
    shared: &Shared,
    chat: &ChatInfo,
    requested: GenerationType,
) -> Result<(GenerationType, usize), StartRunError> {
    let total = chat.message_count;
    let last_role = if total == 0 {
        None
    } else {
        shared
            .ports
            .chats
            .read_messages(&chat.chat, total - 1..total)
            .await?
            .last()
            .map(|message| message.role)
    };
    let generation = requested.effective(last_role);
    Ok((
        generation,
        input_message_count(generation, total, last_role)?,
    ))
}

/// The persistent state the run builds on: found scanning the prefix newest first, a page
/// at a time.
async fn persist_base(
    shared: &Shared,
    chat: &ChatRef,
    input_count: usize,
) -> Result<Option<StateId>, StartRunError> {
    let mut end = input_count;
    while end > 0 {
        let start = end.saturating_sub(PREFIX_PAGE);
        let page = shared.ports.chats.read_messages(chat, start..end).await?;
        let newest_first = page.iter().rev().map(|message| PrefixMessage {
            index: message.index,
            role: message.role,
            agent: message.agent.as_ref(),
        });
        if let Some(state) = resolve_persist_base(newest_first)? {
            return Ok(Some(state));
        }
        end = start;
    }
    Ok(None)
}

/// The run's ambient skill scopes: a character chat reads its character's skills. (A host
/// snapshot's preset is not known to this runtime yet.)
fn ambient_skill_scopes(chat: &ChatRef) -> SkillScopeRefs {
    match chat {
        ChatRef::Character { character_id, .. } if !character_id.trim().is_empty() => {
            SkillScopeRefs {
                preset: None,
                character_id: Some(character_id.clone()),
            }
        }
        _ => SkillScopeRefs::default(),
    }
}
