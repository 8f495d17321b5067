//! Model-facing wording and input schemas of the builtin tools.
//!
//! Descriptions are written for the model: what the tool is for, when to use it, and what
//! comes back. Limits that the runtime enforces are stated so the model can plan around
//! them. Workspace roots are not named here; the snapshot compiler appends the invocation's
//! own roots to the frozen copy.

use serde_json::{Value, json};

use super::BuiltinTool;
use crate::tool::ToolDescriptor;

/// The neutral descriptor of one builtin tool.
pub fn builtin_descriptor(tool: BuiltinTool) -> ToolDescriptor {
    let (title, description, input_schema) = wording(tool);
    ToolDescriptor {
        id: tool.id(),
        title: title.to_owned(),
        description: description.to_owned(),
        input_schema,
        output_schema: None,
        annotations: annotations(tool),
    }
}

fn annotations(tool: BuiltinTool) -> Value {
    use BuiltinTool::*;
    let read_only = matches!(
        tool,
        AgentList
            | AgentAwait
            | ChatSearch
            | ChatReadMessages
            | WorldInfoReadActivated
            | DiceRoll
            | SkillList
            | SkillSearch
            | SkillRead
            | WorkspaceListFiles
            | WorkspaceSearchFiles
            | WorkspaceReadFile
    );
    json!({"readOnlyHint": read_only, "idempotentHint": read_only && tool != DiceRoll})
}

fn object(properties: Value, required: &[&str]) -> Value {
    json!({
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": false,
    })
}

fn line_range_properties() -> Value {
    json!({
        "start_line": {
            "type": "integer",
            "minimum": 1,
            "description": "1-based line to start reading at. Omit to start at the first line."
        },
        "line_count": {
            "type": "integer",
            "minimum": 1,
            "description": "How many lines to read. Omit to read to the end; long texts come back as a preview that says where to continue."
        }
    })
}

fn merged(mut base: Value, extra: Value) -> Value {
    if let (Some(base), Some(extra)) = (base.as_object_mut(), extra.as_object()) {
        for (k, v) in extra {
            base.insert(k.clone(), v.clone());
        }
    }
    base
}

fn search_properties(query_about: &str) -> Value {
    json!({
        "query": {
            "type": "string",
            "minLength": 1,
            "description": format!("Words or a phrase to look for in {query_about}. Partial words and text without spaces (such as Chinese or Japanese) match too.")
        },
        "limit": {
            "type": "integer",
            "minimum": 1,
            "maximum": 50,
            "description": "Maximum number of hits to return (default 20, at most 50)."
        },
        "context_lines": {
            "type": "integer",
            "minimum": 0,
            "maximum": 5,
            "description": "Lines of context to show around each hit (default 2, at most 5)."
        }
    })
}

