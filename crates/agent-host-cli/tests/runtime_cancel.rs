//! Cancelling runs: in process (through the runtime driving the run), from another
//! process (a request the owning driver polls for), and a run whose owner died.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod runtime_support;

use std::time::{Duration, Instant};

use agent_application::runtime::AgentRuntime;
use agent_domain::event::RunStatus;
use agent_domain::run::RunId;
use agent_infra_fs::FsStorage;
use agent_infra_fs::cancel::CANCEL_REQUEST_FILE;
use agent_infra_fs::layout::DataDir;
use runtime_support::{World, payloads, ports, statuses, types};
use serde_json::{Value, json};

/// A model that takes a minute to answer its first call.
fn slow_script() -> Value {
    json!({"turns": [
        {"delay_ms": 60000, "tool_calls": [
            {"name": "workspace_write_file", "arguments": {"path": "output/main.md", "content": "too late"}}
        ]}
    ]})
}

/// Waits until the run's journal shows its first model call in flight.
async fn until_calling_model(world: &World, run: &RunId) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let events = world.events(run).await;
        if types(&events).contains(&"model_call_attempt_started") {
            return;
        }
        assert!(Instant::now() < deadline, "the run never called its model");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The end of every cancelled run's journal, from the first model call on.
const CANCELLED_TAIL: [&str; 8] = [
    "status_changed",
    "model_request_created",
    "model_call_attempt_started",
    "run_cancel_requested",
    "status_changed",
    "agent_invocation_cancelled",
    "status_changed",
    "run_cancelled",
];

