#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! The workspace store: roots, reads and guarded writes, appends, listings, search corpora,
//! and writes racing on one path.

mod workspace_support;

use std::fs;
use std::sync::Arc;

use agent_application::ports::{
    EntryKind, ListedEntry, WorkspaceError, WorkspaceStore, WriteGuard,
};
use agent_domain::ErrorCode;
use agent_domain::run::RunId;
use agent_infra_fs::digest::sha256_hex;
use agent_infra_fs::layout::DataDir;
use agent_infra_fs::run_locator::RunLocator;
use agent_infra_fs::workspace::FsWorkspaceStore;
use pretty_assertions::assert_eq;
use workspace_support::{TestRun, test_run, wp};

async fn initialized() -> (TestRun, FsWorkspaceStore) {
    let run = test_run();
    let store = FsWorkspaceStore::new(run.locator.clone());
    store.initialize(&run.run).await.unwrap();
    (run, store)
}

fn entries(listed: &[ListedEntry]) -> Vec<String> {
    listed
        .iter()
        .map(|entry| match entry.kind {
            EntryKind::Directory => format!("{}/", entry.path),
            EntryKind::File => entry.path.to_string(),
        })
        .collect()
}

#[tokio::test]
async fn initialize_creates_the_five_roots_and_tool_results_once() {
    let (run, store) = initialized().await;
    store.initialize(&run.run).await.unwrap();
    let listing = store.list(&run.run, None, 1, 100).await.unwrap();
    assert_eq!(
        entries(&listing.entries),
        [
            "output/",
            "persist/",
            "plan/",
            "scratch/",
            "summaries/",
            "tool-results/"
        ]
    );
    assert!(!listing.truncated);
}

#[tokio::test]
async fn a_written_file_reads_back_with_its_version() {
    let (run, store) = initialized().await;
    let path = wp("output/notes/main.md");
    let receipt = store
        .write(&run.run, &path, "Hello", WriteGuard::MustNotExist)
        .await
        .unwrap();
    assert_eq!(receipt.sha256, sha256_hex(b"Hello"));
    assert_eq!(receipt.bytes, 5);
    assert_eq!(receipt.previous_sha256, None);
    let file = store.read(&run.run, &path).await.unwrap();
    assert_eq!(file.text, "Hello");
    assert_eq!(file.sha256, receipt.sha256);
    assert_eq!(file.bytes, 5);
    assert_eq!(
        fs::read_to_string(run.run_dir.join("output/notes/main.md")).unwrap(),
        "Hello"
    );
}

#[tokio::test]
async fn write_guards_hold_and_a_failed_guard_changes_nothing() {
    let (run, store) = initialized().await;
    let path = wp("plan/todo.md");
    let first = store
        .write(&run.run, &path, "one", WriteGuard::Unchecked)
        .await
        .unwrap();

    let err = store
        .write(&run.run, &path, "two", WriteGuard::MustNotExist)
        .await
        .unwrap_err();
    assert_eq!(err, WorkspaceError::AlreadyExists(path.clone()));

    let err = store
        .write(
            &run.run,
            &path,
            "two",
            WriteGuard::MustMatchSha256("0".repeat(64)),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err,
        WorkspaceError::VersionMismatch {
            path: path.clone(),
            current: Some(first.sha256.clone()),
        }
    );
    assert_eq!(err.code(), "workspace.write_stale_file");
    assert_eq!(store.read(&run.run, &path).await.unwrap().text, "one");

    let second = store
        .write(
            &run.run,
            &path,
            "two",
            WriteGuard::MustMatchSha256(first.sha256.clone()),
        )
        .await
        .unwrap();
    assert_eq!(second.previous_sha256, Some(first.sha256));
    assert_eq!(store.read(&run.run, &path).await.unwrap().text, "two");

    let gone = wp("plan/gone.md");
    let err = store
        .write(
            &run.run,
            &gone,
            "x",
            WriteGuard::MustMatchSha256(second.sha256),
        )
        .await
        .unwrap_err();
    assert_eq!(
        err,
        WorkspaceError::VersionMismatch {
            path: gone.clone(),
            current: None,
        }
    );
    assert_eq!(store.kind_of(&run.run, &gone).await.unwrap(), None);
}

