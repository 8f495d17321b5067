//! Persistent states: what a chat's agents remember between runs.
//!
//! A run starts from a base state projected into its `persist/` root. When it finishes, its
//! `persist/` becomes a new immutable state (named after the run) and the chat's browsable
//! `persist/` folder is refreshed to it. The next run's base is the state recorded on the chat
//! message it continues from, so swipes and regenerations branch correctly.

use agent_domain::ErrorCode;
use agent_domain::event::PersistentChange;
use agent_domain::run::{AgentRun, StateId};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::CheckpointFile;

/// The persist files a run started with (`input/persist_snapshot.json`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistSnapshot {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub base_state_id: Option<StateId>,
    pub files: Vec<CheckpointFile>,
}

/// A state a finished run promoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromotedState {
    pub state_id: StateId,
    pub base_state_id: Option<StateId>,
    pub changes: Vec<PersistentChange>,
    /// Why the chat's browsable copy could not be refreshed to this state, when it could
    /// not. Nothing reads that copy back and the state itself is complete and durable, so
    /// this is a warning for the journal, never a failure of the run.
    pub browsable_copy_error: Option<String>,
}

#[async_trait]
pub trait PersistentStateStore: Send + Sync {
    /// Copies the run's base state (if any) into its `persist/` root and records the
    /// starting files.
    async fn project_base(&self, run: &AgentRun) -> Result<PersistSnapshot, PersistError>;

    /// Writes the run's `persist/` as a new immutable state and refreshes the chat's
    /// browsable copy. Called only for runs that finish successfully. An error means the
    /// state was not written; a copy that could not be refreshed is reported in
    /// [`PromotedState::browsable_copy_error`] instead.
    async fn promote(
        &self,
        run: &AgentRun,
        created_at: &str,
    ) -> Result<PromotedState, PersistError>;
}

/// A persistent state could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PersistError {
    #[error("persistent state {0} does not exist")]
    NotFound(String),
    #[error("persistent state {state} is invalid: {detail}")]
    Invalid { state: String, detail: String },
    #[error("persistent state {state} has manifest version {version}; only 1 is supported")]
    VersionUnsupported { state: String, version: u64 },
    #[error("persistent state {state} has a manifest for {found}")]
    ManifestMismatch { state: String, found: String },
    #[error("persistent state {state} belongs to workspace {found}")]
    WorkspaceMismatch { state: String, found: String },
    #[error("persistent state {0} already exists")]
    AlreadyExists(String),
    #[error("persistent storage integrity: {0}")]
    Integrity(String),
    #[error("persistent storage I/O: {0}")]
    Io(String),
}

impl ErrorCode for PersistError {
    fn code(&self) -> &'static str {
        match self {
            Self::NotFound(_) => "agent.persistent_state_not_found",
            Self::Invalid { .. } => "agent.persistent_state_invalid",
            Self::VersionUnsupported { .. } => "agent.persistent_state_version_unsupported",
            Self::ManifestMismatch { .. } => "agent.persistent_state_manifest_mismatch",
            Self::WorkspaceMismatch { .. } => "agent.persistent_state_workspace_mismatch",
            Self::AlreadyExists(_) => "agent.persistent_state_exists",
            Self::Integrity(_) => "agent.persistent_state_invalid",
            Self::Io(_) => "agent.storage_io",
        }
    }
}
