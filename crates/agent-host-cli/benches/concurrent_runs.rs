//! Many runs at once in one process: 100 scripted runs, each on its own chat, all started on
//! one embedded runtime over one data directory, against the same 100 runs one after the
//! other.
//!
//! Each run does 5 rounds of write + read + patch, then writes, commits and finishes (18
//! tool calls). Each run's task is spawned on the runtime's two workers, as a host embedding
//! the runtime does (polling every task from one future would leave one worker idle). The
//! data directory lives on tmpfs (`/dev/shm` when it exists, else the temp
//! folder), so what is measured is the runtime and its storage code, not the disk. Two
//! criterion benchmarks time a batch each way (`concurrent_runs_100/one_by_one`,
//! `concurrent_runs_100/at_once`, on fresh data directories, set-up untimed);
//! `cargo xtask bench` derives the figure `at_once ÷ (one_by_one ÷ 2 workers)`: 1.0 means
//! the runs share the two workers perfectly; the goal is ≤ 1.2. After every batch each
//! run's journal is read back whole and checked (untimed): seqs 1..n without a gap, the
//! same event types as a run alone, ending `run_completed`, so no event is lost to the
//! concurrency.
//!
//! ```sh
//! cargo bench -p agent-host-cli --bench concurrent_runs
//! TAVERN_AGENT_DURABILITY=strict cargo bench -p agent-host-cli --bench concurrent_runs
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_application::ports::ProfileStore;
use agent_application::runtime::{AgentRuntime, RunOutcome};
use agent_domain::event::RunStatus;
use agent_gateway::scripted::ScriptedModel;
use agent_infra_fs::FsStorage;
use agent_infra_fs::layout::DataDir;
use criterion::Criterion;
use tempfile::TempDir;
use tokio::runtime::Runtime;
use tokio::task::JoinHandle;

/// Runs in a batch.
const RUNS: usize = 100;
/// Rounds of write + read + patch per run.
const WORK_ROUNDS: u32 = 5;
/// Tokio worker threads: the machine's two cores.
const WORKERS: usize = 2;
const GROUP: &str = "concurrent_runs_100";

/// A data directory with `runs` chats and the bench profile, and a runtime over it.
struct World {
    /// Removed when the world is dropped.
    _dir: TempDir,
    storage: FsStorage,
    runtime: Arc<AgentRuntime>,
    characters: Vec<String>,
}

impl World {
    async fn new(runs: usize) -> Self {
        let dir = tempfile::tempdir_in(support::scratch_root()).unwrap();
        let characters: Vec<String> = (0..runs).map(|n| format!("Keeper{n:03}")).collect();
        for character in &characters {
            support::write_chat(dir.path(), character);
        }
        let storage = FsStorage::open_with(DataDir::new(dir.path()), support::durability());
        let profile = support::profile_text(WORK_ROUNDS + 1);
        storage
            .profiles
            .save(support::PROFILE_ID, &profile)
            .await
            .unwrap();
        let runtime = Arc::new(AgentRuntime::new(storage.runtime_ports()));
        Self {
            _dir: dir,
            storage,
            runtime,
            characters,
        }
    }

    /// Starts a run and spawns its task on the runtime's workers, as a host does.
    async fn spawn_one(
        &self,
        character: &str,
        model: &Arc<ScriptedModel>,
    ) -> JoinHandle<RunOutcome> {
        let started = self
            .runtime
            .start_run(support::start_request(character, model))
            .await
            .unwrap();
        tokio::spawn(started.task)
    }

    async fn run_one(&self, character: &str, model: &Arc<ScriptedModel>) -> RunOutcome {
        self.spawn_one(character, model).await.await.unwrap()
    }

    /// Every run one after the other; the wall time.
    async fn sequential(&self, model: &Arc<ScriptedModel>) -> (Duration, Vec<RunOutcome>) {
        let start = Instant::now();
        let mut outcomes = Vec::new();
        for character in &self.characters {
            outcomes.push(self.run_one(character, model).await);
        }
        (start.elapsed(), outcomes)
    }

    /// Every run started at once; the wall time until the last one ended.
    async fn concurrent(&self, model: &Arc<ScriptedModel>) -> (Duration, Vec<RunOutcome>) {
        let start = Instant::now();
        let mut tasks = Vec::new();
        for character in &self.characters {
            tasks.push(self.spawn_one(character, model).await);
        }
        let mut outcomes = Vec::new();
        for task in tasks {
            outcomes.push(task.await.unwrap());
        }
        (start.elapsed(), outcomes)
    }

    /// Checks every run ended completed with a whole journal of `expected` event types.
    async fn check(&self, outcomes: &[RunOutcome], expected: &[&'static str]) {
        for outcome in outcomes {
            assert_eq!(
                outcome.status,
                RunStatus::Completed,
                "{:?}",
                outcome.failure
            );
            let events = support::events(&self.storage, &outcome.run_id).await;
            let seqs: Vec<u64> = events.iter().map(|line| line.seq).collect();
            let whole: Vec<u64> = (1..=events.len() as u64).collect();
            assert_eq!(seqs, whole, "run {}: a gap in the journal", outcome.run_id);
            let types: Vec<&'static str> = events.iter().map(|line| line.event_type()).collect();
            assert_eq!(types, expected, "run {}: other events", outcome.run_id);
        }
    }
}

/// The event types of one run alone: what every run of a batch must have journaled.
async fn reference_events(model: &Arc<ScriptedModel>) -> Vec<&'static str> {
    let world = World::new(1).await;
    let outcome = world.run_one(&world.characters[0], model).await;
    assert_eq!(
        outcome.status,
        RunStatus::Completed,
        "{:?}",
        outcome.failure
    );
    support::events(&world.storage, &outcome.run_id)
        .await
        .iter()
        .map(|line| line.event_type())
        .collect()
}

/// How a batch is started.
#[derive(Clone, Copy)]
enum Batch {
    OneByOne,
    AtOnce,
}

/// One batch on a fresh data directory: its wall time, every journal checked.
async fn batch(kind: Batch, model: &Arc<ScriptedModel>, expected: &[&'static str]) -> Duration {
    let world = World::new(RUNS).await;
    let (elapsed, outcomes) = match kind {
        Batch::OneByOne => world.sequential(model).await,
        Batch::AtOnce => world.concurrent(model).await,
    };
    world.check(&outcomes, expected).await;
    elapsed
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(30))
        .configure_from_args();
    let runtime: Runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .enable_all()
        .build()
        .unwrap();
    let model = support::model(WORK_ROUNDS);
    let expected = runtime.block_on(reference_events(&model));
    let mut group = criterion.benchmark_group(GROUP);
    for (name, kind) in [("one_by_one", Batch::OneByOne), ("at_once", Batch::AtOnce)] {
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter_custom(|iters| {
                let (model, expected) = (&model, &expected);
                async move {
                    let mut total = Duration::ZERO;
                    for _ in 0..iters {
                        total += batch(kind, model, expected).await;
                    }
                    total
                }
            });
        });
    }
    group.finish();
    criterion.final_summary();
}
