//! [`FsCheckpointStore`]: byte copies of workspace files, one checkpoint per mutation.
//!
//! `checkpoints/cp_000001/checkpoint.json` describes the checkpoint; beside it each listed
//! file is copied at its workspace path (`checkpoints/cp_000001/output/main.md`). A
//! checkpoint is assembled in a temp folder (`checkpoints/.tmp-<writer>-<uuid>`) and
//! renamed into place, so a crash leaves either a whole checkpoint or none. Creation is
//! serialised per run within the process. See `docs/storage/workspace.md`.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use agent_application::ports::{CheckpointFile, CheckpointRecord, CheckpointStore, StoreError};
use agent_domain::event::CheckpointReason;
use agent_domain::run::RunId;
use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;

use crate::atomic::{sync_dir, temp_path_for};
use crate::audit::documents::{confined, create_bytes, create_json, io_error, read_json, relative};
use crate::confine::Parents;
use crate::digest::sha256_hex;
use crate::layout::RunDir;
use crate::run_locator::RunLocator;
use crate::workspace::{Area, StripedLocks};

const RECORD_FILE: &str = "checkpoint.json";

/// The `CheckpointStore` over run directories. Clones share the per-run creation locks.
#[derive(Debug, Clone)]
pub struct FsCheckpointStore {
    locator: RunLocator,
    locks: Arc<StripedLocks>,
}

impl FsCheckpointStore {
    pub fn new(locator: RunLocator) -> Self {
        Self {
            locator,
            locks: Arc::new(StripedLocks::new()),
        }
    }
}

/// What a new checkpoint is asked to hold.
#[derive(Debug, Clone)]
pub(crate) struct CheckpointRequest {
    pub run: RunId,
    pub reason: CheckpointReason,
    pub event_seq: u64,
    pub files: Vec<WorkspacePath>,
    pub created_at: String,
}

/// `cp_000001` for seq 1.
fn checkpoint_id(seq: u64) -> String {
    format!("cp_{seq:06}")
}

/// The seq a checkpoint folder name stands for, if it is one (`cp_000001` → 1).
fn seq_of(name: &str) -> Option<u64> {
    let seq = name.strip_prefix("cp_")?.parse().ok()?;
    (checkpoint_id(seq) == name).then_some(seq)
}

/// Creates the next checkpoint of the run. Blocking; holds the run's lock throughout.
pub(crate) fn create(
    run_dir: &RunDir,
    locks: &StripedLocks,
    request: &CheckpointRequest,
) -> Result<CheckpointRecord, StoreError> {
    let _held = locks.lock(&run_dir.path());
    let checkpoints = match checkpoints_dir(run_dir)? {
        Some(dir) => dir,
        None => {
            let dir = run_dir.checkpoints();
            fs::create_dir(&dir).map_err(|err| io_error(err, dir.display()))?;
            dir
        }
    };
    let seq = existing(&checkpoints)?
        .iter()
        .map(|(seq, _)| *seq)
        .max()
        .unwrap_or(0)
        + 1;
    let id = checkpoint_id(seq);
    let target = checkpoints.join(&id);
    if fs::symlink_metadata(&target).is_ok() {
        return Err(StoreError::AlreadyExists(format!("checkpoint {id}")));
    }
    let staging = temp_path_for(&target);
    fs::create_dir(&staging).map_err(|err| io_error(err, staging.display()))?;
    let record = fill(run_dir, &staging, request, seq, &id)
        .and_then(|record| {
            fs::rename(&staging, &target).map_err(|err| io_error(err, target.display()))?;
            Ok(record)
        })
        .inspect_err(|_| {
            // Only our own staging folder is removed; it never holds links.
            let _ = fs::remove_dir_all(&staging);
        })?;
    sync_dir(&checkpoints);
    Ok(record)
}

/// Every checkpoint of the run, by seq.
pub(crate) fn list(run_dir: &RunDir) -> Result<Vec<CheckpointRecord>, StoreError> {
    let Some(checkpoints) = checkpoints_dir(run_dir)? else {
        return Ok(Vec::new());
    };
    let mut records = Vec::new();
    for (seq, dir) in existing(&checkpoints)? {
        let record: CheckpointRecord = read_json(&dir, &record_path()?)?;
        if record.seq != seq || record.id != checkpoint_id(seq) {
            return Err(StoreError::Integrity(format!(
                "checkpoint folder {} holds the record of {}",
                checkpoint_id(seq),
                record.id
            )));
        }
        records.push(record);
    }
    Ok(records)
}

/// The run's `checkpoints/` folder, checked not to be a link; `None` while there is none.
fn checkpoints_dir(run_dir: &RunDir) -> Result<Option<PathBuf>, StoreError> {
    let rel = relative(run_dir, &run_dir.checkpoints())?;
    let dir = confined(run_dir.path(), &rel, Parents::MustExist)?;
    match fs::symlink_metadata(&dir) {
        Ok(meta) if meta.is_dir() => Ok(Some(dir)),
        Ok(_) => Err(StoreError::Integrity(format!("`{rel}` is not a folder"))),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(err) => Err(io_error(err, rel)),
    }
}

