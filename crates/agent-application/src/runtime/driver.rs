//! [`Driver`]: one run being driven — what every invocation of the run shares (the ports,
//! the recorder, the run's facts, its cancellation watch and the message its commits
//! built) and the run-scoped steps they all take (checkpoints, invocation status changes).
//!
//! Invocations of one run run concurrently (a parent beside its children), so the driver
//! is shared by reference; what it tracks beside the journal sits behind a short lock that
//! is never held across an await.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use agent_domain::event::{
    CheckpointCreatedPayload, CheckpointReason, InvocationStatus, InvocationStatusPayload,
    RunEvent, TaskRegisteredPayload, TaskStatus, TaskStatusPayload,
};
use agent_domain::run::{
    AgentInvocation, AgentTaskRecord, CommitRecord, InvocationId, RunId, TaskId,
};
use agent_domain::workspace::WorkspacePath;

use super::cancel::CancelWatch;
use super::facts::RunFacts;
use super::fault::Fault;
use super::mcp_sessions::RunSessions;
use super::recorder::Recorder;
use super::shared::Shared;
use super::tasks::TaskBoard;
use super::wiring::RuntimePorts;

/// One run being driven.
pub(super) struct Driver {
    pub shared: Arc<Shared>,
    pub rec: Recorder,
    pub facts: RunFacts,
    /// Cancellation of the whole run.
    pub watch: CancelWatch,
    /// The run's delegated and handoff tasks.
    pub board: TaskBoard,
    message: Mutex<RunMessage>,
    /// Tool calls handled (executed or refused) by every invocation of the run.
    tool_calls: AtomicU32,
    /// The MCP servers the run's calls have opened; closed when the run ends.
    pub mcp_sessions: RunSessions,
}

/// The run's chat message as its confirmed commits built it. Commits are run-scoped: a
/// handoff target builds on its predecessor's.
#[derive(Debug, Default, Clone)]
pub(super) struct RunMessage {
    /// The message right after the latest confirmed commit.
    pub committed_text: Option<String>,
    /// The text built by explicit commits (what an `append` adds to).
    pub explicit_text: Option<String>,
    /// Every confirmed commit, as the message's record lists them.
    pub commits: Vec<CommitRecord>,
}

impl Driver {
    pub fn new(
        shared: Arc<Shared>,
        rec: Recorder,
        facts: RunFacts,
        watch: CancelWatch,
        board: TaskBoard,
    ) -> Self {
        Self {
            shared,
            rec,
            facts,
            watch,
            board,
            message: Mutex::new(RunMessage::default()),
            tool_calls: AtomicU32::new(0),
            mcp_sessions: RunSessions::default(),
        }
    }

    pub fn run_id(&self) -> &RunId {
        &self.facts.run_id
    }

    pub fn ports(&self) -> &RuntimePorts {
        &self.shared.ports
    }

    /// The run's message state; the guard must not be held across an await.
    pub fn message(&self) -> MutexGuard<'_, RunMessage> {
        self.message.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Counts one handled tool call.
    pub fn count_tool_call(&self) {
        self.tool_calls.fetch_add(1, Ordering::Relaxed);
    }

    pub fn tool_calls(&self) -> u32 {
        self.tool_calls.load(Ordering::Relaxed)
    }

    /// Copies `path` into the next checkpoint (after the event `event_seq`) and journals
    /// `checkpoint_created`. Returns the checkpoint id.
    pub async fn checkpoint(
        &self,
        reason: CheckpointReason,
        event_seq: u64,
        path: &WorkspacePath,
    ) -> Result<String, Fault> {
        let record = self
            .ports()
            .checkpoints
            .create(
                self.run_id(),
                reason,
                event_seq,
                std::slice::from_ref(path),
                &self.rec.now(),
            )
            .await
            .map_err(|e| Fault::of(&e).context("creating a checkpoint"))?;
        self.rec
            .emit(RunEvent::CheckpointCreated(CheckpointCreatedPayload {
                checkpoint_id: record.id.clone(),
                reason,
            }))
            .await?;
        Ok(record.id)
    }

    /// Moves an invocation to `status` (record and event); nothing happens when it
    /// already has that status.
    pub async fn set_invocation_status(
        &self,
        invocation: &mut AgentInvocation,
        status: InvocationStatus,
        message: Option<String>,
    ) -> Result<(), Fault> {
        if invocation.status == status {
            return Ok(());
        }
        invocation.status = status;
        invocation.updated_at = self.rec.now();
        self.ports()
            .runs
            .save_invocation(invocation)
            .await
            .map_err(|e| Fault::of(&e).context("saving the invocation record"))?;
        let payload = InvocationStatusPayload {
            invocation_id: invocation.id.to_string(),
            parent_invocation_id: invocation
                .parent_invocation_id
                .as_ref()
                .map(InvocationId::to_string),
            profile_id: invocation.profile_id.clone(),
            kind: invocation.kind,
            status,
            message,
        };
        if let Some(event) = RunEvent::for_invocation_status(payload) {
            self.rec.emit(event).await?;
        }
        Ok(())
    }
}

impl Driver {
    /// Saves a new task record and journals `agent_task_registered`.
    pub async fn register_task(&self, record: &AgentTaskRecord) -> Result<(), Fault> {
        self.save_task(record).await?;
        self.rec
            .emit(RunEvent::AgentTaskRegistered(TaskRegisteredPayload {
                task_id: record.id.to_string(),
                parent_invocation_id: record.parent_invocation_id.to_string(),
                child_invocation_id: record.child_invocation_id.to_string(),
                target_profile_id: record.target_profile_id.clone(),
                workspace_key: record.workspace_key.clone(),
                continuation: record.continuation,
                status: record.status,
            }))
            .await?;
        Ok(())
    }

    async fn save_task(&self, record: &AgentTaskRecord) -> Result<(), Fault> {
        self.ports()
            .runs
            .save_task(record)
            .await
            .map_err(|e| Fault::of(&e).context("saving the task record"))
    }

    /// Moves a task to `status` (board, record, `agent_task_<status>`), keeping a result
    /// reference or error when given. A task that already ended stays as it ended and
    /// nothing is written: `Ok(false)`.
    pub async fn set_task_status(
        &self,
        id: &TaskId,
        status: TaskStatus,
        result_ref: Option<String>,
        error: Option<String>,
    ) -> Result<bool, Fault> {
        let now = self.rec.now();
        let Some(record) = self.board.update(id, |task| {
            task.status = status;
            task.updated_at = now;
            if result_ref.is_some() {
                task.result_ref = result_ref;
            }
            if error.is_some() {
                task.error = error;
            }
        }) else {
            return Ok(false);
        };
        self.journal_task_status(&record).await?;
        Ok(true)
    }

    /// Saves a task's record and journals its current status.
    pub async fn journal_task_status(&self, record: &AgentTaskRecord) -> Result<(), Fault> {
        self.save_task(record).await?;
        self.rec
            .emit(RunEvent::for_task_status(TaskStatusPayload {
                task_id: record.id.to_string(),
                parent_invocation_id: record.parent_invocation_id.to_string(),
                child_invocation_id: record.child_invocation_id.to_string(),
                target_profile_id: record.target_profile_id.clone(),
                status: record.status,
                result_ref: record.result_ref.clone(),
                error: record.error.clone(),
            }))
            .await?;
        Ok(())
    }
}

/// A count for an event payload.
pub(super) fn count(n: usize) -> u64 {
    u64::try_from(n).unwrap_or(u64::MAX)
}
