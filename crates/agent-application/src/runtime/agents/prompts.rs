//! What a delegated child and a handoff target read first. A child gets its own short
//! conversation (its profile's instructions, the rules of a delegated task, the task
//! brief); a handoff target continues from the run's frozen prompt, told who it is now and
//! what the brief asks.

use agent_domain::model::AgentModelMessage;
use agent_domain::profile::ResolvedAgentProfile;
use agent_domain::tool::BuiltinTool;
use agent_domain::workspace::RootAccess;
use serde_json::{Map, Value};

use super::brief;
use crate::prompt::run_note;

/// The system prompt of a child whose profile does not bring its own
/// (`instructions.agentSystemPrompt`): the writer's default prompt is about publishing a
/// chat reply, which a child never does.
pub(super) const DEFAULT_CHILD_SYSTEM_PROMPT: &str = "\
You are a specialist agent working on one delegated task for another agent of a roleplay \
writing team. You work in a shared workspace through tools: read what the task brief points \
to, do the task well, keep longer results in workspace files, and hand your result back. \
Anything you say outside the tools is lost.";

/// The conversation a delegated child starts from.
pub(super) fn child_messages(
    target: &ResolvedAgentProfile,
    caller: &str,
    task: &Map<String, Value>,
) -> Vec<AgentModelMessage> {
    let instructions = target
        .system_prompt_override
        .as_deref()
        .unwrap_or(DEFAULT_CHILD_SYSTEM_PROMPT);
    let finish = BuiltinTool::TaskReturn.model_alias();
    let system = format!(
        "{instructions}\n\n## This task\n- Agent `{caller}` delegated it to you; your result \
         goes back to that agent, not to the chat. You cannot publish to the chat or end the \
         run.\n- You can read {} and write {}.\n- End the task with `{finish}`: a concise \
         summary, `completed` or `failed`, and the workspace files you produced as artifacts. \
         It must be the last tool call of your turn.",
        RootAccess::describe(&target.roots.visible),
        RootAccess::describe(&target.roots.writable),
    );
    vec![
        AgentModelMessage::system(system),
        AgentModelMessage::user(brief::render("Task Brief", task)),
    ]
}

/// The run's prompt followed by the handoff: who the target is now, its own instructions
/// when its profile has them, its run note, and the brief.
pub(super) fn handoff_messages(
    run_prompt: &[AgentModelMessage],
    target: &ResolvedAgentProfile,
    source: &str,
    handoff: &Map<String, Value>,
) -> Vec<AgentModelMessage> {
    let mut text = format!(
        "## Handoff\nYou are now agent `{}` ({}), taking over this run from agent `{source}`. \
         The workspace, its files and the commits made so far carry over.",
        target.id, target.display_name
    );
    if let Some(instructions) = target.system_prompt_override.as_deref() {
        text.push_str(&format!("\n\n## Your instructions\n{instructions}"));
    }
    text.push_str(&format!("\n\n{}\n\n", run_note(target)));
    text.push_str(&brief::render("Handoff Brief", handoff));
    let mut messages = run_prompt.to_vec();
    messages.push(AgentModelMessage::user(text));
    messages
}
