//! Many runs at once in one process: 100 scripted runs, each on its own chat, all started on
//! one embedded runtime over one data directory, against the same 100 runs one after the
//! other.
//!
//! Each run does 20 rounds of write + read + patch, then writes, commits and finishes (63
//! tool calls). The data directory lives on tmpfs (`/dev/shm` when it exists, else the temp
//! folder), so what is measured is the runtime and its storage code, not the disk. The
//! figure is `concurrent wall time ÷ (sequential wall time ÷ worker threads)`: 1.0 means the
//! runs share the two workers perfectly; the goal is ≤ 1.2. After every batch each run's
//! journal is read back whole and checked: seqs 1..n without a gap, the same event types as
//! a run alone, a terminal `run_completed`, so no event is lost to the concurrency.
//!
//! ```sh
//! cargo bench -p agent-host-cli --bench concurrent_runs
//! TAVERN_AGENT_DURABILITY=strict cargo bench -p agent-host-cli --bench concurrent_runs
//! ```
//! Under `cargo test --benches` it runs a small batch once, as a check.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_application::ports::ProfileStore;
use agent_application::runtime::{AgentRuntime, RunOutcome};
use agent_domain::event::RunStatus;
use agent_gateway::scripted::ScriptedModel;
use agent_infra_fs::FsStorage;
use agent_infra_fs::layout::DataDir;
use tempfile::TempDir;
use tokio::runtime::Runtime;

/// Runs in a measured batch.
const RUNS: usize = 100;
/// Runs in the batch `cargo test --benches` checks.
const CHECK_RUNS: usize = 8;
/// Rounds of write + read + patch per run.
const WORK_ROUNDS: u32 = 20;
/// Tokio worker threads: the machine's two cores.
const WORKERS: usize = 2;
/// Batches measured each way; the medians are reported.
const REPEATS: usize = 3;

/// A data directory with `runs` chats and the bench profile, and a runtime over it.
struct World {
    /// Removed when the world is dropped.
    _dir: TempDir,
    storage: FsStorage,
    runtime: Arc<AgentRuntime>,
    characters: Vec<String>,
}

/// tmpfs when the machine has it, so the disk stays out of the figure.
fn scratch_root() -> PathBuf {
    let shm = PathBuf::from("/dev/shm");
    if shm.is_dir() { shm } else { std::env::temp_dir() }
}

impl World {
    async fn new(runs: usize) -> Self {
        let dir = tempfile::tempdir_in(scratch_root()).unwrap();
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

    async fn run_one(&self, character: &str, model: &Arc<ScriptedModel>) -> RunOutcome {
        let started = self
            .runtime
            .start_run(support::start_request(character, model))
            .await
            .unwrap();
        started.task.await
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
            tasks.push(
                self.runtime
                    .start_run(support::start_request(character, model))
                    .await
                    .unwrap()
                    .task,
            );
        }
        let outcomes = futures::future::join_all(tasks).await;
        (start.elapsed(), outcomes)
    }

    /// Checks every run ended completed with a whole journal of `expected` event types.
    async fn check(&self, outcomes: &[RunOutcome], expected: &[&'static str]) {
        for outcome in outcomes {
            assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.failure);
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
    assert_eq!(outcome.status, RunStatus::Completed, "{:?}", outcome.failure);
    support::events(&world.storage, &outcome.run_id)
        .await
        .iter()
        .map(|line| line.event_type())
        .collect()
}

/// One batch each way on fresh data directories: (sequential, concurrent) wall times.
async fn batch(
    runs: usize,
    model: &Arc<ScriptedModel>,
    expected: &[&'static str],
) -> (Duration, Duration) {
    let world = World::new(runs).await;
    let (sequential, outcomes) = world.sequential(model).await;
    world.check(&outcomes, expected).await;
    drop(world);
    let world = World::new(runs).await;
    let (concurrent, outcomes) = world.concurrent(model).await;
    world.check(&outcomes, expected).await;
    (sequential, concurrent)
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` runs the check batch once.
    let measuring = std::env::args().any(|arg| arg == "--bench");
    let runtime: Runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(WORKERS)
        .enable_all()
        .build()
        .unwrap();
    let model = support::model(WORK_ROUNDS);
    let expected = runtime.block_on(reference_events(&model));
    if !measuring {
        runtime.block_on(batch(CHECK_RUNS, &model, &expected));
        println!("concurrent_runs: {CHECK_RUNS} runs checked");
        return;
    }
    let mut sequential = Vec::new();
    let mut concurrent = Vec::new();
    for repeat in 1..=REPEATS {
        let (one_by_one, at_once) = runtime.block_on(batch(RUNS, &model, &expected));
        println!(
            "batch {repeat}/{REPEATS}: {RUNS} runs one by one {one_by_one:.2?}, at once {at_once:.2?}"
        );
        sequential.push(one_by_one);
        concurrent.push(at_once);
    }
    let (sequential, concurrent) = (median(sequential), median(concurrent));
    let ideal = sequential / WORKERS as u32;
    println!(
        "concurrent_runs ({} durability, {RUNS} runs of {} tool calls, {} events each): \
         sequential {sequential:.2?}, concurrent {concurrent:.2?}, ratio {:.2} \
         (concurrent ÷ (sequential ÷ {WORKERS}); goal ≤ 1.2), 0 lost events",
        support::durability(),
        3 * (WORK_ROUNDS + 1),
        expected.len(),
        concurrent.as_secs_f64() / ideal.as_secs_f64(),
    );
}
