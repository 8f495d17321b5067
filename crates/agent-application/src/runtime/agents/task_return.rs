//! `task.return`: a return-mode child hands its result back. The result document goes to
//! `agent-results/<child>.json`, a readable copy to `summaries/<key>-result.md` (written by
//! the runtime even when the child cannot write `summaries/`), the task ends with the
//! returned status, and the child's loop ends.

use agent_domain::event::{
    RunEvent, TaskReturnCompletedPayload, TaskReturnRecordedPayload, TaskStatus,
};
use agent_domain::text::TextMetrics;
use agent_domain::tool::{AgentToolResult, ExitPolicy, ToolInvocation};
use agent_domain::workspace::WorkspacePath;
use serde_json::{Map, Value, json};

use super::refused;
use crate::ports::WriteGuard;
use crate::runtime::driver::{Driver, count};
use crate::runtime::fault::Fault;
use crate::runtime::invocation::Invocation;
use crate::runtime::machine::{ToolCallReport, ToolControl};
use crate::runtime::tasks::TaskView;
use crate::tools::{Args, ToolFailure, invalid};

/// Only a return-mode child may return a task.
const TASK_RETURN_DENIED: &str = "agent.task_return_denied";
/// The task already ended.
const TASK_ALREADY_FINISHED: &str = "agent.task_already_finished";
/// The `kind` of a result document.
const RESULT_KIND: &str = "tauritavern.agentTaskResult";

/// The arguments `task.return` takes (`questionsForParent` is an alias of
/// `questionsForCaller`).
const KEYS: [&str; 9] = [
    "summary",
    "status",
    "confidence",
    "artifacts",
    "findings",
    "warnings",
    "suggestedNextActions",
    "questionsForCaller",
    "questionsForParent",
];

pub(super) async fn task_return(
    d: &Driver,
    inv: &Invocation,
    call: &ToolInvocation,
) -> Result<ToolCallReport, Fault> {
    let (task, status, result) = match check(d, inv, call) {
        Ok(checked) => checked,
        Err(failure) => return Ok(refused(call, failure)),
    };
    let record = &task.record;
    let summary = result
        .get("summary")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    let summary_path =
        WorkspacePath::parse(&format!("summaries/{}-result.md", record.workspace_key))
            .map_err(|e| Fault::of(&e))?;
    let status_name = status.as_str();
    let document = json!({
        "schemaVersion": 1,
        "kind": RESULT_KIND,
        "status": status_name,
        "summary": summary,
        "summaryRef": summary_path,
        "result": Value::Object(result),
        "runtime": {
            "taskId": record.id,
            "runId": record.run_id,
            "parentInvocationId": record.parent_invocation_id,
            "childInvocationId": record.child_invocation_id,
            "targetProfileId": record.target_profile_id,
            "workspaceKey": record.workspace_key,
        },
    });
    let result_ref = d
        .ports()
        .audit
        .write_agent_result(d.run_id(), &record.child_invocation_id, &document)
        .await
        .map_err(|e| Fault::of(&e).context("writing the task result"))?
        .0;
    let readable = format!(
        "# Delegated Task Result\n\nTask: {}\nStatus: {status_name}\n\n{summary}\n",
        record.id
    );
    d.ports()
        .workspace
        .write(d.run_id(), &summary_path, &readable, WriteGuard::Unchecked)
        .await
        .map_err(|e| Fault::of(&e).context("writing the task summary"))?;
    d.board.set_result(&record.id, document.clone());
    d.set_task_status(&record.id, status, Some(result_ref.clone()), None)
        .await?;
    d.rec
        .emit(RunEvent::TaskReturnCompleted(TaskReturnCompletedPayload {
            task_id: record.id.to_string(),
            parent_invocation_id: record.parent_invocation_id.to_string(),
            child_invocation_id: record.child_invocation_id.to_string(),
            status,
            result_ref: result_ref.clone(),
            summary_ref: summary_path.to_string(),
        }))
        .await?;
    let metrics = TextMetrics::of(&summary);
    d.rec
        .emit(RunEvent::TaskReturnRecorded(TaskReturnRecordedPayload {
            invocation_id: inv.record.id.to_string(),
            status,
            result_ref,
            summary_chars: count(metrics.chars),
            summary_words: count(metrics.words),
        }))
        .await?;
    let content = format!(
        "Returned {status_name} result for delegated task {}.",
        record.id
    );
    Ok(
        ToolCallReport::new(AgentToolResult::success(call, content, document))
            .with_control(ToolControl::TaskReturned),
    )
}

/// The task, its returned status and the normalised result fields.
fn check(
    d: &Driver,
    inv: &Invocation,
    call: &ToolInvocation,
) -> Result<(TaskView, TaskStatus, Map<String, Value>), ToolFailure> {
    let task = inv
        .task
        .as_ref()
        .filter(|_| inv.record.exit_policy == ExitPolicy::TaskReturnRequired)
        .and_then(|id| d.board.get(id))
        .ok_or_else(|| {
            ToolFailure::recoverable(
                TASK_RETURN_DENIED,
                "Only a delegated task returns a result; you were not given one.",
            )
        })?;
    let args = Args::parse(&call.arguments, &KEYS)?;
    let summary = args.required_str("summary")?;
    let status = match args.optional_str("status")?.as_deref().map(str::trim) {
        None | Some("" | "completed") => TaskStatus::Completed,
        Some("failed") => TaskStatus::Failed,
        Some(other) => return Err(invalid(format!("unsupported status `{other}`"))),
    };
    let mut result = match &call.arguments {
        Value::Object(map) => map.clone(),
        _ => Map::new(),
    };
    if let Some(questions) = result.remove("questionsForParent") {
        result.entry("questionsForCaller").or_insert(questions);
    }
    result.insert("summary".into(), json!(summary));
    result.insert("status".into(), json!(status.as_str()));
    check_artifacts(inv, args.raw("artifacts"))?;
    if task.record.status.is_terminal() {
        return Err(ToolFailure::recoverable(
            TASK_ALREADY_FINISHED,
            format!("Task {} has already ended.", task.record.id),
        ));
    }
    Ok((task, status, result))
}

/// Each artifact is an object whose `path` is a workspace path the child can see.
fn check_artifacts(inv: &Invocation, artifacts: Option<&Value>) -> Result<(), ToolFailure> {
    let items = match artifacts {
        None | Some(Value::Null) => return Ok(()),
        Some(Value::Array(items)) => items,
        Some(_) => return Err(invalid("`artifacts` must be an array of objects")),
    };
    for (i, item) in items.iter().enumerate() {
        let Some(raw) = item.get("path").and_then(Value::as_str) else {
            return Err(invalid(format!(
                "`artifacts[{i}]` must be an object with a `path` string"
            )));
        };
        let path = WorkspacePath::parse(raw.trim()).map_err(|e| {
            ToolFailure::recoverable(
                "workspace.invalid_path",
                format!("`artifacts[{i}].path` `{raw}` is not a workspace path: {e}"),
            )
        })?;
        if !inv.world.scope.roots.is_visible(&path) {
            return Err(ToolFailure::recoverable(
                "workspace.path_not_visible",
                format!("`artifacts[{i}].path` `{path}` is outside the folders you can see"),
            ));
        }
    }
    Ok(())
}
