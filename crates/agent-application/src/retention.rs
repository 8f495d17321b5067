//! The retention service: reads and changes the policy kept in the host settings, plans a
//! prune from the facts storage reports, and applies it.
//!
//! Applying holds the data directory's maintenance lock (no run is created meanwhile, in any
//! process), plans again from what is on disk then (a preview is never trusted), and makes
//! each change while holding the run's journal, so a run a process holds (drives, rolls
//! back) is never changed: it is reported, not pruned. One run failing does not stop the
//! others; each failure is reported with its code (`docs/storage/retention.md`).

use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::retention::{
    BlockReason, BlockedRun, DetailLimit, JournalFacts, PruneAction, PruneCandidate, PruneReport,
    RetentionError, RetentionKey, RetentionSettings, RunFacts, plan_prune,
};
use agent_domain::run::{AgentRun, RunId, RunSummary, SlimmedRun, WorkspaceId};
use serde::Serialize;

use crate::ports::{
    Clock, EventJournal, EventQuery, JournalError, RunListQuery, RunRetentionStore, RunStore,
    SettingsStore, StoreError,
};
use crate::runtime::summary::read_all_events;

/// Why a retention call failed as a whole.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RetentionServiceError {
    #[error(transparent)]
    Policy(#[from] RetentionError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl ErrorCode for RetentionServiceError {
    fn code(&self) -> &'static str {
        match self {
            Self::Policy(err) => err.code(),
            Self::Store(err) => err.code(),
        }
    }
}

/// A run a prune could not change.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FailedRun {
    pub run_id: RunId,
    pub workspace_id: WorkspaceId,
    pub action: PruneAction,
    pub code: &'static str,
    pub message: String,
}

/// What an apply did.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ApplyReport {
    /// The plan made under the lock, as executed.
    pub plan: PruneReport,
    pub slimmed_runs: u64,
    pub deleted_runs: u64,
    pub removed_files: u64,
    pub removed_bytes: u64,
    /// Planned runs a process took hold of before their turn came: left as they are.
    pub held_runs: Vec<BlockedRun>,
    pub failed_runs: Vec<FailedRun>,
}

/// Retention over the host settings, the run store, the journal and the retention store.
#[derive(Clone)]
pub struct RetentionService {
    settings: Arc<dyn SettingsStore>,
    runs: Arc<dyn RunStore>,
    journal: Arc<dyn EventJournal>,
    store: Arc<dyn RunRetentionStore>,
    clock: Arc<dyn Clock>,
}

impl std::fmt::Debug for RetentionService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RetentionService")
    }
}

/// How many events a backward search for the terminal event reads at a time.
const PAGE: u32 = EventQuery::MAX_LIMIT;

impl RetentionService {
    pub fn new(
        settings: Arc<dyn SettingsStore>,
        runs: Arc<dyn RunStore>,
        journal: Arc<dyn EventJournal>,
        store: Arc<dyn RunRetentionStore>,
        clock: Arc<dyn Clock>,
    ) -> Self {
        Self {
            settings,
            runs,
            journal,
            store,
            clock,
        }
    }

    /// The policy as saved (defaults where nothing is).
    pub async fn settings(&self) -> Result<RetentionSettings, RetentionServiceError> {
        let document = self.settings.load().await?;
        Ok(RetentionSettings::from_document(&document)?)
    }

    /// Sets one key from its text, validates the whole policy, and saves it beside the
    /// other settings.
    pub async fn set(
        &self,
        key: RetentionKey,
        raw: &str,
    ) -> Result<RetentionSettings, RetentionServiceError> {
        let mut document = self.settings.load().await?;
        let next = RetentionSettings::from_document(&document)?.with(key, raw)?;
        next.write_into(&mut document)?;
        self.settings.save(&document).await?;
        Ok(next)
    }

    /// What a prune would do now under the saved policy (nothing is changed or locked).
    pub async fn plan(&self, limit: DetailLimit) -> Result<PruneReport, RetentionServiceError> {
        let settings = self.settings().await?;
        let facts = self.facts().await?;
        Ok(plan_prune(&facts, settings)?.report(limit))
    }

