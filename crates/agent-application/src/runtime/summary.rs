//! The run summary store: a summary is projected from the run's journal and kept once the
//! run has ended, so listings never re-read whole journals.

use agent_domain::event::JournalLine;
use agent_domain::run::{AgentRun, RunId, RunSummary};

use super::errors::RuntimeError;
use super::wiring::RuntimePorts;
use crate::ports::EventQuery;

/// Every event of a run, oldest first.
pub(super) async fn read_all_events(
    ports: &RuntimePorts,
    run: &RunId,
) -> Result<Vec<JournalLine>, RuntimeError> {
    let mut events: Vec<JournalLine> = Vec::new();
    loop {
        let query = EventQuery {
            after_seq: Some(events.last().map_or(0, |line| line.seq)),
            limit: Some(EventQuery::MAX_LIMIT),
            ..EventQuery::default()
        };
        let page = ports.journal.read(run, &query).await?;
        let full = page.len() >= EventQuery::MAX_LIMIT as usize;
        events.extend(page);
        if !full {
            return Ok(events);
        }
    }
}

/// Projects the run's summary from its journal and stores it if the run has ended.
pub(super) async fn store_summary(
    ports: &RuntimePorts,
    record: &AgentRun,
) -> Result<RunSummary, RuntimeError> {
    let events = read_all_events(ports, &record.id).await?;
    let summary = RunSummary::project(record, &events);
    if summary.is_final() {
        ports.runs.save_run_summary(&summary).await?;
    }
    Ok(summary)
}
