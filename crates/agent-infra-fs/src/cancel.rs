//! [`FsCancelRequests`]: cancellation requests between processes, as a create-only marker
//! file `cancel-requested` in the run's directory.
//!
//! The process driving a run holds its journal; another process cannot append to it, so it
//! leaves this marker and the owning driver, which polls for it, journals the cancellation.
//! The marker is removed when the run ends.

use std::fs;
use std::io;

use agent_application::ports::{CancelRequests, StoreError};
use agent_domain::run::RunId;
use async_trait::async_trait;

use crate::atomic::write_create_only;
use crate::layout::RunDir;
use crate::run_locator::{Cost, RunLocator};
use crate::runs::store_io::{integrity, io_error};

/// Name of the marker file inside the run directory.
pub const CANCEL_REQUEST_FILE: &str = "cancel-requested";

/// The [`CancelRequests`] port over run directories.
#[derive(Debug, Clone)]
pub struct FsCancelRequests {
    locator: RunLocator,
}

impl FsCancelRequests {
    pub fn new(locator: RunLocator) -> Self {
        Self { locator }
    }
}

fn marker(dir: &RunDir) -> std::path::PathBuf {
    dir.cancel_request()
}

fn request_blocking(dir: &RunDir) -> Result<(), StoreError> {
    let path = marker(dir);
    match fs::symlink_metadata(dir.path()) {
        Ok(meta) if meta.is_dir() => {}
        Ok(_) => return Err(integrity(dir.path(), "is not a run directory")),
        Err(err) => return Err(io_error(dir.path(), err)),
    }
    match write_create_only(&path, b"cancel requested\n") {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::AlreadyExists => Ok(()),
        Err(err) => Err(io_error(&path, err)),
    }
}

fn is_requested_blocking(dir: &RunDir) -> Result<bool, StoreError> {
    let path = marker(dir);
    match fs::symlink_metadata(&path) {
        Ok(meta) if meta.is_file() => Ok(true),
        Ok(_) => Err(integrity(&path, "is not a regular file")),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(io_error(&path, err)),
    }
}

fn clear_blocking(dir: &RunDir) -> Result<(), StoreError> {
    let path = marker(dir);
    match fs::remove_file(&path) {
        Ok(()) => Ok(()),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(()),
        Err(err) => Err(io_error(&path, err)),
    }
}

#[async_trait]
impl CancelRequests for FsCancelRequests {
    async fn request(&self, run: &RunId) -> Result<(), StoreError> {
        self.locator
            .with_run_dir(run, Cost::Small, |dir| request_blocking(&dir))
            .await
    }

    async fn is_requested(&self, run: &RunId) -> Result<bool, StoreError> {
        self.locator
            .with_run_dir(run, Cost::Small, |dir| is_requested_blocking(&dir))
            .await
    }

    async fn clear(&self, run: &RunId) -> Result<(), StoreError> {
        self.locator
            .with_run_dir(run, Cost::Small, |dir| clear_blocking(&dir))
            .await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::DataDir;
    use agent_domain::run::WorkspaceId;

    #[tokio::test]
    async fn requests_are_idempotent_and_cleared() {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        let locator = RunLocator::new(data.clone());
        let run = RunId::parse("run_1").unwrap();
        let ws = WorkspaceId::parse("chat_1").unwrap();
        locator.register(&run, &ws);
        let requests = FsCancelRequests::new(locator);
        // No run directory yet: a request cannot be left.
        assert!(requests.request(&run).await.is_err());
        assert!(!requests.is_requested(&run).await.unwrap());
        fs::create_dir_all(data.run_dir(&ws, &run).path()).unwrap();
        requests.request(&run).await.unwrap();
        requests.request(&run).await.unwrap();
        assert!(requests.is_requested(&run).await.unwrap());
        requests.clear(&run).await.unwrap();
        requests.clear(&run).await.unwrap();
        assert!(!requests.is_requested(&run).await.unwrap());
    }
}
