//! The run event journal: an append-only, gap-free sequence of events per run.

use agent_domain::ErrorCode;
use agent_domain::event::{JournalLine, RunEvent};
use agent_domain::run::{InvocationId, RunId};
use async_trait::async_trait;
use futures::stream::BoxStream;

/// An event about to be appended; the journal assigns `seq` and `id`.
#[derive(Debug, Clone, PartialEq)]
pub struct EventDraft {
    /// RFC 3339 time the event happened.
    pub timestamp: String,
    pub event: RunEvent,
}

/// Which page of a journal to read.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EventQuery {
    /// Only events with `seq < before_seq`; the newest `limit` of them, in ascending order.
    pub before_seq: Option<u64>,
    /// Only events with `seq > after_seq`; the oldest `limit` of them.
    pub after_seq: Option<u64>,
    /// 1..=500; `None` means 100.
    pub limit: Option<u32>,
    /// Only events scoped to this invocation.
    pub invocation_id: Option<InvocationId>,
}

impl EventQuery {
    pub const DEFAULT_LIMIT: u32 = 100;
    pub const MAX_LIMIT: u32 = 500;

    /// The newest page: `before_seq` unset and `after_seq` unset read the *oldest* events,
    /// so callers wanting the tail use this.
    pub fn newest(limit: u32) -> Self {
        Self {
            before_seq: Some(u64::MAX),
            limit: Some(limit),
            ..Self::default()
        }
    }
}

/// New events of one run as they are appended.
pub type EventStream = BoxStream<'static, Result<JournalLine, JournalError>>;

/// The journal of every run.
///
/// Guarantees: `append` numbers events 1, 2, 3, … without gaps, also under concurrent
/// appends to one run; a torn last line left by a crash is ignored by readers and repaired by
/// the next append; terminal events are durable (fsynced) when `append` returns.
#[async_trait]
pub trait EventJournal: Send + Sync {
    async fn append(&self, run: &RunId, draft: EventDraft) -> Result<JournalLine, JournalError>;

    async fn read(&self, run: &RunId, query: &EventQuery)
    -> Result<Vec<JournalLine>, JournalError>;

    /// Events appended after the call, until the run's terminal event (inclusive).
    async fn subscribe(&self, run: &RunId) -> Result<EventStream, JournalError>;

    /// Whether a live process (this one included) holds the run's journal for writing: it
    /// drives the run, or is ending it. A run that is not terminal and not held was left
    /// behind by a process that died.
    async fn is_held(&self, run: &RunId) -> Result<bool, JournalError>;
}

/// A journal operation failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum JournalError {
    #[error("run {0} has no journal")]
    NotFound(String),
    #[error("run {0} is being written by another process")]
    Locked(String),
    #[error("{message}")]
    InvalidQuery { code: &'static str, message: String },
    /// A line other than a torn last line does not parse.
    #[error("journal of run {run} is corrupt at line {line}: {detail}")]
    Corrupt {
        run: String,
        line: u64,
        detail: String,
    },
    #[error("journal I/O: {0}")]
    Io(String),
}

impl ErrorCode for JournalError {
    fn code(&self) -> &'static str {
        match self {
            Self::NotFound(_) => "agent.not_found",
            Self::Locked(_) => "agent.run_locked",
            Self::InvalidQuery { code, .. } => code,
            Self::Corrupt { .. } => "agent.journal_corrupt",
            Self::Io(_) => "agent.journal_io",
        }
    }
}
