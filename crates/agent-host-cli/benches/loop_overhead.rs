//! Loop overhead: one whole scripted run of 201 rounds, on real storage.
//!
//! Rounds 1-200 each make three tool calls: `workspace_write_file` of a new
//! `scratch/r<N>.md`, `workspace_read_file` of it, `workspace_apply_patch` of one of its
//! lines. Round 201 writes `output/main.md`, commits it and finishes: 603 tool calls in all.
//! The model is a [`ScriptedModel`], so what is measured is the runtime itself: the machine,
//! the tools, and every journal append, audit file, checkpoint and chat write on disk.
//!
//! Each iteration runs the whole run in a fresh temp data dir (a SillyTavern chat and a
//! `bench-writer` profile, the default writer with room for 201 rounds and 603 calls); only
//! `start_run` + the run's task are timed. Storage uses the default durability policy
//! (`normal`), or the one `$TAVERN_AGENT_DURABILITY` names (`strict`). After criterion's measurement the bench times a
//! few more runs itself and prints the medians per run, per round and per tool call, next to
//! criterion's median read back from its `estimates.json`.
//!
//! ```sh
//! cargo bench -p agent-host-cli --bench loop_overhead -- --warm-up-time 1 --measurement-time 20
//! TAVERN_AGENT_DURABILITY=strict cargo bench -p agent-host-cli --bench loop_overhead
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use agent_application::ports::ProfileStore;
use agent_application::runtime::{AgentRuntime, RunOutcome};
use agent_domain::event::{JournalLine, RunStatus};
use agent_domain::run::RunId;
use agent_gateway::scripted::ScriptedModel;
use agent_infra_fs::FsStorage;
use agent_infra_fs::layout::DataDir;
use criterion::Criterion;
use serde_json::Value;
use support::PROFILE_ID;
use tempfile::TempDir;
use tokio::runtime::Runtime;

/// Rounds of write + read + patch.
const WORK_ROUNDS: u32 = 200;
/// Model rounds of the run: the work rounds and the write + commit + finish round.
const ROUNDS: u32 = WORK_ROUNDS + 1;
/// Tool calls of the run.
const TOOL_CALLS: u32 = WORK_ROUNDS * 3 + 3;
/// The chat's character.
const CHARACTER: &str = "Alice";
const GROUP: &str = "loop_overhead";
const BENCH: &str = "scripted_run_201_rounds";
/// Runs timed by the bench itself after criterion's measurement.
const OWN_RUNS: usize = 5;

/// A fresh data dir with the chat and the profile, and a runtime over it.
struct World {
    dir: TempDir,
    storage: FsStorage,
    runtime: AgentRuntime,
}

impl World {
    async fn new(profile: &str) -> Self {
        let dir = tempfile::tempdir().unwrap();
        support::write_chat(dir.path(), CHARACTER);
        let storage = FsStorage::open_with(DataDir::new(dir.path()), support::durability());
        storage.profiles.save(PROFILE_ID, profile).await.unwrap();
        let runtime = AgentRuntime::new(storage.runtime_ports());
        Self {
            dir,
            storage,
            runtime,
        }
    }

    /// Starts the run and awaits its task; only this is timed.
    async fn run(&self, model: &Arc<ScriptedModel>) -> (Duration, RunOutcome) {
        let request = support::start_request(CHARACTER, model);
        let start = Instant::now();
        let started = self.runtime.start_run(request).await.unwrap();
        let outcome = started.task.await;
        (start.elapsed(), outcome)
    }

    async fn events(&self, run: &RunId) -> Vec<JournalLine> {
        support::events(&self.storage, run).await
    }
}

fn check(outcome: &RunOutcome) {
    assert_eq!(
        outcome.status,
        RunStatus::Completed,
        "{:?}",
        outcome.failure
    );
    assert_eq!((outcome.rounds, outcome.tool_calls), (ROUNDS, TOOL_CALLS));
}

/// Milliseconds since midnight of an RFC 3339 UTC timestamp (`…THH:MM:SS.mmmZ`).
fn millis_of_day(timestamp: &str) -> Option<i64> {
    let time = timestamp.split('T').nth(1)?.trim_end_matches('Z');
    let mut parts = time.split(':');
    let hours: i64 = parts.next()?.parse().ok()?;
    let minutes: i64 = parts.next()?.parse().ok()?;
    let seconds: f64 = parts.next()?.parse().ok()?;
    Some((hours * 60 + minutes) * 60_000 + (seconds * 1000.0).round() as i64)
}

fn files_and_bytes(dir: &std::path::Path) -> (u64, u64) {
    let mut totals = (0, 0);
    for entry in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let meta = entry.metadata().unwrap();
        if meta.is_dir() {
            let (files, bytes) = files_and_bytes(&entry.path());
            totals = (totals.0 + files, totals.1 + bytes);
        } else {
            totals = (totals.0 + 1, totals.1 + meta.len());
        }
    }
    totals
}

