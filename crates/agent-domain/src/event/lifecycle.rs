//! Payloads of run lifecycle events: creation, profile and skill resolution, workspace
//! set-up, model binding, context assembly and cancellation.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Presentation, RunStatus};
use crate::model::AgentModelRequest;
use crate::profile::{ContextPolicy, ModelRetryPolicy, ProfileSource};
use crate::tool::{SnapshotDiagnostic, SnapshotSummary, ToolTurnContract};
use crate::workspace::WorkspaceRoot;

/// Which chat a run belongs to, as the host names it. Wire keys are camelCase; the older
/// snake_case spellings are deliberately not accepted.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum ChatRef {
    /// A one-to-one chat with a character, stored as `chats/<character>/<file>.jsonl`.
    Character {
        character_id: String,
        file_name: String,
    },
    /// A group chat, stored as `group chats/<chat-id>.jsonl`.
    Group { chat_id: String },
}

/// `run_created`: the run record exists; nothing has been written to the workspace yet.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunCreatedPayload {
    pub workspace_id: String,
    pub stable_chat_id: String,
    /// The persistent state this run builds on; `null` for a chat's first run.
    pub persist_base_state_id: Option<String>,
    pub presentation: Presentation,
}

/// `profile_resolved`: which profile the run uses and where it came from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProfileResolvedPayload {
    pub profile_id: String,
    /// `built_in` for the compiled-in profile, `file` for one read from the profile store.
    pub source: ProfileSource,
}

/// `skill_scopes_resolved`: which skill scopes applied and which skills became visible.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillScopesResolvedPayload {
    /// Scope names that contributed, in precedence order (global, preset, profile, character).
    pub scopes: Vec<String>,
    /// The host's scope references (preset, character) as given; `{}` when none.
    #[serde(default)]
    pub refs: Value,
    /// Names of the skills the invocation may use.
    pub effective_skills: Vec<String>,
    /// Skills of those scopes that could not be read, and problems of the skill store
    /// itself. Written only when there is one; older journals have none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub diagnostics: Vec<SkillDiagnostic>,
}

/// A skill the store could not read, or a problem of the skill store as a whole.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillDiagnostic {
    /// The scope whose listing found it, in its `{"kind", …}` form; absent for a problem of
    /// the store as a whole (its index, a folder no scope owns).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scope: Option<Value>,
    /// The folder concerned: a skill's folder in its scope, or a folder of the store.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// A `skill.*` code, e.g. `skill.front_matter_invalid`.
    pub code: String,
    pub message: String,
}

/// `status_changed`: written on every run status transition.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusChangedPayload {
    pub status: RunStatus,
}

/// `workspace_initialized`: the run directory and its roots exist.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkspaceInitializedPayload {
    pub workspace_id: String,
    pub stable_chat_id: String,
}

/// `persistent_projection_initialized`: persistent roots were projected from the base state.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PersistentProjectionInitializedPayload {
    pub roots: Vec<WorkspaceRoot>,
}

/// Where an invocation's model comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum ModelBindingMode {
    /// A named connection (provider format, base URL, model).
    Connection,
    /// The scripted offline model.
    Script,
    /// Whatever model the host's prompt snapshot was built for.
    CurrentPromptSnapshot,
}

/// `agent_model_binding_resolved`: the model an invocation will call. Never holds secrets.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelBindingResolvedPayload {
    pub invocation_id: String,
    pub mode: ModelBindingMode,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub connection: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model_id: Option<String>,
}

/// A compact description of one model request, for timelines (never the messages).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRequestSummary {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_format: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub message_count: u32,
    pub tool_count: u32,
}

impl ModelRequestSummary {
    /// Summarises `request` as sent to `provider_format` / `model` (when known).
    pub fn of(
        request: &AgentModelRequest,
        provider_format: Option<String>,
        model: Option<String>,
    ) -> Self {
        Self {
            provider_format,
            model,
            message_count: u32::try_from(request.messages.len()).unwrap_or(u32::MAX),
            tool_count: u32::try_from(request.tools.len()).unwrap_or(u32::MAX),
        }
    }
}

/// `context_assembled`: an invocation is ready for its first model call.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextAssembledPayload {
    pub invocation_id: String,
    /// Run-relative path of the frozen snapshot (`input/invocations/<id>/tool_snapshot.json`).
    pub tool_snapshot_path: String,
    /// Ids, aliases and budgets of the snapshot, without descriptions or schemas.
    pub snapshot: SnapshotSummary,
    /// The complete turn contract the invocation starts with.
    pub turn: ToolTurnContract,
    pub request: ModelRequestSummary,
    pub max_rounds: u32,
    pub model_retry: ModelRetryPolicy,
    /// What the initial prompt carries from the chat, when the profile says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context_policy: Option<ContextPolicy>,
    /// The tools the profile allowed that the snapshot left out (an MCP tool whose server
    /// is paused, not cached, ...), each with its `mcp.*` code.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub snapshot_diagnostics: Vec<SnapshotDiagnostic>,
}

/// `run_cancelled` when the cancellation interrupted a running loop.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunCancelledPayload {
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chat_refs_use_camel_case_keys_only() {
        let character = ChatRef::Character {
            character_id: "alice.png".into(),
            file_name: "Alice - 2026.jsonl".into(),
        };
        assert_eq!(
            serde_json::to_value(&character).unwrap(),
            json!({"kind": "character", "characterId": "alice.png", "fileName": "Alice - 2026.jsonl"})
        );
        let group: ChatRef =
            serde_json::from_value(json!({"kind": "group", "chatId": "g1"})).unwrap();
        assert_eq!(
            group,
            ChatRef::Group {
                chat_id: "g1".into()
            }
        );
        assert!(
            serde_json::from_value::<ChatRef>(json!({"kind": "group", "chat_id": "g1"})).is_err()
        );
    }

    #[test]
    fn request_summary_counts_messages_and_tools() {
        let request = AgentModelRequest {
            messages: vec![
                crate::model::AgentModelMessage::system("s"),
                crate::model::AgentModelMessage::user("u"),
            ]
            .into(),
            tools: Default::default(),
            tool_choice: crate::tool::ToolChoice::Auto,
            provider_state: crate::model::ProviderState::initial("run_1", "inv_root"),
            parameters: Default::default(),
        };
        let summary = ModelRequestSummary::of(&request, Some("anthropic".into()), None);
        assert_eq!(
            serde_json::to_value(summary).unwrap(),
            json!({"providerFormat": "anthropic", "messageCount": 2, "toolCount": 0})
        );
    }

    #[test]
    fn binding_mode_names() {
        assert_eq!(
            serde_json::to_value(ModelBindingMode::CurrentPromptSnapshot).unwrap(),
            json!("currentPromptSnapshot")
        );
    }
}
