//! What a resolved profile says about tools: the input of the snapshot compiler.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::ToolId;
use crate::workspace::RootAccess;

/// How an invocation may end, decided by the host when it creates the invocation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ExitPolicy {
    /// Root and handoff invocations: ends with `workspace.finish` (or a handoff).
    RunFinishAllowed,
    /// Return-mode children: ends with `task.return` only.
    TaskReturnRequired,
}

impl ExitPolicy {
    /// The tool that ends an invocation under this policy.
    pub fn exit_tool(self) -> super::BuiltinTool {
        match self {
            Self::RunFinishAllowed => super::BuiltinTool::WorkspaceFinish,
            Self::TaskReturnRequired => super::BuiltinTool::TaskReturn,
        }
    }
}

/// A profile's replacement wording for one tool, applied to the frozen descriptor copy.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DescriptionOverride {
    /// Replaces the tool's description when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Replaces the `description` of top-level input-schema properties, by property name.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub properties: BTreeMap<String, String>,
}

/// The tool facts of one resolved profile, already validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolPolicy {
    /// Allowed tools in advertisement order.
    pub allow: Vec<ToolId>,
    /// Denied tools; deny beats allow.
    pub deny: Vec<ToolId>,
    /// Profile description overrides by tool.
    pub descriptions: BTreeMap<ToolId, DescriptionOverride>,
    /// Total tool calls one invocation may make (the profile's historical `maxCallsPerRun`).
    pub max_calls_per_invocation: u32,
    /// Per-tool call caps.
    pub max_calls_per_tool: BTreeMap<ToolId, u32>,
    /// MCP results longer than this many characters are externalised to a readable view.
    pub mcp_result_inline_char_limit: u32,
    /// The roots the invocation may see and write (named in workspace tool descriptions).
    pub roots: RootAccess,
}

impl ToolPolicy {
    /// Whether the tool is allowed and not denied.
    pub fn is_visible(&self, id: &ToolId) -> bool {
        self.allow.contains(id) && !self.deny.contains(id)
    }
}
