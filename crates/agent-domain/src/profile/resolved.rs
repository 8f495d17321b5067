//! [`ResolvedAgentProfile`]: a validated profile in the shape the runtime uses, frozen per
//! run as `input/resolved_profile.json`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::schema::{
    AgentProfileDocument, ArtifactTarget, ContextPolicy, DelegationPolicy, ModelMode,
    ModelRetryPolicy, PresetMode, PresetRef, SkillsPolicy,
};
use super::validate::check;
use super::{ProfileError, ProfileId};
use crate::event::Presentation;
use crate::tool::{DescriptionOverride, ToolId, ToolPolicy};
use crate::workspace::{RootAccess, WorkspacePath};

/// Where a resolved profile came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ProfileSource {
    /// The compiled-in `default-writer`.
    BuiltIn,
    /// A file in the profile store.
    File,
}

/// Which model a profile runs on.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "mode",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum ModelBinding {
    /// The model the prompt snapshot was assembled for.
    CurrentPromptSnapshot,
    /// A saved LLM connection, which the runtime re-reads before every call.
    ConnectionRef {
        connection_ref: String,
        model_id: String,
    },
    /// Not runnable until a model is chosen on this machine.
    RequiresConfiguration,
}

/// Which preset frames the prompt.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(
    tag = "mode",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum PresetBinding {
    CurrentPromptSnapshot,
    None,
    Ref {
        #[serde(rename = "ref")]
        preset: PresetRef,
        /// Strict resolves fail with `agent.profile_preset_missing` when it is absent.
        required: bool,
    },
}

/// The tool facts of a profile, tool names parsed into ids.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedTools {
    /// Advertisement order.
    pub allow: Vec<ToolId>,
    pub deny: Vec<ToolId>,
    pub descriptions: BTreeMap<ToolId, DescriptionOverride>,
    pub max_rounds: u32,
    /// Per invocation, despite the historical name.
    pub max_calls_per_run: u32,
    pub max_calls_per_tool: BTreeMap<ToolId, u32>,
    pub mcp_result_inline_char_limit: u32,
}

/// An output artifact with its path validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedArtifact {
    pub id: String,
    pub path: WorkspacePath,
    pub kind: String,
    pub target: ArtifactTarget,
    pub required: bool,
    pub assembly_order: i32,
}

/// Everything the runtime needs from a profile, already validated.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ResolvedAgentProfile {
    pub id: ProfileId,
    pub display_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub source: ProfileSource,
    pub presentation: Presentation,
    pub direct_runnable: bool,
    pub model: ModelBinding,
    pub preset: PresetBinding,
    pub model_retry: ModelRetryPolicy,
    /// `initialChatHistoryMessages` is normalised: any negative value is `-1`.
    pub context: ContextPolicy,
    pub delegation: DelegationPolicy,
    /// Replaces the default agent system prompt when set.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub system_prompt_override: Option<String>,
    pub tools: ResolvedTools,
    pub skills: SkillsPolicy,
    pub roots: RootAccess,
    /// The file `workspace.commit` publishes by default.
    pub message_body_path: WorkspacePath,
    pub artifacts: Vec<ResolvedArtifact>,
}

/// One line of a profile listing.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileSummary {
    pub id: ProfileId,
    pub display_name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub direct_runnable: bool,
    pub presentation: Presentation,
    pub source: ProfileSource,
}

/// Validates a document and turns it into the runtime's view of the profile.
///
/// Checks that need the outside world (preset and connection existence, MCP catalog) are
/// left to the caller: see [`ResolvedAgentProfile::required_preset`] and
/// [`ResolvedAgentProfile::ensure_model_configured`].
pub fn resolve(
    document: &AgentProfileDocument,
    source: ProfileSource,
) -> Result<ResolvedAgentProfile, ProfileError> {
    let checked = check(document)?;
    let tools = &document.tools;
    let mut context = document.context;
    if context.initial_chat_history_messages < 0 {
        context.initial_chat_history_messages = -1;
    }
    Ok(ResolvedAgentProfile {
        id: checked.id,
        display_name: document.display_name.clone(),
        description: document.description.clone(),
        source,
        presentation: document.run.presentation,
        direct_runnable: document.run.direct_runnable,
        model: model_binding(document),
        preset: preset_binding(document),
        model_retry: document.run.model_retry,
        context,
        delegation: document.delegation.clone(),
        system_prompt_override: document.instructions.agent_system_prompt.clone(),
        tools: ResolvedTools {
            allow: checked.tools.allow,
            deny: checked.tools.deny,
            descriptions: checked.tools.descriptions,
            max_rounds: tools.max_rounds,
            max_calls_per_run: tools.max_calls_per_run,
            max_calls_per_tool: checked.tools.max_calls_per_tool,
            mcp_result_inline_char_limit: tools.mcp_result_inline_char_limit,
        },
        skills: document.skills.clone(),
        roots: checked.roots,
        message_body_path: checked.message_body_path,
        artifacts: checked.artifacts,
    })
}

