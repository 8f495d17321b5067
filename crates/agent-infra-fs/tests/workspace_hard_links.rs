#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! A hard link planted in a workspace root is refused like a symbolic link, by every
//! operation that would read or replace it; `tool-results/` (the runtime's own) is exempt.
#![cfg(unix)]

mod workspace_support;

use std::fs;

use agent_application::ports::{WorkspaceError, WorkspaceStore, WriteGuard};
use agent_domain::ErrorCode;
use agent_infra_fs::workspace::FsWorkspaceStore;
use workspace_support::{test_run, wp};

fn assert_refused<T: std::fmt::Debug>(result: Result<T, WorkspaceError>, what: &str) {
    let err = result.unwrap_err();
    assert!(
        matches!(err, WorkspaceError::Integrity(_)),
        "{what}: {err:?}"
    );
    assert_eq!(err.code(), "workspace.integrity_violation", "{what}");
    assert!(err.to_string().contains("hard link"), "{what}: {err}");
}

#[tokio::test]
async fn a_hard_link_in_a_root_is_an_integrity_fault_for_every_operation() {
    let run = test_run();
    let store = FsWorkspaceStore::new(run.locator.clone());
    store.initialize(&run.run).await.unwrap();
    // A file outside the run, on the same file system, linked into `output/`.
    let outside = run.run_dir.parent().unwrap().join("secret.txt");
    fs::write(&outside, "secret").unwrap();
    fs::hard_link(&outside, run.run_dir.join("output/leak.md")).unwrap();
    let leak = wp("output/leak.md");

    assert_refused(store.read(&run.run, &leak).await, "read");
    assert_refused(store.kind_of(&run.run, &leak).await, "kind_of");
    assert_refused(
        store
            .write(&run.run, &leak, "changed", WriteGuard::Unchecked)
            .await,
        "write",
    );
    assert_refused(store.append(&run.run, &leak, " more").await, "append");
    assert_refused(
        store.list(&run.run, Some(&wp("output")), 1, 10).await,
        "list",
    );
    assert_refused(
        store.search_corpus(&run.run, &[wp("output")], 2, 10).await,
        "search",
    );
    assert_eq!(fs::read_to_string(&outside).unwrap(), "secret");

    // Two names inside the workspace for one file are refused as well, under either name.
    fs::remove_file(run.run_dir.join("output/leak.md")).unwrap();
    store
        .write(&run.run, &wp("scratch/a.md"), "a", WriteGuard::Unchecked)
        .await
        .unwrap();
    fs::hard_link(
        run.run_dir.join("scratch/a.md"),
        run.run_dir.join("plan/b.md"),
    )
    .unwrap();
    assert_refused(
        store.read(&run.run, &wp("scratch/a.md")).await,
        "first name",
    );
    assert_refused(store.read(&run.run, &wp("plan/b.md")).await, "second name");
    // Once the other name is gone, the file is an ordinary file again.
    fs::remove_file(run.run_dir.join("plan/b.md")).unwrap();
    assert_eq!(
        store
            .read(&run.run, &wp("scratch/a.md"))
            .await
            .unwrap()
            .text,
        "a"
    );
}

#[tokio::test]
async fn tool_results_may_share_their_content() {
    let run = test_run();
    let store = FsWorkspaceStore::new(run.locator.clone());
    store.initialize(&run.run).await.unwrap();
    let result = run.run_dir.join("tool-results/call_0123456789abcdef.json");
    fs::write(&result, "{}\n").unwrap();
    fs::hard_link(&result, run.run_dir.join("shared-content")).unwrap();
    let read = store
        .read(&run.run, &wp("tool-results/call_0123456789abcdef.json"))
        .await
        .unwrap();
    assert_eq!(read.text, "{}\n");
}