/// One run, checked, with what it left on disk and a rough split of its time: each gap
/// between consecutive journal timestamps (ms resolution) is charged to the later event.
fn profile_one_run(runtime: &Runtime, model: &Arc<ScriptedModel>, profile: &str) {
    runtime.block_on(async {
        let world = World::new(profile).await;
        let (elapsed, outcome) = world.run(model).await;
        check(&outcome);
        let events = world.events(&outcome.run_id).await;
        let (files, bytes) = files_and_bytes(world.dir.path());
        let mut counts: BTreeMap<&'static str, (u64, i64)> = BTreeMap::new();
        let mut last: Option<i64> = None;
        for line in &events {
            let now = millis_of_day(&line.timestamp);
            let gap = match (last, now) {
                (Some(before), Some(now)) => (now - before).rem_euclid(86_400_000),
                _ => 0,
            };
            last = now;
            let entry = counts.entry(line.event_type()).or_default();
            *entry = (entry.0 + 1, entry.1 + gap);
        }
        let mut by_time: Vec<_> = counts.into_iter().collect();
        by_time.sort_by_key(|(_, (_, ms))| std::cmp::Reverse(*ms));
        println!(
            "check run ({} durability): {elapsed:.2?}, {} events, {files} files / {:.1} MiB in \
             the data dir, {} chat commits (auto-publish included)",
            support::durability(),
            events.len(),
            bytes as f64 / (1024.0 * 1024.0),
            by_time
                .iter()
                .find(|(kind, _)| *kind == "chat_commit_completed")
                .map_or(0, |(_, (count, _))| *count),
        );
        println!("time before each event type (journal timestamps, ms), top 12:");
        for (kind, (count, ms)) in by_time.iter().take(12) {
            println!("  {kind:<36} {count:>5} events {ms:>6} ms");
        }
    });
}

fn bench_run(c: &mut Criterion, runtime: &Runtime, model: &Arc<ScriptedModel>, profile: &str) {
    let mut group = c.benchmark_group(GROUP);
    group.bench_function(BENCH, |b| {
        b.to_async(runtime).iter_custom(|iters| async move {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let world = World::new(profile).await;
                let (elapsed, outcome) = world.run(model).await;
                check(&outcome);
                total += elapsed;
                drop(world); // removing the data dir is not timed
            }
            total
        });
    });
    group.finish();
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn report(label: &str, per_run: Duration) {
    println!(
        "{label}: {per_run:.3?} per run, {:.3?} per round (/{ROUNDS}), {:.3?} per tool call (/{TOOL_CALLS})",
        per_run / ROUNDS,
        per_run / TOOL_CALLS,
    );
}

/// Where criterion keeps its results (the same rules as criterion's own).
fn criterion_dir() -> Option<PathBuf> {
    if let Some(home) = std::env::var_os("CRITERION_HOME") {
        return Some(PathBuf::from(home));
    }
    if let Some(target) = std::env::var_os("CARGO_TARGET_DIR") {
        return Some(PathBuf::from(target).join("criterion"));
    }
    // target/<profile>/deps/<bench executable>
    let exe = std::env::current_exe().ok()?;
    Some(exe.parent()?.parent()?.parent()?.join("criterion"))
}

fn criterion_median() -> Option<Duration> {
    let path = criterion_dir()?
        .join(GROUP)
        .join(BENCH)
        .join("new")
        .join("estimates.json");
    let estimates: Value = serde_json::from_str(&std::fs::read_to_string(path).ok()?).ok()?;
    let nanos = estimates["median"]["point_estimate"].as_f64()?;
    Some(Duration::from_nanos(nanos as u64))
}

fn main() {
    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20))
        .configure_from_args();
    // `cargo bench` passes `--bench`; `cargo test --benches` runs each benchmark once.
    let measuring = std::env::args().any(|arg| arg == "--bench");
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let model = support::model(WORK_ROUNDS);
    let profile = support::profile_text(ROUNDS);

    if measuring {
        profile_one_run(&runtime, &model, &profile);
    }
    bench_run(&mut criterion, &runtime, &model, &profile);
    criterion.final_summary();
    if !measuring {
        return;
    }

    let own: Vec<Duration> = (0..OWN_RUNS)
        .map(|_| {
            runtime.block_on(async {
                let world = World::new(&profile).await;
                let (elapsed, outcome) = world.run(&model).await;
                check(&outcome);
                elapsed
            })
        })
        .collect();
    println!();
    match criterion_median() {
        Some(median) => report("criterion median", median),
        None => println!("criterion median: no estimates.json found"),
    }
    report(&format!("own median of {OWN_RUNS} runs"), median(own));
}
