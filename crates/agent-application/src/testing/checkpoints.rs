//! An in-memory [`CheckpointStore`] over a [`MemoryWorkspace`]: checkpoints `cp_000001`,
//! `cp_000002`, … per run, each listing the files it holds with their hash and size, as
//! the file store records them, and keeping their bytes by hash so `read_file` gives them
//! back. Every file must exist (`NotFound` otherwise, and then no checkpoint is made); a
//! file named twice is held once. [`MemoryCheckpoints::prune`] drops a run's checkpoints
//! and bytes the way retention's slimming does.

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
    runs: Mutex<HashMap<RunId, Held>>,
}

/// One run's checkpoints and the bytes they hold, by SHA-256.
#[derive(Debug, Default)]
struct Held {
    records: Vec<CheckpointRecord>,
    bytes: HashMap<String, Vec<u8>>,
}

impl MemoryCheckpoints {
    /// Checkpoints of the files in `workspace`.
    pub fn new(workspace: Arc<MemoryWorkspace>) -> Self {
        Self {
            workspace,
            runs: Mutex::default(),
        }
    }

    /// Forgets every checkpoint of `run` and its bytes, as slimming the run does.
    pub fn prune(&self, run: &RunId) {
        self.lock().remove(run);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RunId, Held>> {
        self.runs.lock().unwrap_or_else(|p| p.into_inner())
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
        let mut contents = Vec::new();
        for path in files {
            if held.iter().any(|file| file.path == *path) {
                continue;
            }
            let bytes = self
                .workspace
                .get(run, path.as_str())
                .ok_or_else(|| StoreError::NotFound(format!("workspace file {path}")))?;
            let sha256 = fake_sha256_hex(&bytes);
            held.push(CheckpointFile {
                path: path.clone(),
                sha256: sha256.clone(),
                bytes: bytes.len() as u64,
            });
            contents.push((sha256, bytes));
        }
        let mut runs = self.lock();
        let kept = runs.entry(run.clone()).or_default();
        kept.bytes.extend(contents);
        let list = &mut kept.records;
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
        Ok(self
            .lock()
            .get(run)
            .map(|held| held.records.clone())
            .unwrap_or_default())
    }

    async fn read_file(
        &self,
        run: &RunId,
        record: &CheckpointRecord,
        file: &CheckpointFile,
    ) -> Result<Vec<u8>, StoreError> {
        let runs = self.lock();
        let held = runs.get(run).filter(|held| held.records.contains(record));
        let listed = held.filter(|_| record.files.contains(file));
        listed
            .and_then(|held| held.bytes.get(&file.sha256).cloned())
            .ok_or_else(|| {
                StoreError::NotFound(format!("`{}` of checkpoint {}", file.path, record.id))
            })
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
        assert_eq!(
            checkpoints.list(&run).await.unwrap(),
            [first.clone(), second.clone()]
        );
    }

    #[tokio::test]
    async fn keeps_the_bytes_of_each_checkpoint_until_pruned() {
        let workspace = Arc::new(MemoryWorkspace::new());
        let checkpoints = MemoryCheckpoints::new(Arc::clone(&workspace));
        let run = RunId::parse("run_1").unwrap();
        let path = WorkspacePath::parse("output/main.md").unwrap();
        let reason = CheckpointReason::ToolWorkspaceWrite;
        workspace.put(&run, "output/main.md", "first");
        let first = checkpoints
            .create(&run, reason, 4, std::slice::from_ref(&path), "t")
            .await
            .unwrap();
        workspace.put(&run, "output/main.md", "second");
        let second = checkpoints
            .create(&run, reason, 9, std::slice::from_ref(&path), "t")
            .await
            .unwrap();
        let read = |record: CheckpointRecord| {
            let checkpoints = &checkpoints;
            let run = &run;
            async move { checkpoints.read_file(run, &record, &record.files[0]).await }
        };
        assert_eq!(read(first.clone()).await.unwrap(), b"first");
        assert_eq!(read(second).await.unwrap(), b"second");
        checkpoints.prune(&run);
        assert!(checkpoints.list(&run).await.unwrap().is_empty());
        assert!(matches!(read(first).await, Err(StoreError::NotFound(_))));
    }
}
