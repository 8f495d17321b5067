//! `dice.roll`: dice notation rolls through the `Rng` port.

use serde_json::Value;

use super::{ToolContext, ToolFailure, ToolFault, ToolOutcome};

pub(super) async fn roll(
    _ctx: &mut ToolContext<'_>,
    _args: &Value,
) -> Result<ToolOutcome, ToolFailure> {
    Err(ToolFailure::Fatal(ToolFault {
        code: "tool.dispatch_handler_missing",
        message: "dice.roll is not available in this build".into(),
    }))
}
