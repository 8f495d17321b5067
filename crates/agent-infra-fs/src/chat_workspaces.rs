//! [`FsChatWorkspaces`]: the chats of a data directory and their agent workspaces on disk,
//! for chat deletion and the orphan sweep (see `docs/storage/chat-deletion.md`).
//!
//! * **Busy runs.** A run is in use while a process holds its journal (drives it, rolls it
//!   back), and while it is unfinished with no event written yet: its process created the
//!   record under the shared maintenance lock and writes its first event right after,
//!   outside the lock. Such a run is never removed.
//! * **Removing a workspace** holds every run's journal exclusively, so no process can take
//!   a run meanwhile, then removes the runs' index records and summaries (listings stop
//!   showing them), then renames `chats/<ws>/` into `.trash/` (the workspace disappears in
//!   one step: a crash or a failing file never leaves half a workspace, with half its
//!   persistent states, where a run would find it), then deletes the renamed folder.
//!   Whatever a failed deletion leaves in `.trash/` is removed by the next removal; only
//!   removals, which hold the maintenance lock, touch that folder.

use std::fs;
use std::io;
use std::path::Path;

use agent_application::ports::{
    ChatError, ChatWorkspaceStore, DiskUse, ListedChat, StoreError, WorkspaceContents,
};
use agent_domain::event::ChatRef;
use agent_domain::run::{AgentRun, WorkspaceId};
use async_trait::async_trait;

use crate::atomic::sync_dir;
use crate::chat::{ChatLocator, blocking as chat_blocking, remove_chat, stored_stable_id};
use crate::dir_names::{EntryKind, names_in};
use crate::journal::journal_held;
use crate::layout::{DataDir, RunDir};
use crate::retention::{hold_run, remove_file};
use crate::runs::store_io::{blocking, io_error};

/// The [`ChatWorkspaceStore`] over a data directory.
#[derive(Debug, Clone)]
pub struct FsChatWorkspaces {
    data: DataDir,
}

impl FsChatWorkspaces {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }
}

/// Whether the run's journal has no event yet (it is missing or empty).
fn journal_unstarted(dir: &RunDir) -> Result<bool, StoreError> {
    let path = dir.events();
    match fs::symlink_metadata(&path) {
        Ok(meta) => Ok(meta.len() == 0),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(true),
        Err(err) => Err(io_error(&path, err)),
    }
}

/// Whether a process drives or is starting `run` (see the module documentation).
fn busy(data: &DataDir, run: &AgentRun) -> Result<bool, StoreError> {
    let dir = data.run_dir(&run.workspace_id, &run.id);
    Ok(journal_held(&dir)? || (!run.status.is_terminal() && journal_unstarted(&dir)?))
}

/// Files and bytes under `dir`, symlinks counted as entries of their own (never followed).
fn disk_use(dir: &Path, total: &mut DiskUse) -> Result<(), StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(err) => return Err(io_error(dir, err)),
    };
    for entry in entries {
        let entry = entry.map_err(|err| io_error(dir, err))?;
        let meta = fs::symlink_metadata(entry.path()).map_err(|err| io_error(dir, err))?;
        if meta.is_dir() {
            disk_use(&entry.path(), total)?;
        } else {
            total.files += 1;
            total.bytes = total.bytes.saturating_add(meta.len());
        }
    }
    Ok(())
}

