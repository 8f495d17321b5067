//! [`LiveRun`] and [`Recorder`]: a run this process drives, and the one place its journal
//! and its record's status are written while it runs.
//!
//! Status changes, cancellation requests and the terminal event all go through the run's
//! lock, so a cancellation arriving from another task can never be journaled after the
//! terminal event, and a status the driver sets after a cancellation was requested never
//! hides `cancelling`.
//!
//! Every status change is journaled at once. The saved record follows a per-round status
//! ([`RunStatus::is_per_round`]) [`RECORD_SAVE_DELAY`] later ([`Recorder::save_behind`]): a
//! fast run changes status several times per round, and writing the record each time cost
//! more than the round's tools. Every other status is saved before the change returns.

use std::sync::{Arc, PoisonError};
use std::time::Duration;

use agent_domain::event::{JournalLine, RunEvent, RunStatus, StatusChangedPayload};
use agent_domain::run::{AgentRun, RunId, RunSummary};
use tokio::sync::{Mutex, Notify};
use tokio_util::sync::CancellationToken;

use super::fault::Fault;
use super::wiring::RuntimePorts;
use crate::ports::EventDraft;

/// How long the saved record may lag behind a per-round status.
pub(super) const RECORD_SAVE_DELAY: Duration = Duration::from_millis(50);

/// A run driven by this process.
#[derive(Debug)]
pub(super) struct LiveRun {
    pub run_id: RunId,
    /// Tripped once a cancellation is requested (in process, or through a request file).
    pub token: CancellationToken,
    state: Mutex<LiveState>,
    /// Woken when the record changed without being saved.
    unsaved: Notify,
    /// The run's summary, folded from every line the recorder journaled, so the run's end
    /// stores it without re-reading the journal. `None` once an append failed: what reached
    /// the journal is then unknown, and the end re-reads it. (The lines journaled before
    /// the run went live, creation, profile and intent, count for nothing in a summary.)
    summary: std::sync::Mutex<Option<RunSummary>>,
}

#[derive(Debug)]
struct LiveState {
    record: AgentRun,
    /// The terminal event is journaled: nothing more may be.
    terminal: bool,
    /// `run_cancel_requested` is journaled.
    cancel_journaled: bool,
    /// The record changed since it was last saved.
    unsaved: bool,
}

impl LiveRun {
    pub fn new(record: AgentRun) -> Self {
        Self {
            summary: std::sync::Mutex::new(Some(RunSummary::empty(&record))),
            run_id: record.id.clone(),
            token: CancellationToken::new(),
            state: Mutex::new(LiveState {
                record,
                terminal: false,
                cancel_journaled: false,
                unsaved: false,
            }),
            unsaved: Notify::new(),
        }
    }
}

/// Journals events and status changes of one live run.
#[derive(Debug, Clone)]
pub(super) struct Recorder {
    pub ports: RuntimePorts,
    pub live: Arc<LiveRun>,
}

impl Recorder {
    pub fn new(ports: RuntimePorts, live: Arc<LiveRun>) -> Self {
        Self { ports, live }
    }

    pub fn run_id(&self) -> &RunId {
        &self.live.run_id
    }

    pub fn now(&self) -> String {
        self.ports.clock.now_rfc3339()
    }

    /// Appends one event now.
    pub async fn emit(&self, event: RunEvent) -> Result<JournalLine, Fault> {
        let appended = append(&self.ports, self.run_id(), event).await;
        let mut summary = self
            .live
            .summary
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        match (&appended, summary.as_mut()) {
            (Ok(line), Some(folded)) => folded.observe(line),
            (Err(_), _) => *summary = None,
            (Ok(_), None) => {}
        }
        appended
    }

    /// The summary of the run as journaled, with `record`'s status; `None` when the journal
    /// must be re-read for it (an append failed).
    pub fn summary(&self, record: &AgentRun) -> Option<RunSummary> {
        let mut summary = self
            .live
            .summary
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()?;
        summary.restamp(record);
        Some(summary)
    }

    /// The run record as it stands.
    pub async fn record(&self) -> AgentRun {
        self.live.state.lock().await.record.clone()
    }

