//! Checkpoints: byte copies of workspace files taken after each mutation, so a host can
//! show a file as it stood at an earlier point of a run.

use agent_domain::event::CheckpointReason;
use agent_domain::run::RunId;
use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::StoreError;

/// One file inside a checkpoint.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointFile {
    pub path: WorkspacePath,
    pub sha256: String,
    pub bytes: u64,
}

/// `checkpoints/cp_NNNNNN/checkpoint.json`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckpointRecord {
    /// `cp_000001`, `cp_000002`, …
    pub id: String,
    pub seq: u64,
    pub run_id: RunId,
    pub created_at: String,
    pub reason: CheckpointReason,
    /// Seq of the journal event the checkpoint follows: the `workspace_file_written`,
    /// `workspace_patch_applied` or `direct_output_captured` event that journals the
    /// mutation (so the files hold what that mutation produced), or `chat_commit_started`
    /// for the copy a chat commit publishes.
    pub event_seq: u64,
    pub files: Vec<CheckpointFile>,
}

#[async_trait]
pub trait CheckpointStore: Send + Sync {
    /// Copies `files` into the next checkpoint of the run.
    async fn create(
        &self,
        run: &RunId,
        reason: CheckpointReason,
        event_seq: u64,
        files: &[WorkspacePath],
        created_at: &str,
    ) -> Result<CheckpointRecord, StoreError>;

    /// The run's checkpoints, oldest first; none for a run that has none (or whose
    /// checkpoints retention removed).
    async fn list(&self, run: &RunId) -> Result<Vec<CheckpointRecord>, StoreError>;

    /// The bytes `file` of checkpoint `record` holds. `NotFound` when they are gone.
    async fn read_file(
        &self,
        run: &RunId,
        record: &CheckpointRecord,
        file: &CheckpointFile,
    ) -> Result<Vec<u8>, StoreError>;
}
