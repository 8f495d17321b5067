//! `worldinfo.read_activated`: the world info entries activated for this generation.

use serde_json::Value;

use super::{ToolContext, ToolFailure, ToolFault, ToolOutcome};

pub(super) async fn read_activated(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    Err(ToolFailure::Fatal(ToolFault {
        code: "tool.dispatch_handler_missing",
        message: "worldinfo.read_activated is not available in this build".into(),
    }))
}
