//! What deleting a chat and sweeping orphaned agent workspaces need from storage: the chat
//! files there are, a chat's stable id read without changing the file, the workspaces on
//! disk, what one holds and whether a process is using it, and the two removals.

use agent_domain::event::ChatRef;
use agent_domain::run::{AgentRun, RunId, WorkspaceId};
use async_trait::async_trait;
use serde::Serialize;

use super::{ChatError, StoreError};

/// A chat file of the data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedChat {
    pub chat: ChatRef,
    /// The chat as `--chat` names it: `<character>/<file>.jsonl`, `group chats/<id>.jsonl`.
    pub path: String,
    /// Its stable id as stored (`None`: it has none yet, so no run ever had a workspace
    /// for it), or why the header does not read.
    pub stable_chat_id: Result<Option<String>, ChatError>,
}

/// How much a workspace keeps on disk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DiskUse {
    pub files: u64,
    pub bytes: u64,
}

/// What a chat's agent workspace holds right now.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkspaceContents {
    /// Whether its folder (`chats/<workspace-id>/`) exists.
    pub exists: bool,
    /// The folder's files plus the index records and summaries of the runs asked about.
    pub disk: DiskUse,
    /// How many persistent states it keeps.
    pub persistent_states: u64,
    /// The runs asked about that a process drives or is starting: their journal is held, or
    /// the run is unfinished and has not written its first event yet.
    pub busy_runs: Vec<RunId>,
}

#[async_trait]
pub trait ChatWorkspaceStore: Send + Sync {
    /// Every character chat and group chat, ordered by path.
    async fn list_chats(&self) -> Result<Vec<ListedChat>, StoreError>;

    /// The chat's stable id as stored, read without writing anything (opening a chat for
    /// a run gives it one; this does not). `None` when it has none.
    async fn stable_chat_id(&self, chat: &ChatRef) -> Result<Option<String>, ChatError>;

    /// The workspace folders there are, ordered by id.
    async fn list_workspaces(&self) -> Result<Vec<WorkspaceId>, StoreError>;

    /// What `workspace` holds, counting the index records and summaries of `runs` (its
    /// runs in the run index).
    async fn inspect_workspace(
        &self,
        workspace: &WorkspaceId,
        runs: &[AgentRun],
    ) -> Result<WorkspaceContents, StoreError>;

    /// Removes `workspace` and the index records and summaries of `runs`, holding every
    /// run's journal meanwhile. A run a process drives or is starting makes this
    /// [`StoreError::Locked`] before anything is removed. The caller holds the maintenance
    /// lock, so no run of the workspace starts meanwhile.
    async fn remove_workspace(
        &self,
        workspace: &WorkspaceId,
        runs: &[AgentRun],
    ) -> Result<(), StoreError>;

    /// Deletes the chat file, waiting for any writer of it to finish first.
    async fn remove_chat(&self, chat: &ChatRef) -> Result<(), ChatError>;
}
