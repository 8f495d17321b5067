//! The built-in `default-writer` profile: what runs when no profile is named.

use std::collections::BTreeMap;

use super::ToolName;
use super::schema::{
    AgentProfileDocument, ArtifactTarget, CURRENT_SCHEMA_VERSION, ContextPolicy,
    DEFAULT_MCP_RESULT_INLINE_CHAR_LIMIT, DelegationPolicy, InstructionsBlock, ModelBlock,
    ModelMode, ModelRetryPolicy, OutputArtifact, OutputBlock, PROFILE_KIND, PlanBlock, PlanMode,
    PresetBlock, PresetMode, RunBlock, SkillsPolicy, ToolsBlock, WorkspaceBlock,
};
use crate::event::Presentation;
use crate::tool::BuiltinTool;
use crate::workspace::WorkspaceRoot;

/// The id of the built-in profile. A stored profile with this id replaces it.
pub const DEFAULT_PROFILE_ID: &str = "default-writer";

/// Tools of the default writer, in advertisement order.
///
/// The `agent.*` delegation tools are left out (and `canDelegate` is false) until the
/// subagent feature lands; `dice.roll` and `agent.handoff` are opt-in for every profile.
const DEFAULT_TOOLS: [BuiltinTool; 13] = [
    BuiltinTool::ChatSearch,
    BuiltinTool::ChatReadMessages,
    BuiltinTool::WorldInfoReadActivated,
    BuiltinTool::SkillList,
    BuiltinTool::SkillSearch,
    BuiltinTool::SkillRead,
    BuiltinTool::WorkspaceListFiles,
    BuiltinTool::WorkspaceSearchFiles,
    BuiltinTool::WorkspaceReadFile,
    BuiltinTool::WorkspaceWriteFile,
    BuiltinTool::WorkspaceApplyPatch,
    BuiltinTool::WorkspaceCommit,
    BuiltinTool::WorkspaceFinish,
];

/// The built-in foreground writer: reads the chat, world info, skills and workspace,
/// drafts `output/main.md`, commits it to the chat and finishes.
pub fn default_writer() -> AgentProfileDocument {
    let all_roots: Vec<String> = WorkspaceRoot::ALL
        .iter()
        .map(|root| root.as_str().to_owned())
        .collect();
    AgentProfileDocument {
        schema_version: CURRENT_SCHEMA_VERSION,
        kind: PROFILE_KIND.to_owned(),
        id: DEFAULT_PROFILE_ID.to_owned(),
        display_name: "Default Writer".to_owned(),
        description: Some(
            "Built-in writer: drafts the reply in output/main.md, commits it to the chat and \
             finishes."
                .to_owned(),
        ),
        preset: PresetBlock {
            mode: PresetMode::CurrentPromptSnapshot,
            preset_ref: None,
            required: false,
        },
        model: ModelBlock {
            mode: ModelMode::CurrentPromptSnapshot,
            connection_ref: None,
            model_id: None,
        },
        run: RunBlock {
            presentation: Presentation::Foreground,
            direct_runnable: true,
            model_retry: ModelRetryPolicy::default(),
        },
        context: ContextPolicy::default(),
        delegation: DelegationPolicy::default(),
        instructions: InstructionsBlock::default(),
        tools: ToolsBlock {
            allow: DEFAULT_TOOLS
                .iter()
                .map(|tool| ToolName::from_id(&tool.id()))
                .collect(),
            deny: Vec::new(),
            tool_descriptions: BTreeMap::new(),
            max_rounds: 80,
            max_calls_per_run: 80,
            max_calls_per_tool: BTreeMap::new(),
            mcp_result_inline_char_limit: DEFAULT_MCP_RESULT_INLINE_CHAR_LIMIT,
        },
        skills: SkillsPolicy {
            visible: vec!["*".to_owned()],
            deny: Vec::new(),
            max_read_chars_per_call: 20_000,
            max_read_chars_per_run: 80_000,
        },
        workspace: WorkspaceBlock {
            visible_roots: all_roots.clone(),
            writable_roots: all_roots,
        },
        plan: PlanBlock {
            mode: PlanMode::None,
            beta: true,
            nodes: Vec::new(),
        },
        output: OutputBlock {
            artifacts: vec![OutputArtifact {
                id: "main".to_owned(),
                path: "output/main.md".to_owned(),
                kind: "markdown".to_owned(),
                target: ArtifactTarget::MessageBody,
                required: true,
                assembly_order: 0,
            }],
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_writer_allows_the_documented_tools_in_order() {
        let names: Vec<String> = default_writer()
            .tools
            .allow
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(
            names,
            [
                "builtin:chat.search",
                "builtin:chat.read_messages",
                "builtin:worldinfo.read_activated",
                "builtin:skill.list",
                "builtin:skill.search",
                "builtin:skill.read",
                "builtin:workspace.list_files",
                "builtin:workspace.search_files",
                "builtin:workspace.read_file",
                "builtin:workspace.write_file",
                "builtin:workspace.apply_patch",
                "builtin:workspace.commit",
                "builtin:workspace.finish",
            ]
        );
        assert!(!default_writer().delegation.can_delegate);
    }

    #[test]
    fn default_writer_document_snapshot() {
        insta::assert_snapshot!(default_writer().to_json_pretty().unwrap());
    }
}