    /// Moves the run to `status`: `status_changed` plus the saved record. A repeated status
    /// is not journaled again; once cancellation was requested only terminal statuses are
    /// written, and after the terminal event nothing is.
    pub async fn set_status(&self, status: RunStatus) -> Result<(), Fault> {
        let mut state = self.live.state.lock().await;
        if state.terminal
            || state.record.status == status
            || (state.record.status == RunStatus::Cancelling && !status.is_terminal())
        {
            return Ok(());
        }
        self.change_status(&mut state, status).await
    }

    async fn change_status(&self, state: &mut LiveState, status: RunStatus) -> Result<(), Fault> {
        state.record.status = status;
        state.record.updated_at = self.now();
        state.unsaved = true;
        self.emit(RunEvent::StatusChanged(StatusChangedPayload { status }))
            .await?;
        if status.is_per_round() {
            self.live.unsaved.notify_one();
            return Ok(());
        }
        self.save(state).await
    }

    async fn save(&self, state: &mut LiveState) -> Result<(), Fault> {
        self.ports
            .runs
            .save_run(&state.record)
            .await
            .map_err(|error| Fault::of(&error).context("saving the run record"))?;
        state.unsaved = false;
        Ok(())
    }

    /// Saves the record [`RECORD_SAVE_DELAY`] after each per-round status change, until
    /// the run ends; polled beside the driver. A save that fails leaves the record unsaved
    /// for the next change (or the run's end) to save.
    pub async fn save_behind(&self) {
        loop {
            self.live.unsaved.notified().await;
            tokio::time::sleep(RECORD_SAVE_DELAY).await;
            let mut state = self.live.state.lock().await;
            if state.terminal {
                return;
            }
            if state.unsaved {
                let _ = self.save(&mut state).await;
            }
        }
    }

    /// Records a cancellation request: `run_cancel_requested`, status `cancelling`, and
    /// the token tripped so the driver stops at its next step. Idempotent. Returns the
    /// run's status afterwards (its terminal status if it already ended).
    pub async fn request_cancel(&self) -> Result<RunStatus, Fault> {
        let mut state = self.live.state.lock().await;
        if state.terminal {
            return Ok(state.record.status);
        }
        if !state.cancel_journaled {
            state.cancel_journaled = true;
            self.emit(RunEvent::RunCancelRequested).await?;
            self.change_status(&mut state, RunStatus::Cancelling)
                .await?;
        }
        self.live.token.cancel();
        Ok(state.record.status)
    }

    /// Journals the run's end: its terminal status, then the terminal event, and only then
    /// saves the record. Nothing is journaled for this run afterwards. The record follows
    /// the journal: a crash before the save leaves a record behind a finished journal,
    /// which `runs cancel` brings up to date, never a terminal record over a journal
    /// without its terminal event (which nothing could finish any more).
    pub async fn terminate(&self, status: RunStatus, event: RunEvent) -> Result<AgentRun, Fault> {
        let mut state = self.live.state.lock().await;
        if state.terminal {
            return Ok(state.record.clone());
        }
        let changed = state.record.status != status;
        let journaled = if changed {
            state.record.status = status;
            state.record.updated_at = self.now();
            self.emit(RunEvent::StatusChanged(StatusChangedPayload { status }))
                .await
                .map(|_| ())
        } else {
            Ok(())
        };
        // The terminal event is written even when the status line could not be: the
        // journal is the run's source of truth.
        let appended = self.emit(event).await;
        state.terminal = true;
        journaled.and(appended.map(|_| ()))?;
        if changed || state.unsaved {
            self.save(&mut state).await?;
        }
        Ok(state.record.clone())
    }
}

/// Appends `event` to the journal of `run`, stamped now.
pub(super) async fn append(
    ports: &RuntimePorts,
    run: &RunId,
    event: RunEvent,
) -> Result<JournalLine, Fault> {
    let draft = EventDraft {
        timestamp: ports.clock.now_rfc3339(),
        event,
    };
    ports
        .journal
        .append(run, draft)
        .await
        .map_err(|error| Fault::of(&error).context("journaling"))
}
