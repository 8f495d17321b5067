//! The loop's rules that are not state transitions: which tools end an invocation, what a
//! finish needs, what may be auto-published, where direct output goes, and the wording the
//! model and the user read when a rule bites.

use agent_domain::event::{Presentation, RunFailurePayload};
use agent_domain::tool::{
    AgentToolResult, BuiltinTool, ExitPolicy, InvocationToolSnapshot, ToolInvocation,
};
use agent_domain::workspace::WorkspacePath;
use serde::{Deserialize, Serialize};

use super::CommitLedger;

/// The model answered with text in every remaining round instead of calling a tool.
pub const TOOL_CALL_REQUIRED: &str = "model.tool_call_required";
/// Every round called tools but none ended the invocation.
pub const MAX_TOOL_ROUNDS_EXCEEDED: &str = "agent.max_tool_rounds_exceeded";
/// A finishing tool was not the last call of its round (recoverable).
pub const TOOL_AFTER_FINISH: &str = "agent.tool_after_finish";
/// A foreground `workspace.finish` before any explicit commit (recoverable).
pub const FOREGROUND_COMMIT_REQUIRED: &str = "agent.foreground_commit_required";
/// `workspace.finish` in a return-mode child (defensive: children never see it).
pub const CHILD_FINISH_DENIED: &str = "agent.child_finish_denied";
/// A result that does not answer the call it was reported for.
pub const RESULT_IDENTITY_MISMATCH: &str = "tool.result_identity_mismatch";
/// A report whose control outcome or written file does not fit the tool or its result.
pub const TOOL_CONTROL_MISMATCH: &str = "agent.tool_control_mismatch";

/// File extensions auto-publish treats as text (compared lower-case).
pub const PUBLISHABLE_EXTENSIONS: [&str; 3] = ["md", "markdown", "txt"];

/// File name of captured direct output, inside the messageBody artifact's root.
pub const DIRECT_OUTPUT_FILE: &str = "direct_output.md";

/// Whether auto-publish may put `path` into the chat.
pub fn is_publishable_text(path: &WorkspacePath) -> bool {
    path.extension()
        .is_some_and(|ext| PUBLISHABLE_EXTENSIONS.contains(&ext.as_str()))
}

/// `<root of the messageBody path>/direct_output.md` (`output/direct_output.md` by default).
pub fn direct_output_path(message_body: &WorkspacePath) -> WorkspacePath {
    let root = message_body.first_segment();
    WorkspacePath::parse(&format!("{root}/{DIRECT_OUTPUT_FILE}"))
        .unwrap_or_else(|_| message_body.clone())
}

/// Whether `call` ends its invocation when accepted (`workspace.finish`, `agent.handoff`,
/// `task.return`) and so must be the last call of its round.
pub fn ends_invocation(call: &ToolInvocation) -> bool {
    BuiltinTool::from_id(&call.tool_id).is_some_and(BuiltinTool::ends_invocation)
}

/// Why a `workspace.finish` may not run now.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, thiserror::Error)]
#[serde(rename_all = "camelCase")]
#[error("{code}: {message}")]
pub struct FinishDenied {
    pub code: String,
    /// Written for the model.
    pub message: String,
}

/// The finish rule, in one place: children end only with `task.return`; a foreground run
/// needs at least one host-confirmed explicit commit (auto-publish does not count, a
/// commit by an earlier owner in a handoff chain does); a background run may always
/// finish.
pub(super) fn check_finish(
    snapshot: &InvocationToolSnapshot,
    presentation: Presentation,
    ledger: &CommitLedger,
) -> Result<(), FinishDenied> {
    let aliases = Aliases::of(snapshot);
    match snapshot.exit_policy() {
        ExitPolicy::TaskReturnRequired => Err(FinishDenied {
            code: CHILD_FINISH_DENIED.into(),
            message: format!(
                "This task cannot finish the run. End it with `{}`.",
                aliases.task_return()
            ),
        }),
        ExitPolicy::RunFinishAllowed
            if presentation == Presentation::Foreground && !ledger.has_explicit() =>
        {
            let finish = aliases.finish();
            let mut message = match &aliases.commit {
                Some(commit) => format!(
                    "Nothing has been committed to the chat yet, so the run cannot finish. \
                     Publish your reply with `{commit}`, then call `{finish}`."
                ),
                None => "Nothing has been committed to the chat yet, and you have no commit \
                         tool, so you cannot finish this run."
                    .to_owned(),
            };
            if ledger.auto_count() > 0 {
                message.push_str(" Drafts published automatically do not count.");
            }
            Err(FinishDenied {
                code: FOREGROUND_COMMIT_REQUIRED.into(),
                message,
            })
        }
        ExitPolicy::RunFinishAllowed => Ok(()),
    }
}

