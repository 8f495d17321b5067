//! The `serve` event stream under fan-out: 50 SSE clients follow one scripted run over real
//! loopback HTTP (`agent-host-http` on `127.0.0.1:0`, reqwest clients).
//!
//! Each iteration creates a run (20 rounds of write + read + patch, then write, commit,
//! finish), connects the 50 clients and waits until each has its backlog, then starts the
//! run and times until every client has read the terminal event. Criterion records that
//! time (`sse_fanout_50/one_run`). Two figures are printed at the end:
//!
//! * events/s delivered: `clients × events` over the time, median over the iterations;
//! * latency from journal append to client receipt, median and p99 over every (client,
//!   event) pair: the runtime's journal is wrapped so each append's return is timed, and
//!   each client notes when it parsed that event's `id:` line.
//!
//! The data directory lives on tmpfs when the machine has it. Every client must see seqs
//! 1..n without a gap or a repeat.
//!
//! ```sh
//! cargo bench -p agent-host-cli --bench sse_fanout
//! ```
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use agent_application::chat_workspaces::ChatWorkspaces;
use agent_application::doctor::Doctor;
use agent_application::mcp::McpServers;
use agent_application::ports::{
    EventDraft, EventJournal, EventQuery, EventStream, JournalError, ProfileStore, SkillRef,
    SkillScope, StoreError,
};
use agent_application::profiles::ProfileService;
use agent_application::retention::RetentionService;
use agent_application::runtime::AgentRuntime;
use agent_domain::event::{ChatRef, JournalLine};
use agent_domain::run::RunId;
use agent_domain::workspace::WorkspacePath;
use agent_host_http::{
    ApiError, ApiResult, ChosenModel, HostWiring, ModelChoice, ServeOptions, Services, SkillImport,
    Token,
};
use agent_infra_fs::FsStorage;
use agent_infra_fs::digest::Sha256Digest;
use agent_infra_fs::environment::{SystemClock, UuidIds};
use agent_infra_fs::layout::DataDir;
use agent_mcp::McpClient;
use async_trait::async_trait;
use criterion::Criterion;
use futures::StreamExt;
use serde_json::Value;
use tempfile::TempDir;

const CLIENTS: usize = 50;
const WORK_ROUNDS: u32 = 20;
const CHARACTER: &str = "Mara";
const TOKEN: &str = "bench-token";

/// When each seq's append returned, for the run being measured.
type Appended = Arc<Mutex<HashMap<u64, Instant>>>;

/// The journal the runtime writes through, timing every append.
struct TimedJournal {
    inner: Arc<dyn EventJournal>,
    appended: Appended,
}

#[async_trait]
impl EventJournal for TimedJournal {
    async fn append(&self, run: &RunId, draft: EventDraft) -> Result<JournalLine, JournalError> {
        let line = self.inner.append(run, draft).await?;
        self.appended
            .lock()
            .unwrap()
            .insert(line.seq, Instant::now());
        Ok(line)
    }

    async fn read(
        &self,
        run: &RunId,
        query: &EventQuery,
    ) -> Result<Vec<JournalLine>, JournalError> {
        self.inner.read(run, query).await
    }

    async fn subscribe(&self, run: &RunId) -> Result<EventStream, JournalError> {
        self.inner.subscribe(run).await
    }

    async fn is_held(&self, run: &RunId) -> Result<bool, JournalError> {
        self.inner.is_held(run).await
    }
}

/// Only following is used: the bench starts its runs on the runtime directly.
struct BenchWiring {
    storage: Arc<FsStorage>,
}

fn unused() -> ApiError {
    ApiError::bad_request("bench.unused", "the bench starts runs itself")
}

#[async_trait]
impl HostWiring for BenchWiring {
    fn resolve_chat(&self, _raw: &str) -> ApiResult<ChatRef> {
        Err(unused())
    }

    async fn choose_model(&self, _choice: &ModelChoice) -> ApiResult<ChosenModel> {
        Err(unused())
    }

    async fn follow(&self, run: &RunId, after_seq: u64) -> Result<EventStream, JournalError> {
        self.storage.journal.follow(run, after_seq).await
    }

