#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
//! `FsRunStore`: run records and the index, listing and paging, invocation and task
//! records, run summaries.

use std::fs;

use agent_application::ports::{RunCursor, RunListQuery, RunStore, StoreError};
use agent_domain::ErrorCode;
use agent_domain::event::{ChatRef, RunStatus};
use agent_domain::run::{
    AgentInvocation, AgentRun, AgentTaskRecord, InvocationId, RunId, RunSummary, TaskId,
};
use agent_infra_fs::layout::DataDir;
use agent_infra_fs::run_locator::RunLocator;
use agent_infra_fs::runs::FsRunStore;
use pretty_assertions::assert_eq;
use serde_json::json;

fn run(id: &str, chat: &str, created_at: &str, status: &str) -> AgentRun {
    serde_json::from_value(json!({
        "id": id, "workspaceId": format!("chat_{chat}"), "stableChatId": format!("stable-{chat}"),
        "chatRef": {"kind": "character", "characterId": "Alice", "fileName": chat},
        "generationType": "normal", "profileId": null, "status": status,
        "createdAt": created_at, "updatedAt": created_at
    }))
    .unwrap()
}

fn store() -> (tempfile::TempDir, DataDir, FsRunStore) {
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    (dir, data.clone(), FsRunStore::new(RunLocator::new(data)))
}

fn ids(runs: &[AgentRun]) -> Vec<&str> {
    runs.iter().map(|run| run.id.as_str()).collect()
}

fn rid(raw: &str) -> RunId {
    RunId::parse(raw).unwrap()
}