fn wording(tool: BuiltinTool) -> (&'static str, &'static str, Value) {
    use BuiltinTool::*;
    match tool {
        AgentList => (
            "List agents",
            "List the other agents you may ask for help: their ids, names and what they are good at. Read-only; it starts nothing. Use it before agent_delegate or agent_handoff to pick a target.",
            object(
                json!({
                    "purpose": {"type": "string", "enum": ["any", "delegate", "handoff"], "description": "Which kind of help you are looking for (default any)."},
                    "query": {"type": "string", "description": "Filter by agent id, name or description."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 20, "description": "Maximum number of agents to list (default 8, at most 20)."}
                }),
                &[],
            ),
        ),
        AgentDelegate => (
            "Delegate a task",
            "Start a focused sub-task with another agent. It runs in the background and reports back; keep working, and call agent_await when you need its result. Describe the outcome you want, the workspace paths that matter, and the artifact you expect back.",
            object(
                json!({
                    "agentId": {"type": "string", "minLength": 1, "description": "Id of the target agent, from agent_list."},
                    "task": {
                        "type": "object",
                        "description": "The task brief.",
                        "properties": {
                            "objective": {"type": "string", "minLength": 1, "description": "The result you need, stated as an outcome."},
                            "title": {"type": "string", "description": "A short name for the task, shown in timelines."},
                            "context": {"type": "object", "description": "Facts, constraints, drafts and workspace paths the agent needs."},
                            "expectedOutput": {"type": "object", "description": "The shape of the answer you expect: a summary, a checklist, a file path to write."}
                        },
                        "required": ["objective"]
                    }
                }),
                &["agentId", "task"],
            ),
        ),
        AgentHandoff => (
            "Hand off the run",
            "Hand the rest of this run to another agent. The target continues in the same workspace and you stop calling tools once the handoff is accepted. Give the objective, the workspace paths it should read, the context and constraints, and what counts as done. This must be the last tool call of your turn.",
            object(
                json!({
                    "agentId": {"type": "string", "minLength": 1, "description": "Id of the target agent, from agent_list."},
                    "handoff": {
                        "type": "object",
                        "description": "The handoff brief.",
                        "properties": {
                            "objective": {"type": "string", "minLength": 1, "description": "What the next agent must achieve."},
                            "title": {"type": "string", "description": "A short name for this stage."},
                            "workspaceRefs": {"type": "array", "items": {"type": "string"}, "description": "Workspace paths the next agent should read first."},
                            "context": {"type": "object", "description": "Facts and decisions so far."},
                            "constraints": {"type": "array", "items": {"type": "string"}, "description": "Rules the next agent must keep."},
                            "completionCriteria": {"type": "array", "items": {"type": "string"}, "description": "How the next agent knows it is done."}
                        },
                        "required": ["objective"]
                    },
                    "pendingTaskPolicy": {"type": "string", "enum": ["denyIfPending"], "description": "What happens to tasks you delegated that are still running: denyIfPending (the only policy) refuses the handoff until they end."}
                }),
                &["agentId", "handoff"],
            ),
        ),
        AgentAwait => (
            "Await delegated tasks",
            "Wait for, or check on, tasks you started with agent_delegate. Returns each finished task's result. A timeout only means the tasks are still running.",
            object(
                json!({
                    "taskIds": {"type": "array", "items": {"type": "string"}, "description": "Task ids to wait for. Omit to use every task you started."},
                    "mode": {"type": "string", "enum": ["nextCompleted", "allCompleted", "statusOnly"], "description": "Wait for the next task to finish (default), for all of them, or only report status."},
                    "timeoutMs": {"type": "integer", "minimum": 0, "maximum": 300000, "description": "How long to wait in milliseconds (default 120000, at most 300000)."}
                }),
                &[],
            ),
        ),
        TaskReturn => (
            "Return the task result",
            "Finish your delegated task and give the result to the agent that asked for it. This is the only way to end a delegated task, and it must be the last tool call of your turn. Put files you produced under artifacts.",
            object(
                json!({
                    "summary": {"type": "string", "minLength": 1, "description": "A concise answer for the caller."},
                    "status": {"type": "string", "enum": ["completed", "failed"], "description": "Whether you achieved the objective (default completed)."},
                    "confidence": {"type": "string", "enum": ["low", "medium", "high"], "description": "How sure you are of the result."},
                    "artifacts": {
                        "type": "array",
                        "description": "Workspace files you produced for the caller.",
                        "items": {
                            "type": "object",
                            "properties": {
                                "path": {"type": "string", "description": "Workspace path of the file."},
                                "kind": {"type": "string", "description": "Format, such as markdown, json or text."},
                                "role": {"type": "string", "description": "Suggested use, such as draft, outline or evidence."}
                            },
                            "required": ["path", "kind", "role"]
                        }
                    },
                    "findings": {"type": "array", "items": {}, "description": "Structured findings."},
                    "warnings": {"type": "array", "items": {"type": "string"}, "description": "Problems the caller should know about."},
                    "suggestedNextActions": {"type": "array", "items": {"type": "string"}, "description": "What the caller could do next."},
                    "questionsForCaller": {"type": "array", "items": {"type": "string"}, "description": "Open questions for the caller or the user."}
                }),
                &["summary"],
            ),
        ),
        ChatSearch => (
            "Search the chat",
            "Search the messages of the current chat. Returns message indexes, roles, scores and short snippets with chat:current#<index> refs; then read whole messages with chat_read_messages. No hits is a normal answer.",
            object(
                json!({
                    "query": {"type": "string", "minLength": 1, "description": "Words or a phrase to look for. Partial words and text without spaces (such as Chinese or Japanese) match too."},
                    "limit": {"type": "integer", "minimum": 1, "maximum": 50, "description": "Maximum number of hits (default 20, at most 50)."},
                    "role": {"type": "string", "enum": ["user", "assistant", "system"], "description": "Only search messages of this role."},
                    "start_message": {"type": "integer", "minimum": 0, "description": "First 0-based message index to search."},
                    "end_message": {"type": "integer", "minimum": 0, "description": "Last 0-based message index to search."},
                    "scan_limit": {"type": "integer", "minimum": 1, "description": "Only scan this many of the most recent messages."}
                }),
                &["query"],
            ),
        ),
        ChatReadMessages => (
            "Read chat messages",
            "Read messages of the current chat by 0-based index (the first message is 0). Up to 20 messages per call. Long messages come back as a line preview that tells you which start_line to continue from.",
            object(
                json!({
                    "messages": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 20,
                        "description": "The messages to read.",
                        "items": {
                            "type": "object",
                            "properties": merged(
                                json!({"index": {"type": "integer", "minimum": 0, "description": "0-based message index."}}),
                                line_range_properties()
                            ),
                            "required": ["index"]
                        }
                    }
                }),
                &["messages"],
            ),
        ),
        WorldInfoReadActivated => (
            "Read activated world info",
            "Read the world info (lorebook) entries activated for this generation. Call it without arguments for an index of entries with their refs, names and sizes; then pass entries with those refs to read their text.",
            object(
                json!({
                    "entries": {
                        "type": "array",
                        "minItems": 1,
                        "maxItems": 20,
                        "description": "Entries to read. Omit to list the activated entries.",
                        "items": {
                            "type": "object",
                            "properties": merged(
                                json!({"ref": {"type": "string", "minLength": 1, "description": "An entry ref from the index."}}),
                                line_range_properties()
                            ),
                            "required": ["ref"]
                        }
                    }
                }),
                &[],
            ),
        ),
        DiceRoll => (
            "Roll dice",
            "Roll dice when the task calls for chance, such as a game check or a random event. Accepts d6, 1d20, 3d6+4, 2d10-1, or a plain number like 20 for 1d20. Each call gives a fresh result.",
            object(
                json!({
                    "formula": {"type": "string", "minLength": 1, "description": "Dice notation, for example 1d20 or 3d6+4."}
                }),
                &["formula"],
            ),
        ),
        SkillList => (
            "List skills",
            "List the skills available to you, with a one-line description of each. Read a skill with skill_read before relying on it.",
            object(json!({}), &[]),
        ),
        SkillSearch => (
            "Search a skill",
            "Search the text files of one skill. Returns snippets with refs; read more with skill_read. Snippets count against your skill reading budget.",
            object(
                merged(
                    json!({
                        "name": {"type": "string", "minLength": 1, "description": "Skill name, from skill_list."},
                        "path": {"type": "string", "description": "A file or folder inside the skill to limit the search to."}
                    }),
                    search_properties("the skill"),
                ),
                &["name", "query"],
            ),
        ),
        SkillRead => (
            "Read a skill",
            "Read a text file of a skill: SKILL.md unless you give a path. Long files come back as a line preview that tells you which start_line to continue from. Skills are read-only; copy what you need into your workspace.",
            object(
                merged(
                    json!({
                        "name": {"type": "string", "minLength": 1, "description": "Skill name, from skill_list."},
                        "path": {"type": "string", "description": "File inside the skill (default SKILL.md)."}
                    }),
                    line_range_properties(),
                ),
                &["name"],
            ),
        ),
        WorkspaceListFiles => (
            "List workspace files",
            "List files and folders of your workspace. Omit path (or pass \"\", \".\" or \"./\") to list the workspace root.",
            object(
                json!({
                    "path": {"type": "string", "description": "Folder or file to list; omit for the workspace root."},
                    "depth": {"type": "integer", "minimum": 1, "maximum": 4, "description": "How many folder levels to show (default 2, at most 4)."}
                }),
                &[],
            ),
        ),
        WorkspaceSearchFiles => (
            "Search workspace files",
            "Search the text files of your workspace. Returns paths, line ranges and snippets with workspace:<path>#L<start>-L<end> refs. No hits is a normal answer.",
            object(
                merged(
                    json!({"path": {"type": "string", "description": "A file or folder to limit the search to."}}),
                    search_properties("workspace files"),
                ),
                &["query"],
            ),
        ),
        WorkspaceReadFile => (
            "Read a workspace file",
            "Read a text file of your workspace. Lines come back numbered as `N | text`; leave those prefixes out when you quote text to workspace_apply_patch. Long files come back as a preview that tells you which start_line to continue from.",
            object(
                merged(
                    json!({"path": {"type": "string", "minLength": 1, "description": "Workspace path of a file (not a folder)."}}),
                    line_range_properties(),
                ),
                &["path"],
            ),
        ),
        WorkspaceWriteFile => (
            "Write a workspace file",
            "Write a UTF-8 text file. mode replace (the default) writes the whole file; to replace a file that already exists, read it first. mode append adds content to the end exactly as given (start it with a newline if you need one) and creates a missing file.",
            object(
                json!({
                    "path": {"type": "string", "minLength": 1, "description": "Workspace path of the file to write."},
                    "content": {"type": "string", "description": "The whole file for replace, or the text to add for append."},
                    "mode": {"type": "string", "enum": ["replace", "append"], "description": "replace (default) or append."}
                }),
                &["path", "content"],
            ),
        ),
        WorkspaceApplyPatch => (
            "Edit a workspace file",
            "Replace exact text in one file. old_string must be text you have read in this task (without line-number prefixes) and must match exactly once, unless replace_all is true, which needs a full read of the file first. If a patch fails, read the whole file before trying again.",
            object(
                json!({
                    "path": {"type": "string", "minLength": 1, "description": "Workspace path of the file to edit."},
                    "old_string": {"type": "string", "minLength": 1, "description": "The exact text to replace."},
                    "new_string": {"type": "string", "description": "The text to put in its place."},
                    "replace_all": {"type": "boolean", "description": "Replace every occurrence instead of exactly one (default false)."}
                }),
                &["path", "old_string", "new_string"],
            ),
        ),
        WorkspaceCommit => (
            "Commit to the chat",
            "Publish a workspace file as this run's chat message. With no arguments it replaces the message with your main output file. mode append adds the file to the same message. You may revise and commit again; when everything is done, call workspace_finish.",
            object(
                json!({
                    "path": {"type": "string", "description": "Workspace file to publish (default: your main output file)."},
                    "mode": {"type": "string", "enum": ["replace", "append"], "description": "replace (default) or append."},
                    "reason": {"type": "string", "description": "A short note on why you commit now."}
                }),
                &[],
            ),
        ),
        WorkspaceFinish => (
            "Finish the run",
            "End this run once your answer is committed with workspace_commit. Do not answer with plain text instead. This must be the last tool call of your turn.",
            object(
                json!({
                    "reason": {"type": "string", "description": "A short note on why the work is complete."}
                }),
                &[],
            ),
        ),
    }
}
