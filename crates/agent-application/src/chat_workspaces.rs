//! Chats and their agent workspaces: which workspace a chat has, what it keeps, deleting a
//! chat with its workspace, and finding and removing workspaces whose chat is gone
//! (`docs/storage/chat-deletion.md`).
//!
//! A chat's workspace is named after its stable id (`chat_metadata.integrity`), never its
//! file name, so a renamed chat keeps its workspace and is not an orphan. A chat without a
//! stable id never had a run, so it has no workspace. Every removal holds the data
//! directory's maintenance lock, the one prunes hold and run starts take shared: no run of
//! the workspace starts meanwhile, in any process. What a preview showed is never trusted:
//! a removal looks again under the lock, and refuses with `agent.workspace_in_use` while a
//! process drives or is starting a run of the workspace.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::event::ChatRef;
use agent_domain::run::{AgentRun, ChatKind, RunId, WorkspaceId};
use serde::Serialize;

use crate::ports::{
    ChatError, ChatWorkspaceStore, Digest, DiskUse, MaintenanceLock, RunListQuery, RunStore,
    StoreError,
};

/// The workspace of a chat with the stable id `stable_chat_id`.
pub fn workspace_of(digest: &dyn Digest, chat: &ChatRef, stable_chat_id: &str) -> WorkspaceId {
    let input = ChatKind::of(chat).workspace_digest_input(stable_chat_id);
    WorkspaceId::from_digest(&digest.sha256(input.as_bytes()))
}

/// Why a chat or workspace call failed as a whole.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ChatWorkspaceError {
    #[error(transparent)]
    Chat(#[from] ChatError),
    #[error(transparent)]
    Store(#[from] StoreError),
    /// A process drives (or is starting) a run of the workspace.
    #[error(
        "workspace {workspace} is in use: run {run} is being driven or started by a process; \
         cancel it or wait for it to end (a run whose process died before its first event \
         stays unfinished until `tavern-agent runs cancel` marks it)"
    )]
    InUse { workspace: WorkspaceId, run: RunId },
    /// A chat whose stable id cannot be read: its workspace is unknown, so no workspace
    /// can be called an orphan with certainty.
    #[error(
        "chat {path} does not read ({source}); its workspace is unknown, so no orphan is \
         removed until it is fixed or deleted"
    )]
    UnreadableChat { path: String, source: ChatError },
}

impl ErrorCode for ChatWorkspaceError {
    fn code(&self) -> &'static str {
        match self {
            Self::Chat(err) => err.code(),
            Self::Store(err) => err.code(),
            Self::InUse { .. } => "agent.workspace_in_use",
            Self::UnreadableChat { source, .. } => source.code(),
        }
    }
}

/// Why something could not be read or done, as `{code, message}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    pub code: &'static str,
    pub message: String,
}

impl Problem {
    fn of(error: &(impl ErrorCode + std::fmt::Display)) -> Self {
        Self {
            code: error.code(),
            message: error.to_string(),
        }
    }
}

/// One chat with its workspace.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatOverview {
    pub chat: ChatRef,
    /// As `--chat` names it.
    pub path: String,
    pub stable_chat_id: Option<String>,
    /// `None` when the chat has no stable id (or it does not read).
    pub workspace_id: Option<WorkspaceId>,
    /// Its runs in the run index.
    pub runs: u64,
    /// The workspace folder plus its runs' index records and summaries.
    pub disk: DiskUse,
    /// Why the chat's header does not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Problem>,
}

/// What deleting a chat removes (or removed).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatDeletion {
    pub chat: ChatRef,
    pub stable_chat_id: Option<String>,
    pub workspace: Option<WorkspaceRemoval>,
}

/// What removing one workspace removes: its folder (persistent states and run folders) and
/// the index records and summaries of its runs.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceRemoval {
    pub workspace_id: WorkspaceId,
    /// Whether the folder exists (runs may be indexed without one).
    pub folder: bool,
    pub runs: Vec<RunId>,
    pub persistent_states: u64,
    pub disk: DiskUse,
    /// Runs a process drives or is starting when the workspace was looked at.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub busy_runs: Vec<RunId>,
    /// The records of `runs`, which the removal hands to storage.
    #[serde(skip)]
    records: Vec<AgentRun>,
}

/// Workspaces whose chat no longer exists.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrphanReport {
    pub orphans: Vec<WorkspaceRemoval>,
    /// Chats whose stable id does not read: while there are any, orphans are listed but not
    /// removed (one of them may be such a chat's workspace).
    pub unreadable_chats: Vec<UnreadableChat>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct UnreadableChat {
    pub path: String,
    pub error: Problem,
    #[serde(skip)]
    source: ChatError,
}

