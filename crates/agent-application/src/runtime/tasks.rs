//! [`TaskBoard`]: the run-scoped task scheduler's state — every delegated and handoff task
//! of the run, their children's cancellation, results and delivery, the workspace keys
//! they took, and the queue of children waiting to be started.
//!
//! The board decides nothing and journals nothing; the driver changes a task's status
//! (record, event) and the agent tools read it. It only owns what must be shared between
//! invocations running at the same time: a parent waits on [`TaskBoard::subscribe`] while
//! its children change the board.

use std::collections::BTreeSet;
use std::sync::{Mutex, MutexGuard, PoisonError};

use agent_domain::event::TaskContinuation;
use agent_domain::run::{AgentTaskRecord, InvocationId, TaskId};
use futures::channel::mpsc::UnboundedSender;
use serde_json::Value;
use tokio::sync::watch;
use tokio_util::sync::CancellationToken;

use super::invocation::PendingInvocation;

/// One task as the tools see it.
#[derive(Debug, Clone)]
pub(super) struct TaskView {
    pub record: AgentTaskRecord,
    /// The child's `task.return` document, once it returned.
    pub result: Option<Value>,
}

struct TaskEntry {
    record: AgentTaskRecord,
    cancel: CancellationToken,
    result: Option<Value>,
    /// Its result reached the parent (through `agent.await` or an injected message).
    delivered: bool,
}

#[derive(Default)]
struct Board {
    /// In creation order.
    tasks: Vec<TaskEntry>,
    /// Workspace keys taken in this run (delegations and handoffs share the pool).
    keys: BTreeSet<String>,
    /// The target a handoff created, waiting to take over when its source stops.
    next_owner: Option<PendingInvocation>,
    /// Children handed to the scheduler whose run has not ended yet.
    children_running: usize,
}

/// The run's tasks. See the [module docs](self).
pub(super) struct TaskBoard {
    board: Mutex<Board>,
    /// Bumped on every change a waiter may care about.
    version: watch::Sender<u64>,
    starts: UnboundedSender<PendingInvocation>,
}

impl TaskBoard {
    pub fn new(starts: UnboundedSender<PendingInvocation>) -> Self {
        Self {
            board: Mutex::new(Board::default()),
            version: watch::Sender::new(0),
            starts,
        }
    }

    fn lock(&self) -> MutexGuard<'_, Board> {
        self.board.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn changed(&self) {
        self.version.send_modify(|version| *version += 1);
    }

    /// A receiver that wakes on every later change.
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.version.subscribe()
    }

    /// The workspace key of a new task for `profile_id`: the id, then `<id>-002`, `<id>-003`, …
    pub fn allocate_key(&self, profile_id: &str) -> String {
        let mut board = self.lock();
        let key = std::iter::once(profile_id.to_owned())
            .chain((2..).map(|n| format!("{profile_id}-{n:03}")))
            .find(|key| !board.keys.contains(key))
            .unwrap_or_else(|| profile_id.to_owned());
        board.keys.insert(key.clone());
        key
    }

    /// Registers a task whose child is cancelled through `cancel`.
    pub fn insert(&self, record: AgentTaskRecord, cancel: CancellationToken) {
        self.lock().tasks.push(TaskEntry {
            record,
            cancel,
            result: None,
            delivered: false,
        });
        self.changed();
    }

    /// Hands a child to the scheduler. `false` when the run no longer starts children.
    pub fn start(&self, child: PendingInvocation) -> bool {
        let sent = self.starts.unbounded_send(child).is_ok();
        if sent {
            self.lock().children_running += 1;
        }
        sent
    }

    /// A child's run ended: its task and invocation are settled and journaled.
    pub fn child_ended(&self) {
        {
            let mut board = self.lock();
            board.children_running = board.children_running.saturating_sub(1);
        }
        self.changed();
    }

    /// Whether a child handed to the scheduler is still running.
    pub fn children_running(&self) -> bool {
        self.lock().children_running > 0
    }

    pub fn get(&self, id: &TaskId) -> Option<TaskView> {
        self.lock()
            .tasks
            .iter()
            .find(|entry| entry.record.id == *id)
            .map(view)
    }

    /// The return-mode tasks `parent` created, oldest first.
    pub fn children_of(&self, parent: &InvocationId) -> Vec<TaskView> {
        self.lock()
            .tasks
            .iter()
            .filter(|entry| is_child_of(entry, parent))
            .map(view)
            .collect()
    }

    /// Handoffs made in the whole run.
    pub fn handoff_count(&self) -> usize {
        self.lock()
            .tasks
            .iter()
            .filter(|entry| entry.record.continuation == TaskContinuation::TransferControl)
            .count()
    }

    /// Changes a task's record; `None` when the task is unknown or already terminal (a
    /// transition out of a terminal status is ignored).
    pub fn update(
        &self,
        id: &TaskId,
        change: impl FnOnce(&mut AgentTaskRecord),
    ) -> Option<AgentTaskRecord> {
        let updated = {
            let mut board = self.lock();
            let entry = board
                .tasks
                .iter_mut()
                .find(|entry| entry.record.id == *id)?;
            if entry.record.status.is_terminal() {
                return None;
            }
            change(&mut entry.record);
            entry.record.clone()
        };
        self.changed();
        Some(updated)
    }

    /// Keeps the document a child returned.
    pub fn set_result(&self, id: &TaskId, document: Value) {
        if let Some(entry) = self.lock().tasks.iter_mut().find(|e| e.record.id == *id) {
            entry.result = Some(document);
        }
    }

    /// Marks results as delivered to their parent.
    pub fn mark_delivered(&self, ids: &[TaskId]) {
        for entry in self.lock().tasks.iter_mut() {
            if ids.contains(&entry.record.id) {
                entry.delivered = true;
            }
        }
    }

    /// How many of `ids` ended without their result reaching the parent yet.
    pub fn undelivered_among(&self, ids: &[TaskId]) -> usize {
        self.lock()
            .tasks
            .iter()
            .filter(|e| ids.contains(&e.record.id) && e.record.status.is_terminal() && !e.delivered)
            .count()
    }

    /// The ended children of `parent` whose results it has not seen yet, marked delivered.
    pub fn take_undelivered(&self, parent: &InvocationId) -> Vec<TaskView> {
        let mut board = self.lock();
        board
            .tasks
            .iter_mut()
            .filter(|entry| {
                is_child_of(entry, parent) && entry.record.status.is_terminal() && !entry.delivered
            })
            .map(|entry| {
                entry.delivered = true;
                view(entry)
            })
            .collect()
    }

    /// Cancels the unfinished children of `parent` (all children when `None`).
    pub fn cancel_children(&self, parent: Option<&InvocationId>) {
        for entry in &self.lock().tasks {
            let selected = parent.is_none_or(|parent| is_child_of(entry, parent));
            if selected && !entry.record.status.is_terminal() {
                entry.cancel.cancel();
            }
        }
    }

    /// Stores the invocation a handoff created, to take over when its source stops.
    pub fn set_next_owner(&self, invocation: PendingInvocation) {
        self.lock().next_owner = Some(invocation);
    }

    pub fn take_next_owner(&self) -> Option<PendingInvocation> {
        self.lock().next_owner.take()
    }
}

fn is_child_of(entry: &TaskEntry, parent: &InvocationId) -> bool {
    entry.record.parent_invocation_id == *parent
        && entry.record.continuation == TaskContinuation::ReturnToParent
}

fn view(entry: &TaskEntry) -> TaskView {
    TaskView {
        record: entry.record.clone(),
        result: entry.result.clone(),
    }
}
