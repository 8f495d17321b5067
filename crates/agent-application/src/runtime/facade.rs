//! [`AgentRuntime`]: the Host ABI of the runtime (`docs/spec-map.md`, Host interface), one method per
//! call a host makes.

use std::sync::Arc;

use agent_domain::event::{JournalLine, RunRolledBackPayload, RunStatus};
use agent_domain::run::{
    AgentInvocation, AgentRun, AgentTaskRecord, InvocationId, RunId, RunSummary,
};
use agent_domain::tool::{ToolDescriptor, builtin_catalog};
use agent_domain::workspace::{RUNTIME_RESULTS_ROOT, WorkspacePath, WorkspaceRoot};

use super::activity::{ActivityHub, ModelActivity};
use super::cancel::ActiveRuns;
use super::ending::{Ending, end_inactive_run};
use super::errors::{RuntimeError, StartRunError};
use super::file_at::{self, WorkspaceFileAt};
use super::first_request::PreparedRequest;
use super::guidance::{Guidance, GuidanceReceipt};
use super::mcp_sessions::McpPorts;
use super::recorder::Recorder;
use super::shared::Shared;
use super::start::{PreviewPrompt, RunRequest, StartRun, StartedRun, start_run};
use super::summary::store_summary;
use super::views::{self, ModelTurnView};
use super::wiring::RuntimePorts;
use crate::ports::{
    EventQuery, EventStream, JournalError, LoreEngines, McpConnector, McpRegistry, RunListQuery,
    RunPage, UserDataPorts, WorkspaceFile,
};
use crate::prompt::AssembledPrompt;

/// The runtime a host drives: starts runs, cancels them, and reads back what they did.
/// Cheap to clone; clones share the ports and the registry of runs this process drives.
#[derive(Clone)]
pub struct AgentRuntime {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for AgentRuntime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("AgentRuntime { .. }")
    }
}

impl AgentRuntime {
    pub fn new(ports: RuntimePorts) -> Self {
        Self {
            shared: Arc::new(Shared {
                ports,
                user_data: UserDataPorts::none(),
                lore_engines: None,
                mcp: None,
                active: Arc::new(ActiveRuns::default()),
                activity: ActivityHub::default(),
            }),
        }
    }

    /// SillyTavern's user data, for runs' scenes (names, group speakers, personas) and the
    /// built-in prompt assembler; without it a prompt carries no card, persona or world info.
    pub fn with_user_data(self, user_data: UserDataPorts) -> Self {
        self.rebuilt(|shared| shared.user_data = user_data)
    }

    /// The engines world info needs (regex keys, token counting); without them a chat whose
    /// lorebooks apply cannot be assembled (`worldinfo.engines_unavailable`).
    pub fn with_lore_engines(self, engines: Arc<dyn LoreEngines>) -> Self {
        self.rebuilt(|shared| shared.lore_engines = Some(engines))
    }

    /// The MCP servers runs may call: the registry whose cached catalogs snapshots are
    /// compiled from, and the connector calls open sessions with. Without them, runs offer
    /// no MCP tool (each one a profile allows is left out with a diagnostic).
    pub fn with_mcp(
        self,
        registry: Arc<dyn McpRegistry>,
        connector: Arc<dyn McpConnector>,
    ) -> Self {
        self.rebuilt(|shared| {
            shared.mcp = Some(McpPorts {
                registry,
                connector,
            });
        })
    }

    fn rebuilt(self, change: impl FnOnce(&mut Shared)) -> Self {
        let mut shared = Shared {
            ports: self.shared.ports.clone(),
            user_data: self.shared.user_data.clone(),
            lore_engines: self.shared.lore_engines.clone(),
            mcp: self.shared.mcp.clone(),
            active: Arc::clone(&self.shared.active),
            activity: self.shared.activity.clone(),
        };
        change(&mut shared);
        Self {
            shared: Arc::new(shared),
        }
    }

    /// Validates the request (prompt snapshot, profile, presentation, chat, frozen prefix,
    /// persist base, prompt assembly), then creates the run (status `created`) and journals
    /// `run_created`, `profile_resolved` and `generation_intent_recorded`. Nothing is
    /// created when any check fails. The returned task drives the run to its end; the
    /// host spawns it.
    pub async fn start_run(&self, request: StartRun) -> Result<StartedRun, StartRunError> {
        start_run(&self.shared, request).await
    }

    /// The prompt a run on a chat would start from (the assembly of
    /// [`start_run`](Self::start_run), with its profile, chat, prefix and scene checks; a
    /// profile that may only run as a subagent still previews), without creating a run or
    /// writing the chat's messages or metadata: world info activates as it would, but its
    /// timed effects are neither read nor written. (Opening a chat without a stable id gives
    /// it one, as every opening does.)
    pub async fn preview_prompt(
        &self,
        request: PreviewPrompt,
    ) -> Result<AssembledPrompt, StartRunError> {
        super::start::preview(&self.shared, request).await
    }

