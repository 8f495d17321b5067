//! Finding a run's directory from its id.
//!
//! Ports name runs by [`RunId`] only, but a run lives under its chat's workspace
//! (`chats/<workspace>/runs/<run>/`). The locator remembers the workspace of every run
//! registered in this process and falls back to the run index record
//! (`index/runs/<run>.json`) for runs created earlier, caching what it learns. The first
//! lookup of such a run also sweeps the stale temps out of its folder (`stale.rs`).
//!
//! Every run-scoped store shares one locator per data directory, so it also carries the
//! one thing they must share besides the cache: the [`Syncer`] that applies the durability
//! policy to their writes.

use std::collections::HashMap;
use std::fs;
use std::io;
use std::sync::{Arc, PoisonError, RwLock};

use agent_application::ports::{StoreError, WorkspaceError};
use agent_domain::run::{RunId, WorkspaceId};
use serde::Deserialize;

use crate::durability::{Durability, Syncer};
use crate::layout::{DataDir, RunDir};
pub(crate) use crate::runs::store_io::Cost;
use crate::runs::store_io::run_io;
use crate::stale::sweep_opened_run;

/// Maps run ids to run directories. Cheap to clone; clones share one cache.
#[derive(Debug, Clone)]
pub struct RunLocator {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    data: DataDir,
    known: RwLock<HashMap<RunId, WorkspaceId>>,
    syncer: Syncer,
}

/// The part of the run index record the locator needs.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct IndexEntry {
    id: RunId,
    workspace_id: WorkspaceId,
}

impl RunLocator {
    /// A locator whose stores sync every write before it returns (strict).
    pub fn new(data: DataDir) -> Self {
        Self::with_durability(data, Durability::Strict)
    }

    /// A locator whose stores write under `durability`.
    pub fn with_durability(data: DataDir, durability: Durability) -> Self {
        Self {
            inner: Arc::new(Inner {
                data,
                known: RwLock::new(HashMap::new()),
                syncer: Syncer::new(durability),
            }),
        }
    }

    /// Syncs the writes of every run of this data directory, by its policy.
    pub fn syncer(&self) -> &Syncer {
        &self.inner.syncer
    }

    /// The data directory every located run lives in.
    pub fn data_dir(&self) -> &DataDir {
        &self.inner.data
    }

    /// Records where a run lives, so no index read is needed (call it when a run is created).
    pub fn register(&self, run: &RunId, workspace: &WorkspaceId) {
        self.inner
            .known
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(run.clone(), workspace.clone());
    }

    /// The directory of `run`. Blocking: an unregistered run is looked up in the run index.
    pub fn run_dir(&self, run: &RunId) -> Result<RunDir, LocateError> {
        let workspace = self.workspace_of(run)?;
        Ok(self.inner.data.run_dir(&workspace, run))
    }

    /// The directory of `run` if it is registered or was looked up before; never blocks.
    pub fn known_run_dir(&self, run: &RunId) -> Option<RunDir> {
        let workspace = self.known_workspace(run)?;
        Some(self.inner.data.run_dir(&workspace, run))
    }

    fn known_workspace(&self, run: &RunId) -> Option<WorkspaceId> {
        self.inner
            .known
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(run)
            .cloned()
    }

    fn workspace_of(&self, run: &RunId) -> Result<WorkspaceId, LocateError> {
        if let Some(workspace) = self.known_workspace(run) {
            return Ok(workspace);
        }
        let workspace = self.read_index(run)?;
        // A run of another process, opened here for the first time: what a dead writer of it
        // staged goes now (`stale.rs`); a live writer's temps stay.
        let data = &self.inner.data;
        sweep_opened_run(data, &workspace, &data.run_dir(&workspace, run));
        self.register(run, &workspace);
        Ok(workspace)
    }

    fn read_index(&self, run: &RunId) -> Result<WorkspaceId, LocateError> {
        let file = self.inner.data.run_index_file(run);
        let bad = |detail: String| LocateError::BadIndex {
            run: run.clone(),
            detail,
        };
        let io_failed = |err: io::Error| LocateError::Io {
            run: run.clone(),
            detail: err.to_string(),
        };
        match fs::symlink_metadata(&file) {
            Ok(meta) if meta.is_file() => {}
            Ok(_) => return Err(bad("it is not a regular file".to_owned())),
            Err(err) if err.kind() == io::ErrorKind::NotFound => {
                return Err(LocateError::UnknownRun(run.clone()));
            }
            Err(err) => return Err(io_failed(err)),
        }
        let bytes = fs::read(&file).map_err(io_failed)?;
        let entry: IndexEntry =
            serde_json::from_slice(&bytes).map_err(|err| bad(err.to_string()))?;
        if entry.id != *run {
            return Err(bad(format!("it describes run {}", entry.id)));
        }
        Ok(entry.workspace_id)
    }

