//! [`FsRetentionStore`]: what retention reads and changes on disk (see
//! `docs/storage/retention.md`).
//!
//! * **The maintenance lock**, `agent-workspaces/maintenance.lock`: a prune or a chat
//!   deletion holds it exclusively; creating a run holds it shared while the run's first
//!   files are written ([`hold_for_run_start`]). So across processes no run starts in the
//!   middle of maintenance, and maintenance sees every run that did start.
//! * **A held run**: the process driving a run holds the OS lock of its `events.jsonl` (as
//!   does a rollback). Inspecting tests that lock; changing a run takes it, exclusively, for
//!   the whole change, so a process that would write the run meanwhile is refused (it gets
//!   "run is locked") and a run already held is never changed.
//! * **Deleting** removes the index record and the summary first, then the folder: a crash
//!   in between leaves a folder no listing shows rather than a listed run without files.

use std::fs::{self, File, OpenOptions, TryLockError};
use std::io;
use std::path::{Component, Path};

use agent_application::ports::{
    MaintenanceGuard, MaintenanceLock, RunRetentionStore, RunStorage, StoreError,
};
use agent_domain::retention::{FileLocation, StoredFile};
use agent_domain::run::{AgentRun, RunId};
use async_trait::async_trait;

use crate::atomic::sync_dir;
use crate::journal::journal_held;
use crate::layout::{DataDir, RunDir};
use crate::runs::store_io::{blocking, io_error};

/// The [`RunRetentionStore`] over a data directory.
#[derive(Debug, Clone)]
pub struct FsRetentionStore {
    data: DataDir,
}

impl FsRetentionStore {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }
}

/// Opens (creating it) the maintenance lock file of `data`.
fn open_lock(data: &DataDir) -> Result<File, StoreError> {
    let path = data.maintenance_lock();
    if let Some(dir) = path.parent() {
        fs::create_dir_all(dir).map_err(|err| io_error(dir, err))?;
    }
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(|err| io_error(&path, err))
}

/// Holds the maintenance lock shared, waiting while maintenance holds it: what creating a
/// run does while it writes the run's first files. Released when the file is dropped.
pub(crate) fn hold_for_run_start(data: &DataDir) -> Result<File, StoreError> {
    let file = open_lock(data)?;
    file.lock_shared()
        .map_err(|err| io_error(&data.maintenance_lock(), err))?;
    Ok(file)
}

/// The run's journal, locked exclusively for a change; `None` when it has no journal.
/// A journal another process (or another handle) holds is [`StoreError::Locked`].
pub(crate) fn hold_run(dir: &RunDir, run: &RunId) -> Result<Option<File>, StoreError> {
    let path = dir.events();
    let file = match OpenOptions::new().read(true).write(true).open(&path) {
        Ok(file) => file,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(err) => return Err(io_error(&path, err)),
    };
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(TryLockError::WouldBlock) => Err(StoreError::Locked(run.to_string())),
        Err(TryLockError::Error(err)) => Err(io_error(&path, err)),
    }
}

/// Every file under `dir` with its size, as `/`-separated paths relative to `root`.
/// A symlink anywhere is refused: nothing outside the run may be counted or removed.
fn walk(root: &Path, dir: &Path, out: &mut Vec<StoredFile>) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|err| format!("{}: {err}", dir.display()))?;
    for entry in entries {
        let entry = entry.map_err(|err| format!("{}: {err}", dir.display()))?;
        let path = entry.path();
        let meta =
            fs::symlink_metadata(&path).map_err(|err| format!("{}: {err}", path.display()))?;
        if meta.file_type().is_symlink() {
            return Err(format!("{}: is a symlink", path.display()));
        }
        if meta.is_dir() {
            walk(root, &path, out)?;
            continue;
        }
        let rel = path
            .strip_prefix(root)
            .map_err(|err| format!("{}: {err}", path.display()))?;
        let rel = rel
            .components()
            .map(|part| part.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        out.push(StoredFile {
            location: FileLocation::RunFolder(rel),
            bytes: meta.len(),
        });
    }
    Ok(())
}

fn folder_path(file: &StoredFile) -> &str {
    match &file.location {
        FileLocation::RunFolder(path) => path,
        FileLocation::IndexRecord | FileLocation::Summary => "",
    }
}

/// A regular file's size, if it exists.
fn size_of(path: &Path) -> Result<Option<u64>, String> {
    match fs::symlink_metadata(path) {
        Ok(meta) if meta.is_file() => Ok(Some(meta.len())),
        Ok(_) => Err(format!("{}: is not a regular file", path.display())),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(format!("{}: {err}", path.display())),
    }
}