/// A large file the runtime checkpointed shares its bytes with its blob: the second name
/// is the runtime's own, so every operation accepts it, and replacing the file leaves the
/// checkpoint's bytes intact.
#[tokio::test]
async fn a_large_file_shares_its_bytes_with_its_own_blob_only() {
    use std::os::unix::fs::MetadataExt;

    use agent_application::ports::CheckpointStore;
    use agent_domain::event::CheckpointReason;
    use agent_infra_fs::checkpoint::FsCheckpointStore;
    use agent_infra_fs::digest::sha256_hex;

    let run = test_run();
    let store = FsWorkspaceStore::new(run.locator.clone());
    store.initialize(&run.run).await.unwrap();
    let checkpoints = FsCheckpointStore::new(run.locator.clone());
    let big = "The keeper climbs the hundred steps.\n".repeat(4000);
    let path = wp("output/big.md");
    store
        .write(&run.run, &path, &big, WriteGuard::Unchecked)
        .await
        .unwrap();
    let checkpoint = checkpoints
        .create(
            &run.run,
            CheckpointReason::ToolWorkspaceWrite,
            1,
            std::slice::from_ref(&path),
            "2026-01-01T00:00:00.000Z",
        )
        .await
        .unwrap();
    let sha = sha256_hex(big.as_bytes());
    assert_eq!(checkpoint.files[0].sha256, sha);
    let blob = run
        .run_dir
        .join(format!("blobs/sha256/{}/{sha}", &sha[..2]));
    let file = run.run_dir.join("output/big.md");
    assert_eq!(
        fs::metadata(&blob).unwrap().ino(),
        fs::metadata(&file).unwrap().ino()
    );
    assert_eq!(fs::metadata(&file).unwrap().nlink(), 2);
    let blobs_dir = run.run_dir.join("blobs/sha256");
    assert!(
        fs::read_dir(&blobs_dir)
            .unwrap()
            .all(|entry| entry.unwrap().file_type().unwrap().is_dir()),
        "no temp name is left beside the blob folders"
    );

    // Every operation takes the shared file as an ordinary one.
    assert_eq!(store.read(&run.run, &path).await.unwrap().text, big);
    let listed = store
        .list(&run.run, Some(&wp("output")), 1, 10)
        .await
        .unwrap();
    assert_eq!(listed.entries.len(), 1);
    let corpus = store
        .search_corpus(&run.run, &[wp("output")], 2, 10)
        .await
        .unwrap();
    assert_eq!(corpus.files[0].sha256, sha);
    // Checkpointing it again finds its blob in place.
    checkpoints
        .create(
            &run.run,
            CheckpointReason::ToolWorkspaceWrite,
            2,
            std::slice::from_ref(&path),
            "2026-01-01T00:00:01.000Z",
        )
        .await
        .unwrap();
    assert_eq!(fs::metadata(&file).unwrap().nlink(), 2);

    // A write replaces the file; the old bytes live on as the blob alone.
    store
        .append(&run.run, &path, "One more line.\n")
        .await
        .unwrap();
    assert_eq!(fs::metadata(&file).unwrap().nlink(), 1);
    assert_eq!(fs::read_to_string(&blob).unwrap(), big);
    assert_eq!(
        checkpoints
            .read_file(&run.run, &checkpoint, &checkpoint.files[0])
            .await
            .unwrap(),
        big.as_bytes()
    );

    // A large file linked from outside is no blob of the run: refused when read, and a
    // checkpoint never adopts it.
    let outside = run.run_dir.parent().unwrap().join("large-secret.txt");
    fs::write(&outside, "secret ".repeat(20_000)).unwrap();
    fs::hard_link(&outside, run.run_dir.join("output/leak.md")).unwrap();
    let leak = wp("output/leak.md");
    assert_refused(store.read(&run.run, &leak).await, "read of a large link");
    assert_refused(
        store.search_corpus(&run.run, &[wp("output")], 2, 10).await,
        "search of a large link",
    );
    let refused = checkpoints
        .create(
            &run.run,
            CheckpointReason::ToolWorkspaceWrite,
            3,
            &[leak],
            "2026-01-01T00:00:02.000Z",
        )
        .await
        .unwrap_err();
    assert_eq!(
        agent_domain::ErrorCode::code(&refused),
        "agent.storage_integrity"
    );
    assert_eq!(fs::metadata(&outside).unwrap().nlink(), 2);
}