    /// Runs file work on the run's directory where its [`Cost`] says (see
    /// [`run_io`]).
    pub(crate) async fn with_run_dir<T, E>(
        &self,
        run: &RunId,
        cost: Cost,
        work: impl FnOnce(RunDir) -> Result<T, E> + Send + 'static,
    ) -> Result<T, E>
    where
        T: Send + 'static,
        E: From<LocateError> + Send + 'static,
    {
        let locator = self.clone();
        let run = run.clone();
        let work = move || work(locator.run_dir(&run)?);
        run_io(cost, self.syncer(), work, |detail| {
            LocateError::WorkerLost(detail).into()
        })
        .await
    }
}

/// Why a run's directory could not be found.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LocateError {
    #[error("run {0} is unknown: it was never registered and has no index record")]
    UnknownRun(RunId),
    #[error("the index record of run {run} is unusable: {detail}")]
    BadIndex { run: RunId, detail: String },
    #[error("reading the index record of run {run}: {detail}")]
    Io { run: RunId, detail: String },
    /// The blocking task doing the file work panicked or was cancelled.
    #[error("file work on a run did not complete: {0}")]
    WorkerLost(String),
}

impl From<LocateError> for StoreError {
    fn from(err: LocateError) -> Self {
        match err {
            LocateError::UnknownRun(run) => Self::NotFound(format!("run {run}")),
            LocateError::BadIndex { .. } => Self::Integrity(err.to_string()),
            LocateError::Io { .. } | LocateError::WorkerLost(_) => Self::Io(err.to_string()),
        }
    }
}

/// A workspace of an unknown run is a runtime fault, never the model's: it is fatal.
impl From<LocateError> for WorkspaceError {
    fn from(err: LocateError) -> Self {
        match err {
            LocateError::UnknownRun(_) => Self::RunNotFound(err.to_string()),
            LocateError::BadIndex { .. } => Self::Integrity(err.to_string()),
            LocateError::Io { .. } | LocateError::WorkerLost(_) => Self::Io(err.to_string()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids() -> (RunId, WorkspaceId) {
        (
            RunId::parse("run_1").unwrap(),
            WorkspaceId::parse("chat_1").unwrap(),
        )
    }

    #[test]
    fn registered_runs_need_no_index() {
        let dir = tempfile::tempdir().unwrap();
        let locator = RunLocator::new(DataDir::new(dir.path()));
        let (run, ws) = ids();
        locator.register(&run, &ws);
        assert_eq!(
            locator.run_dir(&run).unwrap(),
            locator.data_dir().run_dir(&ws, &run)
        );
    }

    #[test]
    fn unregistered_runs_are_read_from_the_index_and_cached() {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        let (run, ws) = ids();
        let index = data.run_index_file(&run);
        fs::create_dir_all(index.parent().unwrap()).unwrap();
        fs::write(
            &index,
            r#"{"id":"run_1","workspaceId":"chat_1","status":"created"}"#,
        )
        .unwrap();
        let locator = RunLocator::new(data.clone());
        assert_eq!(locator.run_dir(&run).unwrap(), data.run_dir(&ws, &run));
        fs::remove_file(&index).unwrap();
        assert_eq!(
            locator.clone().run_dir(&run).unwrap(),
            data.run_dir(&ws, &run)
        );
    }

    #[test]
    fn missing_or_bad_index_records_are_reported() {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        let locator = RunLocator::new(data.clone());
        let (run, _) = ids();
        let err = locator.run_dir(&run).unwrap_err();
        assert_eq!(err, LocateError::UnknownRun(run.clone()));
        assert!(matches!(StoreError::from(err), StoreError::NotFound(_)));

        let index = data.run_index_file(&run);
        fs::create_dir_all(index.parent().unwrap()).unwrap();
        for bad in [
            "{not json",
            r#"{"id":"run_2","workspaceId":"chat_1"}"#,
            r#"{"id":"run_1","workspaceId":"../x"}"#,
        ] {
            fs::write(&index, bad).unwrap();
            let err = locator.run_dir(&run).unwrap_err();
            assert!(matches!(err, LocateError::BadIndex { .. }), "{bad}: {err}");
            assert!(WorkspaceError::from(err).is_fatal());
        }
    }
}
