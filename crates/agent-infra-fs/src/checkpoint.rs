//! [`FsCheckpointStore`]: the bytes of workspace files, one checkpoint per mutation.
//!
//! `checkpoints/cp_000001/checkpoint.json` describes the checkpoint: each listed file's
//! path, SHA-256 and size. The bytes are the run's blob of that SHA-256 ([`crate::blobs`]),
//! so a file that did not change since an earlier checkpoint costs nothing again.
//! Checkpoints written before blobs keep a copy of each file beside the record, at its
//! workspace path (`checkpoints/cp_000001/output/main.md`); its `read_file`
//! reads both. A checkpoint is assembled in a temp folder
//! (`checkpoints/.tmp-<writer>-<uuid>`) and renamed into place, so a crash leaves either a
//! whole checkpoint or none. Creation is serialised per run within the process. See
//! `docs/storage/workspace.md`.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use agent_application::ports::{CheckpointFile, CheckpointRecord, CheckpointStore, StoreError};
use agent_domain::event::CheckpointReason;
use agent_domain::run::RunId;
use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;

use crate::atomic::temp_path_for;
use crate::audit::documents::{confined, create_json, io_error, read_json, relative};
use crate::blobs;
use crate::confine::Parents;
use crate::digest::sha256_hex;
use crate::durability::Syncer;
use crate::layout::RunDir;
use crate::run_locator::{Cost, RunLocator};
use crate::workspace::{Area, StripedLocks};

const RECORD_FILE: &str = "checkpoint.json";

/// The `CheckpointStore` over run directories. Clones share the per-run creation locks and
/// the seq of each run's newest checkpoint.
#[derive(Debug, Clone)]
pub struct FsCheckpointStore {
    locator: RunLocator,
    locks: Arc<StripedLocks>,
    newest: Arc<NewestSeqs>,
}

impl FsCheckpointStore {
    pub fn new(locator: RunLocator) -> Self {
        Self {
            locator,
            locks: Arc::new(StripedLocks::new()),
            newest: Arc::default(),
        }
    }
}

/// The seq of the newest checkpoint this process created in each run directory, so the
/// next number needs no listing of `checkpoints/`.
#[derive(Debug, Default)]
struct NewestSeqs(Mutex<HashMap<PathBuf, u64>>);

impl NewestSeqs {
    fn get(&self, run_dir: &RunDir) -> Option<u64> {
        let seqs = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        seqs.get(run_dir.path()).copied()
    }

