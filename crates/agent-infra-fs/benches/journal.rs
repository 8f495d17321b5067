//! Journal throughput and page latency.
//!
//! * `journal_append`: events per second through the port, under the `normal` durability
//!   policy (the events here are no barriers, so nothing is synced) and under `strict`
//!   (every event synced).
//! * `journal_newest_page`: the newest page (limit 100) of a 1,000-event and of a
//!   1,000,000-event journal. Reading touches only the last blocks, so the two should cost
//!   about the same (their ratio must stay under 2).
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::Path;

use agent_application::ports::{EventDraft, EventJournal, EventQuery};
use agent_domain::event::{
    InvocationKind, InvocationStatus, InvocationStatusPayload, JournalLine, RunEvent, RunStatus,
    StatusChangedPayload,
};
use agent_domain::run::{RunId, WorkspaceId};
use agent_infra_fs::durability::Durability;
use agent_infra_fs::journal::FsEventJournal;
use agent_infra_fs::layout::DataDir;
use agent_infra_fs::run_locator::RunLocator;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use tokio::runtime::Runtime;

const TIMESTAMP: &str = "2026-06-24T10:00:00.000Z";

fn workspace() -> WorkspaceId {
    WorkspaceId::parse("chat_d474bb6f0a9e39a7").unwrap()
}

/// Typical events: a status change or a child invocation starting.
fn event(n: u64) -> RunEvent {
    if n.is_multiple_of(2) {
        RunEvent::StatusChanged(StatusChangedPayload {
            status: RunStatus::DispatchingTool,
        })
    } else {
        RunEvent::AgentInvocationStarted(InvocationStatusPayload {
            invocation_id: format!("inv_{n:032x}"),
            parent_invocation_id: Some("inv_root".to_owned()),
            profile_id: "reviewer".to_owned(),
            kind: InvocationKind::Subagent,
            status: InvocationStatus::Running,
            message: None,
        })
    }
}

/// Writes a journal of `events` lines directly, bypassing the port.
fn write_journal(path: &Path, run: &RunId, events: u64) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let mut out = BufWriter::with_capacity(1 << 20, File::create(path).unwrap());
    for seq in 1..=events {
        let line = JournalLine::new(
            seq,
            format!("evt_{seq:032x}"),
            run.as_str(),
            TIMESTAMP,
            event(seq),
        );
        serde_json::to_writer(&mut out, &line).unwrap();
        out.write_all(b"\n").unwrap();
    }
    out.flush().unwrap();
}

fn append(c: &mut Criterion) {
    let runtime = Runtime::new().unwrap();
    let mut group = c.benchmark_group("journal_append");
    group.throughput(Throughput::Elements(1));
    for (name, policy) in [
        ("normal_no_fsync", Durability::Normal),
        ("strict_fsync_every_event", Durability::Strict),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let run = RunId::parse(&format!("run_{name}")).unwrap();
        let locator = RunLocator::with_durability(DataDir::new(dir.path()), policy);
        let journal = FsEventJournal::new(locator);
        journal.register_run(&run, &workspace());
        let mut n = 0;
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter(|| {
                n += 1;
                let draft = EventDraft {
                    timestamp: TIMESTAMP.to_owned(),
                    event: event(n),
                };
                let (journal, run) = (&journal, &run);
                async move { journal.append(run, draft).await.unwrap() }
            });
        });
    }
    group.finish();
}

fn newest_page(c: &mut Criterion) {
    let runtime = Runtime::new().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let data = DataDir::new(dir.path());
    let journal = FsEventJournal::new(RunLocator::new(data.clone()));
    let mut group = c.benchmark_group("journal_newest_page");
    for (name, events) in [("1k_events", 1_000), ("1m_events", 1_000_000)] {
        let run = RunId::parse(&format!("run_{name}")).unwrap();
        write_journal(&data.run_dir(&workspace(), &run).events(), &run, events);
        journal.register_run(&run, &workspace());
        let query = EventQuery::newest(100);
        group.bench_function(name, |b| {
            b.to_async(&runtime).iter(|| async {
                let page = journal.read(&run, &query).await.unwrap();
                assert_eq!(page.len(), 100);
                page
            });
        });
    }
    group.finish();
}

criterion_group!(benches, append, newest_page);
criterion_main!(benches);