#[tokio::test]
async fn create_save_load_round_trip_and_create_twice_fails() {
    let (_dir, data, store) = store();
    let mut record = run("run_a", "one", "2026-01-01T00:00:00.000Z", "created");
    store.create_run(&record).await.unwrap();
    assert_eq!(store.load_run(&record.id).await.unwrap(), record);

    let again = store.create_run(&record).await.unwrap_err();
    assert!(matches!(again, StoreError::AlreadyExists(_)), "{again}");

    record.status = RunStatus::Completed;
    record.updated_at = "2026-01-01T00:01:00.000Z".into();
    store.save_run(&record).await.unwrap();
    assert_eq!(store.load_run(&record.id).await.unwrap(), record);

    let beside_the_run = data.run_dir(&record.workspace_id, &record.id).run_record();
    let on_disk: AgentRun = serde_json::from_slice(&fs::read(beside_the_run).unwrap()).unwrap();
    assert_eq!(on_disk, record);
    insta::assert_snapshot!(fs::read_to_string(data.run_index_file(&record.id)).unwrap(), @r#"
    {
      "id": "run_a",
      "workspaceId": "chat_one",
      "stableChatId": "stable-one",
      "chatRef": {
        "kind": "character",
        "characterId": "Alice",
        "fileName": "one"
      },
      "generationType": "normal",
      "profileId": null,
      "presentation": "foreground",
      "status": "completed",
      "createdAt": "2026-01-01T00:00:00.000Z",
      "updatedAt": "2026-01-01T00:01:00.000Z"
    }
    "#);
}

#[tokio::test]
async fn unknown_runs_are_not_found() {
    let (_dir, _data, store) = store();
    let record = run("run_x", "one", "2026-01-01T00:00:00.000Z", "created");
    assert!(matches!(
        store.load_run(&record.id).await,
        Err(StoreError::NotFound(_))
    ));
    assert!(matches!(
        store.save_run(&record).await,
        Err(StoreError::NotFound(_))
    ));
    let invocation = invocation("run_x", "inv_root", "2026-01-01T00:00:00.000Z");
    assert!(matches!(
        store.save_invocation(&invocation).await,
        Err(StoreError::NotFound(_))
    ));
}

#[tokio::test]
async fn legacy_index_entries_read_with_fix_ups() {
    let (_dir, data, store) = store();
    let path = data.run_index_file(&rid("run_old"));
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut legacy = serde_json::to_value(run("run_old", "one", "t", "created")).unwrap();
    legacy["status"] = json!("awaiting_commit");
    legacy.as_object_mut().unwrap().remove("presentation");
    fs::write(&path, legacy.to_string()).unwrap();
    let loaded = store.load_run(&rid("run_old")).await.unwrap();
    assert_eq!(loaded.status, RunStatus::AwaitingHostCommit);
}

#[tokio::test]
async fn listing_filters_by_chat_stable_id_and_status() {
    let (_dir, _data, store) = store();
    for record in [
        run("run_1", "one", "2026-01-01T00:00:01.000Z", "completed"),
        run("run_2", "one", "2026-01-01T00:00:02.000Z", "failed"),
        run("run_3", "two", "2026-01-01T00:00:03.000Z", "completed"),
        run("run_4", "one", "2026-01-01T00:00:04.000Z", "calling_model"),
    ] {
        store.create_run(&record).await.unwrap();
    }
    let all = store.list_runs(&RunListQuery::default()).await.unwrap();
    assert_eq!(ids(&all.runs), ["run_4", "run_3", "run_2", "run_1"]);
    assert_eq!(all.next, None);

    let chat_one = ChatRef::Character {
        character_id: "Alice".into(),
        file_name: "one".into(),
    };
    let by_chat = RunListQuery {
        chat_ref: Some(chat_one),
        ..Default::default()
    };
    assert_eq!(
        ids(&store.list_runs(&by_chat).await.unwrap().runs),
        ["run_4", "run_2", "run_1"]
    );

    let by_stable_id = RunListQuery {
        stable_chat_id: Some("stable-two".into()),
        ..Default::default()
    };
    assert_eq!(
        ids(&store.list_runs(&by_stable_id).await.unwrap().runs),
        ["run_3"]
    );

    let terminal = RunListQuery {
        statuses: vec![RunStatus::Completed, RunStatus::Failed],
        stable_chat_id: Some("stable-one".into()),
        ..Default::default()
    };
    assert_eq!(
        ids(&store.list_runs(&terminal).await.unwrap().runs),
        ["run_2", "run_1"]
    );
}

#[tokio::test]
async fn cursor_paging_walks_three_pages_newest_first() {
    let (_dir, data, store) = store();
    // run_b and run_c share a timestamp: the larger id comes first.
    for (id, created_at) in [
        ("run_a", "2026-01-01T00:00:01.000Z"),
        ("run_b", "2026-01-01T00:00:02.000Z"),
        ("run_c", "2026-01-01T00:00:02.000Z"),
        ("run_d", "2026-01-01T00:00:03.000Z"),
        ("run_e", "2026-01-01T00:00:04.000Z"),
        ("run_f", "2026-01-01T00:00:05.000Z"),
        ("run_g", "2026-01-01T00:00:06.000Z"),
    ] {
        store
            .create_run(&run(id, "one", created_at, "completed"))
            .await
            .unwrap();
    }
    // Litter the index with what is not a record.
    fs::write(data.run_index_dir().join("notes.txt"), "not a run").unwrap();
    fs::create_dir(data.run_index_dir().join("folder.json")).unwrap();

    let mut query = RunListQuery {
        limit: Some(3),
        ..Default::default()
    };
    let mut pages = Vec::new();
    loop {
        let page = store.list_runs(&query).await.unwrap();
        pages.push(
            ids(&page.runs)
                .iter()
                .map(|id| id.to_string())
                .collect::<Vec<_>>(),
        );
        match page.next {
            Some(next) => query.before = Some(next),
            None => break,
        }
    }
    assert_eq!(
        pages,
        [
            vec!["run_g", "run_f", "run_e"],
            vec!["run_d", "run_c", "run_b"],
            vec!["run_a"],
        ]
    );

    let from_tie = RunListQuery {
        before: Some(RunCursor {
            created_at: "2026-01-01T00:00:02.000Z".into(),
            run_id: rid("run_c"),
        }),
        ..Default::default()
    };
    assert_eq!(
        ids(&store.list_runs(&from_tie).await.unwrap().runs),
        ["run_b", "run_a"]
    );
}

#[tokio::test]
async fn limits_outside_one_to_two_hundred_are_refused() {
    let (_dir, _data, store) = store();
    for limit in [0, 201, u32::MAX] {
        let query = RunListQuery {
            limit: Some(limit),
            ..Default::default()
        };
        let err = store.list_runs(&query).await.unwrap_err();
        assert_eq!(err.code(), "agent.run_history_limit_invalid", "{limit}");
    }
    for limit in [1, 200] {
        let query = RunListQuery {
            limit: Some(limit),
            ..Default::default()
        };
        assert!(store.list_runs(&query).await.unwrap().runs.is_empty());
    }
}

#[tokio::test]
async fn a_bad_index_file_is_an_error_naming_the_file() {
    let (_dir, data, store) = store();
    store
        .create_run(&run("run_ok", "one", "t", "created"))
        .await
        .unwrap();
    let broken = data.run_index_dir().join("run_broken.json");
    fs::write(&broken, "{ not json").unwrap();
    let err = store.list_runs(&RunListQuery::default()).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Integrity(m) if m.contains("run_broken.json")),
        "{err}"
    );
    fs::remove_file(&broken).unwrap();

    // A record filed under another run's name.
    let misfiled = data.run_index_dir().join("run_other.json");
    fs::copy(data.run_index_file(&rid("run_ok")), &misfiled).unwrap();
    let err = store.list_runs(&RunListQuery::default()).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Integrity(m) if m.contains("run_other.json")),
        "{err}"
    );
    let err = store.load_run(&rid("run_other")).await.unwrap_err();
    assert_eq!(err.code(), "agent.storage_integrity");
}

