//! Skill tools: list, search and read the skills visible to the invocation.

use serde_json::Value;

use super::{ToolContext, ToolFailure, ToolFault, ToolOutcome};

fn pending(tool: &str) -> Result<ToolOutcome, ToolFailure> {
    Err(ToolFailure::Fatal(ToolFault {
        code: "tool.dispatch_handler_missing",
        message: format!("{tool} is not available in this build"),
    }))
}

pub(super) async fn list(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    pending("skill.list")
}
pub(super) async fn search(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    pending("skill.search")
}
pub(super) async fn read(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    pending("skill.read")
}
