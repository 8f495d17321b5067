//! An in-memory [`EventJournal`] with the contract of the file journal
//! (`docs/storage/journal.md`): seqs 1, 2, 3, … per run without gaps, pages by
//! `before_seq` / `after_seq` / invocation with the same limits, followers that end after
//! the terminal event. Planned [`Faults`] make an append fail without appending, as a
//! failed write the file journal truncates away.

use std::collections::HashMap;
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use agent_domain::event::{JournalLine, RunEvent};
use agent_domain::run::RunId;
use async_trait::async_trait;
use futures::stream::{self, StreamExt};
use tokio::sync::mpsc;

use super::Faults;
use crate::ports::{EventDraft, EventJournal, EventQuery, EventStream, JournalError};

/// The code of a page size outside `1..=500`, as the file journal reports it.
const LIMIT_INVALID: &str = "agent.read_events_limit_invalid";

#[derive(Debug, Default)]
struct RunJournal {
    lines: Vec<JournalLine>,
    /// Subscribers; dropped after the terminal event, which ends their streams.
    followers: Vec<mpsc::UnboundedSender<JournalLine>>,
}

/// Journals of every run, in memory. A run is known once something was appended to it;
/// reading or following any other run is `NotFound`, as for a run outside the run index.
#[derive(Debug, Default)]
pub struct MemoryJournal {
    runs: Mutex<HashMap<RunId, RunJournal>>,
    next_id: AtomicU64,
    faults: Faults<RunEvent, JournalError>,
}

impl MemoryJournal {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_runs<T>(&self, f: impl FnOnce(&mut HashMap<RunId, RunJournal>) -> T) -> T {
        f(&mut self.runs.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Failures planned for appends, matched on the event being appended.
    pub fn faults(&self) -> &Faults<RunEvent, JournalError> {
        &self.faults
    }

    /// Every line of the run's journal, oldest first (empty for an unknown run).
    pub fn lines(&self, run: &RunId) -> Vec<JournalLine> {
        self.with_runs(|runs| runs.get(run).map(|j| j.lines.clone()).unwrap_or_default())
    }

    /// The event types of the run's journal, in order.
    pub fn types(&self, run: &RunId) -> Vec<&'static str> {
        self.lines(run)
            .iter()
            .map(JournalLine::event_type)
            .collect()
    }
}

/// The page size a query asks for: 100 when unset, an error outside `1..=500`.
fn page_limit(query: &EventQuery) -> Result<usize, JournalError> {
    let limit = query.limit.unwrap_or(EventQuery::DEFAULT_LIMIT);
    if (1..=EventQuery::MAX_LIMIT).contains(&limit) {
        Ok(limit as usize)
    } else {
        Err(JournalError::InvalidQuery {
            code: LIMIT_INVALID,
            message: format!(
                "limit must be between 1 and {}, got {limit}",
                EventQuery::MAX_LIMIT
            ),
        })
    }
}

/// Whether the line shows on the timeline the query asks for (every line without a filter;
/// with one, the lines whose scope names the invocation as owner or related).
fn wanted(query: &EventQuery, line: &JournalLine) -> bool {
    let Some(invocation) = &query.invocation_id else {
        return true;
    };
    line.event.scope().is_some_and(|scope| {
        scope.invocation_id == invocation.as_str()
            || scope
                .related_invocation_ids
                .iter()
                .any(|id| id == invocation.as_str())
    })
}

#[async_trait]
impl EventJournal for MemoryJournal {
    async fn append(&self, run: &RunId, draft: EventDraft) -> Result<JournalLine, JournalError> {
        self.faults.check(&draft.event)?;
        let id = format!(
            "evt_{:032x}",
            self.next_id.fetch_add(1, Ordering::SeqCst) + 1
        );
        Ok(self.with_runs(|runs| {
            let journal = runs.entry(run.clone()).or_default();
            let seq = journal.lines.len() as u64 + 1;
            let line = JournalLine::new(seq, id, run.as_str(), draft.timestamp, draft.event);
            journal.lines.push(line.clone());
            // A follower that went away is no error: nobody is following.
            journal
                .followers
                .retain(|follower| follower.send(line.clone()).is_ok());
            if line.event.is_terminal() {
                journal.followers.clear();
            }
            line
        }))
    }

