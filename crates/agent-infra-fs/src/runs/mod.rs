//! [`FsRunStore`]: run records, the run index, invocation and task records, run summaries.
//!
//! ```text
//! agent-workspaces/index/runs/<run>.json            the run as `load_run` and listings read it
//! agent-workspaces/index/run-summaries/<run>.json   summary of a terminal run
//! agent-workspaces/chats/<ws>/runs/<run>/run.json   the same record beside the run's files
//!                                      invocations/<inv>.json, tasks/<task>.json
//! ```
//!
//! The index is the lookup table from a run id to its workspace (the record carries
//! `workspaceId`); invocation and task records find their run's directory through the
//! shared [`RunLocator`], which reads an index entry once per run and process.

mod listing;
mod records;
pub(crate) mod store_io;

use agent_application::ports::{RunListQuery, RunPage, RunStore, StoreError};
use agent_domain::run::{
    AgentInvocation, AgentRun, AgentTaskRecord, InvocationId, RunId, RunSummary, TaskId,
};
use async_trait::async_trait;

use crate::layout::DataDir;
use crate::run_locator::RunLocator;
use store_io::{Cost, run_io};

/// The [`RunStore`] over a data directory. Every write is atomic; creating a run claims its
/// index entry create-only.
#[derive(Debug, Clone)]
pub struct FsRunStore {
    data: DataDir,
    locator: RunLocator,
}

impl FsRunStore {
    /// A store over the locator's data directory; created runs are registered with the
    /// locator so the other stores find them without an index read.
    pub fn new(locator: RunLocator) -> Self {
        Self {
            data: locator.data_dir().clone(),
            locator,
        }
    }

    /// Runs `work` against the data directory on the blocking pool.
    async fn with_data<T: Send + 'static>(
        &self,
        work: impl FnOnce(&DataDir) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        self.with_data_costing(Cost::Large, work).await
    }

    /// Runs `work` against the data directory where its [`Cost`] says.
    async fn with_data_costing<T: Send + 'static>(
        &self,
        cost: Cost,
        work: impl FnOnce(&DataDir) -> Result<T, StoreError> + Send + 'static,
    ) -> Result<T, StoreError> {
        let data = self.data.clone();
        run_io(
            cost,
            self.locator.syncer(),
            move || work(&data),
            StoreError::Io,
        )
        .await
    }
}

#[async_trait]
impl RunStore for FsRunStore {
    async fn create_run(&self, run: &AgentRun) -> Result<(), StoreError> {
        let (record, syncer) = (run.clone(), self.locator.syncer().clone());
        self.with_data(move |data| {
            // No run starts while maintenance (a prune, a chat deletion) holds the data
            // directory; maintenance that follows finds the run in the index, unfinished.
            let _start = crate::retention::hold_for_run_start(data)?;
            crate::stale::sweep_for_new_run(data, &record.workspace_id);
            records::create_run(data, &record, &syncer)
        })
        .await?;
        self.locator.register(&run.id, &run.workspace_id);
        Ok(())
    }

    async fn save_run(&self, run: &AgentRun) -> Result<(), StoreError> {
        // A record's two small documents, synced at the next barrier.
        let (run, syncer) = (run.clone(), self.locator.syncer().clone());
        self.with_data_costing(Cost::Small, move |data| {
            records::save_run(data, &run, &syncer)
        })
        .await
    }

    async fn load_run(&self, id: &RunId) -> Result<AgentRun, StoreError> {
        let id = id.clone();
        self.with_data(move |data| records::load_run(data, &id))
            .await
    }

    async fn list_runs(&self, query: &RunListQuery) -> Result<RunPage, StoreError> {
        let query = query.clone();
        self.with_data(move |data| {
            crate::stale::sweep_run_index(data);
            listing::list_runs(data, &query)
        })
        .await
    }

    async fn save_invocation(&self, invocation: &AgentInvocation) -> Result<(), StoreError> {
        // One small document, synced at the next barrier.
        let (invocation, syncer) = (invocation.clone(), self.locator.syncer().clone());
        let run = invocation.run_id.clone();
        self.locator
            .with_run_dir(&run, Cost::Small, move |dir| {
                records::save_invocation(&dir, &invocation, &syncer)
            })
            .await
    }

    async fn load_invocation(
        &self,
        run: &RunId,
        id: &InvocationId,
    ) -> Result<AgentInvocation, StoreError> {
        let (run_id, id) = (run.clone(), id.clone());
        self.locator
            .with_run_dir(run, Cost::Large, move |dir| {
                records::load_invocation(&dir, &run_id, &id)
            })
            .await
    }

    async fn list_invocations(&self, run: &RunId) -> Result<Vec<AgentInvocation>, StoreError> {
        self.locator
            .with_run_dir(run, Cost::Large, |dir| records::list_invocations(&dir))
            .await
    }

    async fn save_task(&self, task: &AgentTaskRecord) -> Result<(), StoreError> {
        let (task, syncer) = (task.clone(), self.locator.syncer().clone());
        let run = task.run_id.clone();
        self.locator
            .with_run_dir(&run, Cost::Small, move |dir| {
                records::save_task(&dir, &task, &syncer)
            })
            .await
    }

    async fn load_task(&self, run: &RunId, id: &TaskId) -> Result<AgentTaskRecord, StoreError> {
        let (run_id, id) = (run.clone(), id.clone());
        self.locator
            .with_run_dir(run, Cost::Large, move |dir| {
                records::load_task(&dir, &run_id, &id)
            })
            .await
    }

    async fn list_tasks(&self, run: &RunId) -> Result<Vec<AgentTaskRecord>, StoreError> {
        self.locator
            .with_run_dir(run, Cost::Large, |dir| records::list_tasks(&dir))
            .await
    }

    async fn save_run_summary(&self, summary: &RunSummary) -> Result<(), StoreError> {
        let summary = summary.clone();
        self.with_data(move |data| records::save_run_summary(data, &summary))
            .await
    }

    async fn load_run_summary(&self, run: &RunId) -> Result<Option<RunSummary>, StoreError> {
        let run = run.clone();
        self.with_data(move |data| records::load_run_summary(data, &run))
            .await
    }
}