    /// The request the root invocation's first model round would send — the spec's
    /// `promptAssembly.prepare` — without creating a run: the checks and the prompt of
    /// [`start_run`](Self::start_run), then the invocation's tool snapshot, system-prompt
    /// additions and first request, computed by the code a run uses. World info activates
    /// as in a run (reading its timed effects) but nothing is written. The provider
    /// state names [`PREPARED_RUN_ID`](super::PREPARED_RUN_ID) as its run.
    pub async fn prepare_request(
        &self,
        request: RunRequest,
    ) -> Result<PreparedRequest, StartRunError> {
        super::first_request::prepare_request(&self.shared, request).await
    }

    /// Asks a run to stop.
    ///
    /// * A run that already ended: its status, nothing journaled.
    /// * A run this process drives: `run_cancel_requested`, status `cancelling`; the driver
    ///   stops at its next step (a model call or retry wait in flight is abandoned) and
    ///   journals `run_cancelled`.
    /// * A run another live process drives (its journal is locked): a cancellation
    ///   request is left for that process, which polls for it every
    ///   [`CANCEL_POLL_INTERVAL`](super::CANCEL_POLL_INTERVAL) and then cancels as above.
    ///   Reports `cancelling`.
    /// * A run no live process holds (its driver died): marked cancelled directly, as by
    ///   [`mark_cancelled`](Self::mark_cancelled).
    pub async fn cancel(&self, run: &RunId) -> Result<RunStatus, RuntimeError> {
        if let Some(live) = self.shared.active.get(run) {
            let recorder = Recorder::new(self.shared.ports.clone(), live);
            return Ok(recorder.request_cancel().await?);
        }
        let record = self.shared.ports.runs.load_run(run).await?;
        if record.status.is_terminal() {
            return Ok(record.status);
        }
        match self.mark_inactive_run_cancelled(run).await {
            Err(RuntimeError::Journal(JournalError::Locked(_))) => {
                self.shared.ports.cancel_requests.request(run).await?;
                Ok(RunStatus::Cancelling)
            }
            other => other,
        }
    }

    /// Leaves a note for a live run, driven by this or another process; the driver applies
    /// it at the start of the next root or handoff round (see `docs/runtime.md`, "User
    /// guidance"). Refused with `agent.guidance_empty`, `agent.guidance_too_large`,
    /// `agent.guidance_run_not_accepting` (ended or cancelling),
    /// `agent.guidance_active_run_missing` (no process drives it),
    /// `agent.guidance_mailbox_closed` (ending) or `agent.guidance_mailbox_full`.
    pub async fn guide(
        &self,
        run: &RunId,
        guidance: Guidance,
    ) -> Result<GuidanceReceipt, RuntimeError> {
        super::guidance::submit(&self.shared, run, guidance).await
    }

    /// Marks a run cancelled directly, for a run whose driving process died: journals
    /// `run_cancel_requested`, status `cancelled`, its open invocations cancelled and
    /// `run_cancelled`. A run that already ended keeps its status. If another process
    /// still drives the run, its journal is locked and this fails with
    /// [`JournalError::Locked`](crate::ports::JournalError::Locked) having written nothing;
    /// a run this process drives is cancelled as by [`cancel`](Self::cancel).
    pub async fn mark_cancelled(&self, run: &RunId) -> Result<RunStatus, RuntimeError> {
        if self.shared.active.get(run).is_some() {
            return self.cancel(run).await;
        }
        self.mark_inactive_run_cancelled(run).await
    }

    /// [`mark_cancelled`](Self::mark_cancelled) for a run this process does not drive.
    async fn mark_inactive_run_cancelled(&self, run: &RunId) -> Result<RunStatus, RuntimeError> {
        end_inactive_run(&self.shared.ports, run, Ending::Cancelled).await
    }

    /// Whether `run` was left behind by a process that died: not terminal, not driven by
    /// this process, and no live process holds its journal (see `docs/runtime.md`, "A run
    /// whose driver died"). A live run is never abandoned.
    pub async fn is_abandoned(&self, run: &RunId) -> Result<bool, RuntimeError> {
        if self.shared.active.get(run).is_some() {
            return Ok(false);
        }
        let record = self.shared.ports.runs.load_run(run).await?;
        if record.status.is_terminal() {
            return Ok(false);
        }
        Ok(!self.shared.ports.journal.is_held(run).await?)
    }

    /// Marks an abandoned run (its driving process died) failed: status `failed`, its open
    /// invocations `agent_invocation_failed`, and `run_failed` with
    /// [`RUN_ABANDONED`](super::RUN_ABANDONED) — `run_partial_success` when it had already
    /// committed to the chat. A run that already ended keeps its status (a record behind its
    /// journal catches up). A run this or another live process drives is refused with
    /// [`JournalError::Locked`] having written nothing.
    pub async fn mark_abandoned(&self, run: &RunId) -> Result<RunStatus, RuntimeError> {
        if self.shared.active.get(run).is_some() {
            return Err(JournalError::Locked(run.to_string()).into());
        }
        end_inactive_run(&self.shared.ports, run, Ending::Abandoned).await
    }