/// The checkpoint folders present, by seq. Staging folders of interrupted creations are
/// ignored; a link or a file named like a checkpoint is an integrity fault.
fn existing(checkpoints: &Path) -> Result<Vec<(u64, PathBuf)>, StoreError> {
    let mut found = Vec::new();
    let entries = fs::read_dir(checkpoints).map_err(|err| io_error(err, checkpoints.display()))?;
    for entry in entries {
        let entry = entry.map_err(|err| io_error(err, checkpoints.display()))?;
        let Some(seq) = entry.file_name().to_str().and_then(seq_of) else {
            continue;
        };
        let kind = entry
            .file_type()
            .map_err(|err| io_error(err, entry.path().display()))?;
        if !kind.is_dir() {
            return Err(StoreError::Integrity(format!(
                "checkpoint {} is not a folder",
                checkpoint_id(seq)
            )));
        }
        found.push((seq, entry.path()));
    }
    found.sort();
    Ok(found)
}

/// Copies each listed file into `staging` and writes the record there.
fn fill(
    run_dir: &RunDir,
    staging: &Path,
    request: &CheckpointRequest,
    seq: u64,
    id: &str,
) -> Result<CheckpointRecord, StoreError> {
    let mut files: Vec<CheckpointFile> = Vec::new();
    for path in &request.files {
        if files.iter().any(|file| file.path == *path) {
            continue;
        }
        let bytes = workspace_file(run_dir, path)?;
        create_bytes(staging, path, &bytes)?;
        files.push(CheckpointFile {
            path: path.clone(),
            sha256: sha256_hex(&bytes),
            bytes: bytes.len() as u64,
        });
    }
    let record = CheckpointRecord {
        id: id.to_owned(),
        seq,
        run_id: request.run.clone(),
        created_at: request.created_at.clone(),
        reason: request.reason,
        event_seq: request.event_seq,
        files,
    };
    create_json(staging, &record_path()?, &record)?;
    Ok(record)
}

/// The bytes of a workspace file to keep. Only the workspace areas can be checkpointed;
/// a missing file is `NotFound`, a folder is refused, and links are integrity faults.
fn workspace_file(run_dir: &RunDir, path: &WorkspacePath) -> Result<Vec<u8>, StoreError> {
    let missing = || StoreError::NotFound(format!("checkpoint file `{path}`"));
    if Area::of(path).is_none() {
        return Err(missing());
    }
    let source = confined(run_dir.path(), path, Parents::MustExist).map_err(|err| match err {
        StoreError::NotFound(_) => missing(),
        err => err,
    })?;
    match fs::symlink_metadata(&source) {
        Ok(meta) if meta.is_file() => {}
        Ok(meta) if meta.is_dir() => {
            return Err(StoreError::Invalid {
                code: "workspace.path_is_directory",
                message: format!("checkpoint file `{path}` is a folder"),
            });
        }
        Ok(_) => {
            return Err(StoreError::Integrity(format!(
                "checkpoint file `{path}` is not a regular file"
            )));
        }
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Err(missing()),
        Err(err) => return Err(io_error(err, path)),
    }
    fs::read(&source).map_err(|err| match err.kind() {
        io::ErrorKind::NotFound => missing(),
        _ => io_error(err, path),
    })
}

fn record_path() -> Result<WorkspacePath, StoreError> {
    WorkspacePath::parse(RECORD_FILE).map_err(|err| StoreError::Integrity(err.to_string()))
}

#[async_trait]
impl CheckpointStore for FsCheckpointStore {
    async fn create(
        &self,
        run: &RunId,
        reason: CheckpointReason,
        event_seq: u64,
        files: &[WorkspacePath],
        created_at: &str,
    ) -> Result<CheckpointRecord, StoreError> {
        let request = CheckpointRequest {
            run: run.clone(),
            reason,
            event_seq,
            files: files.to_vec(),
            created_at: created_at.to_owned(),
        };
        let locks = self.locks.clone();
        self.locator
            .with_run_dir(run, move |dir| create(&dir, &locks, &request))
            .await
    }

    async fn list(&self, run: &RunId) -> Result<Vec<CheckpointRecord>, StoreError> {
        self.locator.with_run_dir(run, |dir| list(&dir)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_canonical_checkpoint_names_count() {
        assert_eq!(checkpoint_id(1), "cp_000001");
        assert_eq!(seq_of("cp_000001"), Some(1));
        assert_eq!(seq_of("cp_1000000"), Some(1_000_000));
        for name in [
            "cp_1",
            "cp_0000001",
            ".cp_000001.tmp-abc",
            "cp_00000a",
            "cp_-00001",
            "x",
        ] {
            assert_eq!(seq_of(name), None, "{name}");
        }
    }
}
