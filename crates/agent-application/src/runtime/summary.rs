//! The run summary store: a summary is projected from the run's journal and kept once the
//! run has ended, so listings never re-read whole journals.

use agent_domain::event::JournalLine;
use agent_domain::run::{AgentRun, RunId, RunSummary};

use super::errors::RuntimeError;
use super::wiring::RuntimePorts;
use crate::ports::{EventJournal, EventQuery, JournalError};

/// Every event of a run, oldest first.
pub(crate) async fn read_all_events(
    journal: &dyn EventJournal,
    run: &RunId,
) -> Result<Vec<JournalLine>, JournalError> {
    let mut events: Vec<JournalLine> = Vec::new();
    loop {
        let query = EventQuery {
            after_seq: Some(events.last().map_or(0, |line| line.seq)),
            limit: Some(EventQuery::MAX_LIMIT),
            ..EventQuery::default()
        };
        let page = journal.read(run, &query).await?;
        let full = page.len() >= EventQuery::MAX_LIMIT as usize;
        events.extend(page);
        if !full {
            return Ok(events);
        }
    }
}

/// Projects the run's summary from its journal and stores it if the run has ended. What
/// retention noted on a stored summary (`slimmed`) is not in the journal and carries over.
pub(super) async fn store_summary(
    ports: &RuntimePorts,
    record: &AgentRun,
) -> Result<RunSummary, RuntimeError> {
    let events = read_all_events(ports.journal.as_ref(), &record.id).await?;
    let mut summary = RunSummary::project(record, &events);
    if summary.is_final() {
        if let Some(stored) = ports.runs.load_run_summary(&record.id).await? {
            summary.slimmed = stored.slimmed;
        }
        ports.runs.save_run_summary(&summary).await?;
    }
    Ok(summary)
}