/// A regular file's size, counted when it exists.
fn add_file(path: &Path, total: &mut DiskUse) -> Result<(), StoreError> {
    match fs::symlink_metadata(path) {
        Ok(meta) => {
            total.files += 1;
            total.bytes = total.bytes.saturating_add(meta.len());
            Ok(())
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(io_error(path, err)),
    }
}

/// The names of the folders (not symlinks, not hidden) in `dir`, sorted.
fn folders_in(dir: &Path) -> Result<Vec<String>, StoreError> {
    let mut names = names_in(dir, EntryKind::Folder)?;
    names.retain(|name| !name.starts_with('.'));
    names.sort();
    Ok(names)
}

fn inspect(
    data: &DataDir,
    workspace: &WorkspaceId,
    runs: &[AgentRun],
) -> Result<WorkspaceContents, StoreError> {
    let folder = data.chat_workspace(workspace);
    let exists = fs::symlink_metadata(&folder).is_ok_and(|meta| meta.is_dir());
    let mut disk = DiskUse::default();
    if exists {
        disk_use(&folder, &mut disk)?;
    }
    let mut busy_runs = Vec::new();
    for run in runs {
        add_file(&data.run_index_file(&run.id), &mut disk)?;
        add_file(&data.run_summary_file(&run.id), &mut disk)?;
        if busy(data, run)? {
            busy_runs.push(run.id.clone());
        }
    }
    Ok(WorkspaceContents {
        exists,
        disk,
        persistent_states: folders_in(&data.persistent_states(workspace))?.len() as u64,
        busy_runs,
    })
}

/// Removes what earlier removals left in `.trash/` (a folder whose deletion failed).
fn empty_trash(data: &DataDir) {
    let trash = data.trash();
    for name in folders_in(&trash).unwrap_or_default() {
        let _ = fs::remove_dir_all(trash.join(name));
    }
}

fn remove(data: &DataDir, workspace: &WorkspaceId, runs: &[AgentRun]) -> Result<(), StoreError> {
    empty_trash(data);
    // Every run held (or refused) before anything is removed.
    let mut held = Vec::new();
    for run in runs {
        let dir = data.run_dir(&run.workspace_id, &run.id);
        if !run.status.is_terminal() && journal_unstarted(&dir)? {
            return Err(StoreError::Locked(run.id.to_string()));
        }
        held.push(hold_run(&dir, &run.id)?);
    }
    for run in runs {
        remove_file(&data.run_index_file(&run.id))?;
        remove_file(&data.run_summary_file(&run.id))?;
    }
    if !runs.is_empty() {
        sync_dir(&data.run_index_dir());
        sync_dir(&data.run_summaries_dir());
    }
    let folder = data.chat_workspace(workspace);
    if fs::symlink_metadata(&folder).is_err() {
        return Ok(());
    }
    let trashed = data.trash_entry(workspace, &uuid::Uuid::new_v4().simple().to_string());
    fs::create_dir_all(data.trash()).map_err(|err| io_error(&data.trash(), err))?;
    fs::rename(&folder, &trashed).map_err(|err| io_error(&folder, err))?;
    sync_dir(&data.chat_workspaces());
    sync_dir(&data.trash());
    // The workspace is gone; its bytes go now, or with the next removal if this fails.
    let _ = fs::remove_dir_all(&trashed);
    drop(held);
    Ok(())
}

#[async_trait]
impl ChatWorkspaceStore for FsChatWorkspaces {
    async fn list_chats(&self) -> Result<Vec<ListedChat>, StoreError> {
        let data = self.data.clone();
        blocking(
            move || {
                let chats = ChatLocator::list(&data).map_err(|err| match err {
                    ChatError::Io(message) => StoreError::Io(message),
                    other => StoreError::Integrity(other.to_string()),
                })?;
                Ok(chats
                    .into_iter()
                    .map(|chat| ListedChat {
                        path: ChatLocator::arg_of(&chat),
                        stable_chat_id: stored_stable_id(&data, &chat),
                        chat,
                    })
                    .collect())
            },
            StoreError::Io,
        )
        .await
    }

    async fn stable_chat_id(&self, chat: &ChatRef) -> Result<Option<String>, ChatError> {
        let (data, chat) = (self.data.clone(), chat.clone());
        chat_blocking(move || stored_stable_id(&data, &chat)).await
    }

    async fn list_workspaces(&self) -> Result<Vec<WorkspaceId>, StoreError> {
        let data = self.data.clone();
        blocking(
            move || {
                Ok(folders_in(&data.chat_workspaces())?
                    .iter()
                    .filter_map(|name| WorkspaceId::parse(name).ok())
                    .collect())
            },
            StoreError::Io,
        )
        .await
    }

    async fn inspect_workspace(
        &self,
        workspace: &WorkspaceId,
        runs: &[AgentRun],
    ) -> Result<WorkspaceContents, StoreError> {
        let (data, workspace, runs) = (self.data.clone(), workspace.clone(), runs.to_vec());
        blocking(move || inspect(&data, &workspace, &runs), StoreError::Io).await
    }

    async fn remove_workspace(
        &self,
        workspace: &WorkspaceId,
        runs: &[AgentRun],
    ) -> Result<(), StoreError> {
        let (data, workspace, runs) = (self.data.clone(), workspace.clone(), runs.to_vec());
        blocking(move || remove(&data, &workspace, &runs), StoreError::Io).await
    }

    async fn remove_chat(&self, chat: &ChatRef) -> Result<(), ChatError> {
        let (data, chat) = (self.data.clone(), chat.clone());
        chat_blocking(move || remove_chat(&ChatLocator::path_of(&data, &chat)?)).await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::fs::OpenOptions;

    use super::*;
    use agent_domain::run::RunId;

    /// A busy run, as removing reports it.
    fn locked(run: &RunId) -> Result<(), StoreError> {
        Err(StoreError::Locked(run.to_string()))
    }

    fn run(id: &str, status: &str) -> AgentRun {
        serde_json::from_value(serde_json::json!({
            "id": id, "workspaceId": "chat_1", "stableChatId": "s",
            "chatRef": {"kind": "group", "chatId": "g"}, "generationType": "normal",
            "profileId": "default-writer", "status": status,
            "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"
        }))
        .unwrap()
    }

    /// A workspace with one run (journal, record, index entry, summary) and one state.
    fn stored(data: &DataDir, run: &AgentRun) -> RunDir {
        let dir = data.run_dir(&run.workspace_id, &run.id);
        fs::create_dir_all(dir.path().join("output")).unwrap();
        fs::write(dir.events(), "{}\n").unwrap();
        fs::write(dir.path().join("output/a.md"), "answer").unwrap();
        let state = data.persistent_states(&run.workspace_id).join("run_0");
        fs::create_dir_all(&state).unwrap();
        fs::write(state.join("manifest.json"), "{}").unwrap();
        fs::create_dir_all(data.run_index_dir()).unwrap();
        fs::create_dir_all(data.run_summaries_dir()).unwrap();
        fs::write(data.run_index_file(&run.id), "{}").unwrap();
        fs::write(data.run_summary_file(&run.id), "{}").unwrap();
        dir
    }

    fn ws() -> WorkspaceId {
        WorkspaceId::parse("chat_1").unwrap()
    }

    #[test]
    fn a_workspace_is_counted_with_its_runs_index_documents() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let done = run("run_1", "completed");
        stored(&data, &done);
        let contents = inspect(&data, &ws(), &[done]).unwrap();
        assert!(contents.exists);
        assert_eq!(contents.persistent_states, 1);
        assert_eq!(contents.disk.files, 5);
        assert_eq!(contents.disk.bytes, 3 + 6 + 2 + 2 + 2);
        assert!(contents.busy_runs.is_empty());
    }

    #[test]
    fn held_and_starting_runs_are_busy_and_stop_the_removal() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let live = run("run_1", "calling_model");
        let dir = stored(&data, &live);
        let holder = OpenOptions::new().append(true).open(dir.events()).unwrap();
        holder.lock().unwrap();
        assert_eq!(
            inspect(&data, &ws(), std::slice::from_ref(&live))
                .unwrap()
                .busy_runs
                .len(),
            1
        );
        assert_eq!(
            remove(&data, &ws(), std::slice::from_ref(&live)),
            locked(&live.id)
        );
        drop(holder);

        // Unfinished with no event yet: its process is about to write the first one.
        fs::remove_file(dir.events()).unwrap();
        let starting = run("run_1", "created");
        assert_eq!(
            inspect(&data, &ws(), std::slice::from_ref(&starting))
                .unwrap()
                .busy_runs
                .len(),
            1
        );
        assert_eq!(
            remove(&data, &ws(), std::slice::from_ref(&starting)),
            locked(&starting.id)
        );
        assert!(dir.path().join("output/a.md").is_file());
        assert!(data.run_index_file(&starting.id).is_file());

        // A finished run without a journal (its start failed) is not busy.
        let failed = run("run_1", "failed");
        assert!(
            inspect(&data, &ws(), std::slice::from_ref(&failed))
                .unwrap()
                .busy_runs
                .is_empty()
        );
        remove(&data, &ws(), std::slice::from_ref(&failed)).unwrap();
        assert!(!data.chat_workspace(&ws()).exists());
        assert!(!data.run_index_file(&failed.id).exists());
        assert!(!data.run_summary_file(&failed.id).exists());
        assert_eq!(fs::read_dir(data.trash()).unwrap().count(), 0);
    }

    #[test]
    fn leftovers_in_the_trash_go_with_the_next_removal() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let left = data.trash_entry(&ws(), "x");
        fs::create_dir_all(left.join("runs")).unwrap();
        remove(&data, &WorkspaceId::parse("chat_2").unwrap(), &[]).unwrap();
        assert!(!left.exists());
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_in_a_workspace_is_removed_not_followed() {
        let tmp = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("keep.txt"), "keep").unwrap();
        let data = DataDir::new(tmp.path());
        let done = run("run_1", "completed");
        let dir = stored(&data, &done);
        std::os::unix::fs::symlink(outside.path(), dir.path().join("output/escape")).unwrap();
        remove(&data, &ws(), &[done]).unwrap();
        assert!(outside.path().join("keep.txt").is_file());
    }
}
