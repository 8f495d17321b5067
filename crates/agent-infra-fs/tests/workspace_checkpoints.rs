#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! Checkpoints: numbered, whole-or-nothing records of workspace files, whose bytes are
//! stored once as blobs of the run.

mod workspace_support;

use std::fs;
use std::path::Path;
use std::sync::Arc;

use agent_application::ports::{CheckpointStore, StoreError, WorkspaceStore, WriteGuard};
use agent_domain::ErrorCode;
use agent_domain::event::CheckpointReason;
use agent_infra_fs::checkpoint::FsCheckpointStore;
use agent_infra_fs::digest::sha256_hex;
use agent_infra_fs::workspace::FsWorkspaceStore;
use pretty_assertions::assert_eq;
use workspace_support::{TestRun, test_run, wp};

const AT: &str = "2026-01-01T00:00:00.000Z";

async fn with_files(files: &[(&str, &str)]) -> (TestRun, FsCheckpointStore) {
    let run = test_run();
    let workspace = FsWorkspaceStore::new(run.locator.clone());
    workspace.initialize(&run.run).await.unwrap();
    for (path, text) in files {
        workspace
            .write(&run.run, &wp(path), text, WriteGuard::Unchecked)
            .await
            .unwrap();
    }
    let store = FsCheckpointStore::new(run.locator.clone());
    (run, store)
}

/// A checkpoint of `paths` that must succeed.
async fn checkpoint(
    store: &FsCheckpointStore,
    run: &TestRun,
    reason: CheckpointReason,
    event_seq: u64,
    paths: &[agent_domain::workspace::WorkspacePath],
) -> agent_application::ports::CheckpointRecord {
    store
        .create(&run.run, reason, event_seq, paths, AT)
        .await
        .unwrap()
}

/// Names directly inside `dir`, sorted.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .collect();
    names.sort();
    names
}

/// Names directly inside `checkpoints/`.
fn checkpoint_dirs(run: &TestRun) -> Vec<String> {
    names_in(&run.run_dir.join("checkpoints"))
}

/// Every blob of the run, as `<hh>/<sha256>`.
fn blobs(run: &TestRun) -> Vec<String> {
    let root = run.run_dir.join("blobs/sha256");
    if !root.exists() {
        return Vec::new();
    }
    names_in(&root)
        .into_iter()
        .flat_map(|hh| {
            names_in(&root.join(&hh))
                .into_iter()
                .map(move |name| format!("{hh}/{name}"))
        })
        .collect()
}

#[tokio::test]
async fn checkpoints_copy_files_and_number_themselves() {
    let (run, store) = with_files(&[("output/main.md", "Hello"), ("plan/p.md", "plan")]).await;
    assert!(store.list(&run.run).await.unwrap().is_empty());

    let first = checkpoint(
        &store,
        &run,
        CheckpointReason::ToolWorkspaceWrite,
        7,
        &[wp("output/main.md")],
    )
    .await;
    assert_eq!(first.id, "cp_000001");
    assert_eq!(first.seq, 1);
    assert_eq!(first.event_seq, 7);
    assert_eq!(first.files.len(), 1);
    assert_eq!(first.files[0].sha256, sha256_hex(b"Hello"));
    assert_eq!(first.files[0].bytes, 5);
    let dir = run.run_dir.join("checkpoints/cp_000001");
    assert_eq!(
        store
            .read_file(&run.run, &first, &first.files[0])
            .await
            .unwrap(),
        b"Hello"
    );
    let sha = sha256_hex(b"Hello");
    assert_eq!(
        fs::read(
            run.run_dir
                .join(format!("blobs/sha256/{}/{sha}", &sha[..2]))
        )
        .unwrap(),
        b"Hello"
    );
    assert_eq!(names_in(&dir), ["checkpoint.json"]);

    let on_disk: serde_json::Value =
        serde_json::from_slice(&fs::read(dir.join("checkpoint.json")).unwrap()).unwrap();
    insta::assert_json_snapshot!("checkpoint_record", on_disk, {".createdAt" => "[createdAt]"});

    let second = checkpoint(
        &store,
        &run,
        CheckpointReason::ChatCommit,
        9,
        &[wp("plan/p.md"), wp("output/main.md"), wp("plan/p.md")],
    )
    .await;
    assert_eq!(second.id, "cp_000002");
    let paths: Vec<&str> = second.files.iter().map(|file| file.path.as_str()).collect();
    assert_eq!(paths, ["plan/p.md", "output/main.md"]);

    assert_eq!(
        store
            .read_file(&run.run, &second, &second.files[0])
            .await
            .unwrap(),
        b"plan"
    );
    assert_eq!(store.list(&run.run).await.unwrap(), [first, second]);
    assert_eq!(checkpoint_dirs(&run), ["cp_000001", "cp_000002"]);
    // `output/main.md` did not change between the two: its bytes are stored once.
    let (plan, hello) = (sha256_hex(b"plan"), sha256_hex(b"Hello"));
    let mut expected = vec![
        format!("{}/{plan}", &plan[..2]),
        format!("{}/{hello}", &hello[..2]),
    ];
    expected.sort();
    assert_eq!(blobs(&run), expected);
}

