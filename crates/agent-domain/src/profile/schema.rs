//! The on-disk profile document (`_tauritavern/agent-profiles/profiles/<id>.json`).
//!
//! These types mirror TauriTavern's file format so profiles move between the two programs.
//! Every struct rejects unknown fields: a typo must fail loudly rather than silently drop
//! a policy. Values are kept loosely typed where validation owns the error code (ids,
//! kinds, tool names, roots, paths), so a bad value is reported with its `agent.*` code
//! instead of a generic parse failure. Read documents with
//! [`AgentProfileDocument::from_json`], which also migrates older schema versions.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::ToolName;
use crate::event::Presentation;
use crate::tool::DescriptionOverride;

/// The only accepted value of `kind`.
pub const PROFILE_KIND: &str = "tauritavern.agentProfile";
/// The schema version this runtime writes.
pub const CURRENT_SCHEMA_VERSION: u32 = 3;

/// A whole profile document, always in the current schema once read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AgentProfileDocument {
    pub schema_version: u32,
    pub kind: String,
    pub id: String,
    pub display_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub preset: PresetBlock,
    pub model: ModelBlock,
    pub run: RunBlock,
    #[serde(default)]
    pub context: ContextPolicy,
    #[serde(default)]
    pub delegation: DelegationPolicy,
    #[serde(default)]
    pub instructions: InstructionsBlock,
    pub tools: ToolsBlock,
    pub skills: SkillsPolicy,
    pub workspace: WorkspaceBlock,
    pub plan: PlanBlock,
    pub output: OutputBlock,
}

/// Which SillyTavern preset shapes the prompt around the agent's system prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PresetBlock {
    pub mode: PresetMode,
    #[serde(default, rename = "ref", skip_serializing_if = "Option::is_none")]
    pub preset_ref: Option<PresetRef>,
    /// Strict resolves (run start, subagents) fail when a required preset is absent.
    #[serde(default)]
    pub required: bool,
}

/// Where the preset comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PresetMode {
    /// Whatever preset assembled the prompt snapshot the run starts from.
    CurrentPromptSnapshot,
    /// A named preset of one preset type.
    Ref,
    /// No preset.
    None,
}

/// A preset named by type (`apiId`, e.g. `openai`) and name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PresetRef {
    pub api_id: String,
    pub name: String,
}

/// Which model the agent talks to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelBlock {
    pub mode: ModelMode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
}

/// How the model is chosen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ModelMode {
    /// The model the prompt snapshot was assembled for.
    CurrentPromptSnapshot,
    /// A saved LLM connection plus a model id.
    ConnectionRef,
    /// An imported or shared profile whose model must be chosen on this machine first.
    RequiresConfiguration,
}

/// How a run of this profile is shown and retried.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunBlock {
    pub presentation: Presentation,
    /// Whether a user may start this profile directly (otherwise only agents call it).
    #[serde(default = "default_true")]
    pub direct_runnable: bool,
    #[serde(default)]
    pub model_retry: ModelRetryPolicy,
}

/// Retries of one model call after a rate-limit or transient failure.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelRetryPolicy {
    /// Extra attempts after the first.
    #[serde(default = "default_max_retries")]
    pub max_retries: u32,
    #[serde(default = "default_retry_interval_ms")]
    pub interval_ms: u64,
}

impl Default for ModelRetryPolicy {
    fn default() -> Self {
        Self {
            max_retries: default_max_retries(),
            interval_ms: default_retry_interval_ms(),
        }
    }
}

/// What the initial prompt carries from the chat.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ContextPolicy {
    /// `-1`: no explicit limit; `0`: no chat messages; `n`: at most the latest `n`.
    /// Any negative value means `-1` (normalised when the profile is resolved).
    #[serde(default = "default_history_messages")]
    pub initial_chat_history_messages: i64,
    #[serde(default = "default_true")]
    pub include_activated_world_info: bool,
}

impl Default for ContextPolicy {
    fn default() -> Self {
        Self {
            initial_chat_history_messages: default_history_messages(),
            include_activated_world_info: true,
        }
    }
}

/// Multi-agent abilities: what this profile may call, and who may call it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DelegationPolicy {
    /// May create return-mode subagent tasks (`agent.delegate` / `agent.await`).
    #[serde(default)]
    pub can_delegate: bool,
    /// May hand the run over to another agent (`agent.handoff`).
    #[serde(default)]
    pub can_handoff: bool,
    /// Other agents may target this profile at all.
    #[serde(default)]
    pub callable: bool,
    #[serde(default)]
    pub allow_as_subagent: bool,
    #[serde(default)]
    pub allow_as_handoff_target: bool,
    #[serde(default)]
    pub allow_nested_delegation: bool,
    /// Caller profile ids, or `*` for any caller.
    #[serde(default = "default_allowed_callers")]
    pub allowed_callers: Vec<String>,
    /// How other agents see this profile in their candidate list.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description_for_agents: Option<String>,
    #[serde(default = "default_max_concurrent")]
    pub max_concurrent_invocations: u32,
    #[serde(default = "default_max_invocations")]
    pub max_invocations_per_run: u32,
    #[serde(default = "default_result_budget")]
    pub result_budget_tokens: u32,
    #[serde(default = "default_handoff_depth")]
    pub max_handoff_depth: u32,
}

