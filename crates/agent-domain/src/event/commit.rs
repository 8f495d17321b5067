//! Payloads of chat-commit and persistent-state events: the host handshakes that put
//! workspace text into the chat and record the promoted persistent state on the message.

use serde::{Deserialize, Serialize};

use super::{ChatRef, WriteMode};
use crate::workspace::WorkspacePath;

/// `chat_commit_started`: a commit passed its checks and is being prepared.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatCommitStartedPayload {
    pub commit_id: String,
    pub invocation_id: String,
    pub call_id: String,
    pub path: WorkspacePath,
    pub mode: WriteMode,
    /// The model's stated reason, if it gave one.
    pub reason: Option<String>,
    /// False for commits the runtime published on its own (auto-publish).
    pub is_explicit: bool,
}

/// `chat_commit_requested`: the host is asked to write the text into the chat. Carries
/// everything the host needs, so it never has to read run internals.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatCommitRequestedPayload {
    pub commit_id: String,
    pub invocation_id: String,
    pub call_id: String,
    pub run_id: String,
    pub workspace_id: String,
    pub stable_chat_id: String,
    pub chat_ref: ChatRef,
    pub generation_type: String,
    pub profile_id: Option<String>,
    pub persist_base_state_id: Option<String>,
    pub path: WorkspacePath,
    pub mode: WriteMode,
    pub reason: Option<String>,
    pub chars: u64,
    pub words: u64,
    pub sha256: String,
    pub checkpoint_id: String,
    pub is_explicit: bool,
}

/// `chat_commit_completed`: the host confirmed the write.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatCommitCompletedPayload {
    pub commit_id: String,
    pub invocation_id: String,
    pub call_id: String,
    pub path: WorkspacePath,
    pub mode: WriteMode,
    pub message_id: String,
    /// `messageId` read as a chat index when it is one.
    pub message_index: Option<u64>,
    pub is_explicit: bool,
}

/// `chat_commit_failed`: the host reported an error; the run ends (partial success if an
/// earlier commit was confirmed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatCommitFailedPayload {
    pub commit_id: String,
    pub invocation_id: String,
    pub call_id: String,
    pub path: WorkspacePath,
    pub mode: WriteMode,
    pub message: String,
}

/// `chat_commit_recorded`: the run's commit ledger now holds this commit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatCommitRecordedPayload {
    pub invocation_id: String,
    pub commit_count: u32,
    pub path: WorkspacePath,
    pub mode: WriteMode,
    pub message_id: String,
}

/// How a persistent file differs from the base state.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum PersistentChangeKind {
    Added,
    Modified,
    /// The run removed the file; the new state no longer has it.
    Deleted,
}

/// One changed persistent file; `sha256` is the new content (absent for a deletion).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentChange {
    pub path: WorkspacePath,
    pub kind: PersistentChangeKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

/// `persistent_changes_committed`: a new immutable persistent state was written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentChangesCommittedPayload {
    pub state_id: String,
    pub base_state_id: Option<String>,
    pub change_count: u32,
    pub changes: Vec<PersistentChange>,
    /// Why the chat's browsable `persist/` copy still shows an older state. The new state
    /// is complete either way; when set, the event is a warning.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub browsable_copy_error: Option<String>,
}

/// `persistent_changes_commit_failed`: promotion failed; the run ends (partial success if a
/// commit was confirmed).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentChangesCommitFailedPayload {
    pub message: String,
}

/// `persistent_state_metadata_update_requested`: the host is asked to record the new
/// state id on the latest committed chat message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentStateMetadataUpdateRequestedPayload {
    pub update_id: String,
    pub run_id: String,
    pub workspace_id: String,
    pub stable_chat_id: String,
    pub chat_ref: ChatRef,
    pub generation_type: String,
    pub profile_id: Option<String>,
    pub message_id: String,
    pub state_id: String,
    pub base_state_id: Option<String>,
    pub change_count: u32,
    pub changes: Vec<PersistentChange>,
}

/// `persistent_state_metadata_updated`: the host recorded the state on the message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentStateMetadataUpdatedPayload {
    pub update_id: String,
    pub message_id: String,
    pub state_id: String,
}

/// `persistent_state_metadata_update_failed`: the host could not record the state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentStateMetadataUpdateFailedPayload {
    pub update_id: String,
    pub message_id: String,
    pub state_id: String,
    pub message: String,
}

/// `run_rolled_back`: a person undid the run's commits on the chat (`runs rollback`),
/// journaled after the run's terminal event. The run's own record of what it did stays.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunRolledBackPayload {
    /// The messages the run committed to, as the rollback was asked to undo them.
    pub message_ids: Vec<String>,
    /// Messages removed (the run created them), by index.
    pub deleted_messages: Vec<u64>,
    /// Swipes removed (the run added them) from messages that stay.
    pub removed_swipes: Vec<RemovedSwipe>,
    /// Messages written back exactly as they were before the run.
    pub restored_messages: Vec<u64>,
    /// `chat_metadata` keys the run set that went back to their values before it (such as
    /// world info's `timedWorldInfo`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub restored_metadata: Vec<String>,
}

/// One swipe a rollback removed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemovedSwipe {
    pub message_index: u64,
    pub swipe_id: u64,
}
