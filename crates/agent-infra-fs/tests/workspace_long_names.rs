#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! File names up to the 255-byte limit are written, appended, read, listed and checkpointed
//! like any other; a longer one never reaches the store (the path parser refuses it).

mod workspace_support;

use agent_application::ports::{CheckpointStore, EntryKind, WorkspaceStore, WriteGuard};
use agent_domain::ErrorCode;
use agent_domain::event::CheckpointReason;
use agent_domain::workspace::{MAX_SEGMENT_BYTES, WorkspacePath};
use agent_infra_fs::checkpoint::FsCheckpointStore;
use agent_infra_fs::workspace::FsWorkspaceStore;
use workspace_support::test_run;

/// A name of exactly `bytes` bytes ending in `.md`.
fn name_of(bytes: usize) -> String {
    format!("{}.md", "n".repeat(bytes - 3))
}

#[tokio::test]
async fn names_up_to_255_bytes_work_with_every_operation() {
    let run = test_run();
    let store = FsWorkspaceStore::new(run.locator.clone());
    store.initialize(&run.run).await.unwrap();
    let checkpoints = FsCheckpointStore::new(run.locator.clone());
    for bytes in [218, 250, MAX_SEGMENT_BYTES] {
        let name = name_of(bytes);
        assert_eq!(name.len(), bytes);
        let path = WorkspacePath::parse(&format!("output/{name}")).unwrap();
        store
            .write(&run.run, &path, "one", WriteGuard::MustNotExist)
            .await
            .unwrap();
        store.append(&run.run, &path, " two").await.unwrap();
        assert_eq!(store.read(&run.run, &path).await.unwrap().text, "one two");
        assert_eq!(
            store.kind_of(&run.run, &path).await.unwrap(),
            Some(EntryKind::File)
        );
        // As a folder name too.
        let nested = WorkspacePath::parse(&format!("scratch/{name}/{name}")).unwrap();
        store
            .write(&run.run, &nested, "deep", WriteGuard::Unchecked)
            .await
            .unwrap();
        let record = checkpoints
            .create(
                &run.run,
                CheckpointReason::ToolWorkspaceWrite,
                1,
                &[path.clone(), nested.clone()],
                "2026-01-01T00:00:00.000Z",
            )
            .await
            .unwrap();
        assert_eq!(record.files.len(), 2);
        let kept = checkpoints
            .read_file(&run.run, &record, &record.files[0])
            .await
            .unwrap();
        assert_eq!(kept, b"one two");
        assert!(run.run_dir.join("output").join(&name).is_file());
    }
    let listed = store
        .list(
            &run.run,
            WorkspacePath::parse("output").ok().as_ref(),
            1,
            10,
        )
        .await
        .unwrap();
    assert_eq!(listed.entries.len(), 3, "no temp file is left beside them");
}

#[test]
fn a_name_of_256_bytes_is_an_invalid_path_that_states_the_limit() {
    let err = WorkspacePath::parse(&format!("output/{}", name_of(256))).unwrap_err();
    assert_eq!(err.code(), "workspace.invalid_path");
    let message = err.to_string();
    assert!(message.contains("256 bytes"), "{message}");
    assert!(message.contains("at most 255 bytes"), "{message}");
}