    async fn skill_details(&self, _skill: &SkillRef) -> Result<Value, StoreError> {
        Err(no_skills())
    }

    async fn import_skill(
        &self,
        _scope: &SkillScope,
        _archive: Vec<u8>,
        _preview_only: bool,
        _replace: bool,
    ) -> Result<SkillImport, StoreError> {
        Err(no_skills())
    }

    async fn export_skill(&self, _skill: &SkillRef) -> Result<Vec<u8>, StoreError> {
        Err(no_skills())
    }

    async fn write_skill_file(
        &self,
        _skill: &SkillRef,
        _path: &WorkspacePath,
        _content: Vec<u8>,
    ) -> Result<(), StoreError> {
        Err(no_skills())
    }

    async fn rename_skill(&self, _skill: &SkillRef, _new_name: &str) -> Result<(), StoreError> {
        Err(no_skills())
    }

    async fn remove_skill(&self, _skill: &SkillRef) -> Result<(), StoreError> {
        Err(no_skills())
    }

    fn check_mcp_url(&self, _url: &str) -> ApiResult<()> {
        Err(unused())
    }
}

/// The bench manages no skills.
fn no_skills() -> StoreError {
    StoreError::Io("not wired in the bench".to_owned())
}

struct World {
    _dir: TempDir,
    runtime: AgentRuntime,
    appended: Appended,
    base: String,
    client: reqwest::Client,
}