impl Default for DelegationPolicy {
    fn default() -> Self {
        Self {
            can_delegate: false,
            can_handoff: false,
            callable: false,
            allow_as_subagent: false,
            allow_as_handoff_target: false,
            allow_nested_delegation: false,
            allowed_callers: default_allowed_callers(),
            description_for_agents: None,
            max_concurrent_invocations: default_max_concurrent(),
            max_invocations_per_run: default_max_invocations(),
            result_budget_tokens: default_result_budget(),
            max_handoff_depth: default_handoff_depth(),
        }
    }
}

/// The agent's own system prompt.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct InstructionsBlock {
    /// Replaces the default agent system prompt completely; absent or null keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_system_prompt: Option<String>,
}

/// Which tools the model sees, how they are described, and how often they may be called.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ToolsBlock {
    /// Tools in the order they are advertised.
    pub allow: Vec<ToolName>,
    /// Deny beats allow.
    #[serde(default)]
    pub deny: Vec<ToolName>,
    #[serde(default)]
    pub tool_descriptions: BTreeMap<ToolName, DescriptionOverride>,
    /// Model rounds per invocation.
    pub max_rounds: u32,
    /// Tool calls per invocation (the name is historical).
    #[serde(default = "default_max_calls")]
    pub max_calls_per_run: u32,
    #[serde(default)]
    pub max_calls_per_tool: BTreeMap<ToolName, u32>,
    /// Longer MCP results are stored as a readable file instead of inlined (schema 3).
    #[serde(default = "default_mcp_inline_limit")]
    pub mcp_result_inline_char_limit: u32,
}

/// Which installed skills the agent may see, and how much of them it may read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SkillsPolicy {
    /// Skill names, or `*` for every installed skill.
    pub visible: Vec<String>,
    #[serde(default)]
    pub deny: Vec<String>,
    #[serde(default = "default_skill_per_call")]
    pub max_read_chars_per_call: u32,
    #[serde(default = "default_skill_per_run")]
    pub max_read_chars_per_run: u32,
}

/// Narrows the five workspace roots.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkspaceBlock {
    pub visible_roots: Vec<String>,
    pub writable_roots: Vec<String>,
}

/// Plan mode: part of the format, but only `none` runs today.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanBlock {
    pub mode: PlanMode,
    #[serde(default = "default_true")]
    pub beta: bool,
    #[serde(default)]
    pub nodes: Vec<PlanNode>,
}

/// How strictly an agent would follow a plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum PlanMode {
    None,
    Free,
    Strict,
    Hybrid,
}

impl PlanMode {
    /// The value as written in the document.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::None => "none",
            Self::Free => "free",
            Self::Strict => "strict",
            Self::Hybrid => "hybrid",
        }
    }
}

/// One step of a plan.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlanNode {
    pub id: String,
    pub title: String,
    #[serde(default)]
    pub locked: bool,
}

/// The workspace files a run publishes.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutputBlock {
    pub artifacts: Vec<OutputArtifact>,
}

/// One published file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct OutputArtifact {
    pub id: String,
    /// Workspace path, e.g. `output/main.md`.
    pub path: String,
    /// Free-form content kind, e.g. `markdown`.
    pub kind: String,
    pub target: ArtifactTarget,
    #[serde(default)]
    pub required: bool,
    #[serde(default)]
    pub assembly_order: i32,
}

/// Where an artifact ends up. Only the chat message body exists today: a profile must
/// have exactly one such artifact, and `workspace.commit` publishes it by default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ArtifactTarget {
    MessageBody,
}

fn default_true() -> bool {
    true
}
fn default_max_retries() -> u32 {
    3
}
fn default_retry_interval_ms() -> u64 {
    3_000
}
fn default_history_messages() -> i64 {
    -1
}
fn default_allowed_callers() -> Vec<String> {
    vec!["*".to_owned()]
}
fn default_max_concurrent() -> u32 {
    3
}
fn default_max_invocations() -> u32 {
    8
}
fn default_result_budget() -> u32 {
    8_000
}
fn default_handoff_depth() -> u32 {
    8
}
fn default_max_calls() -> u32 {
    80
}
/// Default of `tools.mcpResultInlineCharLimit`.
pub const DEFAULT_MCP_RESULT_INLINE_CHAR_LIMIT: u32 = 50_000;
fn default_mcp_inline_limit() -> u32 {
    DEFAULT_MCP_RESULT_INLINE_CHAR_LIMIT
}
fn default_skill_per_call() -> u32 {
    20_000
}
fn default_skill_per_run() -> u32 {
    80_000
}