#[tokio::test]
async fn checkpoints_written_before_blobs_read_from_their_copies() {
    let (run, store) = with_files(&[("output/main.md", "Hello")]).await;
    // The older layout: the record, and a copy of each file beside it; no blob.
    let dir = run.run_dir.join("checkpoints/cp_000001");
    fs::create_dir_all(dir.join("output")).unwrap();
    fs::write(dir.join("output/main.md"), "Old bytes").unwrap();
    let record = serde_json::json!({
        "id": "cp_000001", "seq": 1, "runId": run.run.as_str(), "createdAt": AT,
        "reason": "tool_workspace_write", "eventSeq": 4,
        "files": [{"path": "output/main.md", "sha256": sha256_hex(b"Old bytes"), "bytes": 9}]
    });
    fs::write(dir.join("checkpoint.json"), record.to_string()).unwrap();

    let listed = store.list(&run.run).await.unwrap();
    assert_eq!(listed.len(), 1);
    let old = &listed[0];
    assert_eq!(
        store.read_file(&run.run, old, &old.files[0]).await.unwrap(),
        b"Old bytes"
    );
    // Numbering goes on after it, in the new layout.
    let next = checkpoint(
        &store,
        &run,
        CheckpointReason::ToolWorkspaceWrite,
        5,
        &[wp("output/main.md")],
    )
    .await;
    assert_eq!(next.id, "cp_000002");
    assert_eq!(
        store
            .read_file(&run.run, &next, &next.files[0])
            .await
            .unwrap(),
        b"Hello"
    );

    // A copy that does not match its record is reported, as is a missing blob.
    fs::write(dir.join("output/main.md"), "Tampered!").unwrap();
    assert!(matches!(
        store.read_file(&run.run, old, &old.files[0]).await,
        Err(StoreError::Integrity(_))
    ));
    fs::remove_dir_all(run.run_dir.join("blobs")).unwrap();
    assert!(matches!(
        store.read_file(&run.run, &next, &next.files[0]).await,
        Err(StoreError::NotFound(_))
    ));
}

#[tokio::test]
async fn a_failed_checkpoint_leaves_nothing_behind() {
    let (run, store) = with_files(&[("output/main.md", "Hello")]).await;
    fs::create_dir_all(run.run_dir.join("input")).unwrap();
    fs::write(run.run_dir.join("input/prompt_snapshot.json"), "{}").unwrap();
    let reason = CheckpointReason::ToolWorkspaceWrite;

    for missing in [
        "output/gone.md",
        "output/gone/deeper.md",
        "input/prompt_snapshot.json",
    ] {
        let err = store
            .create(
                &run.run,
                reason,
                1,
                &[wp("output/main.md"), wp(missing)],
                AT,
            )
            .await
            .unwrap_err();
        assert!(matches!(err, StoreError::NotFound(_)), "{missing}: {err}");
    }
    let err = store
        .create(&run.run, reason, 1, &[wp("output")], AT)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "workspace.path_is_directory");

    assert!(
        checkpoint_dirs(&run).is_empty(),
        "{:?}",
        checkpoint_dirs(&run)
    );
    assert!(blobs(&run).is_empty(), "{:?}", blobs(&run));
    let next = store
        .create(&run.run, reason, 2, &[wp("output/main.md")], AT)
        .await
        .unwrap();
    assert_eq!(next.id, "cp_000001");
}