    async fn read(
        &self,
        run: &RunId,
        query: &EventQuery,
    ) -> Result<Vec<JournalLine>, JournalError> {
        let limit = page_limit(query)?;
        let lines = self.with_runs(|runs| runs.get(run).map(|j| j.lines.clone()));
        let lines = lines.ok_or_else(|| JournalError::NotFound(run.to_string()))?;
        let matching = lines.into_iter().filter(|line| wanted(query, line));
        if let Some(before) = query.before_seq {
            let mut page: Vec<JournalLine> = matching.filter(|line| line.seq < before).collect();
            let skip = page.len().saturating_sub(limit);
            Ok(page.split_off(skip))
        } else {
            let after = query.after_seq.unwrap_or(0);
            Ok(matching
                .filter(|line| line.seq > after)
                .take(limit)
                .collect())
        }
    }

    async fn subscribe(&self, run: &RunId) -> Result<EventStream, JournalError> {
        let receiver = self.with_runs(|runs| {
            let journal = runs.get_mut(run)?;
            let (sender, receiver) = mpsc::unbounded_channel();
            // A journal that already ended has nothing more to follow.
            if !journal.lines.last().is_some_and(|l| l.event.is_terminal()) {
                journal.followers.push(sender);
            }
            Some(receiver)
        });
        let receiver = receiver.ok_or_else(|| JournalError::NotFound(run.to_string()))?;
        Ok(stream::unfold(receiver, |mut receiver| async move {
            receiver.recv().await.map(|line| (Ok(line), receiver))
        })
        .boxed())
    }

    /// No other process shares an in-memory journal, and this process's runs are known to
    /// the runtime by its registry of live runs: nothing holds one.
    async fn is_held(&self, _run: &RunId) -> Result<bool, JournalError> {
        Ok(false)
    }
}

#[cfg(test)]
mod tests {
    use agent_domain::event::{RunStatus, StatusChangedPayload};
    use agent_domain::run::InvocationId;

    use super::*;

    fn draft(event: RunEvent) -> EventDraft {
        EventDraft {
            timestamp: "2026-01-01T00:00:00.000Z".into(),
            event,
        }
    }

    fn status(status: RunStatus) -> RunEvent {
        RunEvent::StatusChanged(StatusChangedPayload { status })
    }

    #[tokio::test]
    async fn numbers_pages_follows_and_fails_as_planned() {
        let journal = MemoryJournal::new();
        let run = RunId::parse("run_1").unwrap();
        let query = EventQuery::default();
        assert!(matches!(
            journal.read(&run, &query).await,
            Err(JournalError::NotFound(_))
        ));
        journal.faults().fail_first(
            |e| matches!(e, RunEvent::RunCompleted),
            JournalError::Io("full".into()),
        );
        journal
            .append(&run, draft(RunEvent::RunCancelRequested))
            .await
            .unwrap();
        let mut follower = journal.subscribe(&run).await.unwrap();
        journal
            .append(&run, draft(status(RunStatus::CallingModel)))
            .await
            .unwrap();
        let failed = journal.append(&run, draft(RunEvent::RunCompleted)).await;
        assert_eq!(failed, Err(JournalError::Io("full".into())));
        let last = journal
            .append(&run, draft(RunEvent::RunCompleted))
            .await
            .unwrap();
        assert_eq!(last.seq, 3);
        assert_eq!(
            journal.types(&run),
            ["run_cancel_requested", "status_changed", "run_completed"]
        );

        let seqs = |lines: Vec<JournalLine>| lines.iter().map(|l| l.seq).collect::<Vec<_>>();
        let newest = journal.read(&run, &EventQuery::newest(2)).await.unwrap();
        assert_eq!(seqs(newest), [2, 3]);
        let after = EventQuery {
            after_seq: Some(1),
            limit: Some(1),
            ..EventQuery::default()
        };
        assert_eq!(seqs(journal.read(&run, &after).await.unwrap()), [2]);
        let other = EventQuery {
            invocation_id: Some(InvocationId::parse("inv_child").unwrap()),
            ..EventQuery::default()
        };
        assert!(journal.read(&run, &other).await.unwrap().is_empty());
        let bad = EventQuery {
            limit: Some(501),
            ..EventQuery::default()
        };
        assert_eq!(
            agent_domain::ErrorCode::code(&journal.read(&run, &bad).await.unwrap_err()),
            LIMIT_INVALID
        );

        // The follower saw the events after it subscribed, up to the terminal one.
        let followed: Vec<u64> = follower
            .by_ref()
            .map(|line| line.unwrap().seq)
            .collect()
            .await;
        assert_eq!(followed, [2, 3]);
        let ended = journal.subscribe(&run).await.unwrap();
        assert_eq!(ended.count().await, 0);
    }
}