    /// Prunes under the saved policy (see the module documentation).
    pub async fn apply(&self, limit: DetailLimit) -> Result<ApplyReport, RetentionServiceError> {
        let settings = self.settings().await?;
        let _guard = self.store.lock_maintenance().await?;
        let facts = self.facts().await?;
        let plan = plan_prune(&facts, settings)?;
        let mut report = ApplyReport {
            plan: plan.report(limit),
            slimmed_runs: 0,
            deleted_runs: 0,
            removed_files: 0,
            removed_bytes: 0,
            held_runs: Vec::new(),
            failed_runs: Vec::new(),
        };
        for candidate in &plan.candidates {
            let Some(record) = facts
                .iter()
                .map(|facts| &facts.run)
                .find(|run| run.id == candidate.run_id)
            else {
                continue;
            };
            let done = match candidate.action {
                PruneAction::SlimHeavyArtifacts => self.slim(record, candidate).await,
                PruneAction::DeleteRun => {
                    self.store.delete_run(record).await.map_err(Refusal::from)
                }
            };
            match done {
                Ok(()) => {
                    match candidate.action {
                        PruneAction::SlimHeavyArtifacts => report.slimmed_runs += 1,
                        PruneAction::DeleteRun => report.deleted_runs += 1,
                    }
                    report.removed_files = report.removed_files.saturating_add(candidate.files);
                    report.removed_bytes = report.removed_bytes.saturating_add(candidate.bytes);
                }
                Err(refusal) if refusal.held => report.held_runs.push(BlockedRun {
                    run_id: candidate.run_id.clone(),
                    workspace_id: candidate.workspace_id.clone(),
                    reason: BlockReason::ActiveRun,
                    detail: None,
                }),
                Err(refusal) => report.failed_runs.push(FailedRun {
                    run_id: candidate.run_id.clone(),
                    workspace_id: candidate.workspace_id.clone(),
                    action: candidate.action,
                    code: refusal.code,
                    message: refusal.message,
                }),
            }
        }
        Ok(report)
    }

    /// Applies when the policy enables automatic pruning; `None` when it does not.
    pub async fn apply_if_enabled(&self) -> Result<Option<ApplyReport>, RetentionServiceError> {
        if !self.settings().await?.auto_prune_enabled {
            return Ok(None);
        }
        self.apply(DetailLimit::new(Some(0))?).await.map(Some)
    }

    /// Slims the run, then notes it on the run's summary (projected first if the run never
    /// stored one: the summary must outlive the files it is projected from).
    async fn slim(&self, record: &AgentRun, candidate: &PruneCandidate) -> Result<(), Refusal> {
        let mut summary = match self.runs.load_run_summary(&record.id).await? {
            Some(summary) => summary,
            None => {
                let events = read_all_events(self.journal.as_ref(), &record.id).await?;
                RunSummary::project(record, &events)
            }
        };
        self.store.slim_run(record, &candidate.paths).await?;
        summary.slimmed = Some(SlimmedRun {
            at: self.clock.now_rfc3339(),
            removed_files: candidate.files,
            removed_bytes: candidate.bytes,
        });
        Ok(self.runs.save_run_summary(&summary).await?)
    }

    /// The facts of every indexed run.
    async fn facts(&self) -> Result<Vec<RunFacts>, RetentionServiceError> {
        let mut facts = Vec::new();
        let mut query = RunListQuery {
            limit: Some(RunListQuery::MAX_LIMIT),
            ..RunListQuery::default()
        };
        loop {
            let page = self.runs.list_runs(&query).await?;
            for run in page.runs {
                let storage = self.store.inspect_run(&run).await?;
                let journal = if run.status.is_terminal() && !storage.active {
                    Some(self.last_terminal_event(&run.id).await)
                } else {
                    None
                };
                facts.push(RunFacts {
                    run,
                    active: storage.active,
                    journal,
                    storage: storage.files,
                });
            }
            match page.next {
                Some(next) => query.before = Some(next),
                None => return Ok(facts),
            }
        }
    }

    /// The time of the run's last terminal event, searching its journal from the end.
    async fn last_terminal_event(&self, run: &RunId) -> JournalFacts {
        let mut before = u64::MAX;
        loop {
            let query = EventQuery {
                before_seq: Some(before),
                limit: Some(PAGE),
                ..EventQuery::default()
            };
            let page = match self.journal.read(run, &query).await {
                Ok(page) => page,
                Err(err) => return JournalFacts::Unreadable(err.to_string()),
            };
            if let Some(line) = page.iter().rev().find(|line| line.event.is_terminal()) {
                return JournalFacts::Terminal {
                    at: line.timestamp.clone(),
                };
            }
            match page.first() {
                Some(first) if page.len() == PAGE as usize && first.seq > 1 => before = first.seq,
                _ => return JournalFacts::NoTerminalEvent,
            }
        }
    }
}

/// Why one planned change did not happen.
struct Refusal {
    code: &'static str,
    message: String,
    /// A process holds the run: not a failure, the run is simply left alone.
    held: bool,
}

impl From<StoreError> for Refusal {
    fn from(err: StoreError) -> Self {
        Self {
            code: err.code(),
            message: err.to_string(),
            held: matches!(err, StoreError::Locked(_)),
        }
    }
}

impl From<JournalError> for Refusal {
    fn from(err: JournalError) -> Self {
        Self {
            code: err.code(),
            message: err.to_string(),
            held: matches!(err, JournalError::Locked(_)),
        }
    }
}
