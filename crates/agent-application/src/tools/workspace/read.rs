//! `workspace.read_file`: numbered lines of one text file, and the read-state they earn.

use agent_domain::text::{LineWindow, RangeNamespace, ReadBudget, TextMetrics};
use agent_domain::tool::BuiltinTool;
use agent_domain::workspace::WorkspacePath;
use serde_json::{Value, json};

use super::errors::{Access, store_failure};
use super::paths::{ensure_visible, file_path};
use crate::tools::{Args, InvocationScope, ToolContext, ToolFailure, ToolOutcome};

pub(in crate::tools) async fn read_file(
    ctx: &mut ToolContext<'_>,
    args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    let args = Args::parse(args, &["path", "start_line", "line_count"])?;
    let path = file_path(&args)?;
    ensure_visible(&path, ctx.invocation)?;
    let start_line = args.optional_u64("start_line", 0, u64::MAX)?;
    let line_count = args.optional_u64("line_count", 0, u64::MAX)?;
    let file = ctx
        .ports
        .workspace
        .read(&ctx.run.run_id, &path)
        .await
        .map_err(|error| store_failure(error, Access::File, ctx.invocation))?;
    let budget = ReadBudget::workspace(start_line, line_count);
    let window =
        LineWindow::select(&file.text, start_line, line_count, &budget).map_err(|error| {
            ToolFailure::recoverable(
                error.code_in(RangeNamespace::Workspace),
                format!("Cannot read `{path}`: {error}."),
            )
        })?;
    let shown = window.plain_text();
    ctx.session
        .read_state
        .record_read(&path, &file.sha256, window.complete, &shown);

    let metrics = TextMetrics::of(&shown);
    let mut structured = json!(window.facts());
    if let Value::Object(fields) = &mut structured {
        fields.insert("path".into(), json!(path));
        fields.insert("sha256".into(), json!(file.sha256));
        fields.insert("chars".into(), json!(metrics.chars));
        fields.insert("words".into(), json!(metrics.words));
    }
    let resource_ref = if window.total_lines == 0 {
        format!("workspace:{path}")
    } else {
        format!(
            "workspace:{path}#L{}-L{}",
            window.start_line, window.end_line
        )
    };
    Ok(ToolOutcome::read(
        content(&path, &window, ctx.invocation),
        structured,
        vec![resource_ref],
    ))
}

/// The numbered lines, then how to read on when the window stopped short of the file.
fn content(path: &WorkspacePath, window: &LineWindow, scope: &InvocationScope) -> String {
    if window.total_lines == 0 {
        return format!("`{path}` is empty.");
    }
    let read = scope.alias(BuiltinTool::WorkspaceReadFile);
    let footer = window
        .continuation_hint(&format!("{read} path={path}"))
        .or_else(|| {
            (!window.complete).then(|| {
                format!(
                    "Lines {}-{} of {}.",
                    window.start_line, window.end_line, window.total_lines
                )
            })
        });
    let lines = window.render_numbered();
    match footer {
        Some(footer) => format!("{lines}\n\n{footer}"),
        None => lines,
    }
}
