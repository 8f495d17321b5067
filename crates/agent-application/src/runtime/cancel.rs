//! Cancellation: the registry of runs this process drives, and [`CancelWatch`], which
//! lets the driver race its waits against a cancellation requested in process (the run's
//! token) or by another process (a request the [`CancelRequests`] port keeps).

use std::collections::HashMap;
use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use agent_domain::run::RunId;
use futures::future::{Either, select};
use tokio_util::sync::CancellationToken;

use super::recorder::LiveRun;
use crate::ports::CancelRequests;

/// How often a driver looks for a cancellation requested by another process.
pub const CANCEL_POLL_INTERVAL: Duration = Duration::from_millis(200);

/// The runs this process drives, by id.
#[derive(Debug, Default)]
pub(super) struct ActiveRuns {
    runs: Mutex<HashMap<RunId, Arc<LiveRun>>>,
}

impl ActiveRuns {
    pub fn insert(&self, live: Arc<LiveRun>) {
        self.lock().insert(live.run_id.clone(), live);
    }

    pub fn get(&self, run: &RunId) -> Option<Arc<LiveRun>> {
        self.lock().get(run).cloned()
    }

    pub fn remove(&self, run: &RunId) {
        self.lock().remove(run);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<RunId, Arc<LiveRun>>> {
        self.runs.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Keeps a run in the registry for as long as its task exists: dropping the task (run to
/// its end, or abandoned by the host, even before its first poll) unregisters the run, so
/// [`AgentRuntime::mark_cancelled`](super::AgentRuntime::mark_cancelled) can end it.
pub(super) struct Registration {
    active: Arc<ActiveRuns>,
    run: RunId,
}

impl Registration {
    pub fn new(active: Arc<ActiveRuns>, live: Arc<LiveRun>) -> Self {
        let run = live.run_id.clone();
        active.insert(live);
        Self { active, run }
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        self.active.remove(&self.run);
    }
}

/// Watches one run for cancellation.
#[derive(Clone)]
pub(super) struct CancelWatch {
    run: RunId,
    token: CancellationToken,
    requests: Arc<dyn CancelRequests>,
}

impl CancelWatch {
    pub fn new(run: RunId, token: CancellationToken, requests: Arc<dyn CancelRequests>) -> Self {
        Self {
            run,
            token,
            requests,
        }
    }

    /// The token this watch trips.
    pub fn token(&self) -> &CancellationToken {
        &self.token
    }

    /// The same watch over another token: a child's, tripped with the run's or on its own.
    pub fn with_token(&self, token: CancellationToken) -> Self {
        Self {
            run: self.run.clone(),
            token,
            requests: Arc::clone(&self.requests),
        }
    }

    /// Whether cancellation is requested now; a request left by another process trips the
    /// token. A request store that cannot be read counts as "not requested".
    pub async fn check(&self) -> bool {
        if self.token.is_cancelled() {
            return true;
        }
        if self.requests.is_requested(&self.run).await.unwrap_or(false) {
            self.token.cancel();
            return true;
        }
        false
    }

    /// Resolves once cancellation is requested, checking for requests of other processes
    /// every [`CANCEL_POLL_INTERVAL`].
    pub async fn cancelled(&self) {
        loop {
            if self.check().await {
                return;
            }
            let wait = pin!(tokio::time::sleep(CANCEL_POLL_INTERVAL));
            let tripped = pin!(self.token.cancelled());
            if let Either::Right(_) = select(wait, tripped).await {
                return;
            }
        }
    }

    /// Runs `work` unless cancellation comes first: `None` means cancelled (and `work`
    /// was dropped, which aborts it).
    pub async fn race<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        let work = pin!(work);
        let cancelled = pin!(self.cancelled());
        match select(work, cancelled).await {
            Either::Left((value, _)) => Some(value),
            Either::Right(_) => None,
        }
    }
}
