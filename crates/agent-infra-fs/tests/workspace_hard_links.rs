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