#[cfg(unix)]
#[tokio::test]
async fn links_are_never_copied_or_followed() {
    use std::os::unix::fs::symlink;
    let (run, store) = with_files(&[("output/main.md", "Hello")]).await;
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    symlink(
        outside.path().join("secret.txt"),
        run.run_dir.join("output/link.md"),
    )
    .unwrap();
    let reason = CheckpointReason::ToolWorkspaceWrite;

    let err = store
        .create(&run.run, reason, 1, &[wp("output/link.md")], AT)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Integrity(_)), "{err}");

    fs::remove_dir(run.run_dir.join("checkpoints")).unwrap();
    symlink(outside.path(), run.run_dir.join("checkpoints")).unwrap();
    let err = store
        .create(&run.run, reason, 1, &[wp("output/main.md")], AT)
        .await
        .unwrap_err();
    assert!(matches!(err, StoreError::Integrity(_)), "{err}");
    assert!(matches!(
        store.list(&run.run).await,
        Err(StoreError::Integrity(_))
    ));
    assert_eq!(fs::read_dir(outside.path()).unwrap().count(), 1);
}

#[tokio::test]
async fn leftovers_of_an_interrupted_checkpoint_are_ignored() {
    let (run, store) = with_files(&[("output/main.md", "Hello")]).await;
    let staging = run.run_dir.join("checkpoints/.cp_000001.tmp-0000");
    fs::create_dir_all(staging.join("output")).unwrap();
    fs::write(staging.join("output/main.md"), "half").unwrap();
    assert!(store.list(&run.run).await.unwrap().is_empty());
    let record = checkpoint(
        &store,
        &run,
        CheckpointReason::DirectOutputCapture,
        3,
        &[wp("output/main.md")],
    )
    .await;
    assert_eq!(record.id, "cp_000001");
    assert_eq!(store.list(&run.run).await.unwrap(), [record]);
}

#[tokio::test]
async fn a_damaged_record_is_an_integrity_fault() {
    let (run, store) = with_files(&[("output/main.md", "Hello")]).await;
    checkpoint(
        &store,
        &run,
        CheckpointReason::ToolWorkspacePatch,
        1,
        &[wp("output/main.md")],
    )
    .await;
    fs::write(
        run.run_dir.join("checkpoints/cp_000001/checkpoint.json"),
        "{",
    )
    .unwrap();
    assert!(matches!(
        store.list(&run.run).await,
        Err(StoreError::Integrity(_))
    ));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_checkpoints_of_one_run_get_distinct_numbers() {
    let (run, store) = with_files(&[("output/main.md", "Hello")]).await;
    let run_id = Arc::new(run.run.clone());
    let tasks = (0..10).map(|i| {
        let (store, run_id) = (store.clone(), run_id.clone());
        tokio::spawn(async move {
            store
                .create(
                    &run_id,
                    CheckpointReason::ToolWorkspaceWrite,
                    i,
                    &[wp("output/main.md")],
                    AT,
                )
                .await
        })
    });
    let mut seqs: Vec<u64> = futures::future::join_all(tasks)
        .await
        .into_iter()
        .map(|task| task.unwrap().unwrap().seq)
        .collect();
    seqs.sort_unstable();
    assert_eq!(seqs, (1..=10).collect::<Vec<u64>>());
    let listed: Vec<u64> = store
        .list(&run.run)
        .await
        .unwrap()
        .iter()
        .map(|r| r.seq)
        .collect();
    assert_eq!(listed, seqs);
}