/// What became of one orphan a sweep tried to remove.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OrphanOutcome {
    #[serde(flatten)]
    pub workspace: WorkspaceRemoval,
    pub outcome: Outcome,
    /// Why it was not removed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<Problem>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Deleted,
    /// A process drives or is starting one of its runs: left as it is.
    InUse,
    Failed,
}

/// The chats of a data directory and their workspaces.
#[derive(Clone)]
pub struct ChatWorkspaces {
    store: Arc<dyn ChatWorkspaceStore>,
    runs: Arc<dyn RunStore>,
    maintenance: Arc<dyn MaintenanceLock>,
    digest: Arc<dyn Digest>,
}

impl std::fmt::Debug for ChatWorkspaces {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ChatWorkspaces")
    }
}

type Result<T> = std::result::Result<T, ChatWorkspaceError>;

impl ChatWorkspaces {
    pub fn new(
        store: Arc<dyn ChatWorkspaceStore>,
        runs: Arc<dyn RunStore>,
        maintenance: Arc<dyn MaintenanceLock>,
        digest: Arc<dyn Digest>,
    ) -> Self {
        Self {
            store,
            runs,
            maintenance,
            digest,
        }
    }

    /// Every chat with its workspace id, run count and disk use.
    pub async fn list(&self) -> Result<Vec<ChatOverview>> {
        let mut runs = self.runs_by_workspace().await?;
        let mut out = Vec::new();
        for listed in self.store.list_chats().await? {
            let (stable_chat_id, error) = match listed.stable_chat_id {
                Ok(id) => (id, None),
                Err(err) => (None, Some(Problem::of(&err))),
            };
            let workspace_id = stable_chat_id
                .as_deref()
                .map(|id| workspace_of(self.digest.as_ref(), &listed.chat, id));
            let (count, disk) = match &workspace_id {
                Some(workspace) => {
                    let runs = runs.remove(workspace).unwrap_or_default();
                    let contents = self.store.inspect_workspace(workspace, &runs).await?;
                    (runs.len() as u64, contents.disk)
                }
                None => (0, DiskUse::default()),
            };
            out.push(ChatOverview {
                chat: listed.chat,
                path: listed.path,
                stable_chat_id,
                workspace_id,
                runs: count,
                disk,
                error,
            });
        }
        Ok(out)
    }

    /// What deleting `chat` would remove; [`ChatWorkspaceError::InUse`] while a process
    /// drives or starts a run of its workspace. Nothing is changed or locked.
    pub async fn preview_delete(&self, chat: &ChatRef) -> Result<ChatDeletion> {
        let deletion = self.deletion_of(chat).await?;
        if let Some(workspace) = &deletion.workspace {
            refuse_busy(workspace)?;
        }
        Ok(deletion)
    }

    /// Deletes `chat` and its workspace, under the maintenance lock, after looking again.
    /// The workspace goes first: the chat stays until its workspace is gone, so a failure
    /// leaves a chat that can be deleted again, never a workspace whose chat is gone.
    pub async fn delete(&self, chat: &ChatRef) -> Result<ChatDeletion> {
        let _guard = self.maintenance.lock_maintenance().await?;
        let deletion = self.preview_delete(chat).await?;
        if let Some(workspace) = &deletion.workspace {
            self.remove(workspace).await?;
        }
        self.store.remove_chat(chat).await?;
        Ok(deletion)
    }

    /// The workspaces whose chat no longer exists (nothing is changed or locked).
    pub async fn orphans(&self) -> Result<OrphanReport> {
        let mut runs = self.runs_by_workspace().await?;
        let mut known = BTreeSet::new();
        let mut unreadable_chats = Vec::new();
        for listed in self.store.list_chats().await? {
            match listed.stable_chat_id {
                Ok(Some(id)) => {
                    known.insert(workspace_of(self.digest.as_ref(), &listed.chat, &id));
                }
                Ok(None) => {}
                Err(source) => unreadable_chats.push(UnreadableChat {
                    path: listed.path,
                    error: Problem::of(&source),
                    source,
                }),
            }
        }
        let mut candidates: BTreeSet<WorkspaceId> =
            self.store.list_workspaces().await?.into_iter().collect();
        candidates.extend(runs.keys().cloned());
        let mut orphans = Vec::new();
        for workspace in candidates.into_iter().filter(|ws| !known.contains(ws)) {
            let runs = runs.remove(&workspace).unwrap_or_default();
            orphans.push(self.removal_of(workspace, &runs).await?);
        }
        Ok(OrphanReport {
            orphans,
            unreadable_chats,
        })
    }