fn files_of(data: &DataDir, run: &AgentRun) -> Result<Vec<StoredFile>, String> {
    let dir = data.run_dir(&run.workspace_id, &run.id);
    let mut files = Vec::new();
    match fs::symlink_metadata(dir.path()) {
        Ok(meta) if meta.is_dir() => walk(dir.path(), dir.path(), &mut files)?,
        Ok(_) => return Err(format!("{}: is not a folder", dir.path().display())),
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(format!("{}: {err}", dir.path().display())),
    }
    files.sort_by(|a, b| folder_path(a).cmp(folder_path(b)));
    for (path, location) in [
        (data.run_index_file(&run.id), FileLocation::IndexRecord),
        (data.run_summary_file(&run.id), FileLocation::Summary),
    ] {
        if let Some(bytes) = size_of(&path)? {
            files.push(StoredFile { location, bytes });
        }
    }
    Ok(files)
}

/// `rel` as a path inside a run folder: plain components only.
fn inside(dir: &RunDir, rel: &str) -> Result<std::path::PathBuf, StoreError> {
    let path = Path::new(rel);
    if rel.is_empty()
        || !path
            .components()
            .all(|part| matches!(part, Component::Normal(_)))
    {
        return Err(StoreError::Invalid {
            code: "agent.invalid_workspace_path",
            message: format!("`{rel}` is not a path inside a run folder"),
        });
    }
    Ok(dir.path().join(path))
}

/// Removes a file; one already gone is fine.
pub(crate) fn remove_file(path: &Path) -> Result<(), StoreError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(io_error(path, err)),
    }
}

fn slim(data: &DataDir, run: &AgentRun, paths: &[String]) -> Result<(), StoreError> {
    let dir = data.run_dir(&run.workspace_id, &run.id);
    let _held = hold_run(&dir, &run.id)?;
    let mut folders = Vec::new();
    for rel in paths {
        let path = inside(&dir, rel)?;
        if fs::symlink_metadata(&path).is_ok_and(|meta| meta.file_type().is_symlink()) {
            return Err(StoreError::Integrity(format!(
                "{}: is a symlink",
                path.display()
            )));
        }
        remove_file(&path)?;
        let mut parent = path.parent();
        while let Some(folder) = parent.filter(|folder| *folder != dir.path()) {
            folders.push(folder.to_path_buf());
            parent = folder.parent();
        }
    }
    // Deepest first, so a folder is empty once its sub-folders are gone.
    folders.sort_by_key(|folder| std::cmp::Reverse(folder.components().count()));
    folders.dedup();
    for folder in folders {
        let _ = fs::remove_dir(&folder);
    }
    sync_dir(dir.path());
    Ok(())
}

fn delete(data: &DataDir, run: &AgentRun) -> Result<(), StoreError> {
    let dir = data.run_dir(&run.workspace_id, &run.id);
    let _held = hold_run(&dir, &run.id)?;
    remove_file(&data.run_index_file(&run.id))?;
    remove_file(&data.run_summary_file(&run.id))?;
    sync_dir(&data.run_index_dir());
    sync_dir(&data.run_summaries_dir());
    match fs::remove_dir_all(dir.path()) {
        Ok(()) => {}
        Err(err) if err.kind() == io::ErrorKind::NotFound => {}
        Err(err) => return Err(io_error(dir.path(), err)),
    }
    if let Some(runs) = dir.path().parent() {
        sync_dir(runs);
    }
    Ok(())
}

#[async_trait]
impl MaintenanceLock for FsRetentionStore {
    async fn lock_maintenance(&self) -> Result<MaintenanceGuard, StoreError> {
        let data = self.data.clone();
        blocking(
            move || {
                let file = open_lock(&data)?;
                file.lock()
                    .map_err(|err| io_error(&data.maintenance_lock(), err))?;
                Ok(MaintenanceGuard::new(file))
            },
            StoreError::Io,
        )
        .await
    }
}

#[async_trait]
impl RunRetentionStore for FsRetentionStore {
    async fn inspect_run(&self, run: &AgentRun) -> Result<RunStorage, StoreError> {
        let (data, run) = (self.data.clone(), run.clone());
        blocking(
            move || {
                let dir = data.run_dir(&run.workspace_id, &run.id);
                Ok(RunStorage {
                    active: journal_held(&dir)?,
                    files: files_of(&data, &run),
                })
            },
            StoreError::Io,
        )
        .await
    }

    async fn slim_run(&self, run: &AgentRun, paths: &[String]) -> Result<(), StoreError> {
        let (data, run, paths) = (self.data.clone(), run.clone(), paths.to_vec());
        blocking(move || slim(&data, &run, &paths), StoreError::Io).await
    }

