//! [`FsPersistentStateStore`]: what a chat's agents remember between runs.
//!
//! ```text
//! chats/<ws>/runs/<run>/persist/                    the run's working copy
//! chats/<ws>/runs/<run>/input/persist_snapshot.json the files the run started with
//! chats/<ws>/persistent-states/<state>/manifest.json
//! chats/<ws>/persistent-states/<state>/persist/     immutable full copy (state id = run id)
//! chats/<ws>/persist/                               browsable copy of the newest state
//! ```
//!
//! A run's base state is byte-copied into its `persist/` ([`project`]); a finished run's
//! `persist/` becomes a new state, written under a temp name and renamed into place ([`promote`]),
//! and the chat's browsable copy is swapped to it under a cross-process lock ([`browsable`]).
//! States are full copies, so branches from one base never interfere and deletions are simply
//! files a state no longer has.

mod browsable;
mod manifest;
mod project;
mod promote;
pub(crate) mod tree;

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    CheckpointFile, InputDocument, PersistError, PersistSnapshot, PersistentStateStore,
    PromotedState,
};
use agent_domain::run::AgentRun;
use agent_domain::workspace::{WorkspacePath, WorkspaceRoot};
use async_trait::async_trait;

use crate::layout::{self, DataDir, RunDir};
use crate::runs::store_io::blocking;
use tree::{FileDigest, TreeError};

/// The [`PersistentStateStore`] over a data directory.
#[derive(Debug, Clone)]
pub struct FsPersistentStateStore {
    data: DataDir,
}

impl FsPersistentStateStore {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }
}

#[async_trait]
impl PersistentStateStore for FsPersistentStateStore {
    async fn project_base(&self, run: &AgentRun) -> Result<PersistSnapshot, PersistError> {
        let (data, run) = (self.data.clone(), run.clone());
        blocking(move || project::project_base(&data, &run), PersistError::Io).await
    }

    async fn promote(
        &self,
        run: &AgentRun,
        created_at: &str,
    ) -> Result<PromotedState, PersistError> {
        let (data, run, created_at) = (self.data.clone(), run.clone(), created_at.to_owned());
        blocking(
            move || promote::promote(&data, &run, &created_at),
            PersistError::Io,
        )
        .await
    }
}

/// The run's `persist/` root.
fn run_persist_root(run_dir: &RunDir) -> PathBuf {
    run_dir.persist()
}

/// `input/persist_snapshot.json` of the run.
fn snapshot_file(run_dir: &RunDir) -> PathBuf {
    run_dir.input_file(None, InputDocument::PersistSnapshot)
}

fn state_manifest_file(state_dir: &Path) -> PathBuf {
    layout::persistent_state_manifest(state_dir)
}

/// The folder inside a state that holds its files.
fn state_files_dir(state_dir: &Path) -> PathBuf {
    layout::persistent_state_files(state_dir)
}

fn io_error(path: &Path, err: io::Error) -> PersistError {
    PersistError::Io(format!("{}: {err}", path.display()))
}

/// A tree fault found while handling `what`: unsafe content is an integrity fault.
fn tree_error(what: &str, err: TreeError) -> PersistError {
    match err {
        TreeError::Io { path, source } => io_error(&path, source),
        unsafe_content => PersistError::Integrity(format!("{what}: {unsafe_content}")),
    }
}

/// Creates `dir` if needed and checks that it is a real folder, not a link to one.
fn ensure_real_dir(dir: &Path) -> Result<(), PersistError> {
    fs::create_dir_all(dir).map_err(|err| io_error(dir, err))?;
    let meta = fs::symlink_metadata(dir).map_err(|err| io_error(dir, err))?;
    if meta.is_dir() {
        Ok(())
    } else {
        Err(PersistError::Integrity(format!(
            "{} is not a real folder",
            dir.display()
        )))
    }
}

/// Digests as workspace files under `persist/`.
fn as_persist_files(digests: Vec<FileDigest>) -> Result<Vec<CheckpointFile>, PersistError> {
    let prefix = WorkspacePath::parse(WorkspaceRoot::Persist.as_str())
        .map_err(|err| PersistError::Integrity(err.to_string()))?;
    Ok(digests
        .into_iter()
        .map(|digest| CheckpointFile {
            path: prefix.join(&digest.rel),
            sha256: digest.sha256,
            bytes: digest.bytes,
        })
        .collect())
}