/// The recoverable answer to a finishing call that was not last in its round.
pub(super) fn tool_after_finish(
    snapshot: &InvocationToolSnapshot,
    call: &ToolInvocation,
) -> AgentToolResult {
    let alias = snapshot
        .alias_of(&call.tool_id)
        .map_or_else(|| call.tool_id.to_string(), str::to_owned);
    AgentToolResult::error(
        call,
        TOOL_AFTER_FINISH,
        format!(
            "`{alias}` must be the last tool call of a turn, so it was not run. The other \
             calls of this turn were handled; call `{alias}` again, on its own, once you have \
             seen their results."
        ),
    )
}

/// The synthetic user message after a text-only turn.
pub(super) fn drift_reminder(
    snapshot: &InvocationToolSnapshot,
    presentation: Presentation,
    ledger: &CommitLedger,
    captured: Option<&WorkspacePath>,
) -> String {
    let aliases = Aliases::of(snapshot);
    let mut text = String::from("You answered with plain text and called no tool. ");
    if let Some(path) = captured {
        text.push_str(&format!("Your text was saved to `{path}`. "));
    }
    if snapshot.exit_policy() == ExitPolicy::TaskReturnRequired {
        text.push_str(&format!(
            "This task ends only when you call `{}` with your result.",
            aliases.task_return()
        ));
        return text;
    }
    let ending = match (&aliases.finish, &aliases.handoff) {
        (Some(finish), _) => format!("end the run with `{finish}`"),
        (None, Some(handoff)) => format!("hand the work over with `{handoff}`"),
        (None, None) => "end the run with an available Agent control tool".to_owned(),
    };
    match (presentation, &aliases.commit) {
        (Presentation::Foreground, Some(commit)) if !ledger.has_explicit() => {
            text.push_str(&format!(
                "Text outside tools never reaches the chat: write your reply to a workspace \
                 file, publish it with `{commit}`, then {ending}."
            ));
        }
        (Presentation::Foreground, Some(commit)) => {
            text.push_str(&format!(
                "Your committed output is already in the chat. If the work is done, {ending}; \
                 otherwise revise it, commit again with `{commit}`, and then {ending}."
            ));
        }
        (Presentation::Background, _) => {
            text.push_str(&format!(
                "When the work is done, {ending}; committing to the chat is optional in this \
                 run."
            ));
        }
        (_, None) => text.push_str(&format!("Continue with your tools, then {ending}.")),
    }
    text
}

/// `model.tool_call_required`: text-only turns used up the rounds.
pub(super) fn tool_call_required(snapshot: &InvocationToolSnapshot) -> RunFailurePayload {
    let aliases = Aliases::of(snapshot);
    let tool = if snapshot.exit_policy() == ExitPolicy::TaskReturnRequired {
        aliases.task_return()
    } else {
        aliases
            .finish
            .or(aliases.handoff)
            .unwrap_or_else(|| "an available Agent control tool".to_owned())
    };
    let message = format!("model must use Agent tools and complete through {tool}");
    RunFailurePayload::new(TOOL_CALL_REQUIRED, message.clone(), false)
        .with_technical_message(format!("{TOOL_CALL_REQUIRED}: {message}"))
}

/// `agent.max_tool_rounds_exceeded`: tools every round, no ending.
pub(super) fn max_rounds_exceeded(exit: ExitPolicy, max_rounds: u32) -> RunFailurePayload {
    let message = match exit {
        ExitPolicy::TaskReturnRequired => {
            format!("task.return was not called within {max_rounds} rounds")
        }
        ExitPolicy::RunFinishAllowed => {
            format!("workspace.finish or agent.handoff was not called within {max_rounds} rounds")
        }
    };
    RunFailurePayload::new(MAX_TOOL_ROUNDS_EXCEEDED, message.clone(), false)
        .with_technical_message(format!("{MAX_TOOL_ROUNDS_EXCEEDED}: {message}"))
}

/// A runtime fault with a code, as a failure payload.
pub(super) fn fault(code: &str, message: impl Into<String>) -> RunFailurePayload {
    let message = message.into();
    RunFailurePayload::new(code, message.clone(), false)
        .with_technical_message(format!("{code}: {message}"))
}

/// The model-facing names of the tools the loop's wording mentions, from the snapshot.
struct Aliases {
    finish: Option<String>,
    commit: Option<String>,
    handoff: Option<String>,
    task_return: Option<String>,
}

impl Aliases {
    fn of(snapshot: &InvocationToolSnapshot) -> Self {
        let alias = |tool: BuiltinTool| snapshot.alias_of(&tool.id()).map(str::to_owned);
        Self {
            finish: alias(BuiltinTool::WorkspaceFinish),
            commit: alias(BuiltinTool::WorkspaceCommit),
            handoff: alias(BuiltinTool::AgentHandoff),
            task_return: alias(BuiltinTool::TaskReturn),
        }
    }

    fn finish(&self) -> String {
        self.finish
            .clone()
            .unwrap_or_else(|| BuiltinTool::WorkspaceFinish.model_alias())
    }

    fn task_return(&self) -> String {
        self.task_return
            .clone()
            .unwrap_or_else(|| BuiltinTool::TaskReturn.model_alias())
    }
}