    async fn delete_run(&self, run: &AgentRun) -> Result<(), StoreError> {
        let (data, run) = (self.data.clone(), run.clone());
        blocking(move || delete(&data, &run), StoreError::Io).await
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn run() -> AgentRun {
        serde_json::from_value(serde_json::json!({
            "id": "run_1", "workspaceId": "chat_1", "stableChatId": "s",
            "chatRef": {"kind": "group", "chatId": "g"}, "generationType": "normal",
            "profileId": "default-writer", "status": "completed",
            "createdAt": "2026-01-01T00:00:00.000Z", "updatedAt": "2026-01-01T00:00:00.000Z"
        }))
        .unwrap()
    }

    /// A run folder with a journal, a record, an output and a checkpoint, and its index.
    fn stored(data: &DataDir) -> RunDir {
        let run = run();
        let dir = data.run_dir(&run.workspace_id, &run.id);
        fs::create_dir_all(dir.path().join("output")).unwrap();
        fs::create_dir_all(dir.path().join("checkpoints/cp_000001")).unwrap();
        fs::write(dir.events(), "{}\n").unwrap();
        fs::write(dir.run_record(), "{}").unwrap();
        fs::write(dir.path().join("output/a.md"), "answer").unwrap();
        fs::write(
            dir.path().join("checkpoints/cp_000001/checkpoint.json"),
            "{}",
        )
        .unwrap();
        fs::create_dir_all(data.run_index_dir()).unwrap();
        fs::write(data.run_index_file(&run.id), "{}").unwrap();
        dir
    }

    #[test]
    fn files_are_listed_with_sizes_and_index_documents() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        stored(&data);
        let files = files_of(&data, &run()).unwrap();
        let locations: Vec<_> = files.iter().map(|f| f.location.clone()).collect();
        assert_eq!(
            locations,
            [
                FileLocation::RunFolder("checkpoints/cp_000001/checkpoint.json".into()),
                FileLocation::RunFolder("events.jsonl".into()),
                FileLocation::RunFolder("output/a.md".into()),
                FileLocation::RunFolder("run.json".into()),
                FileLocation::IndexRecord,
            ]
        );
        assert_eq!(files[2].bytes, 6);
    }

    #[cfg(unix)]
    #[test]
    fn a_symlink_in_a_run_makes_its_storage_invalid() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let dir = stored(&data);
        std::os::unix::fs::symlink("/etc", dir.path().join("output/escape")).unwrap();
        assert!(files_of(&data, &run()).unwrap_err().contains("symlink"));
    }

    #[test]
    fn a_held_run_is_neither_slimmed_nor_deleted() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let dir = stored(&data);
        // Another open file description holding the journal, as another process would.
        let holder = OpenOptions::new().append(true).open(dir.events()).unwrap();
        holder.lock().unwrap();
        assert!(journal_held(&dir).unwrap());
        let slimmed = slim(&data, &run(), &["output/a.md".to_owned()]);
        assert_eq!(slimmed.unwrap_err(), StoreError::Locked("run_1".into()));
        assert_eq!(
            delete(&data, &run()).unwrap_err(),
            StoreError::Locked("run_1".into())
        );
        assert!(dir.path().join("output/a.md").is_file());
        assert!(data.run_index_file(&run().id).is_file());
        drop(holder);
        assert!(!journal_held(&dir).unwrap());
        slim(
            &data,
            &run(),
            &[
                "output/a.md".to_owned(),
                "checkpoints/cp_000001/checkpoint.json".to_owned(),
            ],
        )
        .unwrap();
        assert!(
            !dir.path().join("checkpoints").exists(),
            "emptied folders go too"
        );
        assert!(dir.events().is_file());
        delete(&data, &run()).unwrap();
        assert!(!dir.path().exists());
        assert!(!data.run_index_file(&run().id).exists());
    }

    #[test]
    fn slim_paths_must_stay_inside_the_run() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        stored(&data);
        for bad in ["../run_2/run.json", "/etc/passwd", ""] {
            let err = slim(&data, &run(), &[bad.to_owned()]).unwrap_err();
            assert!(matches!(err, StoreError::Invalid { .. }), "{bad}");
        }
    }

    #[test]
    fn run_starts_wait_for_maintenance() {
        let tmp = tempfile::tempdir().unwrap();
        let data = DataDir::new(tmp.path());
        let maintenance = open_lock(&data).unwrap();
        maintenance.lock().unwrap();
        let waiting = {
            let data = data.clone();
            std::thread::spawn(move || hold_for_run_start(&data).map(drop))
        };
        std::thread::sleep(std::time::Duration::from_millis(200));
        assert!(
            !waiting.is_finished(),
            "a run start waits while maintenance holds the lock"
        );
        drop(maintenance);
        waiting.join().unwrap().unwrap();
    }
}
