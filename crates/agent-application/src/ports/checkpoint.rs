//! Checkpoints: byte copies of workspace files taken after each mutation.

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
    /// Seq of the journal event the checkpoint follows.
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

    async fn list(&self, run: &RunId) -> Result<Vec<CheckpointRecord>, StoreError>;
}
