//! Payloads of invocation, task, delegation and handoff events.

use serde::{Deserialize, Serialize};

use super::{InvocationKind, InvocationStatus, TaskContinuation, TaskStatus};
use crate::tool::ExitPolicy;

/// `agent_invocation_created`: a new invocation record exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvocationCreatedPayload {
    pub invocation_id: String,
    pub parent_invocation_id: Option<String>,
    pub profile_id: String,
    pub kind: InvocationKind,
    pub status: InvocationStatus,
    pub exit_policy: ExitPolicy,
    /// The task that created a child or handoff invocation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
}

/// `agent_invocation_started` and the terminal `agent_invocation_completed|failed|
/// cancelled|transferred`; the event type follows the new status.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct InvocationStatusPayload {
    pub invocation_id: String,
    pub parent_invocation_id: Option<String>,
    pub profile_id: String,
    pub kind: InvocationKind,
    pub status: InvocationStatus,
    /// Why a failed invocation failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `agent_task_registered`: a delegated or handoff task record exists.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskRegisteredPayload {
    pub task_id: String,
    pub parent_invocation_id: String,
    pub child_invocation_id: String,
    pub target_profile_id: String,
    pub workspace_key: String,
    pub continuation: TaskContinuation,
    pub status: TaskStatus,
}

/// `agent_task_queued|started|completed|failed|cancelled`: a task changed status. A
/// transition of an already-terminal task writes nothing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskStatusPayload {
    pub task_id: String,
    pub parent_invocation_id: String,
    pub child_invocation_id: String,
    pub target_profile_id: String,
    pub status: TaskStatus,
    pub result_ref: Option<String>,
    pub error: Option<String>,
}

/// `agent_delegate_started`: `agent.delegate` created a return-mode child.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DelegateStartedPayload {
    pub task_id: String,
    pub parent_invocation_id: String,
    pub child_invocation_id: String,
    pub target_profile_id: String,
    pub workspace_key: String,
}

/// `agent_handoff_requested`: written before any handoff policy check, so refused
/// handoffs are journaled too.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HandoffRequestedPayload {
    pub source_invocation_id: String,
    pub target_profile_id: String,
    /// Always `denyIfPending`.
    pub pending_task_policy: String,
}

/// `agent_handoff_accepted`: a handoff invocation will take over the run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HandoffAcceptedPayload {
    pub task_id: String,
    pub source_invocation_id: String,
    pub new_invocation_id: String,
    pub target_profile_id: String,
    pub workspace_key: String,
}

/// What `agent.await` waits for.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum AwaitMode {
    /// Until any selected task is terminal (the default).
    #[default]
    NextCompleted,
    /// Until every selected task is terminal.
    AllCompleted,
    /// Report without waiting.
    StatusOnly,
}

/// `agent_await_started`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AwaitStartedPayload {
    pub parent_invocation_id: String,
    pub mode: AwaitMode,
    pub task_ids: Vec<String>,
    pub timeout_ms: u64,
}

/// `agent_await_completed`: journaled at warn level when the wait timed out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AwaitCompletedPayload {
    pub parent_invocation_id: String,
    pub mode: AwaitMode,
    pub timed_out: bool,
    pub task_count: u32,
}

/// `task_return_completed`: a child returned its result to its task.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskReturnCompletedPayload {
    pub task_id: String,
    pub parent_invocation_id: String,
    pub child_invocation_id: String,
    pub status: TaskStatus,
    pub result_ref: String,
    pub summary_ref: String,
}

/// `task_return_recorded`: the child's loop saw its own `task.return` accepted.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskReturnRecordedPayload {
    pub invocation_id: String,
    pub status: TaskStatus,
    pub result_ref: String,
    pub summary_chars: u64,
    pub summary_words: u64,
}

/// `agent_child_invocation_failed`: a child failed (not for cancellations); the parent
/// run goes on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChildInvocationFailedPayload {
    pub task_id: String,
    pub child_invocation_id: String,
    pub message: String,
}
