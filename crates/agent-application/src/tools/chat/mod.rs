//! Chat tools: search and read the run's frozen chat prefix.

use serde_json::Value;

use super::{ToolContext, ToolFailure, ToolFault, ToolOutcome};

fn pending(tool: &str) -> Result<ToolOutcome, ToolFailure> {
    Err(ToolFailure::Fatal(ToolFault {
        code: "tool.dispatch_handler_missing",
        message: format!("{tool} is not available in this build"),
    }))
}

pub(super) async fn search(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    pending("chat.search")
}
pub(super) async fn read_messages(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    pending("chat.read_messages")
}
