//! The chat's browsable `persist/`: a copy of its newest persistent state, for people.
//!
//! Runs of one chat may finish at the same moment, in one process or several, and each
//! refreshes this copy. So a refresh holds an OS lock on `chats/<ws>/.persist.lock` from start
//! to end, and is idempotent: the lock holder first removes what interrupted refreshes left
//! (`.persist.tmp-*`, `.persist.old-*`: nobody else can be writing them), then compares the
//! state the copy shows (noted in `.persist.state.json`) with the one it was asked for, and
//! rebuilds the copy from the newer of the two unless the copy already shows it. Newer means a
//! later `createdAt`, then the larger state id, so racing refreshes agree on the result
//! whatever order they take the lock in.
//!
//! Nothing reads the copy back (a run's base comes from the chat message), so a refresh that
//! fails costs nothing but a stale copy: the caller reports it and goes on.

use std::fs::{self, File};
use std::path::Path;

use agent_application::ports::PersistError;
use agent_domain::run::{StateId, WorkspaceId};
use serde::{Deserialize, Serialize};

use super::tree::{copy_tree, sibling_path, swap_dir};
use super::{io_error, state_files_dir, tree_error};
use crate::atomic::{pretty_json, write_atomic};
use crate::layout::DataDir;

/// Held while a refresh runs; never removed.
const LOCK_FILE: &str = ".persist.lock";
/// Which state the copy shows.
const NOTE_FILE: &str = ".persist.state.json";
/// What a refresh builds, and where it parks the copy it replaces.
const STAGED: &str = "tmp";
const PARKED: &str = "old";

/// A state, with what orders it among the others.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct Shown {
    pub state_id: StateId,
    pub created_at: String,
}

impl Shown {
    fn is_newer_than(&self, other: &Shown) -> bool {
        (&self.created_at, &self.state_id) > (&other.created_at, &other.state_id)
    }
}

/// Makes `chats/<ws>/persist/` show the newer of `wanted` and what it shows now.
pub(super) fn refresh(
    data: &DataDir,
    workspace: &WorkspaceId,
    wanted: Shown,
) -> Result<(), PersistError> {
    let chat_dir = data.chat_workspace(workspace);
    let lock_path = chat_dir.join(LOCK_FILE);
    let lock = File::options()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&lock_path)
        .map_err(|err| io_error(&lock_path, err))?;
    lock.lock().map_err(|err| io_error(&lock_path, err))?;
    remove_leftovers(&chat_dir);
    let target = data.chat_persist(workspace);
    let note_path = chat_dir.join(NOTE_FILE);
    let shown = read_note(&note_path);
    let newest = match shown {
        Some(ref shown) if shown.is_newer_than(&wanted) => shown.clone(),
        _ => wanted,
    };
    let in_place = fs::symlink_metadata(&target).is_ok_and(|meta| meta.is_dir());
    if in_place && shown.as_ref() == Some(&newest) {
        return Ok(());
    }
    let state_dir = data.persistent_state(workspace, &newest.state_id);
    let staged = sibling_path(&target, STAGED);
    copy_tree(&state_files_dir(&state_dir), &staged)
        .map_err(|err| tree_error("chat persist copy", err))
        .and_then(|_| {
            swap_dir(&staged, &target, &sibling_path(&target, PARKED))
                .map_err(|err| io_error(&target, err))
        })
        .inspect_err(|_| {
            let _ = fs::remove_dir_all(&staged);
        })?;
    let note = pretty_json(&newest).map_err(|err| io_error(&note_path, err))?;
    write_atomic(&note_path, &note).map_err(|err| io_error(&note_path, err))
}

/// The state the copy shows; `None` when the note is missing or unreadable (the copy is
/// then rebuilt).
fn read_note(path: &Path) -> Option<Shown> {
    let bytes = fs::read(path).ok()?;
    serde_json::from_slice(&bytes).ok()
}

/// Removes the staged and parked folders of refreshes that were interrupted. Only called
/// under the lock, so none of them is being written. Best effort: one that cannot be
/// removed now is tried again by the next refresh.
fn remove_leftovers(chat_dir: &Path) {
    let Ok(entries) = fs::read_dir(chat_dir) else {
        return;
    };
    let prefixes = [format!(".persist.{STAGED}-"), format!(".persist.{PARKED}-")];
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else {
            continue;
        };
        if prefixes
            .iter()
            .any(|prefix| name.starts_with(prefix.as_str()))
        {
            let path = entry.path();
            let _ = match entry.file_type() {
                Ok(kind) if kind.is_dir() => fs::remove_dir_all(&path),
                _ => fs::remove_file(&path),
            };
        }
    }
}
