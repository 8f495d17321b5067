//! Run, invocation and task records, and the run index.

use agent_domain::event::{ChatRef, RunStatus};
use agent_domain::run::{
    AgentInvocation, AgentRun, AgentTaskRecord, InvocationId, RunId, RunSummary, TaskId,
};
use async_trait::async_trait;

use super::StoreError;

/// The position after which a listing continues: runs strictly older than this one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RunCursor {
    pub created_at: String,
    pub run_id: RunId,
}

/// Filters and paging of a run listing (newest first).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RunListQuery {
    pub chat_ref: Option<ChatRef>,
    pub stable_chat_id: Option<String>,
    /// Empty means every status.
    pub statuses: Vec<RunStatus>,
    pub before: Option<RunCursor>,
    /// 1..=200; `None` means 50.
    pub limit: Option<u32>,
}

impl RunListQuery {
    pub const DEFAULT_LIMIT: u32 = 50;
    pub const MAX_LIMIT: u32 = 200;
}

/// One page of runs.
#[derive(Debug, Clone, PartialEq)]
pub struct RunPage {
    pub runs: Vec<AgentRun>,
    /// Where the next page starts, when there is one.
    pub next: Option<RunCursor>,
}

#[async_trait]
pub trait RunStore: Send + Sync {
    /// Writes a new run record and its index entry; an existing id is `AlreadyExists`.
    async fn create_run(&self, run: &AgentRun) -> Result<(), StoreError>;
    /// Replaces the run record and its index entry atomically.
    async fn save_run(&self, run: &AgentRun) -> Result<(), StoreError>;
    async fn load_run(&self, id: &RunId) -> Result<AgentRun, StoreError>;
    async fn list_runs(&self, query: &RunListQuery) -> Result<RunPage, StoreError>;

    async fn save_invocation(&self, invocation: &AgentInvocation) -> Result<(), StoreError>;
    async fn load_invocation(
        &self,
        run: &RunId,
        id: &InvocationId,
    ) -> Result<AgentInvocation, StoreError>;
    /// Ordered by creation time, then id.
    async fn list_invocations(&self, run: &RunId) -> Result<Vec<AgentInvocation>, StoreError>;

    async fn save_task(&self, task: &AgentTaskRecord) -> Result<(), StoreError>;
    async fn load_task(&self, run: &RunId, id: &TaskId) -> Result<AgentTaskRecord, StoreError>;
    /// Ordered by creation time, then id.
    async fn list_tasks(&self, run: &RunId) -> Result<Vec<AgentTaskRecord>, StoreError>;

    /// The summary projection of a terminal run (`index/run-summaries/<id>.json`).
    async fn save_run_summary(&self, summary: &RunSummary) -> Result<(), StoreError>;
    async fn load_run_summary(&self, run: &RunId) -> Result<Option<RunSummary>, StoreError>;
}
