//! The agent's own system prompt: the built-in default, a profile's replacement, and the
//! short note about this run's files and finishing tools.

use agent_domain::event::Presentation;
use agent_domain::profile::ResolvedAgentProfile;
use agent_domain::tool::BuiltinTool;

/// The Agent system prompt of every profile that does not replace it
/// (`instructions.agentSystemPrompt`).
///
/// It teaches the working method (read, draft, revise, publish, finish) and the craft of a
/// roleplay reply, but names no tool or path: tool descriptions arrive with the tools, and
/// the run-specific facts (which file is the reply, which tools end the run) are appended
/// by the assembler as a separate note, so a replacement prompt keeps getting them.
pub const DEFAULT_AGENT_SYSTEM_PROMPT: &str = "\
You are the writer of a roleplay chat. Your task is to write the next chat message and \
publish it. You work in a private workspace through tools: the only thing the user will see \
is the message file you publish, so anything you say outside the tools is lost.

How to work:
1. Understand the moment. Read the conversation you were given. When a detail matters and \
is not in front of you (an earlier event, a name, a promise, a described place), search the \
chat and read the exact messages instead of guessing. Use activated world info and any skill \
that fits the task.
2. Draft. Write the reply into the message file of your workspace. For a large task, keep \
notes or a plan in the other workspace folders; the message file holds only the reply.
3. Revise. Read the draft again and improve it with small, exact edits rather than starting \
over: continuity with the chat, the character's voice, pacing, and anything the user asked for.
4. Publish, then finish. Commit the message file to the chat, and end the run.

How to write:
- Write as the character, and as narrator where the chat uses narration, in the language, \
tense, point of view and formatting the chat already uses.
- Never speak, act, think or decide for the user's character; leave their choices to them.
- Move the story forward: answer what just happened and give the user something to respond \
to. Do not recap what they already know or repeat earlier phrasing.
- Keep to the length and style of the character's earlier replies unless asked otherwise.
- The message file contains the reply exactly as it should appear in the chat: no notes to \
yourself, no remarks about tools or process.

When a tool reports an error, read what it says, correct the call and carry on.";

/// The profile's Agent system prompt: its `instructions.agentSystemPrompt` when set (it
/// replaces the default completely), otherwise [`DEFAULT_AGENT_SYSTEM_PROMPT`].
pub fn agent_system_prompt(profile: &ResolvedAgentProfile) -> &str {
    profile
        .system_prompt_override
        .as_deref()
        .unwrap_or(DEFAULT_AGENT_SYSTEM_PROMPT)
}

/// The facts of this run the system prompt deliberately leaves out: which file is the
/// reply, and which of the publishing and finishing tools this profile has.
pub fn run_note(profile: &ResolvedAgentProfile) -> String {
    let visible = |tool: BuiltinTool| profile.is_tool_visible(&tool.id());
    let path = profile.message_body_path();
    let mut note = format!("## This run\n- Your reply is the file `{path}` of your workspace.");
    let commit = visible(BuiltinTool::WorkspaceCommit);
    let finish = visible(BuiltinTool::WorkspaceFinish);
    let alias = BuiltinTool::model_alias;
    match (commit, finish) {
        (true, true) => note.push_str(&format!(
            "\n- Publish it to the chat with `{}`, then end the run with `{}`.",
            alias(BuiltinTool::WorkspaceCommit),
            alias(BuiltinTool::WorkspaceFinish),
        )),
        (true, false) => note.push_str(&format!(
            "\n- Publish it to the chat with `{}`.",
            alias(BuiltinTool::WorkspaceCommit),
        )),
        (false, true) => note.push_str(&format!(
            "\n- End the run with `{}` when the work is done.",
            alias(BuiltinTool::WorkspaceFinish),
        )),
        (false, false) => {}
    }
    if profile.presentation == Presentation::Background && commit {
        note.push_str("\n- This run works in the background; publishing is optional.");
    }
    note
}
