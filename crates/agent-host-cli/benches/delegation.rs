//! Delegation: a writer delegates 8 research tasks, each to a child whose scripted model
//! answers after 100 ms, and waits for them all (`agent.await` in `allCompleted` mode);
//! then it writes, commits and finishes. `delegation_8x100ms/parallel` delegates all 8 in
//! one round and awaits once; `delegation_8x100ms/sequential` (the reference) delegates
//! and awaits one task at a time, so its time includes the 8 × 100 ms model latency one
//! after the other. The goal for `parallel` is ≤ 130 ms per run on a 2-core machine: the
//! children's latencies overlap and the runtime adds little around them.
//!
//! Each iteration is a whole run on a fresh data directory (tmpfs when the machine has
//! `/dev/shm`); set-up is untimed, and every run is checked to end `completed` with 8
//! completed tasks.
//!
//! ```sh
//! cargo bench -p agent-host-cli --bench delegation
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_application::ports::{ProfileStore, RunStore};
use agent_application::runtime::AgentRuntime;
use agent_domain::event::{RunStatus, TaskStatus};
use agent_domain::profile::default_writer;
use agent_gateway::scripted::ScriptedModel;
use agent_infra_fs::FsStorage;
use agent_infra_fs::layout::DataDir;
use criterion::Criterion;
use serde_json::{Value, json};
use tokio::runtime::Runtime;

/// Children per run.
const CHILDREN: usize = 8;
/// The latency of every child's one model call.
const CHILD_LATENCY_MS: u64 = 100;
const WORKERS: usize = 2;
const GROUP: &str = "delegation_8x100ms";
const CHARACTER: &str = "Keeper";

fn call(name: &str, arguments: Value) -> Value {
    json!({"name": name, "arguments": arguments})
}

fn delegate(n: usize) -> Value {
    call(
        "agent_delegate",
        json!({"agentId": "researcher", "task": {"objective": format!("Find fact {n}")}}),
    )
}

fn await_all() -> Value {
    call(
        "agent_await",
        json!({"mode": "allCompleted", "timeoutMs": 60000}),
    )
}

/// The writer's turns (all delegations in one round, or one task at a time), the
/// children's answers, and the closing write + commit + finish.
fn script(parallel: bool) -> Arc<ScriptedModel> {
    let mut turns: Vec<Value> = if parallel {
        vec![
            json!({"tool_calls": (1..=CHILDREN).map(delegate).collect::<Vec<_>>()}),
            json!({"tool_calls": [await_all()]}),
        ]
    } else {
        (1..=CHILDREN)
            .flat_map(|n| {
                [
                    json!({"tool_calls": [delegate(n)]}),
                    json!({"tool_calls": [await_all()]}),
                ]
            })
            .collect()
    };
    turns.push(json!({"tool_calls": [
        call("workspace_write_file", json!({"path": "output/main.md", "content": "The keeper, Mara."})),
        call("workspace_commit", json!({})),
        call("workspace_finish", json!({})),
    ]}));
    let answer = json!({"delay_ms": CHILD_LATENCY_MS, "tool_calls": [
        call("task_return", json!({"summary": "Found it."}))
    ]});
    let script = json!({"turns": turns, "agents": {"researcher": vec![answer; CHILDREN]}});
    Arc::new(ScriptedModel::from_json(&script.to_string()).unwrap())
}

/// The bench writer, allowed to delegate 8 tasks at once, and the researcher it calls.
async fn save_profiles(storage: &FsStorage) {
    let mut writer: Value = serde_json::from_str(&support::profile_text(20)).unwrap();
    writer["delegation"]["canDelegate"] = json!(true);
    writer["delegation"]["maxConcurrentInvocations"] = json!(CHILDREN);
    writer["delegation"]["maxInvocationsPerRun"] = json!(CHILDREN);
    for tool in ["builtin:agent.delegate", "builtin:agent.await"] {
        writer["tools"]["allow"]
            .as_array_mut()
            .unwrap()
            .push(json!(tool));
    }
    let mut researcher = serde_json::to_value(default_writer()).unwrap();
    researcher["id"] = json!("researcher");
    researcher["run"]["presentation"] = json!("background");
    researcher["run"]["directRunnable"] = json!(false);
    researcher["delegation"]["callable"] = json!(true);
    researcher["delegation"]["allowAsSubagent"] = json!(true);
    researcher["tools"]["allow"] = json!([
        "builtin:workspace.read_file",
        "builtin:workspace.write_file"
    ]);
    for (id, profile) in [(support::PROFILE_ID, writer), ("researcher", researcher)] {
        let text = serde_json::to_string_pretty(&profile).unwrap();
        storage.profiles.save(id, &text).await.unwrap();
    }
}

/// One whole run on a fresh data directory: its wall time, its outcome checked.
async fn one_run(parallel: bool) -> Duration {
    let dir = tempfile::tempdir_in(support::scratch_root()).unwrap();
    support::write_chat(dir.path(), CHARACTER);
    let storage = FsStorage::open_with(DataDir::new(dir.path()), support::durability());
    save_profiles(&storage).await;
    let runtime = AgentRuntime::new(storage.runtime_ports());
    let model = script(parallel);
    let start = Instant::now();
    let started = runtime
        .start_run(support::start_request(CHARACTER, &model))
        .await
        .unwrap();
    let outcome = started.task.await;
    let elapsed = start.elapsed();
    assert_eq!(
        outcome.status,
        RunStatus::Completed,
        "{:?}",
        outcome.failure
    );
    let tasks = storage.runs.list_tasks(&outcome.run_id).await.unwrap();
    assert_eq!(tasks.len(), CHILDREN);
    assert!(
        tasks
            .iter()
            .all(|task| task.status == TaskStatus::Completed)
    );
    elapsed
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(10))
        .configure_from_args();
    let runtime: Runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .enable_all()
        .build()
        .unwrap();
    let mut group = criterion.benchmark_group(GROUP);
    for (name, parallel) in [("parallel", true), ("sequential", false)] {
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter_custom(|iters| async move {
                let mut total = Duration::ZERO;
                for _ in 0..iters {
                    total += one_run(parallel).await;
                }
                total
            });
        });
    }
    group.finish();
    criterion.final_summary();
}
