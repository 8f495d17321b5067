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
    /// The workspace removed with the chat: `None` when the chat has no stable id, or when
    /// another chat has the same one (a copy of the chat file) and so keeps the workspace.
    pub workspace: Option<WorkspaceRemoval>,
    /// Other chats with the same stable id, which keep the workspace.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub sharing_chats: Vec<String>,
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
        let runs = self.runs_by_workspace().await?;
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
                    let runs = runs.get(workspace).map(Vec::as_slice).unwrap_or_default();
                    let contents = self.store.inspect_workspace(workspace, runs).await?;
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
        let stable_chat_id = self.store.stable_chat_id(chat).await?;
        let mut sharing_chats = Vec::new();
        let workspace = match &stable_chat_id {
            Some(id) => {
                let workspace = workspace_of(self.digest.as_ref(), chat, id);
                // A copy of the chat file carries the same stable id, so the same workspace:
                // it stays while such a chat exists.
                for listed in self.store.list_chats().await? {
                    let same = matches!(&listed.stable_chat_id, Ok(Some(other))
                        if workspace_of(self.digest.as_ref(), &listed.chat, other) == workspace);
                    if same && listed.chat != *chat {
                        sharing_chats.push(listed.path);
                    }
                }
                let runs = self.runs_of(&workspace).await?;
                let removal = self.removal_of(workspace, &runs).await?;
                // Even a shared workspace must not be running: the run may be this chat's.
                refuse_busy(&removal)?;
                sharing_chats.is_empty().then_some(removal)
            }
            None => None,
        };
        Ok(ChatDeletion {
            chat: chat.clone(),
            stable_chat_id,
            workspace,
            sharing_chats,
        })
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

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::sync::Mutex;

    use async_trait::async_trait;

    use super::*;
    use crate::ports::{ListedChat, MaintenanceGuard, WorkspaceContents};
    use crate::testing::{FakeDigest, MemoryRuns};

    /// What the service asked storage to do, in order.
    type Calls = Arc<Mutex<Vec<String>>>;

    /// Chats with stable ids, workspace folders, busy runs; records every change.
    struct FakeStore {
        chats: Vec<(ChatRef, std::result::Result<Option<String>, ChatError>)>,
        folders: Vec<WorkspaceId>,
        busy: Vec<RunId>,
        calls: Calls,
    }

    fn character(file: &str) -> ChatRef {
        ChatRef::Character {
            character_id: "Alice".into(),
            file_name: file.into(),
        }
    }

    #[async_trait]
    impl ChatWorkspaceStore for FakeStore {
        async fn list_chats(&self) -> std::result::Result<Vec<ListedChat>, StoreError> {
            Ok(self
                .chats
                .iter()
                .map(|(chat, id)| ListedChat {
                    chat: chat.clone(),
                    path: format!("{chat:?}"),
                    stable_chat_id: id.clone(),
                })
                .collect())
        }

        async fn stable_chat_id(
            &self,
            chat: &ChatRef,
        ) -> std::result::Result<Option<String>, ChatError> {
            let found = self.chats.iter().find(|(known, _)| known == chat);
            found
                .map(|(_, id)| id.clone())
                .unwrap_or_else(|| Err(ChatError::NotFound(format!("{chat:?}"))))
        }

        async fn list_workspaces(&self) -> std::result::Result<Vec<WorkspaceId>, StoreError> {
            Ok(self.folders.clone())
        }

        async fn inspect_workspace(
            &self,
            workspace: &WorkspaceId,
            runs: &[AgentRun],
        ) -> std::result::Result<WorkspaceContents, StoreError> {
            Ok(WorkspaceContents {
                exists: self.folders.contains(workspace),
                busy_runs: runs
                    .iter()
                    .map(|run| run.id.clone())
                    .filter(|id| self.busy.contains(id))
                    .collect(),
                ..WorkspaceContents::default()
            })
        }

        async fn remove_workspace(
            &self,
            workspace: &WorkspaceId,
            runs: &[AgentRun],
        ) -> std::result::Result<(), StoreError> {
            let ids: Vec<String> = runs.iter().map(|run| run.id.to_string()).collect();
            self.calls
                .lock()
                .unwrap()
                .push(format!("remove {workspace} {ids:?}"));
            Ok(())
        }

        async fn remove_chat(&self, chat: &ChatRef) -> std::result::Result<(), ChatError> {
            self.calls.lock().unwrap().push(format!("remove {chat:?}"));
            Ok(())
        }
    }

    /// The maintenance lock, noting when it is taken and let go.
    struct FakeLock(Calls);

    struct Held(Calls);

    impl Drop for Held {
        fn drop(&mut self) {
            self.0.lock().unwrap().push("unlock".into());
        }
    }

    #[async_trait]
    impl MaintenanceLock for FakeLock {
        async fn lock_maintenance(&self) -> std::result::Result<MaintenanceGuard, StoreError> {
            self.0.lock().unwrap().push("lock".into());
            Ok(MaintenanceGuard::new(Held(Arc::clone(&self.0))))
        }
    }

    fn ws(stable: &str) -> WorkspaceId {
        workspace_of(&FakeDigest, &character("any name"), stable)
    }

    async fn service(store: FakeStore, runs: &[(&str, &str)]) -> (ChatWorkspaces, Calls) {
        let memory = MemoryRuns::new();
        for (id, stable) in runs {
            let run: AgentRun = serde_json::from_value(serde_json::json!({
                "id": id, "workspaceId": ws(stable).to_string(), "stableChatId": stable,
                "chatRef": {"kind": "character", "characterId": "Alice", "fileName": "a"},
                "generationType": "normal", "profileId": "default-writer",
                "status": "completed", "createdAt": "2026-01-01T00:00:00.000Z",
                "updatedAt": "2026-01-01T00:00:00.000Z"
            }))
            .unwrap();
            memory.create_run(&run).await.unwrap();
        }
        let calls = Arc::clone(&store.calls);
        let service = ChatWorkspaces::new(
            Arc::new(store),
            Arc::new(memory),
            Arc::new(FakeLock(Arc::clone(&calls))),
            Arc::new(FakeDigest),
        );
        (service, calls)
    }

    fn store(chats: Vec<(ChatRef, Option<&str>)>, folders: &[&str], busy: &[&str]) -> FakeStore {
        FakeStore {
            chats: chats
                .into_iter()
                .map(|(chat, id)| (chat, Ok(id.map(str::to_owned))))
                .collect(),
            folders: folders.iter().map(|stable| ws(stable)).collect(),
            busy: busy.iter().map(|id| RunId::parse(id).unwrap()).collect(),
            calls: Calls::default(),
        }
    }

    #[tokio::test]
    async fn a_chat_goes_after_its_workspace_all_under_the_maintenance_lock() {
        let chats = vec![(character("a"), Some("s1")), (character("b"), Some("s2"))];
        let runs = [("run_1", "s1"), ("run_2", "s2")];
        let (service, calls) = service(store(chats, &["s1", "s2"], &[]), &runs).await;
        let deleted = service.delete(&character("a")).await.unwrap();
        assert_eq!(
            deleted.workspace.unwrap().runs,
            [RunId::parse("run_1").unwrap()]
        );
        assert_eq!(
            *calls.lock().unwrap(),
            [
                "lock".to_owned(),
                format!("remove {} [\"run_1\"]", ws("s1")),
                format!("remove {:?}", character("a")),
                "unlock".to_owned(),
            ]
        );
    }

    #[tokio::test]
    async fn a_copy_of_the_chat_keeps_the_workspace_they_share() {
        let chats = vec![
            (character("a"), Some("s1")),
            (character("copy"), Some("s1")),
        ];
        let (service, calls) = service(store(chats, &["s1"], &[]), &[("run_1", "s1")]).await;
        let deleted = service.delete(&character("a")).await.unwrap();
        assert!(deleted.workspace.is_none());
        assert_eq!(deleted.sharing_chats, [format!("{:?}", character("copy"))]);
        assert_eq!(
            *calls.lock().unwrap(),
            [
                "lock".to_owned(),
                format!("remove {:?}", character("a")),
                "unlock".to_owned(),
            ]
        );
    }

    #[tokio::test]
    async fn a_workspace_in_use_is_refused_before_anything_is_removed() {
        let chats = vec![(character("a"), Some("s1"))];
        let (service, calls) = service(store(chats, &["s1"], &["run_1"]), &[("run_1", "s1")]).await;
        let err = service.delete(&character("a")).await.unwrap_err();
        assert_eq!(err.code(), "agent.workspace_in_use");
        assert_eq!(*calls.lock().unwrap(), ["lock", "unlock"]);
    }

    #[tokio::test]
    async fn a_chat_without_a_stable_id_has_no_workspace_and_a_bad_one_is_refused() {
        let mut chats = store(vec![(character("a"), None)], &[], &[]);
        chats
            .chats
            .push((character("bad"), Err(ChatError::InvalidHeader("42".into()))));
        let (service, calls) = service(chats, &[]).await;
        assert!(
            service
                .delete(&character("a"))
                .await
                .unwrap()
                .workspace
                .is_none()
        );
        let err = service.delete(&character("bad")).await.unwrap_err();
        assert_eq!(err.code(), "agent.invalid_chat_integrity");
        let removed: Vec<String> = calls
            .lock()
            .unwrap()
            .iter()
            .filter(|call| call.starts_with("remove"))
            .cloned()
            .collect();
        assert_eq!(removed, [format!("remove {:?}", character("a"))]);
    }

    #[tokio::test]
    async fn orphans_are_matched_by_stable_id_and_one_in_use_does_not_stop_the_others() {
        // "renamed" keeps the stable id s1; s2 and s3 have no chat; s3's run is live; s4
        // has runs in the index only.
        let chats = vec![(character("renamed"), Some("s1"))];
        let runs = [("run_1", "s1"), ("run_3", "s3"), ("run_4", "s4")];
        let folders = ["s1", "s2", "s3"];
        let (service, calls) = service(store(chats, &folders, &["run_3"]), &runs).await;
        let found = service.orphans().await.unwrap();
        let mut ids: Vec<WorkspaceId> = found
            .orphans
            .iter()
            .map(|o| o.workspace_id.clone())
            .collect();
        ids.sort();
        let mut expected = vec![ws("s2"), ws("s3"), ws("s4")];
        expected.sort();
        assert_eq!(ids, expected);
        assert!(calls.lock().unwrap().is_empty(), "listing changes nothing");

        let outcomes = service.delete_orphans().await.unwrap();
        let outcome_of = |stable: &str| {
            outcomes
                .iter()
                .find(|o| o.workspace.workspace_id == ws(stable))
                .unwrap()
                .outcome
        };
        assert_eq!(outcome_of("s2"), Outcome::Deleted);
        assert_eq!(outcome_of("s3"), Outcome::InUse);
        assert_eq!(outcome_of("s4"), Outcome::Deleted);
        let calls = calls.lock().unwrap();
        assert!(
            !calls
                .iter()
                .any(|call| call.contains(&ws("s3").to_string()))
        );
        assert!(
            !calls
                .iter()
                .any(|call| call.contains(&ws("s1").to_string()))
        );
    }

    #[tokio::test]
    async fn no_orphan_is_removed_while_a_chat_does_not_read() {
        let mut chats = store(vec![], &["s2"], &[]);
        chats
            .chats
            .push((character("bad"), Err(ChatError::InvalidHeader("42".into()))));
        let (service, calls) = service(chats, &[]).await;
        assert_eq!(service.orphans().await.unwrap().unreadable_chats.len(), 1);
        let err = service.delete_orphans().await.unwrap_err();
        assert_eq!(err.code(), "agent.invalid_chat_integrity");
        assert_eq!(*calls.lock().unwrap(), ["lock", "unlock"]);
    }
}