fn model_binding(document: &AgentProfileDocument) -> ModelBinding {
    let model = &document.model;
    let trimmed = |text: &Option<String>| text.as_deref().unwrap_or_default().trim().to_owned();
    match model.mode {
        ModelMode::CurrentPromptSnapshot => ModelBinding::CurrentPromptSnapshot,
        ModelMode::RequiresConfiguration => ModelBinding::RequiresConfiguration,
        ModelMode::ConnectionRef => ModelBinding::ConnectionRef {
            connection_ref: trimmed(&model.connection_ref),
            model_id: trimmed(&model.model_id),
        },
    }
}

/// A `ref` preset without a ref cannot pass validation, so it never reaches here.
fn preset_binding(document: &AgentProfileDocument) -> PresetBinding {
    let preset = &document.preset;
    match (preset.mode, &preset.preset_ref) {
        (PresetMode::Ref, Some(preset_ref)) => PresetBinding::Ref {
            preset: preset_ref.clone(),
            required: preset.required,
        },
        (PresetMode::None, _) => PresetBinding::None,
        _ => PresetBinding::CurrentPromptSnapshot,
    }
}

impl ResolvedAgentProfile {
    /// The tool facts the invocation snapshot compiler consumes.
    pub fn tool_policy(&self) -> ToolPolicy {
        ToolPolicy {
            allow: self.tools.allow.clone(),
            deny: self.tools.deny.clone(),
            descriptions: self.tools.descriptions.clone(),
            max_calls_per_invocation: self.tools.max_calls_per_run,
            max_calls_per_tool: self.tools.max_calls_per_tool.clone(),
            mcp_result_inline_char_limit: self.tools.mcp_result_inline_char_limit,
            roots: self.roots.clone(),
        }
    }

    /// Model rounds one invocation may use.
    pub fn max_rounds(&self) -> u32 {
        self.tools.max_rounds
    }

    /// The file `workspace.commit` publishes when called without a path.
    pub fn message_body_path(&self) -> &WorkspacePath {
        &self.message_body_path
    }

    /// Allowed and not denied.
    pub fn is_tool_visible(&self, id: &ToolId) -> bool {
        self.tools.allow.contains(id) && !self.tools.deny.contains(id)
    }

    /// The listing entry of this profile.
    pub fn summary(&self) -> ProfileSummary {
        ProfileSummary {
            id: self.id.clone(),
            display_name: self.display_name.clone(),
            description: self.description.clone(),
            direct_runnable: self.direct_runnable,
            presentation: self.presentation,
            source: self.source,
        }
    }

    /// The preset a strict resolve (run start, subagent) must find, if any.
    pub fn required_preset(&self) -> Option<&PresetRef> {
        match &self.preset {
            PresetBinding::Ref {
                preset,
                required: true,
            } => Some(preset),
            _ => None,
        }
    }

    /// Whether a model is bound (anything but `requiresConfiguration`).
    pub fn has_model(&self) -> bool {
        !matches!(self.model, ModelBinding::RequiresConfiguration)
    }

    /// Fails with `agent.profile_model_requires_configuration` when no model is bound;
    /// runs, subagents and prompt assembly all need one.
    pub fn ensure_model_configured(&self) -> Result<(), ProfileError> {
        if self.has_model() {
            Ok(())
        } else {
            Err(ProfileError::ModelRequiresConfiguration {
                profile_id: self.id.to_string(),
            })
        }
    }

    /// Fails with `agent.profile_not_direct_runnable` when a user may not start it.
    pub fn ensure_direct_runnable(&self) -> Result<(), ProfileError> {
        if self.direct_runnable {
            Ok(())
        } else {
            Err(ProfileError::NotDirectRunnable {
                profile_id: self.id.to_string(),
            })
        }
    }

