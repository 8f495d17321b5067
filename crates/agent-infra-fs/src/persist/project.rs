//! Projecting a run's base state into its `persist/` root.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{PersistError, PersistSnapshot};
use agent_domain::run::{AgentRun, StateId};
use serde_json::Value;

use super::manifest::{MANIFEST_VERSION, StateManifest};
use super::tree::{copy_tree, digest_files};
use super::{
    as_persist_files, ensure_real_dir, io_error, run_persist_root, snapshot_file, state_files_dir,
    state_manifest_file, tree_error,
};
use crate::atomic::{pretty_json, write_create_only};
use crate::layout::DataDir;

/// Creates the run's `persist/`, copies the base state into it (if the run has one), and
/// records the starting files create-only in `input/persist_snapshot.json`. A run is
/// projected once: an existing snapshot is an integrity fault and nothing is copied.
pub(crate) fn project_base(
    data: &DataDir,
    run: &AgentRun,
) -> Result<PersistSnapshot, PersistError> {
    let run_dir = data.run_dir(&run.workspace_id, &run.id);
    let snapshot_path = snapshot_file(&run_dir);
    if fs::symlink_metadata(&snapshot_path).is_ok() {
        return Err(already_projected(run, &snapshot_path));
    }
    let root = run_persist_root(&run_dir);
    ensure_real_dir(&root)?;
    if let Some(base) = &run.persist_base_state_id
        && let Some(files) = open_base(data, run, base)?
    {
        copy_tree(&files, &root)
            .map_err(|err| tree_error(&format!("persistent state {base}"), err))?;
    }
    let digests =
        digest_files(&root).map_err(|err| tree_error(&format!("run {} persist/", run.id), err))?;
    let snapshot = PersistSnapshot {
        base_state_id: run.persist_base_state_id.clone(),
        files: as_persist_files(digests)?,
    };
    let bytes = pretty_json(&snapshot).map_err(|err| io_error(&snapshot_path, err))?;
    write_create_only(&snapshot_path, &bytes).map_err(|err| match err.kind() {
        io::ErrorKind::AlreadyExists => already_projected(run, &snapshot_path),
        _ => io_error(&snapshot_path, err),
    })?;
    Ok(snapshot)
}

fn already_projected(run: &AgentRun, snapshot: &Path) -> PersistError {
    PersistError::Integrity(format!(
        "run {} already has a persist snapshot at {}",
        run.id,
        snapshot.display()
    ))
}

/// Checks the base state and returns the folder of its files; `None` when the state has no
/// files folder and its manifest lists no files (a state of an empty `persist/`).
fn open_base(
    data: &DataDir,
    run: &AgentRun,
    base: &StateId,
) -> Result<Option<PathBuf>, PersistError> {
    let state_dir = data.persistent_state(&run.workspace_id, base);
    let invalid = |detail: &str| PersistError::Invalid {
        state: base.to_string(),
        detail: detail.to_owned(),
    };
    match fs::symlink_metadata(&state_dir) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Err(PersistError::NotFound(base.to_string()));
        }
        Err(err) => return Err(io_error(&state_dir, err)),
        Ok(meta) if !meta.is_dir() => return Err(invalid("it is not a real folder")),
        Ok(_) => {}
    }
    let manifest = read_manifest(&state_dir, base)?;
    if manifest.workspace_id != run.workspace_id {
        return Err(PersistError::WorkspaceMismatch {
            state: base.to_string(),
            found: manifest.workspace_id.to_string(),
        });
    }
    let files = state_files_dir(&state_dir);
    match fs::symlink_metadata(&files) {
        Err(err) if err.kind() == io::ErrorKind::NotFound && manifest.files.is_empty() => Ok(None),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Err(invalid(
            "its persist/ folder is missing but the manifest lists files",
        )),
        Err(err) => Err(io_error(&files, err)),
        Ok(meta) if meta.file_type().is_symlink() => Err(PersistError::Integrity(format!(
            "persistent state {base}: persist/ is a symbolic link"
        ))),
        Ok(meta) if !meta.is_dir() => Err(invalid("its persist/ is not a folder")),
        Ok(_) => Ok(Some(files)),
    }
}

/// The state's manifest, checked: version 1 and naming this state.
fn read_manifest(state_dir: &Path, state: &StateId) -> Result<StateManifest, PersistError> {
    let path = state_manifest_file(state_dir);
    let invalid = |detail: String| PersistError::Invalid {
        state: state.to_string(),
        detail,
    };
    match fs::symlink_metadata(&path) {
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Err(invalid("manifest.json is missing".into()));
        }
        Err(err) => return Err(io_error(&path, err)),
        Ok(meta) if meta.file_type().is_symlink() => {
            return Err(PersistError::Integrity(format!(
                "persistent state {state}: manifest.json is a symbolic link"
            )));
        }
        Ok(meta) if !meta.is_file() => return Err(invalid("manifest.json is not a file".into())),
        Ok(_) => {}
    }
    let bytes = fs::read(&path).map_err(|err| io_error(&path, err))?;
    let value: Value = serde_json::from_slice(&bytes)
        .map_err(|err| invalid(format!("manifest.json is not JSON: {err}")))?;
    let version = value
        .get("version")
        .and_then(Value::as_u64)
        .ok_or_else(|| invalid("manifest.json has no numeric version".into()))?;
    if version != MANIFEST_VERSION {
        return Err(PersistError::VersionUnsupported {
            state: state.to_string(),
            version,
        });
    }
    let manifest: StateManifest =
        serde_json::from_value(value).map_err(|err| invalid(format!("manifest.json: {err}")))?;
    if manifest.state_id != *state {
        return Err(PersistError::ManifestMismatch {
            state: state.to_string(),
            found: manifest.state_id.to_string(),
        });
    }
    Ok(manifest)
}