#[tokio::test]
async fn append_creates_then_concatenates_verbatim() {
    let (run, store) = initialized().await;
    let path = wp("scratch/log.md");
    let created = store.append(&run.run, &path, "a").await.unwrap();
    assert_eq!(created.previous_sha256, None);
    let appended = store.append(&run.run, &path, "\nb").await.unwrap();
    assert_eq!(appended.previous_sha256, Some(created.sha256));
    assert_eq!(appended.sha256, sha256_hex(b"a\nb"));
    assert_eq!(appended.bytes, 3);
    assert_eq!(store.read(&run.run, &path).await.unwrap().text, "a\nb");
}

#[tokio::test]
async fn reads_and_writes_report_what_is_wrong_with_the_path() {
    let (run, store) = initialized().await;
    fs::write(run.run_dir.join("output/binary.bin"), [0xff, 0xfe, 0x00]).unwrap();
    fs::write(run.run_dir.join("tool-results/call_1.json"), "{}\n").unwrap();
    let cases: [(&str, WorkspaceError); 4] = [
        (
            "output/missing.md",
            WorkspaceError::NotFound(wp("output/missing.md")),
        ),
        ("output", WorkspaceError::IsDirectory(wp("output"))),
        (
            "output/binary.bin",
            WorkspaceError::NotText(wp("output/binary.bin")),
        ),
        (
            "output/missing/deeper.md",
            WorkspaceError::NotFound(wp("output/missing/deeper.md")),
        ),
    ];
    for (raw, expected) in cases {
        assert_eq!(
            store.read(&run.run, &wp(raw)).await.unwrap_err(),
            expected,
            "{raw}"
        );
    }
    assert_eq!(
        store
            .read(&run.run, &wp("tool-results/call_1.json"))
            .await
            .unwrap()
            .text,
        "{}\n"
    );

    fs::create_dir(run.run_dir.join("output/folder")).unwrap();
    let err = store
        .write(&run.run, &wp("output/folder"), "x", WriteGuard::Unchecked)
        .await
        .unwrap_err();
    assert_eq!(err.code(), "workspace.path_is_directory");
    let err = store
        .append(&run.run, &wp("tool-results/call_1.json"), "x")
        .await
        .unwrap_err();
    assert_eq!(
        err,
        WorkspaceError::ReadOnly(wp("tool-results/call_1.json"))
    );
    let err = store
        .write(
            &run.run,
            &wp("output/binary.bin/x.md"),
            "x",
            WriteGuard::Unchecked,
        )
        .await
        .unwrap_err();
    assert_eq!(err.code(), "workspace.file_not_found");
}