    fn set(&self, run_dir: &RunDir, seq: u64) {
        let mut seqs = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        seqs.insert(run_dir.path().to_path_buf(), seq);
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

/// What a checkpoint is made with besides its request.
struct Context<'a> {
    locks: &'a StripedLocks,
    newest: &'a NewestSeqs,
    syncer: &'a Syncer,
}

/// Creates the next checkpoint of the run. Blocking; holds the run's lock throughout.
fn create(
    run_dir: &RunDir,
    context: &Context<'_>,
    request: &CheckpointRequest,
) -> Result<CheckpointRecord, StoreError> {
    let _held = context.locks.lock(&run_dir.path());
    let checkpoints = match checkpoints_dir(run_dir)? {
        Some(dir) => dir,
        None => {
            let dir = run_dir.checkpoints();
            fs::create_dir(&dir).map_err(|err| io_error(err, dir.display()))?;
            context.syncer.dir_changed(run_dir.path());
            dir
        }
    };
    // Check every file before storing anything, so a checkpoint refused for one file
    // stores no blob of another.
    let mut sources: Vec<(&WorkspacePath, Source)> = Vec::new();
    for path in &request.files {
        if sources.iter().any(|(seen, _)| *seen == path) {
            continue;
        }
        sources.push((path, workspace_file(run_dir, path)?));
    }
    let seq = next_seq(run_dir, &checkpoints, context.newest)?;
    let id = checkpoint_id(seq);
    let target = checkpoints.join(&id);
    if fs::symlink_metadata(&target).is_ok() {
        return Err(StoreError::AlreadyExists(format!("checkpoint {id}")));
    }
    let mut files = Vec::with_capacity(sources.len());
    for (path, source) in sources {
        files.push(keep(run_dir, path, &source, context.syncer)?);
    }
    let record = CheckpointRecord {
        id,
        seq,
        run_id: request.run.clone(),
        created_at: request.created_at.clone(),
        reason: request.reason,
        event_seq: request.event_seq,
        files,
    };
    let staging = temp_path_for(&target);
    fs::create_dir(&staging).map_err(|err| io_error(err, staging.display()))?;
    create_json(&staging, &record_path()?, &record, context.syncer)
        .and_then(|()| fs::rename(&staging, &target).map_err(|err| io_error(err, target.display())))
        .inspect_err(|_| {
            // Only our own staging folder is removed; it never holds links.
            let _ = fs::remove_dir_all(&staging);
        })?;
    context.syncer.dir_changed(&target);
    context.syncer.dir_changed(&checkpoints);
    context.newest.set(run_dir, seq);
    Ok(record)
}

/// One more than the newest checkpoint: remembered from this process's last creation
/// when that is still the newest, else found by listing.
fn next_seq(run_dir: &RunDir, checkpoints: &Path, newest: &NewestSeqs) -> Result<u64, StoreError> {
    if let Some(seq) = newest.get(run_dir).map(|seq| seq + 1)
        && fs::symlink_metadata(checkpoints.join(checkpoint_id(seq))).is_err()
    {
        return Ok(seq);
    }
    Ok(existing(checkpoints)?
        .iter()
        .map(|(seq, _)| *seq)
        .max()
        .unwrap_or(0)
        + 1)
}

/// The bytes of `file` in checkpoint `id`: the copy beside the record (checkpoints written
/// before blobs), else the blob of its SHA-256. Either must hash to the recorded SHA-256.
fn read_file(run_dir: &RunDir, id: &str, file: &CheckpointFile) -> Result<Vec<u8>, StoreError> {
    let folder = seq_of(id)
        .map(|seq| run_dir.checkpoints().join(checkpoint_id(seq)))
        .ok_or_else(|| StoreError::NotFound(format!("checkpoint `{id}`")))?;
    let copy = match confined(&folder, &file.path, Parents::MustExist) {
        Ok(copy) => match fs::read(&copy) {
            Ok(bytes) => Some(bytes),
            Err(err) if err.kind() == io::ErrorKind::NotFound => None,
            Err(err) => return Err(io_error(err, &file.path)),
        },
        Err(StoreError::NotFound(_)) => None,
        Err(err) => return Err(err),
    };
    let Some(bytes) = copy else {
        return blobs::read(run_dir, &file.sha256);
    };
    if sha256_hex(&bytes) != file.sha256 {
        return Err(StoreError::Integrity(format!(
            "the copy of `{}` in checkpoint {id} does not match its record",
            file.path
        )));
    }
    Ok(bytes)
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

/// Stores the bytes of the workspace file at `source` as a blob: a large one by sharing
/// the file itself, a small one as a copy (`blobs.rs`). A file that already has a second
/// name is kept only if that name is its own blob: the checkpoint never adopts a hard link
/// planted in the workspace.
fn keep(
    run_dir: &RunDir,
    path: &WorkspacePath,
    (source, len, names): &Source,
    syncer: &Syncer,
) -> Result<CheckpointFile, StoreError> {
    let (len, names) = (*len, *names);
    let (sha256, bytes) = if len >= blobs::SHARED_MIN_BYTES && names == 1 {
        blobs::adopt(run_dir, source, path, syncer)?
    } else {
        let read = blobs::read_with_metadata(source);
        let (meta, bytes) = read.map_err(|err| match err.kind() {
            io::ErrorKind::NotFound => missing_file(path),
            _ => io_error(err, path),
        })?;
        if blobs::names_of(&meta) > 1 && !blobs::is_own_blob(run_dir, &meta, &bytes) {
            return Err(StoreError::Integrity(format!(
                "checkpoint file `{path}` is a hard link; links are not followed inside a workspace"
            )));
        }
        let sha256 = sha256_hex(&bytes);
        blobs::put_hashed(run_dir, &sha256, &bytes, syncer)?;
        (sha256, bytes.len() as u64)
    };
    Ok(CheckpointFile {
        path: path.clone(),
        sha256,
        bytes,
    })
}

fn missing_file(path: &WorkspacePath) -> StoreError {
    StoreError::NotFound(format!("checkpoint file `{path}`"))
}

/// A workspace file to keep: where it is, its size and how many names it has.
type Source = (PathBuf, u64, u64);

/// Where a workspace file to keep is, its size and names. Only the workspace areas can be
/// checkpointed; a missing file is `NotFound`, a folder is refused, and links are
/// integrity faults.
fn workspace_file(run_dir: &RunDir, path: &WorkspacePath) -> Result<Source, StoreError> {
    let missing = || missing_file(path);
    if Area::of(path).is_none() {
        return Err(missing());
    }
    let source = confined(run_dir.path(), path, Parents::MustExist).map_err(|err| match err {
        StoreError::NotFound(_) => missing(),
        err => err,
    })?;
    match fs::symlink_metadata(&source) {
        Ok(meta) if meta.is_file() => Ok((source, meta.len(), blobs::names_of(&meta))),
        Ok(meta) if meta.is_dir() => Err(StoreError::Invalid {
            code: "workspace.path_is_directory",
            message: format!("checkpoint file `{path}` is a folder"),
        }),
        Ok(_) => Err(StoreError::Integrity(format!(
            "checkpoint file `{path}` is not a regular file"
        ))),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Err(missing()),
        Err(err) => Err(io_error(err, path)),
    }
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
        // Each file copies at most a small file's bytes (larger ones are linked).
        let cost = Cost::of_bytes(files.len().saturating_mul(blobs::SHARED_MIN_BYTES as usize));
        let (locks, newest) = (self.locks.clone(), self.newest.clone());
        let syncer = self.locator.syncer().clone();
        self.locator
            .with_run_dir(run, cost, move |dir| {
                let context = Context {
                    locks: &locks,
                    newest: &newest,
                    syncer: &syncer,
                };
                create(&dir, &context, &request)
            })
            .await
    }

    async fn list(&self, run: &RunId) -> Result<Vec<CheckpointRecord>, StoreError> {
        self.locator
            .with_run_dir(run, Cost::Large, |dir| list(&dir))
            .await
    }

    /// Its blob, or the copy beside the record for checkpoints written before blobs.
    async fn read_file(
        &self,
        run: &RunId,
        record: &CheckpointRecord,
        file: &CheckpointFile,
    ) -> Result<Vec<u8>, StoreError> {
        let (id, file) = (record.id.clone(), file.clone());
        self.locator
            .with_run_dir(run, Cost::Large, move |dir| read_file(&dir, &id, &file))
            .await
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