    /// Whether `caller` may delegate a return-mode task to this profile.
    pub fn accepts_subagent_call_from(&self, caller: &ProfileId) -> bool {
        let d = &self.delegation;
        d.callable && d.allow_as_subagent && d.allows_caller(caller) && self.has_model()
    }

    /// Whether `caller` may hand the run over to this profile.
    pub fn accepts_handoff_from(&self, caller: &ProfileId) -> bool {
        let d = &self.delegation;
        d.callable && d.allow_as_handoff_target && d.allows_caller(caller) && self.has_model()
    }
}

impl DelegationPolicy {
    /// Whether `allowedCallers` names `caller` or `*`.
    pub fn allows_caller(&self, caller: &ProfileId) -> bool {
        self.allowed_callers
            .iter()
            .any(|allowed| allowed == "*" || allowed.trim() == caller.as_str())
    }
}

impl ContextPolicy {
    /// How many of the latest chat messages the initial prompt may carry; `None` means
    /// no explicit limit.
    pub fn chat_history_limit(&self) -> Option<u64> {
        u64::try_from(self.initial_chat_history_messages).ok()
    }
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;
    use serde_json::json;

    use super::*;
    use crate::ErrorCode;
    use crate::profile::default_writer;
    use crate::profile::test_support::minimal_v1_json;
    use crate::workspace::WorkspaceRoot;

    fn resolved_from(value: serde_json::Value) -> ResolvedAgentProfile {
        let document = AgentProfileDocument::from_value(value).unwrap();
        resolve(&document, ProfileSource::File).unwrap()
    }

    #[test]
    fn default_writer_resolves() {
        let profile = resolve(&default_writer(), ProfileSource::BuiltIn).unwrap();
        assert_eq!(profile.id.as_str(), "default-writer");
        assert_eq!(profile.max_rounds(), 80);
        assert_eq!(profile.message_body_path().as_str(), "output/main.md");
        assert_eq!(profile.roots, RootAccess::full());
        assert!(profile.is_tool_visible(&ToolId::parse("workspace.commit").unwrap()));
        assert!(!profile.is_tool_visible(&ToolId::parse("dice.roll").unwrap()));
        assert!(profile.ensure_model_configured().is_ok());
        assert!(profile.ensure_direct_runnable().is_ok());
        assert_eq!(profile.required_preset(), None);
    }

    #[test]
    fn resolved_default_writer_snapshot() {
        let profile = resolve(&default_writer(), ProfileSource::BuiltIn).unwrap();
        insta::assert_json_snapshot!(profile);
    }

    #[test]
    fn resolved_profile_round_trips_through_json() {
        let profile = resolve(&default_writer(), ProfileSource::BuiltIn).unwrap();
        let text = serde_json::to_string(&profile).unwrap();
        let back: ResolvedAgentProfile = serde_json::from_str(&text).unwrap();
        assert_eq!(back, profile);
    }

    #[test]
    fn tool_policy_carries_every_tool_fact() {
        let mut value = default_writer().to_json_value().unwrap();
        value["tools"]["deny"] = json!(["skill.read"]);
        value["tools"]["maxCallsPerRun"] = json!(30);
        value["tools"]["maxCallsPerTool"] = json!({"chat.search": 4});
        value["tools"]["mcpResultInlineCharLimit"] = json!(1234);
        value["tools"]["toolDescriptions"] =
            json!({"chat.search": {"properties": {"query": "Words to look for."}}});
        let profile = resolved_from(value);
        let policy = profile.tool_policy();
        let chat_search = ToolId::parse("chat.search").unwrap();
        let skill_read = ToolId::parse("skill.read").unwrap();
        assert_eq!(policy.allow.len(), 13);
        assert_eq!(policy.allow[0], chat_search);
        assert_eq!(policy.deny, std::slice::from_ref(&skill_read));
        assert!(!policy.is_visible(&skill_read));
        assert!(!profile.is_tool_visible(&skill_read));
        assert_eq!(policy.max_calls_per_invocation, 30);
        assert_eq!(policy.max_calls_per_tool.get(&chat_search), Some(&4));
        assert_eq!(policy.mcp_result_inline_char_limit, 1234);
        assert_eq!(
            policy.descriptions[&chat_search].properties["query"],
            "Words to look for."
        );
        assert_eq!(policy.roots, profile.roots);
    }

