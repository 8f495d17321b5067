//! An in-memory [`CheckpointStore`] over a [`MemoryWorkspace`]: checkpoints `cp_000001`,
//! `cp_000002`, … per run, each listing the files it holds with their hash and size, as
//! the file store records them. Every file must exist (`NotFound` otherwise, and then no
//! checkpoint is made); a file named twice is held once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use agent_domain::event::CheckpointReason;
use agent_domain::run::RunId;
use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;

use super::{MemoryWorkspace, fake_sha256_hex};
use crate::ports::{CheckpointFile, CheckpointRecord, CheckpointStore, StoreError};

/// Checkpoints of every run, in memory.
#[derive(Debug)]
pub struct MemoryCheckpoints {
    workspace: Arc<MemoryWorkspace>,
    records: Mutex<HashMap<RunId, Vec<CheckpointRecord>>>,
}

impl MemoryCheckpoints {
    /// Checkpoints of the files in `workspace`.
    pub fn new(workspace: Arc<MemoryWorkspace>) -> Self {
        Self {
            workspace,
            records: Mutex::default(),
        }
    }
}

#[async_trait]
impl CheckpointStore for MemoryCheckpoints {
    async fn create(
        &self,
        run: &RunId,
        reason: CheckpointReason,
        event_seq: u64,
        files: &[WorkspacePath],
        created_at: &str,
    ) -> Result<CheckpointRecord, StoreError> {
        let mut held: Vec<CheckpointFile> = Vec::new();
        for path in files {
            if held.iter().any(|file| file.path == *path) {
                continue;
            }
            let bytes = self
                .workspace
                .get(run, path.as_str())
                .ok_or_else(|| StoreError::NotFound(format!("workspace file {path}")))?;
            held.push(CheckpointFile {
                path: path.clone(),
                sha256: fake_sha256_hex(&bytes),
                bytes: bytes.len() as u64,
            });
        }
        let mut records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        let list = records.entry(run.clone()).or_default();
        let seq = list.len() as u64 + 1;
        let record = CheckpointRecord {
            id: format!("cp_{seq:06}"),
            seq,
            run_id: run.clone(),
            created_at: created_at.to_owned(),
            reason,
            event_seq,
            files: held,
        };
        list.push(record.clone());
        Ok(record)
    }

    async fn list(&self, run: &RunId) -> Result<Vec<CheckpointRecord>, StoreError> {
        let records = self.records.lock().unwrap_or_else(|p| p.into_inner());
        Ok(records.get(run).cloned().unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn numbers_checkpoints_and_needs_the_files() {
        let workspace = Arc::new(MemoryWorkspace::new());
        let checkpoints = MemoryCheckpoints::new(Arc::clone(&workspace));
        let run = RunId::parse("run_1").unwrap();
        let path = WorkspacePath::parse("output/main.md").unwrap();
        let reason = CheckpointReason::ChatCommit;
        let missing = checkpoints
            .create(&run, reason, 3, std::slice::from_ref(&path), "t")
            .await;
        assert!(matches!(missing, Err(StoreError::NotFound(_))));
        workspace.put(&run, "output/main.md", "Hello");
        let first = checkpoints
            .create(&run, reason, 3, &[path.clone(), path.clone()], "t")
            .await
            .unwrap();
        assert_eq!((first.id.as_str(), first.event_seq), ("cp_000001", 3));
        assert_eq!(first.files.len(), 1);
        assert_eq!(first.files[0].bytes, 5);
        let second = checkpoints
            .create(&run, reason, 9, &[path], "t")
            .await
            .unwrap();
        assert_eq!(second.id, "cp_000002");
        assert_eq!(checkpoints.list(&run).await.unwrap(), [first, second]);
    }
}
