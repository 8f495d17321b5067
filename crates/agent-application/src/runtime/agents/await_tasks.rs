//! `agent.await`: reports on, or waits for, tasks this invocation delegated. A wait ends
//! when its condition holds (`nextCompleted`: a selected task ended whose result the
//! caller has not seen; `allCompleted`: every selected task ended), at its timeout (still a
//! successful result, saying so), or when the invocation is cancelled.

use std::pin::pin;
use std::time::Duration;

use agent_domain::event::{AwaitCompletedPayload, AwaitMode, AwaitStartedPayload, RunEvent};
use agent_domain::run::TaskId;
use agent_domain::tool::{AgentToolResult, ToolInvocation};
use futures::future::{Either, select};
use serde_json::{Value, json};

use super::{refused, results};
use crate::runtime::driver::Driver;
use crate::runtime::fault::Fault;
use crate::runtime::invocation::Invocation;
use crate::runtime::machine::ToolCallReport;
use crate::runtime::tasks::TaskView;
use crate::tools::{Args, ToolFailure, invalid};

/// A task id that is not one of the caller's tasks.
const TASK_NOT_FOUND: &str = "agent.await_task_not_found";
/// The caller delegated nothing.
const NO_CHILD_TASKS: &str = "agent.no_child_tasks";
/// The wait was cut short because the invocation was cancelled.
const AWAIT_CANCELLED: &str = "agent.await_cancelled";
/// Default and longest wait.
const DEFAULT_TIMEOUT_MS: u64 = 120_000;
const MAX_TIMEOUT_MS: u64 = 300_000;

pub(super) async fn await_tasks(
    d: &Driver,
    inv: &Invocation,
    call: &ToolInvocation,
) -> Result<ToolCallReport, Fault> {
    let (ids, mode, timeout_ms) = match check(d, inv, call) {
        Ok(checked) => checked,
        Err(failure) => return Ok(refused(call, failure)),
    };
    let parent = inv.record.id.to_string();
    d.rec
        .emit(RunEvent::AgentAwaitStarted(AwaitStartedPayload {
            parent_invocation_id: parent.clone(),
            mode,
            task_ids: ids.iter().map(TaskId::to_string).collect(),
            timeout_ms,
        }))
        .await?;
    let waited = match mode {
        AwaitMode::StatusOnly => Some(false),
        _ => {
            let wait = pin!(wait_for(d, &ids, mode));
            let deadline = pin!(tokio::time::sleep(Duration::from_millis(timeout_ms)));
            inv.watch
                .race(select(wait, deadline))
                .await
                .map(|ended| matches!(ended, Either::Right(_)))
        }
    };
    // A cancelled run also ends its children, which can end the wait first: cancellation
    // wins either way.
    let waited = waited.filter(|_| !inv.watch.token().is_cancelled());
    let Some(timed_out) = waited else {
        return Ok(refused(
            call,
            ToolFailure::recoverable(AWAIT_CANCELLED, "The wait was cancelled with your task."),
        ));
    };
    let tasks = selected(d, &ids);
    let ended: Vec<TaskId> = tasks
        .iter()
        .filter(|task| task.record.status.is_terminal())
        .map(|task| task.record.id.clone())
        .collect();
    d.board.mark_delivered(&ended);
    d.rec
        .emit(RunEvent::AgentAwaitCompleted(AwaitCompletedPayload {
            parent_invocation_id: parent,
            mode,
            timed_out,
            task_count: u32::try_from(tasks.len()).unwrap_or(u32::MAX),
        }))
        .await?;
    let structured = json!({
        "mode": mode,
        "timedOut": timed_out,
        "tasks": tasks.iter().map(results::entry).collect::<Vec<Value>>(),
    });
    Ok(ToolCallReport::new(AgentToolResult::success(
        call,
        results::capsule(&tasks, timed_out),
        structured,
    )))
}

fn selected(d: &Driver, ids: &[TaskId]) -> Vec<TaskView> {
    ids.iter().filter_map(|id| d.board.get(id)).collect()
}

/// Resolves once the mode's condition holds for `ids`.
async fn wait_for(d: &Driver, ids: &[TaskId], mode: AwaitMode) {
    let mut changes = d.board.subscribe();
    loop {
        let tasks = selected(d, ids);
        let done = match mode {
            AwaitMode::AllCompleted => tasks.iter().all(|t| t.record.status.is_terminal()),
            _ => {
                let unseen = d.board.undelivered_among(ids);
                unseen > 0 || tasks.iter().all(|t| t.record.status.is_terminal())
            }
        };
        if done || changes.changed().await.is_err() {
            return;
        }
    }
}

/// The selected task ids (every task of the caller when none are named), the mode and
/// the timeout.
fn check(
    d: &Driver,
    inv: &Invocation,
    call: &ToolInvocation,
) -> Result<(Vec<TaskId>, AwaitMode, u64), ToolFailure> {
    let args = Args::parse(&call.arguments, &["taskIds", "mode", "timeoutMs"])?;
    let mode = match args.optional_str("mode")?.as_deref().map(str::trim) {
        None | Some("" | "nextCompleted") => AwaitMode::NextCompleted,
        Some("allCompleted") => AwaitMode::AllCompleted,
        Some("statusOnly") => AwaitMode::StatusOnly,
        Some(other) => {
            return Err(invalid(format!(
                "`mode` must be nextCompleted, allCompleted or statusOnly, not `{other}`"
            )));
        }
    };
    let timeout_ms = args
        .optional_u64("timeoutMs", 0, MAX_TIMEOUT_MS)?
        .unwrap_or(DEFAULT_TIMEOUT_MS);
    let mine = d.board.children_of(&inv.record.id);
    let ids = match args.raw("taskIds") {
        None | Some(Value::Null) => {
            if mine.is_empty() {
                return Err(ToolFailure::recoverable(
                    NO_CHILD_TASKS,
                    "You have not delegated any task, so there is nothing to await.",
                ));
            }
            mine.iter().map(|task| task.record.id.clone()).collect()
        }
        Some(Value::Array(items)) if !items.is_empty() => {
            let mut ids: Vec<TaskId> = Vec::with_capacity(items.len());
            for item in items {
                let raw = item
                    .as_str()
                    .ok_or_else(|| invalid("`taskIds` must be an array of task id strings"))?;
                let found = mine
                    .iter()
                    .find(|task| task.record.id.as_str() == raw.trim())
                    .ok_or_else(|| {
                        ToolFailure::recoverable(
                            TASK_NOT_FOUND,
                            format!("`{raw}` is not a task you delegated in this run."),
                        )
                    })?;
                if ids.contains(&found.record.id) {
                    return Err(invalid(format!("`taskIds` lists `{raw}` twice")));
                }
                ids.push(found.record.id.clone());
            }
            ids
        }
        Some(_) => return Err(invalid("`taskIds` must be a non-empty array of task ids")),
    };
    Ok((ids, mode, timeout_ms))
}