    #[test]
    fn minimal_v1_profile_resolves_with_defaults() {
        let profile = resolved_from(minimal_v1_json());
        assert_eq!(profile.id.as_str(), "my-writer");
        assert_eq!(profile.tools.max_calls_per_run, 80);
        assert_eq!(profile.skills.max_read_chars_per_call, 20_000);
        assert_eq!(
            profile.roots.visible,
            [WorkspaceRoot::Output, WorkspaceRoot::Scratch]
        );
        assert_eq!(profile.roots.writable, [WorkspaceRoot::Output]);
        assert_eq!(profile.system_prompt_override, None);
        assert_eq!(profile.summary().source, ProfileSource::File);
    }

    #[test]
    fn roots_are_deduplicated_in_universe_order() {
        let mut value = default_writer().to_json_value().unwrap();
        value["workspace"] = json!({
            "visibleRoots": ["persist/", "output", "output"],
            "writableRoots": ["output"]
        });
        let profile = resolved_from(value);
        assert_eq!(
            profile.roots.visible,
            [WorkspaceRoot::Output, WorkspaceRoot::Persist]
        );
    }

    #[test]
    fn context_is_normalised_and_bindings_are_typed() {
        let mut value = default_writer().to_json_value().unwrap();
        value["context"] = json!({"initialChatHistoryMessages": -7});
        value["model"] =
            json!({"mode": "connectionRef", "connectionRef": " main ", "modelId": "gpt-x"});
        value["preset"] =
            json!({"mode": "ref", "ref": {"apiId": "openai", "name": "Story"}, "required": true});
        value["instructions"] = json!({"agentSystemPrompt": "Write tersely."});
        let profile = resolved_from(value);
        assert_eq!(profile.context.initial_chat_history_messages, -1);
        assert_eq!(profile.context.chat_history_limit(), None);
        assert_eq!(
            profile.model,
            ModelBinding::ConnectionRef {
                connection_ref: "main".to_owned(),
                model_id: "gpt-x".to_owned()
            }
        );
        assert_eq!(
            profile.required_preset().map(|p| p.name.as_str()),
            Some("Story")
        );
        assert_eq!(
            profile.system_prompt_override.as_deref(),
            Some("Write tersely.")
        );
        let json = serde_json::to_value(&profile).unwrap();
        assert_eq!(
            json["model"],
            json!({"mode": "connectionRef", "connectionRef": "main", "modelId": "gpt-x"})
        );
        assert_eq!(
            json["preset"],
            json!({"mode": "ref", "ref": {"apiId": "openai", "name": "Story"}, "required": true})
        );
    }

    #[test]
    fn strict_checks_have_their_own_codes() {
        let mut value = default_writer().to_json_value().unwrap();
        value["model"] = json!({"mode": "requiresConfiguration"});
        let profile = resolved_from(value);
        assert!(!profile.has_model());
        let err = profile.ensure_model_configured().unwrap_err();
        assert_eq!(err.code(), "agent.profile_model_requires_configuration");

        let mut value = default_writer().to_json_value().unwrap();
        value["run"]["directRunnable"] = json!(false);
        value["run"]["presentation"] = json!("background");
        value["delegation"] = json!({"callable": true, "allowAsSubagent": true});
        let profile = resolved_from(value);
        let err = profile.ensure_direct_runnable().unwrap_err();
        assert_eq!(err.code(), "agent.profile_not_direct_runnable");
        assert!(err.to_string().contains("default-writer"), "{err}");
    }

    #[test]
    fn delegation_targets_follow_callers_and_modes() {
        let mut value = default_writer().to_json_value().unwrap();
        value["delegation"] = json!({
            "callable": true,
            "allowAsSubagent": true,
            "allowedCallers": ["planner"]
        });
        let profile = resolved_from(value);
        let planner = ProfileId::parse("planner").unwrap();
        let other = ProfileId::parse("other").unwrap();
        assert!(profile.accepts_subagent_call_from(&planner));
        assert!(!profile.accepts_subagent_call_from(&other));
        assert!(!profile.accepts_handoff_from(&planner));

        let default = resolve(&default_writer(), ProfileSource::BuiltIn).unwrap();
        assert!(default.delegation.allows_caller(&other));
        assert!(!default.accepts_subagent_call_from(&other));
    }
}