    /// Removes every orphan no process is using, under the maintenance lock, after looking
    /// again. One orphan in use or failing does not stop the others. Refused as a whole
    /// while a chat does not read ([`ChatWorkspaceError::UnreadableChat`]).
    pub async fn delete_orphans(&self) -> Result<Vec<OrphanOutcome>> {
        let _guard = self.maintenance.lock_maintenance().await?;
        let report = self.orphans().await?;
        if let Some(chat) = report.unreadable_chats.into_iter().next() {
            return Err(ChatWorkspaceError::UnreadableChat {
                path: chat.path,
                source: chat.source,
            });
        }
        let mut outcomes = Vec::new();
        for workspace in report.orphans {
            let (outcome, error) = match self.remove(&workspace).await {
                Ok(()) => (Outcome::Deleted, None),
                Err(err @ ChatWorkspaceError::InUse { .. }) => (Outcome::InUse, Some(err)),
                Err(err) => (Outcome::Failed, Some(err)),
            };
            outcomes.push(OrphanOutcome {
                workspace,
                outcome,
                error: error.as_ref().map(Problem::of),
            });
        }
        Ok(outcomes)
    }

    /// Removes a workspace looked at under the maintenance lock.
    async fn remove(&self, workspace: &WorkspaceRemoval) -> Result<()> {
        refuse_busy(workspace)?;
        match self
            .store
            .remove_workspace(&workspace.workspace_id, &workspace.records)
            .await
        {
            Err(StoreError::Locked(run)) => match RunId::parse(&run) {
                Ok(run) => Err(ChatWorkspaceError::InUse {
                    workspace: workspace.workspace_id.clone(),
                    run,
                }),
                Err(_) => Err(StoreError::Locked(run).into()),
            },
            done => Ok(done?),
        }
    }

    async fn deletion_of(&self, chat: &ChatRef) -> Result<ChatDeletion> {
        let stable_chat_id = self.store.stable_chat_id(chat).await?;
        let workspace = match &stable_chat_id {
            Some(id) => {
                let workspace = workspace_of(self.digest.as_ref(), chat, id);
                let runs = self.runs_of(&workspace).await?;
                Some(self.removal_of(workspace, &runs).await?)
            }
            None => None,
        };
        Ok(ChatDeletion {
            chat: chat.clone(),
            stable_chat_id,
            workspace,
        })
    }

    async fn removal_of(
        &self,
        workspace: WorkspaceId,
        runs: &[AgentRun],
    ) -> Result<WorkspaceRemoval> {
        let contents = self.store.inspect_workspace(&workspace, runs).await?;
        Ok(WorkspaceRemoval {
            workspace_id: workspace,
            folder: contents.exists,
            runs: runs.iter().map(|run| run.id.clone()).collect(),
            persistent_states: contents.persistent_states,
            disk: contents.disk,
            busy_runs: contents.busy_runs,
            records: runs.to_vec(),
        })
    }

    async fn runs_of(&self, workspace: &WorkspaceId) -> Result<Vec<AgentRun>> {
        Ok(self
            .runs_by_workspace()
            .await?
            .remove(workspace)
            .unwrap_or_default())
    }

    /// Every indexed run, by workspace.
    async fn runs_by_workspace(&self) -> Result<BTreeMap<WorkspaceId, Vec<AgentRun>>> {
        let mut out: BTreeMap<WorkspaceId, Vec<AgentRun>> = BTreeMap::new();
        let mut query = RunListQuery {
            limit: Some(RunListQuery::MAX_LIMIT),
            ..RunListQuery::default()
        };
        loop {
            let page = self.runs.list_runs(&query).await?;
            for run in page.runs {
                out.entry(run.workspace_id.clone()).or_default().push(run);
            }
            match page.next {
                Some(next) => query.before = Some(next),
                None => return Ok(out),
            }
        }
    }
}

fn refuse_busy(workspace: &WorkspaceRemoval) -> Result<()> {
    match workspace.busy_runs.first() {
        Some(run) => Err(ChatWorkspaceError::InUse {
            workspace: workspace.workspace_id.clone(),
            run: run.clone(),
        }),
        None => Ok(()),
    }
}
