//! The runs this server started, spawned on the server's runtime rather than tied to the
//! request that started them: a client that goes away leaves its run going. On shutdown
//! they are cancelled through the runtime (so each journal ends `run_cancelled`) and
//! awaited before the server returns.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use agent_application::runtime::{AgentRuntime, RunTask};
use agent_domain::run::RunId;
use tokio_util::sync::CancellationToken;
use tokio_util::task::TaskTracker;

/// The server's running runs and its closing state. Clones share them.
#[derive(Debug, Clone, Default)]
pub struct LiveRuns {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    tasks: TaskTracker,
    running: Mutex<HashSet<RunId>>,
    /// Cancelled once the runs have ended, so open event streams end too.
    closed: CancellationToken,
}

impl LiveRuns {
    /// Drives `task` to its end in the background; `false` (nothing spawned) once the
    /// server is shutting down.
    pub fn spawn(&self, run: RunId, task: RunTask) -> bool {
        if self.inner.tasks.is_closed() {
            return false;
        }
        self.running().insert(run.clone());
        let inner = Arc::clone(&self.inner);
        self.inner.tasks.spawn(async move {
            task.await;
            inner
                .running
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&run);
        });
        true
    }

    /// Whether the server is shutting down.
    pub fn closing(&self) -> bool {
        self.inner.tasks.is_closed()
    }

    /// Completes when the server has finished its runs and is closing its streams.
    pub fn closed(&self) -> CancellationToken {
        self.inner.closed.clone()
    }

    /// Starts no more runs, cancels those still going, waits for them to end, then ends
    /// the event streams.
    pub async fn shut_down(&self, runtime: &AgentRuntime) {
        self.inner.tasks.close();
        let running: Vec<RunId> = self.running().iter().cloned().collect();
        for run in &running {
            // A run that ended meanwhile keeps its status; a failure here leaves the run to
            // end on its own, which the wait below still covers.
            let _ = runtime.cancel(run).await;
        }
        self.inner.tasks.wait().await;
        self.inner.closed.cancel();
    }

    fn running(&self) -> std::sync::MutexGuard<'_, HashSet<RunId>> {
        self.inner
            .running
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}
