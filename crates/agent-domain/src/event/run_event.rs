//! [`RunEvent`]: every fact a run journals, as one typed enum.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::*;

/// Why an event must reach stable storage, for a storage that syncs in groups instead of
/// after every write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DurabilityBarrier {
    /// A model round starts: everything before it belongs to finished rounds, so it may be
    /// synced as one group, while the run goes on; a crash then takes back at most the
    /// round in flight and, until that group is synced, the one before.
    RoundStart,
    /// A change outside the run (a chat commit about to be made or made, persistent state,
    /// a rollback) or the run's end: durable, with everything before it, before the run
    /// goes on or reports it.
    Acknowledgement,
}

/// One journaled fact about a run.
///
/// Serialises adjacently as `{"type": "<snake_case name>", "payload": …}`, the shape of a
/// journal line minus its envelope (see [`JournalLine`]). `run_completed` and
/// `run_cancel_requested` carry a `null` payload; `run_cancelled` carries a message only
/// when it interrupted a running loop. Provider stream chunks are never run events.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "type", content = "payload", rename_all = "snake_case")]
#[non_exhaustive]
pub enum RunEvent {
    // Run lifecycle.
    RunCreated(RunCreatedPayload),
    ProfileResolved(ProfileResolvedPayload),
    SkillScopesResolved(SkillScopesResolvedPayload),
    /// The caller's generation intent, verbatim; written only when one was supplied.
    GenerationIntentRecorded(Value),
    StatusChanged(StatusChangedPayload),
    WorkspaceInitialized(WorkspaceInitializedPayload),
    PersistentProjectionInitialized(PersistentProjectionInitializedPayload),
    AgentModelBindingResolved(ModelBindingResolvedPayload),
    ContextAssembled(ContextAssembledPayload),

    // Invocations, tasks, delegation and handoff.
    AgentInvocationCreated(InvocationCreatedPayload),
    AgentInvocationStarted(InvocationStatusPayload),
    AgentInvocationCompleted(InvocationStatusPayload),
    AgentInvocationFailed(InvocationStatusPayload),
    AgentInvocationCancelled(InvocationStatusPayload),
    AgentInvocationTransferred(InvocationStatusPayload),
    AgentTaskRegistered(TaskRegisteredPayload),
    AgentTaskQueued(TaskStatusPayload),
    AgentTaskStarted(TaskStatusPayload),
    AgentTaskCompleted(TaskStatusPayload),
    AgentTaskFailed(TaskStatusPayload),
    AgentTaskCancelled(TaskStatusPayload),
    AgentDelegateStarted(DelegateStartedPayload),
    AgentHandoffRequested(HandoffRequestedPayload),
    AgentHandoffAccepted(HandoffAcceptedPayload),
    AgentAwaitStarted(AwaitStartedPayload),
    AgentAwaitCompleted(AwaitCompletedPayload),
    TaskReturnCompleted(TaskReturnCompletedPayload),
    TaskReturnRecorded(TaskReturnRecordedPayload),
    AgentChildInvocationFailed(ChildInvocationFailedPayload),

    // Model turns.
    ModelRequestCreated(ModelRequestCreatedPayload),
    ModelCallAttemptStarted(ModelCallAttemptStartedPayload),
    ModelCallAttemptFailed(ModelCallAttemptFailedPayload),
    ModelCallRetryScheduled(ModelCallRetryScheduledPayload),
    ModelResponseStored(ModelResponseStoredPayload),
    ProviderStateUpdated(ProviderStateUpdatedPayload),
    ModelCompleted(ModelCompletedPayload),
    DirectOutputCaptured(DirectOutputCapturedPayload),
    DriftRecoveryAttempted(DriftRecoveryAttemptedPayload),