#[cfg(unix)]
#[tokio::test]
async fn symlinked_index_entries_are_refused() {
    let (_dir, data, store) = store();
    store
        .create_run(&run("run_ok", "one", "t", "created"))
        .await
        .unwrap();
    let link = data.run_index_dir().join("run_link.json");
    std::os::unix::fs::symlink(data.run_index_file(&rid("run_ok")), &link).unwrap();
    let err = store.list_runs(&RunListQuery::default()).await.unwrap_err();
    assert!(
        matches!(&err, StoreError::Integrity(m) if m.contains("run_link.json")),
        "{err}"
    );
}

#[tokio::test]
async fn a_missing_index_lists_nothing() {
    let (_dir, _data, store) = store();
    let page = store.list_runs(&RunListQuery::default()).await.unwrap();
    assert!(page.runs.is_empty());
    assert_eq!(page.next, None);
}

fn invocation(run: &str, id: &str, created_at: &str) -> AgentInvocation {
    serde_json::from_value(json!({
        "id": id, "runId": run, "profileId": "default-writer", "kind": "root",
        "status": "running", "exitPolicy": "run_finish_allowed",
        "createdAt": created_at, "updatedAt": created_at
    }))
    .unwrap()
}

fn task(run: &str, id: &str, created_at: &str) -> AgentTaskRecord {
    serde_json::from_value(json!({
        "id": id, "runId": run, "parentInvocationId": "inv_root",
        "childInvocationId": format!("inv_{id}"), "targetProfileId": "reviewer",
        "workspaceKey": "reviewer", "continuation": "return_to_parent", "status": "queued",
        "task": {"goal": "review"}, "createdAt": created_at, "updatedAt": created_at
    }))
    .unwrap()
}

#[tokio::test]
async fn invocations_and_tasks_are_kept_in_creation_order() {
    let (_dir, data, store) = store();
    let record = run("run_a", "one", "t", "created");
    store.create_run(&record).await.unwrap();
    for (id, at) in [("inv_b", "2"), ("inv_root", "1"), ("inv_a", "2")] {
        store
            .save_invocation(&invocation("run_a", id, at))
            .await
            .unwrap();
    }
    let mut updated = invocation("run_a", "inv_root", "1");
    updated.updated_at = "9".into();
    store.save_invocation(&updated).await.unwrap();
    let run_dir = data.run_dir(&record.workspace_id, &record.id);
    fs::create_dir(run_dir.invocations().join("stray-folder")).unwrap();

    let listed = store.list_invocations(&record.id).await.unwrap();
    let listed: Vec<_> = listed.iter().map(|i| i.id.as_str()).collect();
    assert_eq!(listed, ["inv_root", "inv_a", "inv_b"]);
    let loaded = store
        .load_invocation(&record.id, &InvocationId::root())
        .await
        .unwrap();
    assert_eq!(loaded, updated);
    let missing = InvocationId::parse("inv_zz").unwrap();
    assert!(matches!(
        store.load_invocation(&record.id, &missing).await,
        Err(StoreError::NotFound(_))
    ));

    for (id, at) in [("task_2", "b"), ("task_1", "a")] {
        store.save_task(&task("run_a", id, at)).await.unwrap();
    }
    let tasks = store.list_tasks(&record.id).await.unwrap();
    let tasks: Vec<_> = tasks.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(tasks, ["task_1", "task_2"]);
    let one = TaskId::parse("task_1").unwrap();
    assert_eq!(
        store.load_task(&record.id, &one).await.unwrap(),
        task("run_a", "task_1", "a")
    );
    assert!(run_dir.tasks().join("task_1.json").is_file());
}

#[tokio::test]
async fn run_summaries_round_trip() {
    let (_dir, _data, store) = store();
    let id = rid("run_a");
    assert_eq!(store.load_run_summary(&id).await.unwrap(), None);
    let summary = RunSummary::project(
        &run("run_a", "one", "2026-01-01T00:00:00.000Z", "completed"),
        &[],
    );
    store.save_run_summary(&summary).await.unwrap();
    store.save_run_summary(&summary).await.unwrap();
    assert_eq!(store.load_run_summary(&id).await.unwrap(), Some(summary));
}
