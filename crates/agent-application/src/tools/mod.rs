//! The builtin tools that read and change the world: workspace, chat, world info, dice and
//! skills (`docs/spec-map.md`, Built-in tools). Runtime control tools (`workspace.commit`,
//! `workspace.finish`, `agent.*`, `task.return`) belong to the runtime, not to this module.
//!
//! Every tool is a function from a [`ToolContext`] and the call's arguments to a
//! [`ToolOutcome`] or a [`ToolFailure`]. [`execute_builtin`] turns either into the
//! [`AgentToolResult`] the model and the audit file see; only faults of the runtime itself
//! escape as [`ToolFault`].

mod args;
mod chat;
mod context;
mod dice;
mod outcome;
mod skill;
#[cfg(test)]
mod test_support;
mod workspace;
mod worldinfo;

use agent_domain::tool::{AgentToolResult, BuiltinTool, ToolInvocation};

pub use args::{Args, INVALID_ARGUMENTS, invalid};
/// The pure search cores of `chat.search` and `workspace.search_files`, for the benches
/// that time them on real files (`internals` feature); hosts call the tools.
#[cfg(feature = "internals")]
pub use chat::{ChatHit, ChatSearchFilter, search_messages};
pub use context::{InvocationScope, RunScope, SkillAccess, ToolContext, ToolPorts, ToolSession};
pub use outcome::{ToolEffect, ToolFailure, ToolFault, ToolOutcome};
#[cfg(feature = "internals")]
pub use workspace::{SearchHit, SearchReport, search_corpus_hits};
#[cfg(not(feature = "internals"))]
pub(crate) use workspace::{SearchHit, SearchReport, search_corpus_hits};

/// The result of one builtin call, with the effect the runtime must journal.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolExecution {
    pub result: AgentToolResult,
    pub effect: ToolEffect,
}

/// Runs one builtin tool. Recoverable failures become `is_error` results; a [`ToolFault`]
/// means the run must stop.
pub async fn execute_builtin(
    ctx: &mut ToolContext<'_>,
    invocation: &ToolInvocation,
) -> Result<ToolExecution, ToolFault> {
    let Some(tool) = BuiltinTool::from_id(&invocation.tool_id) else {
        return Err(ToolFault {
            code: "tool.dispatch_handler_missing",
            message: format!("`{}` is not a builtin tool", invocation.tool_id),
        });
    };
    let args = &invocation.arguments;
    let outcome = match tool {
        BuiltinTool::WorkspaceListFiles => workspace::list_files(ctx, args).await,
        BuiltinTool::WorkspaceSearchFiles => workspace::search_files(ctx, args).await,
        BuiltinTool::WorkspaceReadFile => workspace::read_file(ctx, args).await,
        BuiltinTool::WorkspaceWriteFile => workspace::write_file(ctx, args).await,
        BuiltinTool::WorkspaceApplyPatch => workspace::apply_patch(ctx, args).await,
        BuiltinTool::ChatSearch => chat::search(ctx, args).await,
        BuiltinTool::ChatReadMessages => chat::read_messages(ctx, args).await,
        BuiltinTool::WorldInfoReadActivated => worldinfo::read_activated(ctx, args).await,
        BuiltinTool::DiceRoll => dice::roll(ctx, args).await,
        BuiltinTool::SkillList => skill::list(ctx, args).await,
        BuiltinTool::SkillSearch => skill::search(ctx, args).await,
        BuiltinTool::SkillRead => skill::read(ctx, args).await,
        control => {
            return Err(ToolFault {
                code: "tool.dispatch_handler_missing",
                message: format!(
                    "`{}` is run by the runtime, not the builtin dispatcher",
                    control.native_name()
                ),
            });
        }
    };
    let (result, effect) = match outcome {
        Ok(outcome) => outcome.into_result(invocation),
        Err(ToolFailure::Fatal(fault)) => return Err(fault),
        Err(failure) => (failure.into_error_result(invocation), ToolEffect::None),
    };
    Ok(ToolExecution { result, effect })
}

#[cfg(test)]
mod tests {
    use agent_domain::ErrorCode;
    use agent_domain::tool::BuiltinTool;
    use agent_domain::workspace::RootAccess;
    use serde_json::json;

    use super::test_support::{ToolHarness, memory_ports};

    #[tokio::test]
    async fn runtime_control_tools_are_not_dispatched_here() {
        let mut h = ToolHarness::new(RootAccess::full(), memory_ports());
        for tool in [
            BuiltinTool::WorkspaceCommit,
            BuiltinTool::WorkspaceFinish,
            BuiltinTool::TaskReturn,
        ] {
            let fault = h.call(tool, json!({})).await.unwrap_err();
            assert_eq!(fault.code(), "tool.dispatch_handler_missing", "{tool:?}");
        }
    }
}