    // Tool calls and their workspace effects.
    ToolCallRequested(ToolCallRequestedPayload),
    ToolCallStarted(ToolCallStartedPayload),
    ToolResultStored(ToolResultStoredPayload),
    ToolResultReadableViewStored(ToolResultReadableViewStoredPayload),
    McpNoticeReceived(McpNoticeReceivedPayload),
    ToolCallCompleted(ToolCallOutcomePayload),
    ToolCallFailed(ToolCallOutcomePayload),
    WorkspaceFileWritten(WorkspaceFileWrittenPayload),
    WorkspacePatchApplied(WorkspacePatchAppliedPayload),
    CheckpointCreated(CheckpointCreatedPayload),
    AgentLoopFinished(AgentLoopFinishedPayload),

    // Chat commits and persistent state.
    ChatCommitStarted(ChatCommitStartedPayload),
    ChatCommitRequested(ChatCommitRequestedPayload),
    ChatCommitCompleted(ChatCommitCompletedPayload),
    ChatCommitFailed(ChatCommitFailedPayload),
    ChatCommitRecorded(ChatCommitRecordedPayload),
    PersistentChangesCommitted(PersistentChangesCommittedPayload),
    PersistentChangesCommitFailed(PersistentChangesCommitFailedPayload),
    PersistentStateMetadataUpdateRequested(PersistentStateMetadataUpdateRequestedPayload),
    PersistentStateMetadataUpdated(PersistentStateMetadataUpdatedPayload),
    PersistentStateMetadataUpdateFailed(PersistentStateMetadataUpdateFailedPayload),

    // User guidance.
    UserGuidanceSubmitted(GuidanceSubmittedPayload),
    UserGuidanceApplied(GuidanceAppliedPayload),
    UserGuidanceDiscarded(GuidanceDiscardedPayload),

    // Cancellation and the terminal events.
    #[serde(
        serialize_with = "null_payload::serialize",
        deserialize_with = "null_payload::deserialize"
    )]
    RunCancelRequested,
    #[serde(
        serialize_with = "null_payload::serialize",
        deserialize_with = "null_payload::deserialize"
    )]
    RunCompleted,
    RunPartialSuccess(PartialSuccessPayload),
    RunCancelled(Option<RunCancelledPayload>),
    RunFailed(RunFailurePayload),

    // After the run: what a person did with its output later.
    RunRolledBack(RunRolledBackPayload),
}

/// Unit variants would otherwise serialise without a `payload` key; the journal format
/// wants an explicit `null`. Reading accepts both.
mod null_payload {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_unit()
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<(), D::Error> {
        <()>::deserialize(deserializer)
    }
}

/// The invocation an event belongs to, for per-invocation timelines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventScope {
    pub invocation_id: String,
    /// Other invocations the event mentions (a child, a handoff target), deduplicated.
    pub related_invocation_ids: Vec<String>,
}

/// Payload fields that name invocations, in the order that decides the primary one.
const INVOCATION_FIELDS: [&str; 5] = [
    "invocationId",
    "parentInvocationId",
    "sourceInvocationId",
    "childInvocationId",
    "newInvocationId",
];

/// The root invocation's constant id, owner of run-level events.
pub const ROOT_INVOCATION_ID: &str = "inv_root";

