//! Workspace tools: list, search, read, write and patch files in the run's workspace.

use serde_json::Value;

use super::{ToolContext, ToolFailure, ToolFault, ToolOutcome};

fn pending(tool: &str) -> Result<ToolOutcome, ToolFailure> {
    Err(ToolFailure::Fatal(ToolFault {
        code: "tool.dispatch_handler_missing",
        message: format!("{tool} is not available in this build"),
    }))
}

pub(super) async fn list_files(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    pending("workspace.list_files")
}
pub(super) async fn search_files(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    pending("workspace.search_files")
}
pub(super) async fn read_file(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    pending("workspace.read_file")
}
pub(super) async fn write_file(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    pending("workspace.write_file")
}
pub(super) async fn apply_patch(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    pending("workspace.apply_patch")
}
