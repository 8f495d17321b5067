//! Run events: the typed journal vocabulary, its payloads, the journal line shape and the
//! run, invocation and task statuses those events report.
//!
//! Everything a run does is journaled as a [`RunEvent`] inside a [`JournalLine`]. Payload
//! fields are camelCase; ids are plain strings produced elsewhere (run `run_…`, invocation
//! `inv_root` / `inv_…`, task `task_…`); tool events always carry the canonical
//! [`ToolId`](crate::tool::ToolId) next to the provider's untouched call id.

mod commit;
mod delegation;
mod guidance;
mod journal;
mod lifecycle;
mod model_turn;
mod outcome;
mod run_event;
mod status;
mod tool_calls;

#[cfg(test)]
pub(crate) mod samples;
#[cfg(test)]
mod tests;

pub use commit::{
    ChatCommitCompletedPayload, ChatCommitFailedPayload, ChatCommitRecordedPayload,
    ChatCommitRequestedPayload, ChatCommitStartedPayload, PersistentChange, PersistentChangeKind,
    PersistentChangesCommitFailedPayload, PersistentChangesCommittedPayload,
    PersistentStateMetadataUpdateFailedPayload, PersistentStateMetadataUpdateRequestedPayload,
    PersistentStateMetadataUpdatedPayload, RemovedSwipe, RunRolledBackPayload,
};
pub use delegation::{
    AwaitCompletedPayload, AwaitMode, AwaitStartedPayload, ChildInvocationFailedPayload,
    DelegateStartedPayload, HandoffAcceptedPayload, HandoffRequestedPayload,
    InvocationCreatedPayload, InvocationStatusPayload, TaskRegisteredPayload,
    TaskReturnCompletedPayload, TaskReturnRecordedPayload, TaskStatusPayload,
};
pub use guidance::{
    GuidanceAppliedPayload, GuidanceDiscardReason, GuidanceDiscardedPayload, GuidanceStatus,
    GuidanceSubmittedPayload,
};
pub use journal::JournalLine;
pub use lifecycle::{
    ChatRef, ContextAssembledPayload, ModelBindingMode, ModelBindingResolvedPayload,
    ModelRequestSummary, PersistentProjectionInitializedPayload, ProfileResolvedPayload,
    RunCancelledPayload, RunCreatedPayload, SkillDiagnostic, SkillScopesResolvedPayload,
    StatusChangedPayload, WorkspaceInitializedPayload,
};
pub use model_turn::{
    DirectOutputCapturedPayload, DriftRecoveryAttemptedPayload, ModelCallAttemptFailedPayload,
    ModelCallAttemptStartedPayload, ModelCallRetryScheduledPayload, ModelCompletedPayload,
    ModelRequestCreatedPayload, ModelResponseStoredPayload, NarrationPreview,
    ProviderStateUpdatedPayload,
};
pub use outcome::{
    PartialSuccessPayload, PreservedCommit, RunFailurePayload, TerminalOutcome,
    USER_RETRYABLE_CODES,
};
pub use run_event::{DurabilityBarrier, EventScope, ROOT_INVOCATION_ID, RunEvent};
pub use status::{
    EventLevel, InvocationKind, InvocationStatus, Presentation, RunStatus, TaskContinuation,
    TaskStatus,
};
pub use tool_calls::{
    AgentLoopFinishedPayload, CheckpointCreatedPayload, CheckpointReason, LoopEnding,
    McpNoticeBody, McpNoticeReceivedPayload, ToolCallOutcomePayload, ToolCallRequestedPayload,
    ToolCallStartedPayload, ToolResultReadableViewStoredPayload, ToolResultStoredPayload,
    WorkspaceFileWrittenPayload, WorkspacePatchAppliedPayload, WriteMode,
};