#[tokio::test]
async fn listings_are_depth_limited_sorted_and_hide_runtime_storage() {
    let (run, store) = initialized().await;
    for (path, text) in [
        ("output/main.md", "m"),
        ("output/b/deep/c.md", "c"),
        ("output/a.md", "a"),
        ("persist/state.md", "s"),
    ] {
        store
            .write(&run.run, &wp(path), text, WriteGuard::Unchecked)
            .await
            .unwrap();
    }
    fs::create_dir_all(run.run_dir.join("input")).unwrap();
    fs::write(run.run_dir.join("events.jsonl"), "").unwrap();

    let listing = store.list(&run.run, None, 2, 100).await.unwrap();
    assert_eq!(
        entries(&listing.entries),
        [
            "output/",
            "output/b/",
            "persist/",
            "plan/",
            "scratch/",
            "summaries/",
            "tool-results/",
            "output/a.md",
            "output/main.md",
            "persist/state.md",
        ]
    );

    let listing = store
        .list(&run.run, Some(&wp("output")), 4, 3)
        .await
        .unwrap();
    assert_eq!(
        entries(&listing.entries),
        ["output/b/", "output/b/deep/", "output/a.md"]
    );
    assert!(listing.truncated);

    let listing = store
        .list(&run.run, Some(&wp("output")), 1, 3)
        .await
        .unwrap();
    assert_eq!(
        entries(&listing.entries),
        ["output/b/", "output/a.md", "output/main.md"]
    );
    assert!(!listing.truncated);

    let listing = store
        .list(&run.run, Some(&wp("output/a.md")), 2, 10)
        .await
        .unwrap();
    assert_eq!(entries(&listing.entries), ["output/a.md"]);
    assert!(
        store
            .list(&run.run, None, 0, 10)
            .await
            .unwrap()
            .entries
            .is_empty()
    );

    for hidden in ["input", "events.jsonl", "output/nope"] {
        let err = store
            .list(&run.run, Some(&wp(hidden)), 2, 10)
            .await
            .unwrap_err();
        assert_eq!(err, WorkspaceError::NotFound(wp(hidden)), "{hidden}");
    }
}

#[tokio::test]
async fn search_corpora_are_deduplicated_in_path_order() {
    let (run, store) = initialized().await;
    for (path, text) in [
        ("summaries/z.md", "z"),
        ("output/b.md", "b"),
        ("output/a.md", "a"),
        ("output/sub/deep/far.md", "far"),
    ] {
        store
            .write(&run.run, &wp(path), text, WriteGuard::Unchecked)
            .await
            .unwrap();
    }
    fs::write(run.run_dir.join("output/raw.bin"), [0xc3, 0x28]).unwrap();

    let paths = [wp("summaries"), wp("output"), wp("output/a.md")];
    let corpus = store.search_corpus(&run.run, &paths, 2, 100).await.unwrap();
    let found: Vec<(String, Option<String>)> = corpus
        .files
        .iter()
        .map(|file| (file.path.to_string(), file.text.clone()))
        .collect();
    assert_eq!(
        found,
        [
            ("output/a.md".to_owned(), Some("a".to_owned())),
            ("output/b.md".to_owned(), Some("b".to_owned())),
            ("output/raw.bin".to_owned(), None),
            ("summaries/z.md".to_owned(), Some("z".to_owned())),
        ]
    );
    assert_eq!(corpus.files[2].sha256, sha256_hex(&[0xc3, 0x28]));
    assert!(!corpus.truncated);

    let corpus = store.search_corpus(&run.run, &paths, 3, 2).await.unwrap();
    assert_eq!(corpus.files.len(), 2);
    assert!(corpus.truncated);

    let err = store
        .search_corpus(&run.run, &[wp("input")], 8, 10)
        .await
        .unwrap_err();
    assert_eq!(err, WorkspaceError::NotFound(wp("input")));
}

