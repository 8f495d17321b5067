//! What retention needs from storage beyond the run store and the journal: the files of a
//! run, whether a process holds it, a lock that keeps run starts out while maintenance runs,
//! and the two changes a prune makes.

use std::any::Any;

use agent_domain::retention::StoredFile;
use agent_domain::run::AgentRun;
use async_trait::async_trait;

use super::StoreError;

/// A held maintenance lock of a data directory; dropping it lets run starts through again.
pub struct MaintenanceGuard {
    _held: Box<dyn Any + Send + Sync>,
}

impl MaintenanceGuard {
    /// A guard keeping `held` (an adapter's lock handle) alive.
    pub fn new(held: impl Any + Send + Sync) -> Self {
        Self {
            _held: Box::new(held),
        }
    }
}

impl std::fmt::Debug for MaintenanceGuard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("MaintenanceGuard")
    }
}

/// What a run's storage holds right now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunStorage {
    /// Every file of the run (its folder, index record and summary), or why they could
    /// not be listed (a symlink, an unreadable folder).
    pub files: Result<Vec<StoredFile>, String>,
    /// Whether a process holds the run's journal (drives it, or rolls it back).
    pub active: bool,
}

/// The data directory's maintenance lock, which prunes and chat deletions share.
#[async_trait]
pub trait MaintenanceLock: Send + Sync {
    /// Waits for, then holds, the data directory's maintenance lock, across processes: no
    /// run is created in the data directory while it is held, and no other maintenance
    /// (prune, chat deletion) runs.
    async fn lock_maintenance(&self) -> Result<MaintenanceGuard, StoreError>;
}

#[async_trait]
pub trait RunRetentionStore: MaintenanceLock {
    /// The files of `run` and whether a process holds it.
    async fn inspect_run(&self, run: &AgentRun) -> Result<RunStorage, StoreError>;

    /// Removes `paths` (relative to the run's folder) and the folders they leave empty,
    /// holding the run's journal so no process can take it meanwhile. A run a process
    /// holds is [`StoreError::Locked`] and left as it is.
    async fn slim_run(&self, run: &AgentRun, paths: &[String]) -> Result<(), StoreError>;

    /// Removes the run: its index record and summary, then its folder, holding its journal
    /// meanwhile. A run a process holds is [`StoreError::Locked`] and left as it is.
    async fn delete_run(&self, run: &AgentRun) -> Result<(), StoreError>;
}
