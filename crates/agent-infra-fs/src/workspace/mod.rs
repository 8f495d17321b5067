//! The run workspace on disk: [`FsWorkspaceStore`] implements the `WorkspaceStore` port,
//! and [`RunLocator`] finds the directory of a run for it and the other run stores.
//!
//! Reachable through the port: the five roots (read and write) and `tool-results/` (read
//! only). Hidden runtime storage (`input/`, `events.jsonl`, `checkpoints/`, …) reads as
//! absent and refuses writes as read-only. Every path is confined to the run directory, and
//! a symbolic link anywhere on it, or a file of a root with a second name (a hard link), is
//! an integrity fault. See `docs/storage/workspace.md`.

mod area;
mod files;
mod locks;
mod walk;

use std::sync::Arc;

use agent_application::ports::{
    EntryKind, Listing, SearchCorpus, WorkspaceError, WorkspaceFile, WorkspaceStore, WriteGuard,
    WriteReceipt,
};
use agent_domain::run::RunId;
use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;

use crate::run_locator::Cost;
pub use crate::run_locator::{LocateError, RunLocator};
pub(crate) use area::Area;
pub(crate) use locks::StripedLocks;

/// The `WorkspaceStore` over run directories. Clones share the per-path write locks; use
/// one store (or clones of it) per data directory so every write takes the same locks.
#[derive(Debug, Clone)]
pub struct FsWorkspaceStore {
    locator: RunLocator,
    locks: Arc<StripedLocks>,
}

impl FsWorkspaceStore {
    pub fn new(locator: RunLocator) -> Self {
        Self {
            locator,
            locks: Arc::new(StripedLocks::new()),
        }
    }
}

#[async_trait]
impl WorkspaceStore for FsWorkspaceStore {
    async fn initialize(&self, run: &RunId) -> Result<(), WorkspaceError> {
        let syncer = self.locator.syncer().clone();
        self.locator
            .with_run_dir(run, Cost::Small, move |dir| {
                files::initialize(&dir, &syncer)
            })
            .await
    }

    async fn read(
        &self,
        run: &RunId,
        path: &WorkspacePath,
    ) -> Result<WorkspaceFile, WorkspaceError> {
        let path = path.clone();
        self.locator
            // A file of any size.
            .with_run_dir(run, Cost::Large, move |dir| files::read(&dir, &path))
            .await
    }

    async fn write(
        &self,
        run: &RunId,
        path: &WorkspacePath,
        text: &str,
        guard: WriteGuard,
    ) -> Result<WriteReceipt, WorkspaceError> {
        let cost = Cost::of_bytes(text.len());
        let (locks, path, text) = (self.locks.clone(), path.clone(), text.to_owned());
        let syncer = self.locator.syncer().clone();
        self.locator
            .with_run_dir(run, cost, move |dir| {
                files::write(&dir, &locks, &syncer, &path, &text, &guard)
            })
            .await
    }

    async fn append(
        &self,
        run: &RunId,
        path: &WorkspacePath,
        text: &str,
    ) -> Result<WriteReceipt, WorkspaceError> {
        // Appending rewrites the whole file, of any size.
        let (locks, path, text) = (self.locks.clone(), path.clone(), text.to_owned());
        let syncer = self.locator.syncer().clone();
        self.locator
            .with_run_dir(run, Cost::Large, move |dir| {
                files::append(&dir, &locks, &syncer, &path, &text)
            })
            .await
    }

    async fn list(
        &self,
        run: &RunId,
        path: Option<&WorkspacePath>,
        depth: u32,
        max_entries: usize,
    ) -> Result<Listing, WorkspaceError> {
        let path = path.cloned();
        self.locator
            .with_run_dir(run, Cost::Large, move |dir| {
                walk::list(&dir, path.as_ref(), depth, max_entries)
            })
            .await
    }

    async fn search_corpus(
        &self,
        run: &RunId,
        paths: &[WorkspacePath],
        max_depth: u32,
        max_files: usize,
    ) -> Result<SearchCorpus, WorkspaceError> {
        let paths = paths.to_vec();
        self.locator
            .with_run_dir(run, Cost::Large, move |dir| {
                walk::search_corpus(&dir, &paths, max_depth, max_files)
            })
            .await
    }

    async fn kind_of(
        &self,
        run: &RunId,
        path: &WorkspacePath,
    ) -> Result<Option<EntryKind>, WorkspaceError> {
        let path = path.clone();
        self.locator
            .with_run_dir(run, Cost::Small, move |dir| files::kind_of(&dir, &path))
            .await
    }
}