#[tokio::test]
async fn kind_of_tells_files_folders_and_absence_apart() {
    let (run, store) = initialized().await;
    store
        .write(&run.run, &wp("output/a.md"), "a", WriteGuard::Unchecked)
        .await
        .unwrap();
    fs::create_dir_all(run.run_dir.join("input")).unwrap();
    let cases = [
        ("output/a.md", Some(EntryKind::File)),
        ("output", Some(EntryKind::Directory)),
        ("tool-results", Some(EntryKind::Directory)),
        ("output/none.md", None),
        ("output/a.md/below", None),
        ("input", None),
    ];
    for (raw, expected) in cases {
        assert_eq!(
            store.kind_of(&run.run, &wp(raw)).await.unwrap(),
            expected,
            "{raw}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn racing_writes_to_one_path_never_interleave() {
    let (run, store) = initialized().await;
    let run_id = Arc::new(run.run.clone());

    let appends = (0..24).map(|i| {
        let (store, run_id) = (store.clone(), run_id.clone());
        tokio::spawn(async move {
            store
                .append(&run_id, &wp("output/log.md"), &format!("line {i}\n"))
                .await
        })
    });
    for task in futures::future::join_all(appends).await {
        task.unwrap().unwrap();
    }
    let text = store
        .read(&run.run, &wp("output/log.md"))
        .await
        .unwrap()
        .text;
    let mut lines: Vec<&str> = text.lines().collect();
    lines.sort_unstable();
    let mut expected: Vec<String> = (0..24).map(|i| format!("line {i}")).collect();
    expected.sort_unstable();
    assert_eq!(lines, expected);

    let creates = (0..12).map(|i| {
        let (store, run_id) = (store.clone(), run_id.clone());
        tokio::spawn(async move {
            store
                .write(
                    &run_id,
                    &wp("output/once.md"),
                    &format!("{i}"),
                    WriteGuard::MustNotExist,
                )
                .await
        })
    });
    let results: Vec<_> = futures::future::join_all(creates)
        .await
        .into_iter()
        .map(|task| task.unwrap())
        .collect();
    assert_eq!(results.iter().filter(|result| result.is_ok()).count(), 1);
    assert!(results.iter().all(|result| match result {
        Ok(_) => true,
        Err(err) => matches!(err, WorkspaceError::AlreadyExists(_)),
    }));

    let base = store
        .read(&run.run, &wp("output/once.md"))
        .await
        .unwrap()
        .sha256;
    let updates = (0..12).map(|i| {
        let (store, run_id, base) = (store.clone(), run_id.clone(), base.clone());
        tokio::spawn(async move {
            store
                .write(
                    &run_id,
                    &wp("output/once.md"),
                    &format!("update {i}"),
                    WriteGuard::MustMatchSha256(base),
                )
                .await
        })
    });
    let won = futures::future::join_all(updates)
        .await
        .into_iter()
        .filter(|task| task.as_ref().unwrap().is_ok())
        .count();
    assert_eq!(won, 1);
}

#[tokio::test]
async fn runs_are_found_through_the_index_and_unknown_runs_are_fatal() {
    let run = test_run();
    let store = FsWorkspaceStore::new(run.locator.clone());
    store.initialize(&run.run).await.unwrap();
    store
        .write(&run.run, &wp("output/a.md"), "a", WriteGuard::Unchecked)
        .await
        .unwrap();

    // A fresh locator (a new process) finds the run through its index record.
    let data = run.locator.data_dir().clone();
    let index = data.run_index_file(&run.run);
    fs::create_dir_all(index.parent().unwrap()).unwrap();
    let record = serde_json::json!({
        "id": run.run.as_str(),
        "workspaceId": "chat_d474bb6f0a9e39a7",
        "stableChatId": "stable-chat",
    });
    fs::write(&index, serde_json::to_vec(&record).unwrap()).unwrap();
    let fresh = FsWorkspaceStore::new(RunLocator::new(DataDir::new(data.root())));
    assert_eq!(
        fresh.read(&run.run, &wp("output/a.md")).await.unwrap().text,
        "a"
    );

    let unknown = RunId::parse("run_unknown").unwrap();
    let err = fresh.read(&unknown, &wp("output/a.md")).await.unwrap_err();
    assert!(err.is_fatal(), "{err}");
}

#[tokio::test]
async fn an_unknown_run_is_not_found_rather_than_an_integrity_fault() {
    let (run, store) = initialized().await;
    let stranger = RunId::parse("run_ffffffffffffffffffffffffffffffff").unwrap();
    let err = store
        .read(&stranger, &wp("output/main.md"))
        .await
        .unwrap_err();
    assert!(matches!(err, WorkspaceError::RunNotFound(_)), "{err}");
    assert_eq!(err.code(), "agent.not_found");
    assert!(
        err.to_string()
            .contains("run_ffffffffffffffffffffffffffffffff"),
        "{err}"
    );
    // The known run is unaffected.
    assert!(store.list(&run.run, None, 1, 10).await.is_ok());
}