impl RunEvent {
    /// The snake_case event type, exactly as serialised in the `type` field.
    pub fn event_type(&self) -> &'static str {
        match self {
            Self::RunCreated(_) => "run_created",
            Self::ProfileResolved(_) => "profile_resolved",
            Self::SkillScopesResolved(_) => "skill_scopes_resolved",
            Self::GenerationIntentRecorded(_) => "generation_intent_recorded",
            Self::StatusChanged(_) => "status_changed",
            Self::WorkspaceInitialized(_) => "workspace_initialized",
            Self::PersistentProjectionInitialized(_) => "persistent_projection_initialized",
            Self::AgentModelBindingResolved(_) => "agent_model_binding_resolved",
            Self::ContextAssembled(_) => "context_assembled",
            Self::AgentInvocationCreated(_) => "agent_invocation_created",
            Self::AgentInvocationStarted(_) => "agent_invocation_started",
            Self::AgentInvocationCompleted(_) => "agent_invocation_completed",
            Self::AgentInvocationFailed(_) => "agent_invocation_failed",
            Self::AgentInvocationCancelled(_) => "agent_invocation_cancelled",
            Self::AgentInvocationTransferred(_) => "agent_invocation_transferred",
            Self::AgentTaskRegistered(_) => "agent_task_registered",
            Self::AgentTaskQueued(_) => "agent_task_queued",
            Self::AgentTaskStarted(_) => "agent_task_started",
            Self::AgentTaskCompleted(_) => "agent_task_completed",
            Self::AgentTaskFailed(_) => "agent_task_failed",
            Self::AgentTaskCancelled(_) => "agent_task_cancelled",
            Self::AgentDelegateStarted(_) => "agent_delegate_started",
            Self::AgentHandoffRequested(_) => "agent_handoff_requested",
            Self::AgentHandoffAccepted(_) => "agent_handoff_accepted",
            Self::AgentAwaitStarted(_) => "agent_await_started",
            Self::AgentAwaitCompleted(_) => "agent_await_completed",
            Self::TaskReturnCompleted(_) => "task_return_completed",
            Self::TaskReturnRecorded(_) => "task_return_recorded",
            Self::AgentChildInvocationFailed(_) => "agent_child_invocation_failed",
            Self::ModelRequestCreated(_) => "model_request_created",
            Self::ModelCallAttemptStarted(_) => "model_call_attempt_started",
            Self::ModelCallAttemptFailed(_) => "model_call_attempt_failed",
            Self::ModelCallRetryScheduled(_) => "model_call_retry_scheduled",
            Self::ModelResponseStored(_) => "model_response_stored",
            Self::ProviderStateUpdated(_) => "provider_state_updated",
            Self::ModelCompleted(_) => "model_completed",
            Self::DirectOutputCaptured(_) => "direct_output_captured",
            Self::DriftRecoveryAttempted(_) => "drift_recovery_attempted",
            Self::ToolCallRequested(_) => "tool_call_requested",
            Self::ToolCallStarted(_) => "tool_call_started",
            Self::ToolResultStored(_) => "tool_result_stored",
            Self::ToolResultReadableViewStored(_) => "tool_result_readable_view_stored",
            Self::McpNoticeReceived(_) => "mcp_notice_received",
            Self::ToolCallCompleted(_) => "tool_call_completed",
            Self::ToolCallFailed(_) => "tool_call_failed",
            Self::WorkspaceFileWritten(_) => "workspace_file_written",
            Self::WorkspacePatchApplied(_) => "workspace_patch_applied",
            Self::CheckpointCreated(_) => "checkpoint_created",
            Self::AgentLoopFinished(_) => "agent_loop_finished",
            Self::ChatCommitStarted(_) => "chat_commit_started",
            Self::ChatCommitRequested(_) => "chat_commit_requested",
            Self::ChatCommitCompleted(_) => "chat_commit_completed",
            Self::ChatCommitFailed(_) => "chat_commit_failed",
            Self::ChatCommitRecorded(_) => "chat_commit_recorded",
            Self::PersistentChangesCommitted(_) => "persistent_changes_committed",
            Self::PersistentChangesCommitFailed(_) => "persistent_changes_commit_failed",
            Self::PersistentStateMetadataUpdateRequested(_) => {
                "persistent_state_metadata_update_requested"
            }
            Self::PersistentStateMetadataUpdated(_) => "persistent_state_metadata_updated",
            Self::PersistentStateMetadataUpdateFailed(_) => {
                "persistent_state_metadata_update_failed"
            }
            Self::UserGuidanceSubmitted(_) => "user_guidance_submitted",
            Self::UserGuidanceApplied(_) => "user_guidance_applied",
            Self::UserGuidanceDiscarded(_) => "user_guidance_discarded",
            Self::RunCancelRequested => "run_cancel_requested",
            Self::RunCompleted => "run_completed",
            Self::RunPartialSuccess(_) => "run_partial_success",
            Self::RunCancelled(_) => "run_cancelled",
            Self::RunFailed(_) => "run_failed",
            Self::RunRolledBack(_) => "run_rolled_back",
        }
    }

    /// The journal level. Some events pick theirs from the payload: a failed model attempt
    /// is a warning while a retry follows, a tool failure is an error only when fatal, an
    /// await is a warning when it timed out, and a promoted state whose browsable copy
    /// could not be refreshed is a warning.
    pub fn level(&self) -> EventLevel {
        match self {
            Self::ModelCallAttemptStarted(_)
            | Self::ModelResponseStored(_)
            | Self::ProviderStateUpdated(_)
            | Self::ToolResultStored(_) => EventLevel::Debug,
            Self::McpNoticeReceived(p) if matches!(p.notice, McpNoticeBody::Suppressed { .. }) => {
                EventLevel::Warn
            }
            Self::ModelCallAttemptFailed(p) if p.will_retry => EventLevel::Warn,
            Self::ModelCallAttemptFailed(_) => EventLevel::Error,
            Self::ToolCallFailed(p) if p.fatal => EventLevel::Error,
            Self::ToolCallFailed(_) => EventLevel::Warn,
            Self::SkillScopesResolved(p) if !p.diagnostics.is_empty() => EventLevel::Warn,
            Self::ContextAssembled(p) if !p.snapshot_diagnostics.is_empty() => EventLevel::Warn,
            Self::AgentAwaitCompleted(p) if p.timed_out => EventLevel::Warn,
            Self::PersistentChangesCommitted(p) if p.browsable_copy_error.is_some() => {
                EventLevel::Warn
            }
            Self::ModelCallRetryScheduled(_)
            | Self::DriftRecoveryAttempted(_)
            | Self::AgentChildInvocationFailed(_)
            | Self::RunPartialSuccess(_) => EventLevel::Warn,
            Self::ChatCommitFailed(_)
            | Self::PersistentChangesCommitFailed(_)
            | Self::PersistentStateMetadataUpdateFailed(_)
            | Self::RunFailed(_) => EventLevel::Error,
            _ => EventLevel::Info,
        }
    }

    /// Whether this event is a note about an ended run (a rollback): the only kind of event
    /// journaled after the terminal event, and only after it.
    pub fn is_after_end(&self) -> bool {
        matches!(self, Self::RunRolledBack(_))
    }

    /// Whether this event ends the run; after it, only [`is_after_end`](Self::is_after_end)
    /// notes are journaled.
    pub fn is_terminal(&self) -> bool {
        self.terminal_outcome().is_some()
    }

    /// Where this event stands for a storage that syncs in groups
    /// ([`DurabilityBarrier`]); `None` for events that may wait for the next barrier.
    pub fn durability_barrier(&self) -> Option<DurabilityBarrier> {
        match self {
            Self::ModelRequestCreated(_) => Some(DurabilityBarrier::RoundStart),
            Self::ChatCommitRequested(_)
            | Self::ChatCommitCompleted(_)
            | Self::PersistentChangesCommitted(_)
            | Self::PersistentStateMetadataUpdated(_)
            | Self::RunRolledBack(_) => Some(DurabilityBarrier::Acknowledgement),
            _ if self.is_terminal() => Some(DurabilityBarrier::Acknowledgement),
            _ => None,
        }
    }

    /// The outcome a terminal event records.
    pub fn terminal_outcome(&self) -> Option<TerminalOutcome> {
        match self {
            Self::RunCompleted => Some(TerminalOutcome::Completed),
            Self::RunPartialSuccess(_) => Some(TerminalOutcome::PartialSuccess),
            Self::RunCancelled(_) => Some(TerminalOutcome::Cancelled),
            Self::RunFailed(_) => Some(TerminalOutcome::Failed),
            _ => None,
        }
    }

    /// The event for an invocation's move to `payload.status`; the type follows the status.
    /// `created` has its own richer event, so it yields `None`.
    pub fn for_invocation_status(payload: InvocationStatusPayload) -> Option<Self> {
        Some(match payload.status {
            InvocationStatus::Created => return None,
            InvocationStatus::Running => Self::AgentInvocationStarted(payload),
            InvocationStatus::Completed => Self::AgentInvocationCompleted(payload),
            InvocationStatus::Failed => Self::AgentInvocationFailed(payload),
            InvocationStatus::Cancelled => Self::AgentInvocationCancelled(payload),
            InvocationStatus::Transferred => Self::AgentInvocationTransferred(payload),
        })
    }

    /// The event for a task's move to `payload.status` (`running` is `agent_task_started`).
    pub fn for_task_status(payload: TaskStatusPayload) -> Self {
        match payload.status {
            TaskStatus::Queued => Self::AgentTaskQueued(payload),
            TaskStatus::Running => Self::AgentTaskStarted(payload),
            TaskStatus::Completed => Self::AgentTaskCompleted(payload),
            TaskStatus::Failed => Self::AgentTaskFailed(payload),
            TaskStatus::Cancelled => Self::AgentTaskCancelled(payload),
        }
    }

    /// Whether the event shows on `invocation`'s timeline: its scope names it, as the
    /// owner or as a related invocation (a delegation shows on both sides). Events without
    /// a scope (checkpoints, persistence) show on none.
    pub fn belongs_to(&self, invocation: &str) -> bool {
        self.scope().is_some_and(|scope| {
            scope.invocation_id == invocation
                || scope
                    .related_invocation_ids
                    .iter()
                    .any(|id| id == invocation)
        })
    }

    /// The invocation this event belongs to, plus the others it mentions.
    ///
    /// Delegation events belong to the caller (`parentInvocationId`), handoff events to
    /// the source, `task_return_completed` to the child; otherwise the first invocation
    /// field present wins. Run-level events without one belong to the root invocation.
    /// Events about the run's storage (checkpoints, persistence) have no scope.
    pub fn scope(&self) -> Option<EventScope> {
        let event_type = self.event_type();
        let payload = match serde_json::to_value(self) {
            Ok(Value::Object(mut map)) => map.remove("payload").unwrap_or(Value::Null),
            _ => Value::Null,
        };
        let field = |name: &str| payload.get(name).and_then(Value::as_str).map(str::to_owned);
        let preferred = match self {
            Self::AgentDelegateStarted(_)
            | Self::AgentTaskRegistered(_)
            | Self::AgentTaskQueued(_)
            | Self::AgentTaskStarted(_)
            | Self::AgentTaskCompleted(_)
            | Self::AgentTaskFailed(_)
            | Self::AgentTaskCancelled(_) => field("parentInvocationId"),
            Self::AgentHandoffRequested(_) | Self::AgentHandoffAccepted(_) => {
                field("sourceInvocationId")
            }
            Self::TaskReturnCompleted(_) => field("childInvocationId"),
            _ => None,
        };
        let primary = preferred
            .or_else(|| INVOCATION_FIELDS.iter().find_map(|name| field(name)))
            .or_else(|| {
                (event_type.starts_with("run_") || event_type == "status_changed")
                    .then(|| ROOT_INVOCATION_ID.to_owned())
            })?;
        let mut related: Vec<String> = Vec::new();
        for id in INVOCATION_FIELDS.iter().filter_map(|name| field(name)) {
            if id != primary && !related.contains(&id) {
                related.push(id);
            }
        }
        Some(EventScope {
            invocation_id: primary,
            related_invocation_ids: related,
        })
    }
}
