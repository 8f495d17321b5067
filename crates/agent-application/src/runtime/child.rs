//! One delegated child, from the scheduler's start to its settled task: the task and the
//! invocation move to running, the child is assembled and runs the invocation loop, and
//! its ending settles both. A child's failure never fails the run: it fails its task
//! (`agent_child_invocation_failed`), and the parent reads that in its results.

use agent_domain::event::{
    ChildInvocationFailedPayload, InvocationStatus, RunEvent, RunFailurePayload, TaskStatus,
};
use agent_domain::run::{AgentInvocation, TaskId};

use super::driver::Driver;
use super::fault::Fault;
use super::invocation::PendingInvocation;
use super::invocation_build::assemble;
use super::invocation_loop;
use super::machine::Outcome;

/// The child loop ended without handing back a result.
const MISSING_RETURN: &str = "agent.child_invocation_missing_return";

/// Runs a child to its end. Faults of the journal itself are dropped here: the run's own
/// ending reports the journal's state.
pub(super) async fn run(d: &Driver, child: PendingInvocation) {
    let PendingInvocation { mut record, start } = child;
    let Some(task) = start.task.clone() else {
        d.board.child_ended();
        return;
    };
    let outcome = match begin(d, &task, &mut record).await {
        Err(fault) => Outcome::Failed(fault.payload()),
        Ok(()) if start.watch.token().is_cancelled() => Outcome::Cancelled,
        Ok(()) => match assemble(d, record.clone(), start).await {
            Ok(mut inv) => {
                let outcome = invocation_loop::run(d, &mut inv).await;
                record = inv.record;
                outcome
            }
            Err(fault) => Outcome::Failed(fault.payload()),
        },
    };
    let _ = settle(d, &task, &mut record, outcome).await;
    d.board.child_ended();
}

/// Task and invocation to running.
async fn begin(d: &Driver, task: &TaskId, record: &mut AgentInvocation) -> Result<(), Fault> {
    d.set_task_status(task, TaskStatus::Running, None, None)
        .await?;
    d.set_invocation_status(record, InvocationStatus::Running, None)
        .await
}

/// The task and the invocation take the child's ending.
async fn settle(
    d: &Driver,
    task: &TaskId,
    record: &mut AgentInvocation,
    outcome: Outcome,
) -> Result<(), Fault> {
    let returned = d
        .board
        .get(task)
        .is_some_and(|view| view.record.status.is_terminal());
    let failure = match outcome {
        Outcome::Cancelled => {
            d.set_task_status(task, TaskStatus::Cancelled, None, None)
                .await?;
            return d
                .set_invocation_status(record, InvocationStatus::Cancelled, None)
                .await;
        }
        _ if returned => {
            return d
                .set_invocation_status(record, InvocationStatus::Completed, None)
                .await;
        }
        Outcome::Failed(failure) => failure,
        Outcome::PartialSuccess(partial) => partial.failure,
        _ => Fault::new(
            MISSING_RETURN,
            "the child stopped without calling task.return",
        )
        .payload(),
    };
    let failure = missing_return(failure);
    let error = format!("{}: {}", failure.code, failure.message);
    d.set_task_status(task, TaskStatus::Failed, None, Some(error.clone()))
        .await?;
    d.rec
        .emit(RunEvent::AgentChildInvocationFailed(
            ChildInvocationFailedPayload {
                task_id: task.to_string(),
                child_invocation_id: record.id.to_string(),
                message: error.clone(),
            },
        ))
        .await?;
    d.set_invocation_status(record, InvocationStatus::Failed, Some(error))
        .await
}

/// A child that ran out of rounds or kept answering in text never returned: that is what
/// its task reports, with the loop's own reason after it.
fn missing_return(failure: RunFailurePayload) -> RunFailurePayload {
    const RAN_OUT: [&str; 2] = ["agent.max_tool_rounds_exceeded", "model.tool_call_required"];
    if RAN_OUT.contains(&failure.code.as_str()) {
        RunFailurePayload {
            message: format!(
                "the child stopped without calling task.return ({}: {})",
                failure.code, failure.message
            ),
            code: MISSING_RETURN.to_owned(),
            ..failure
        }
    } else {
        failure
    }
}
