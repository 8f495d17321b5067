//! Promoting a finished run's `persist/` into a new immutable state, then refreshing the
//! chat's browsable copy.

use std::fs;
use std::io;
use std::path::Path;

use agent_application::ports::{PersistError, PersistSnapshot, PromotedState};
use agent_domain::run::{AgentRun, StateId};

use super::browsable::{self, Shown};
use super::manifest::{MANIFEST_VERSION, StateManifest, diff};
use super::tree::copy_tree;
use super::{
    as_persist_files, io_error, run_persist_root, snapshot_file, state_files_dir,
    state_manifest_file, tree_error,
};
use crate::atomic::{pretty_json, sync_dir, temp_path_for, write_atomic};
use crate::layout::DataDir;

/// Writes the run's `persist/` as state `<run id>`: files and manifest go into
/// `persistent-states/.tmp-<writer>-<uuid>`, which is renamed into place only when complete. A state
/// is written even when nothing changed. Then the chat's browsable copy is refreshed; if
/// that fails, the state stands and the failure is handed back in the result.
pub(crate) fn promote(
    data: &DataDir,
    run: &AgentRun,
    created_at: &str,
) -> Result<PromotedState, PersistError> {
    let state_id = StateId::of_run(&run.id);
    let state_dir = data.persistent_state(&run.workspace_id, &state_id);
    if fs::symlink_metadata(&state_dir).is_ok() {
        return Err(PersistError::AlreadyExists(state_id.to_string()));
    }
    let snapshot = read_snapshot(data, run)?;
    let states = data.persistent_states(&run.workspace_id);
    fs::create_dir_all(&states).map_err(|err| io_error(&states, err))?;
    let staged = temp_path_for(&state_dir);
    fs::create_dir(&staged).map_err(|err| io_error(&staged, err))?;
    let written = write_state(data, run, &snapshot, &staged, created_at)
        .and_then(|manifest| rename_into_place(&staged, &state_dir, &state_id).map(|()| manifest));
    let manifest = written.inspect_err(|_| {
        let _ = fs::remove_dir_all(&staged);
    })?;
    sync_dir(&states);
    let shown = Shown {
        state_id: state_id.clone(),
        created_at: manifest.created_at,
    };
    let browsable_copy_error = browsable::refresh(data, &run.workspace_id, shown)
        .err()
        .map(|err| err.to_string());
    Ok(PromotedState {
        state_id,
        base_state_id: manifest.base_state_id,
        changes: manifest.changes,
        browsable_copy_error,
    })
}

/// The run's starting files, which must come from the base the run names.
fn read_snapshot(data: &DataDir, run: &AgentRun) -> Result<PersistSnapshot, PersistError> {
    let path = snapshot_file(&data.run_dir(&run.workspace_id, &run.id));
    let unusable = |detail: String| {
        PersistError::Integrity(format!("run {}: {}: {detail}", run.id, path.display()))
    };
    let bytes = match fs::read(&path) {
        Ok(bytes) => bytes,
        Err(err) if err.kind() == io::ErrorKind::NotFound => {
            return Err(unusable("missing; the base was never projected".into()));
        }
        Err(err) => return Err(io_error(&path, err)),
    };
    let snapshot: PersistSnapshot =
        serde_json::from_slice(&bytes).map_err(|err| unusable(err.to_string()))?;
    if snapshot.base_state_id != run.persist_base_state_id {
        return Err(unusable(format!(
            "taken from base {:?}, but the run names {:?}",
            snapshot.base_state_id, run.persist_base_state_id
        )));
    }
    Ok(snapshot)
}

/// Copies the run's files into `staged/persist/` and writes the manifest beside them.
fn write_state(
    data: &DataDir,
    run: &AgentRun,
    snapshot: &PersistSnapshot,
    staged: &Path,
    created_at: &str,
) -> Result<StateManifest, PersistError> {
    let root = run_persist_root(&data.run_dir(&run.workspace_id, &run.id));
    match fs::symlink_metadata(&root) {
        Ok(meta) if meta.is_dir() => {}
        _ => {
            return Err(PersistError::Integrity(format!(
                "run {}: {} is not a real folder",
                run.id,
                root.display()
            )));
        }
    }
    let copied = copy_tree(&root, &state_files_dir(staged))
        .map_err(|err| tree_error(&format!("run {} persist/", run.id), err))?;
    let files = as_persist_files(copied)?;
    let manifest = StateManifest {
        version: MANIFEST_VERSION,
        state_id: StateId::of_run(&run.id),
        run_id: run.id.clone(),
        workspace_id: run.workspace_id.clone(),
        stable_chat_id: run.stable_chat_id.clone(),
        base_state_id: run.persist_base_state_id.clone(),
        created_at: created_at.to_owned(),
        changes: diff(&snapshot.files, &files),
        files,
    };
    let path = state_manifest_file(staged);
    let bytes = pretty_json(&manifest).map_err(|err| io_error(&path, err))?;
    write_atomic(&path, &bytes).map_err(|err| io_error(&path, err))?;
    Ok(manifest)
}

fn rename_into_place(staged: &Path, state_dir: &Path, state: &StateId) -> Result<(), PersistError> {
    fs::rename(staged, state_dir).map_err(|err| {
        if fs::symlink_metadata(state_dir).is_ok() {
            PersistError::AlreadyExists(state.to_string())
        } else {
            io_error(state_dir, err)
        }
    })
}
