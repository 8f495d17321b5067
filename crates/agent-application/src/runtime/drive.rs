//! The task of one run: prepare the root invocation, run the owner's loop (the root, then
//! each handoff target in turn), let the run's children finish (cancelled once the owner
//! stops), finalise the run. Everything runs inside this one task, without spawning: the
//! run's scheduler polls its children beside the owner, and the record's saves that lag
//! behind per-round statuses run beside them all.

use std::pin::pin;
use std::sync::Arc;
use std::task::Poll;

use agent_domain::event::{InvocationStatus, TaskStatus};
use agent_domain::run::AgentInvocation;
use futures::channel::mpsc::UnboundedReceiver;
use futures::future::{BoxFuture, Either, select};
use futures::stream::{FuturesUnordered, StreamExt};

use super::cancel::CancelWatch;
use super::driver::Driver;
use super::facts::{RunFacts, RunOutcome};
use super::invocation::{Invocation, PendingInvocation};
use super::invocation_build::assemble;
use super::machine::{CommitLedger, Outcome};
use super::recorder::{LiveRun, Recorder};
use super::shared::Shared;
use super::tasks::TaskBoard;
use super::{child, finish, invocation_loop, prepare};

/// Drives a run to its end. Always ends with the terminal event journaled (as far as the
/// journal accepts it).
pub(super) async fn drive(shared: Arc<Shared>, live: Arc<LiveRun>, facts: RunFacts) -> RunOutcome {
    let rec = Recorder::new(shared.ports.clone(), Arc::clone(&live));
    let saving = pin!(rec.save_behind());
    let driving = pin!(drive_run(shared, live, facts, rec.clone()));
    match select(driving, saving).await {
        Either::Left((outcome, _)) => outcome,
        Either::Right(((), driving)) => driving.await,
    }
}

async fn drive_run(
    shared: Arc<Shared>,
    live: Arc<LiveRun>,
    facts: RunFacts,
    rec: Recorder,
) -> RunOutcome {
    let watch = CancelWatch::new(
        facts.run_id.clone(),
        live.token.clone(),
        Arc::clone(&shared.ports.cancel_requests),
    );
    let (starts, children) = futures::channel::mpsc::unbounded();
    let d = Driver::new(shared, rec, facts, watch, TaskBoard::new(starts));
    let owning = pin!(own(&d));
    let scheduling = pin!(schedule(&d, children));
    let outcome = match select(owning, scheduling).await {
        Either::Left((outcome, _)) => outcome,
        Either::Right(((), owning)) => owning.await,
    };
    // The MCP servers the run's calls opened (stdio process groups included) end with it.
    d.mcp_sessions.close_all().await;
    outcome
}

/// The run's owners in turn, then its end.
async fn own(d: &Driver) -> RunOutcome {
    if d.watch.check().await {
        let _ = d.rec.request_cancel().await;
        return finish::finish(d, None, Outcome::Cancelled, &CommitLedger::new(), 0).await;
    }
    let mut inv = match prepare::prepare(d).await {
        Ok(inv) => inv,
        Err((mut record, fault)) => {
            let ledger = CommitLedger::new();
            let outcome = ledger.classify(fault.payload());
            return finish::finish(d, record.as_mut(), outcome, &ledger, 0).await;
        }
    };
    let mut rounds = 0;
    loop {
        let outcome = invocation_loop::run(d, &mut inv).await;
        rounds += inv.machine.round();
        let ledger = inv.machine.ledger().clone();
        match outcome {
            Outcome::HandedOff => match hand_over(d, &mut inv).await {
                Ok(next) => inv = next,
                Err(fault) => {
                    let outcome = ledger.classify(fault.payload());
                    return end(d, Some(&mut inv.record), outcome, &ledger, rounds).await;
                }
            },
            outcome => {
                settle_owner_task(d, &inv, &outcome).await;
                return end(d, Some(&mut inv.record), outcome, &ledger, rounds).await;
            }
        }
    }
}

/// The owner stopped: its unfinished children are cancelled and finish first, so every
/// child's ending is journaled before the run's.
async fn end(
    d: &Driver,
    owner: Option<&mut AgentInvocation>,
    outcome: Outcome,
    ledger: &CommitLedger,
    rounds: u32,
) -> RunOutcome {
    d.board.cancel_children(None);
    let mut changes = d.board.subscribe();
    while d.board.children_running() {
        if changes.changed().await.is_err() {
            break;
        }
    }
    finish::finish(d, owner, outcome, ledger, rounds).await
}

/// The source is transferred; the target the handoff created takes over.
async fn hand_over(d: &Driver, source: &mut Invocation) -> Result<Invocation, super::fault::Fault> {
    d.set_invocation_status(&mut source.record, InvocationStatus::Transferred, None)
        .await?;
    settle_owner_task(d, source, &Outcome::HandedOff).await;
    let PendingInvocation { mut record, start } = d.board.take_next_owner().ok_or_else(|| {
        super::fault::Fault::new(
            "agent.runtime_protocol_violation",
            "the invocation handed off without a target",
        )
    })?;
    if let Some(task) = &start.task {
        d.set_task_status(task, TaskStatus::Running, None, None)
            .await?;
    }
    d.set_invocation_status(&mut record, InvocationStatus::Running, None)
        .await?;
    assemble(d, record, start).await
}

/// A handoff target's own task ends with it (completed when it finished the run, or
/// handed on); a failure or cancellation ends it the same way.
async fn settle_owner_task(d: &Driver, owner: &Invocation, outcome: &Outcome) {
    let Some(task) = &owner.task else {
        return;
    };
    let (status, error) = match outcome {
        Outcome::Completed | Outcome::HandedOff => (TaskStatus::Completed, None),
        Outcome::Cancelled => (TaskStatus::Cancelled, None),
        Outcome::Failed(failure) => (TaskStatus::Failed, Some(failure.message.clone())),
        Outcome::PartialSuccess(partial) => {
            (TaskStatus::Failed, Some(partial.failure.message.clone()))
        }
        _ => (TaskStatus::Failed, None),
    };
    let _ = d.set_task_status(task, status, None, error).await;
}

/// The run's scheduler: starts each child handed to it and polls every running child,
/// concurrently, until the run's task ends. Never completes on its own.
async fn schedule(d: &Driver, mut children: UnboundedReceiver<PendingInvocation>) {
    let mut running: FuturesUnordered<BoxFuture<'_, ()>> = FuturesUnordered::new();
    futures::future::poll_fn(|cx| {
        while let Poll::Ready(Some(pending)) = children.poll_next_unpin(cx) {
            running.push(Box::pin(child::run(d, pending)));
        }
        while let Poll::Ready(Some(())) = running.poll_next_unpin(cx) {}
        Poll::<()>::Pending
    })
    .await
}
