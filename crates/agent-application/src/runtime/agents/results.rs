//! How delegated results reach the parent: the entries of `agent.await`'s structured
//! result, and the markdown capsule ("## Delegated Task Results") it answers with — the
//! same capsule the runtime adds to the parent's next request for results nobody awaited.

use agent_domain::tool::BuiltinTool;
use serde_json::{Map, Value, json};

use crate::runtime::tasks::TaskView;

/// Result fields copied from a child's `task.return` document into an await entry.
const RESULT_FIELDS: [&str; 7] = [
    "summary",
    "confidence",
    "artifacts",
    "findings",
    "warnings",
    "suggestedNextActions",
    "questionsForCaller",
];

/// The returned fields of a task (its document's `result`).
fn returned(task: &TaskView) -> Option<&Map<String, Value>> {
    task.result.as_ref()?.get("result")?.as_object()
}

/// One task as `agent.await` reports it.
pub(in crate::runtime) fn entry(task: &TaskView) -> Value {
    let mut entry = json!({
        "taskId": task.record.id,
        "agentId": task.record.target_profile_id,
        "status": task.record.status.as_str(),
    });
    if let Some(error) = &task.record.error {
        entry["error"] = json!(error);
    }
    if let Some(result) = returned(task) {
        for field in RESULT_FIELDS {
            if let Some(value) = result.get(field) {
                entry[field] = value.clone();
            }
        }
    }
    entry
}

/// The capsule for `tasks`; `timed_out` adds the timeout line.
pub(in crate::runtime) fn capsule(tasks: &[TaskView], timed_out: bool) -> String {
    let mut text = String::from("## Delegated Task Results\n");
    if timed_out {
        text.push_str("Timed out before all selected tasks finished.\n");
    }
    for task in tasks {
        let status = task.record.status.as_str();
        text.push_str(&format!(
            "\n### {} - {status}\nTask: {}\n",
            task.record.target_profile_id, task.record.id
        ));
        match (returned(task), &task.record.error) {
            (Some(result), _) => {
                if let Some(summary) = result.get("summary").and_then(Value::as_str) {
                    text.push_str(&format!("{}\n", summary.trim()));
                }
                let paths: Vec<&str> = result
                    .get("artifacts")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
                    .filter_map(|artifact| artifact.get("path")?.as_str())
                    .collect();
                if !paths.is_empty() {
                    text.push_str(&format!("Artifacts: {}\n", paths.join(", ")));
                }
            }
            (None, Some(error)) => text.push_str(&format!("Error: {error}\n")),
            (None, None) if !task.record.status.is_terminal() => {
                text.push_str("Still working.\n");
            }
            (None, None) => {}
        }
    }
    let read = BuiltinTool::WorkspaceReadFile.model_alias();
    let wait = BuiltinTool::AgentAwait.model_alias();
    text.push_str(&format!(
        "\nRead the artifacts with `{read}` before relying on them. Tasks still running can be \
         awaited with `{wait}`."
    ));
    text
}