impl World {
    async fn new() -> Self {
        let dir = tempfile::tempdir_in(support::scratch_root()).unwrap();
        support::write_chat(dir.path(), CHARACTER);
        let storage = Arc::new(FsStorage::open_with(
            DataDir::new(dir.path()),
            support::durability(),
        ));
        let profile = support::profile_text(WORK_ROUNDS + 1);
        storage
            .profiles
            .save(support::PROFILE_ID, &profile)
            .await
            .unwrap();
        let appended = Appended::default();
        let mut ports = storage.runtime_ports();
        ports.journal = Arc::new(TimedJournal {
            inner: ports.journal,
            appended: appended.clone(),
        });
        let runtime = AgentRuntime::new(ports);
        let services = Services {
            runtime: runtime.clone(),
            profiles: ProfileService::new(storage.profiles.clone()),
            connections: storage.connections.clone(),
            mcp: Arc::new(McpServers::new(
                storage.mcp.clone(),
                Arc::new(McpClient::default()),
                Arc::new(SystemClock),
                Arc::new(UuidIds),
            )),
            retention: Arc::new(RetentionService::new(
                storage.settings.clone(),
                storage.runs.clone(),
                storage.journal.clone(),
                storage.retention.clone(),
                Arc::new(SystemClock),
            )),
            skills: storage.skills.clone(),
            chats: ChatWorkspaces::new(
                storage.chat_workspaces.clone(),
                storage.runs.clone(),
                storage.retention.clone(),
                Arc::new(Sha256Digest),
            ),
            doctor: Doctor::new(
                ProfileService::new(storage.profiles.clone()),
                storage.connections.clone(),
                storage.skills.clone(),
            ),
            host: Arc::new(BenchWiring {
                storage: storage.clone(),
            }),
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let options = ServeOptions {
            token: Token::new(TOKEN),
            allowed_origins: Vec::new(),
            body_limit: agent_host_http::DEFAULT_BODY_LIMIT,
        };
        tokio::spawn(agent_host_http::serve(
            listener,
            services,
            options,
            std::future::pending(),
        ));
        Self {
            _dir: dir,
            runtime,
            appended,
            base,
            client: reqwest::Client::new(),
        }
    }

    /// One run followed by every client: the time from its start until the last client
    /// read its terminal event, the events each client read, and every latency.
    async fn fan_out(&self) -> (Duration, usize, Vec<Duration>) {
        let model = support::model(WORK_ROUNDS);
        let started = self
            .runtime
            .start_run(support::start_request(CHARACTER, &model))
            .await
            .unwrap();
        let run = started.run.id.to_string();
        let backlog = self
            .runtime
            .read_events(&started.run.id, &EventQuery::newest(1))
            .await
            .unwrap()[0]
            .seq;
        let mut clients = Vec::new();
        let (ready_tx, mut ready_rx) = tokio::sync::mpsc::channel(CLIENTS);
        for _ in 0..CLIENTS {
            let response = self
                .client
                .get(format!("{}/api/runs/{run}/stream", self.base))
                .bearer_auth(TOKEN)
                .send()
                .await
                .unwrap();
            clients.push(tokio::spawn(read_stream(
                response,
                backlog,
                ready_tx.clone(),
            )));
        }
        for _ in 0..CLIENTS {
            ready_rx.recv().await.unwrap();
        }
        let start = Instant::now();
        let outcome = tokio::spawn(started.task).await.unwrap();
        assert_eq!(outcome.status.as_str(), "completed");
        let mut events = 0;
        let mut receipts = Vec::new();
        for client in clients {
            let seen = client.await.unwrap();
            let seqs: Vec<u64> = seen.iter().map(|(seq, _)| *seq).collect();
            assert_eq!(seqs, (1..=seqs.len() as u64).collect::<Vec<_>>());
            events = seqs.len();
            receipts.extend(seen);
        }
        let end = receipts.iter().map(|(_, at)| *at).max().unwrap();
        let appended = std::mem::take(&mut *self.appended.lock().unwrap());
        let latencies = receipts
            .iter()
            .filter(|(seq, _)| *seq > backlog)
            .map(|(seq, at)| at.saturating_duration_since(appended[seq]))
            .collect();
        (end - start, events, latencies)
    }
}

/// Reads the stream to its end, noting when each `id:` arrived; says `ready` once the
/// backlog (up to `backlog`) is in.
async fn read_stream(
    response: reqwest::Response,
    backlog: u64,
    ready: tokio::sync::mpsc::Sender<()>,
) -> Vec<(u64, Instant)> {
    let mut body = response.bytes_stream();
    let mut buffer = Vec::new();
    let mut seen = Vec::new();
    let mut said = false;
    while let Some(chunk) = body.next().await {
        buffer.extend_from_slice(&chunk.unwrap());
        let at = Instant::now();
        while let Some(end) = buffer.iter().position(|b| *b == b'\n') {
            let line: Vec<u8> = buffer.drain(..=end).collect();
            if let Some(id) = line.strip_prefix(b"id: ") {
                let seq = std::str::from_utf8(id).unwrap().trim().parse().unwrap();
                seen.push((seq, at));
                if seq >= backlog && !said {
                    said = true;
                    ready.send(()).await.unwrap();
                }
            }
        }
    }
    seen
}

fn bench(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let world = rt.block_on(World::new());
    let rates = Mutex::new(Vec::new());
    let latencies = Mutex::new(Vec::new());
    let mut group = c.benchmark_group("sse_fanout_50");
    group.sample_size(10);
    group.bench_function("one_run", |b| {
        b.iter_custom(|iters| {
            let mut total = Duration::ZERO;
            for _ in 0..iters {
                let (elapsed, events, lat) = rt.block_on(world.fan_out());
                total += elapsed;
                rates
                    .lock()
                    .unwrap()
                    .push((CLIENTS * events) as f64 / elapsed.as_secs_f64());
                latencies.lock().unwrap().extend(lat);
            }
            total
        });
    });
    group.finish();
    report(rates.into_inner().unwrap(), latencies.into_inner().unwrap());
}

fn report(mut rates: Vec<f64>, mut latencies: Vec<Duration>) {
    if rates.is_empty() || latencies.is_empty() {
        return;
    }
    rates.sort_by(f64::total_cmp);
    latencies.sort();
    let at = |q: f64| latencies[((latencies.len() - 1) as f64 * q).round() as usize];
    println!(
        "sse_fanout_50: {:.0} events/s delivered (median of {} runs, {CLIENTS} clients); \
         append-to-receipt latency median {:?}, p99 {:?} ({} samples)",
        rates[rates.len() / 2],
        rates.len(),
        at(0.5),
        at(0.99),
        latencies.len()
    );
}

criterion::criterion_group!(benches, bench);
criterion::criterion_main!(benches);