    /// Undoes an ended run's commits on the chat and notes it in the run's journal
    /// (`run_rolled_back`); see `docs/sillytavern.md`. Refused while the run is going
    /// (`agent.rollback_run_active`), when it committed nothing
    /// (`agent.rollback_nothing_committed`) or was rolled back already
    /// (`agent.rollback_already_applied`); the chat's own checks use TauriTavern's
    /// `agent.rollback_*` codes.
    pub async fn rollback_run(&self, run: &RunId) -> Result<RunRolledBackPayload, RuntimeError> {
        super::rollback::rollback(&self.shared, run).await
    }

    /// The deltas of every streamed model call this runtime makes from now on, live and
    /// never persisted (the journal keeps whole steps). A subscriber that falls behind loses
    /// the oldest deltas (`RecvError::Lagged`) instead of slowing runs down.
    pub fn watch_activity(&self) -> tokio::sync::broadcast::Receiver<ModelActivity> {
        self.shared.activity.subscribe()
    }

    /// New events of a run as they are journaled, until its terminal event.
    pub async fn subscribe(&self, run: &RunId) -> Result<EventStream, RuntimeError> {
        Ok(self.shared.ports.journal.subscribe(run).await?)
    }

    /// One page of a run's journal.
    pub async fn read_events(
        &self,
        run: &RunId,
        query: &EventQuery,
    ) -> Result<Vec<JournalLine>, RuntimeError> {
        Ok(self.shared.ports.journal.read(run, query).await?)
    }

    /// Runs, newest first.
    pub async fn list_runs(&self, query: &RunListQuery) -> Result<RunPage, RuntimeError> {
        Ok(self.shared.ports.runs.list_runs(query).await?)
    }

    pub async fn load_run(&self, run: &RunId) -> Result<AgentRun, RuntimeError> {
        Ok(self.shared.ports.runs.load_run(run).await?)
    }

    /// The run's invocations (root, delegated children, handoff targets), oldest first.
    pub async fn list_invocations(
        &self,
        run: &RunId,
    ) -> Result<Vec<AgentInvocation>, RuntimeError> {
        Ok(self.shared.ports.runs.list_invocations(run).await?)
    }

    /// The run's delegated and handoff tasks, oldest first.
    pub async fn list_tasks(&self, run: &RunId) -> Result<Vec<AgentTaskRecord>, RuntimeError> {
        Ok(self.shared.ports.runs.list_tasks(run).await?)
    }

    /// The run's stored summary; otherwise one projected from its journal (and stored when
    /// the run has ended).
    pub async fn run_summary(&self, run: &RunId) -> Result<RunSummary, RuntimeError> {
        let ports = &self.shared.ports;
        if let Some(summary) = ports.runs.load_run_summary(run).await? {
            return Ok(summary);
        }
        let record = ports.runs.load_run(run).await?;
        store_summary(ports, &record).await
    }

    /// A file of the run's workspace: one of the five roots or `tool-results/`.
    pub async fn read_workspace_file(
        &self,
        run: &RunId,
        path: &WorkspacePath,
    ) -> Result<WorkspaceFile, RuntimeError> {
        host_readable(path)?;
        Ok(self.shared.ports.workspace.read(run, path).await?)
    }

    /// The same file as it stood at the event with seq `at_seq`, from the run's checkpoints
    /// (`file_at` says exactly which checkpoint counts). `workspace.file_not_found` when the
    /// run had not written it by then, `workspace.checkpoints_pruned` when retention removed
    /// the checkpoints.
    pub async fn read_workspace_file_at(
        &self,
        run: &RunId,
        path: &WorkspacePath,
        at_seq: u64,
    ) -> Result<WorkspaceFileAt, RuntimeError> {
        host_readable(path)?;
        file_at::read(&self.shared.ports, run, path, at_seq).await
    }

    /// The display view of one model turn (the root invocation's when `invocation` is
    /// `None`).
    pub async fn read_model_turn(
        &self,
        run: &RunId,
        invocation: Option<&InvocationId>,
        round: u32,
    ) -> Result<ModelTurnView, RuntimeError> {
        views::read_model_turn(&self.shared.ports, run, invocation, round).await
    }

    /// The builtin tool catalog, ordered by id.
    pub fn tools_list(&self) -> Vec<ToolDescriptor> {
        builtin_catalog()
            .map(|catalog| catalog.iter().cloned().collect())
            .unwrap_or_default()
    }
}

/// Hosts read the five workspace roots and `tool-results/`, nothing else of a run.
fn host_readable(path: &WorkspacePath) -> Result<(), RuntimeError> {
    let readable =
        WorkspaceRoot::of_path(path).is_some() || path.first_segment() == RUNTIME_RESULTS_ROOT;
    if readable {
        Ok(())
    } else {
        Err(RuntimeError::PathNotReadable(path.clone()))
    }
}
