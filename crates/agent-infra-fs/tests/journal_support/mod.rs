//! Shared fixtures of the `journal_*` integration tests. Each test crate uses a subset.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::future::Future;
use std::path::PathBuf;
use std::time::Duration;

use agent_application::ports::{EventDraft, EventJournal};
use agent_domain::event::{
    CheckpointCreatedPayload, CheckpointReason, InvocationKind, InvocationStatus,
    InvocationStatusPayload, JournalLine, RunEvent, RunStatus, StatusChangedPayload,
};
use agent_domain::run::{RunId, WorkspaceId};
use agent_infra_fs::journal::FsEventJournal;
use agent_infra_fs::layout::DataDir;
use agent_infra_fs::run_locator::RunLocator;
use tempfile::TempDir;

pub const RUN: &str = "run_0123456789abcdef0123456789abcdef";
pub const WORKSPACE: &str = "chat_d474bb6f0a9e39a7";
pub const TIMESTAMP: &str = "2026-06-24T10:00:00.000Z";

/// A data directory with one run whose workspace journals know.
pub struct Fixture {
    pub dir: TempDir,
    pub data: DataDir,
    pub run: RunId,
    pub workspace: WorkspaceId,
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let data = DataDir::new(dir.path());
        Self {
            dir,
            data,
            run: RunId::parse(RUN).unwrap(),
            workspace: WorkspaceId::parse(WORKSPACE).unwrap(),
        }
    }

    /// A journal instance with the run registered (see [`journal_in`]).
    pub fn journal(&self) -> FsEventJournal {
        journal_in(&self.data)
    }

    pub fn events_path(&self) -> PathBuf {
        self.data.run_dir(&self.workspace, &self.run).events()
    }

    pub fn bytes(&self) -> Vec<u8> {
        std::fs::read(self.events_path()).unwrap()
    }

    pub fn write_bytes(&self, bytes: &[u8]) {
        let path = self.events_path();
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }

    /// Appends `count` root events through `journal`.
    pub async fn append_statuses(&self, journal: &FsEventJournal, count: usize) {
        for _ in 0..count {
            journal.append(&self.run, status()).await.unwrap();
        }
    }

    /// The file's events, checking the format strictly: every line is compact JSON ending
    /// in `\n`, and seqs run 1, 2, 3, … without a gap.
    pub fn strict_lines(&self) -> Vec<JournalLine> {
        let text = String::from_utf8(self.bytes()).unwrap();
        assert!(
            text.is_empty() || text.ends_with('\n'),
            "unterminated last line"
        );
        let lines: Vec<JournalLine> = text
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        let seqs: Vec<u64> = lines.iter().map(|line| line.seq).collect();
        assert_eq!(seqs, (1..=lines.len() as u64).collect::<Vec<_>>());
        lines
    }
}

/// A journal over `data` with the fixture's run registered. Two instances share no state,
/// just as two processes would not; followers poll quickly so tests finish fast.
pub fn journal_in(data: &DataDir) -> FsEventJournal {
    let journal = FsEventJournal::new(RunLocator::new(data.clone()))
        .with_poll_interval(Duration::from_millis(10));
    journal.register_run(
        &RunId::parse(RUN).unwrap(),
        &WorkspaceId::parse(WORKSPACE).unwrap(),
    );
    journal
}

pub fn draft(event: RunEvent) -> EventDraft {
    EventDraft {
        timestamp: TIMESTAMP.to_owned(),
        event,
    }
}

/// A root-scoped event.
pub fn status() -> EventDraft {
    draft(RunEvent::StatusChanged(StatusChangedPayload {
        status: RunStatus::CallingModel,
    }))
}

/// An event owned by child invocation `invocation`, related to the root.
pub fn child_started(invocation: &str) -> EventDraft {
    draft(RunEvent::AgentInvocationStarted(InvocationStatusPayload {
        invocation_id: invocation.to_owned(),
        parent_invocation_id: Some("inv_root".to_owned()),
        profile_id: "reviewer".to_owned(),
        kind: InvocationKind::Subagent,
        status: InvocationStatus::Running,
        message: None,
    }))
}

/// An event without an invocation scope.
pub fn checkpoint() -> EventDraft {
    draft(RunEvent::CheckpointCreated(CheckpointCreatedPayload {
        checkpoint_id: "cp_000001".to_owned(),
        reason: CheckpointReason::ChatCommit,
    }))
}

/// The terminal event.
pub fn completed() -> EventDraft {
    draft(RunEvent::RunCompleted)
}

pub fn seqs(lines: &[JournalLine]) -> Vec<u64> {
    lines.iter().map(|line| line.seq).collect()
}

/// Turns a hang into a failure; nothing in the tests waits on time to be correct.
pub async fn within<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(60), future)
        .await
        .expect("the journal did not deliver within a minute")
}