fn assert_cancelled_tail(events: &[agent_domain::event::JournalLine]) {
    let all = types(events);
    assert_eq!(
        all[all.len() - CANCELLED_TAIL.len()..],
        CANCELLED_TAIL,
        "{all:?}"
    );
    let statuses = statuses(events);
    assert_eq!(
        statuses[statuses.len() - 3..],
        ["calling_model", "cancelling", "cancelled"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_during_a_slow_model_call_stops_the_run() {
    let world = World::new();
    let before = world.chat_text();
    let started = world.start(&slow_script()).await;
    let run_id = started.run.id.clone();
    let task = tokio::spawn(started.task);
    until_calling_model(&world, &run_id).await;

    let clock = Instant::now();
    let status = world.runtime.cancel(&run_id).await.unwrap();
    assert_eq!(status, RunStatus::Cancelling);
    let outcome = task.await.unwrap();
    assert!(clock.elapsed() < Duration::from_secs(5));
    assert_eq!(outcome.status, RunStatus::Cancelled);
    assert_eq!(outcome.failure, None);
    assert_eq!(outcome.committed_text, None);

    let run = world.finished(run_id.clone(), outcome).await;
    assert_cancelled_tail(&run.events);
    assert_eq!(
        payloads(&run.events, "run_cancelled")[0]["message"],
        "the run was cancelled"
    );
    // Nothing was promoted or committed; the chat is untouched.
    assert!(world.persistent_states().is_empty());
    assert_eq!(run.chat, before);
    // Cancelling an ended run reports its status and journals nothing.
    let count = run.events.len();
    assert_eq!(
        world.runtime.cancel(&run_id).await.unwrap(),
        RunStatus::Cancelled
    );
    assert_eq!(world.events(&run_id).await.len(), count);
    let record = world.runtime.load_run(&run_id).await.unwrap();
    assert_eq!(record.status, RunStatus::Cancelled);
    let summary = world.runtime.run_summary(&run_id).await.unwrap();
    assert_eq!(summary.terminal.unwrap().event_type, "run_cancelled");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_process_cancels_through_a_request_the_driver_polls_for() {
    let world = World::new();
    let started = world.start(&slow_script()).await;
    let run_id = started.run.id.clone();
    let task = tokio::spawn(started.task);
    until_calling_model(&world, &run_id).await;

    // A second runtime over the same data directory stands in for another process.
    let other = AgentRuntime::new(ports(&FsStorage::open(DataDir::new(world.dir.path()))));
    let clock = Instant::now();
    assert_eq!(other.cancel(&run_id).await.unwrap(), RunStatus::Cancelling);
    let outcome = task.await.unwrap();
    assert!(clock.elapsed() < Duration::from_secs(5));
    assert_eq!(outcome.status, RunStatus::Cancelled);
    let run = world.finished(run_id.clone(), outcome).await;
    // The owner journaled the request it found.
    assert_cancelled_tail(&run.events);
    // The request is gone once the run ended.
    let record = world.runtime.load_run(&run_id).await.unwrap();
    let marker = DataDir::new(world.dir.path())
        .run_dir(&record.workspace_id, &run_id)
        .path()
        .join(CANCEL_REQUEST_FILE);
    assert!(!marker.exists());
    assert_eq!(other.cancel(&run_id).await.unwrap(), RunStatus::Cancelled);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_whose_owner_died_is_marked_cancelled() {
    let dir;
    let run_id;
    {
        let world = World::new();
        let started = world.start(&slow_script()).await;
        run_id = started.run.id.clone();
        // While the owner holds the run's journal, another process cannot mark it.
        let other = AgentRuntime::new(ports(&FsStorage::open(DataDir::new(world.dir.path()))));
        let locked = other.mark_cancelled(&run_id).await.unwrap_err();
        assert_eq!(agent_domain::ErrorCode::code(&locked), "agent.run_locked");
        // The owner dies: its task is never driven and its journal is closed.
        drop(started.task);
        let World {
            dir: kept,
            storage,
            runtime,
            ..
        } = world;
        drop((storage, runtime));
        dir = kept;
    }
    let storage = FsStorage::open(DataDir::new(dir.path()));
    let runtime = AgentRuntime::new(ports(&storage));
    assert_eq!(
        runtime.load_run(&run_id).await.unwrap().status,
        RunStatus::Created
    );
    assert_eq!(
        runtime.mark_cancelled(&run_id).await.unwrap(),
        RunStatus::Cancelled
    );
    let events = runtime
        .read_events(
            &run_id,
            &agent_application::ports::EventQuery {
                after_seq: Some(0),
                ..Default::default()
            },
        )
        .await
        .unwrap();
    assert_eq!(
        types(&events),
        [
            "run_created",
            "profile_resolved",
            "generation_intent_recorded",
            "run_cancel_requested",
            "status_changed",
            "run_cancelled",
        ]
    );
    assert_eq!(
        runtime.load_run(&run_id).await.unwrap().status,
        RunStatus::Cancelled
    );
    assert_eq!(
        runtime.mark_cancelled(&run_id).await.unwrap(),
        RunStatus::Cancelled
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_abandoned_task_leaves_a_run_that_can_be_marked_cancelled() {
    let world = World::new();
    let started = world.start(&slow_script()).await;
    let run_id = started.run.id.clone();
    // The host drops the task without driving it: the run is no longer driven here.
    drop(started.task);
    assert_eq!(
        world.runtime.mark_cancelled(&run_id).await.unwrap(),
        RunStatus::Cancelled
    );
    let events = world.events(&run_id).await;
    assert_eq!(types(&events).last(), Some(&"run_cancelled"));
    assert_eq!(
        world.runtime.run_summary(&run_id).await.unwrap().status,
        RunStatus::Cancelled
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plain_cancel_marks_a_run_nobody_drives_cancelled() {
    let world = World::new();
    let started = world.start(&slow_script()).await;
    let run_id = started.run.id.clone();
    // The owner dies: its task is never driven and its journal is closed.
    drop(started.task);
    let World {
        dir,
        storage,
        runtime,
        ..
    } = world;
    drop((storage, runtime));
    let other = AgentRuntime::new(ports(&FsStorage::open(DataDir::new(dir.path()))));
    assert_eq!(other.cancel(&run_id).await.unwrap(), RunStatus::Cancelled);
    assert_eq!(
        other.load_run(&run_id).await.unwrap().status,
        RunStatus::Cancelled
    );
}

/// A per-round status reaches the saved record shortly after it is journaled, although the
/// status change itself does not wait for the save.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_record_catches_up_with_a_per_round_status() {
    use agent_application::ports::RunStore;

    let world = World::new();
    let started = world.start(&slow_script()).await;
    let run_id = started.run.id.clone();
    let task = tokio::spawn(started.task);
    until_calling_model(&world, &run_id).await;

    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let record = world.storage.runs.load_run(&run_id).await.unwrap();
        if record.status == RunStatus::CallingModel {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "the record stayed at {:?} while the run called its model",
            record.status
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    world.runtime.cancel(&run_id).await.unwrap();
    assert_eq!(task.await.unwrap().status, RunStatus::Cancelled);
    let record = world.storage.runs.load_run(&run_id).await.unwrap();
    assert_eq!(record.status, RunStatus::Cancelled);
}
