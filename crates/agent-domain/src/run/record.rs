//! The records a run leaves behind: the run itself, its invocations and its tasks.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::input::ChatRole;
use super::{InvocationId, RunId, StateId, TaskId, WorkspaceId};
use crate::error::ErrorCode;
use crate::event::{
    ChatRef, InvocationKind, InvocationStatus, Presentation, RunStatus, TaskContinuation,
    TaskStatus,
};
use crate::tool::ExitPolicy;

/// Longest accepted stable chat id, in bytes.
pub const MAX_STABLE_CHAT_ID_BYTES: usize = 512;

/// Whether a chat is a one-to-one character chat or a group chat; part of the workspace id.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ChatKind {
    Character,
    Group,
}

impl ChatKind {
    pub fn of(chat: &ChatRef) -> Self {
        match chat {
            ChatRef::Group { .. } => Self::Group,
            _ => Self::Character,
        }
    }

    /// The exact bytes whose SHA-256 names a chat's workspace: compact JSON with sorted keys,
    /// `{"kind":"character","stableChatId":"<id>"}`. Chat file and character names do not
    /// take part, so renaming a chat keeps its workspace.
    pub fn workspace_digest_input(self, stable_chat_id: &str) -> String {
        let kind = match self {
            Self::Character => "character",
            Self::Group => "group",
        };
        // A JSON string literal of a `&str` cannot fail to serialise.
        let id = serde_json::to_string(stable_chat_id).unwrap_or_default();
        format!("{{\"kind\":\"{kind}\",\"stableChatId\":{id}}}")
    }
}

/// Validates a stable chat id (trimmed, non-empty, at most 512 bytes).
pub fn parse_stable_chat_id(raw: &str) -> Result<String, StableChatIdError> {
    let trimmed = raw.trim();
    if trimmed.is_empty() {
        Err(StableChatIdError::Required)
    } else if trimmed.len() > MAX_STABLE_CHAT_ID_BYTES {
        Err(StableChatIdError::TooLong(trimmed.len()))
    } else {
        Ok(trimmed.to_owned())
    }
}

/// A stable chat id that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum StableChatIdError {
    #[error("the chat has no stable id")]
    Required,
    #[error("the chat's stable id is {0} bytes long; at most 512 are allowed")]
    TooLong(usize),
}

impl ErrorCode for StableChatIdError {
    fn code(&self) -> &'static str {
        match self {
            Self::Required => "agent.stable_chat_id_required",
            Self::TooLong(_) => "agent.invalid_stable_chat_id",
        }
    }
}

/// How the run's message relates to the chat, following SillyTavern's generation types.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GenerationType {
    /// A new reply appended to the chat.
    #[default]
    Normal,
    /// Replaces the last non-user message, which the run cannot read.
    Regenerate,
    /// Adds a new swipe to the last assistant message, which the run cannot read.
    Swipe,
}

impl GenerationType {
    /// `normal`, `regenerate` or `swipe`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Normal => "normal",
            Self::Regenerate => "regenerate",
            Self::Swipe => "swipe",
        }
    }

    /// What a run of this type does on a chat whose last message has `last_role` (`None`:
    /// an empty chat). A regenerate has nothing to regenerate when the chat ends with the
    /// user's message (or is empty), so it answers as a normal reply does, as SillyTavern's
    /// does; decided before the run starts, so the run records what it really does.
    pub fn effective(self, last_role: Option<ChatRole>) -> Self {
        match (self, last_role) {
            (Self::Regenerate, None | Some(ChatRole::User)) => Self::Normal,
            (other, _) => other,
        }
    }

    /// Whether the run's first commit adds a swipe to the message it set aside (rather than
    /// writing a new reply).
    pub const fn adds_swipe(self) -> bool {
        matches!(self, Self::Regenerate | Self::Swipe)
    }
}

/// The preset/character scope a run resolved its skills against.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SkillScopeRefs {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preset: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character_id: Option<String>,
}

impl SkillScopeRefs {
    pub fn is_empty(&self) -> bool {
        self.preset.is_none() && self.character_id.is_none()
    }
}

/// One run (`run.json` and its index mirror).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentRun {
    pub id: RunId,
    pub workspace_id: WorkspaceId,
    pub stable_chat_id: String,
    pub chat_ref: ChatRef,
    pub generation_type: GenerationType,
    pub profile_id: Option<String>,
    #[serde(default, skip_serializing_if = "SkillScopeRefs::is_empty")]
    pub skill_scope_refs: SkillScopeRefs,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub persist_base_state_id: Option<StateId>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub input_message_count: Option<u64>,
    #[serde(default)]
    pub presentation: Presentation,
    pub status: RunStatus,
    pub created_at: String,
    pub updated_at: String,
}

/// One invocation of an agent inside a run (`invocations/<id>.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentInvocation {
    pub id: InvocationId,
    pub run_id: RunId,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub parent_invocation_id: Option<InvocationId>,
    pub profile_id: String,
    pub kind: InvocationKind,
    pub status: InvocationStatus,
    pub exit_policy: ExitPolicy,
    pub created_at: String,
    pub updated_at: String,
}

/// Optional limits a delegation asked for.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TaskBudget {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_rounds: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_tool_calls: Option<u32>,
}

/// A delegated or handoff task (`tasks/<id>.json`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AgentTaskRecord {
    pub id: TaskId,
    pub run_id: RunId,
    pub parent_invocation_id: InvocationId,
    pub child_invocation_id: InvocationId,
    pub target_profile_id: String,
    pub workspace_key: String,
    pub continuation: TaskContinuation,
    pub status: TaskStatus,
    /// The task brief exactly as the caller sent it.
    pub task: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<TaskBudget>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_by_tool_call_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result_ref: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub created_at: String,
    pub updated_at: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn workspace_digest_input_is_sorted_compact_json() {
        assert_eq!(
            ChatKind::Character.workspace_digest_input("stable-chat"),
            r#"{"kind":"character","stableChatId":"stable-chat"}"#
        );
        assert_eq!(
            ChatKind::Group.workspace_digest_input("a\"b"),
            r#"{"kind":"group","stableChatId":"a\"b"}"#
        );
    }

    #[test]
    fn stable_chat_ids() {
        assert_eq!(parse_stable_chat_id("  x ").unwrap(), "x");
        assert_eq!(
            parse_stable_chat_id(" ").unwrap_err().code(),
            "agent.stable_chat_id_required"
        );
        assert_eq!(
            parse_stable_chat_id(&"x".repeat(513)).unwrap_err().code(),
            "agent.invalid_stable_chat_id"
        );
    }

    #[test]
    fn run_record_shape_and_legacy_defaults() {
        let legacy = json!({
            "id": "run_1", "workspaceId": "chat_1", "stableChatId": "s",
            "chatRef": {"kind": "character", "characterId": "Alice", "fileName": "chat 1"},
            "generationType": "normal", "profileId": null, "status": "awaiting_commit",
            "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"
        });
        let run: AgentRun = serde_json::from_value(legacy).unwrap();
        assert_eq!(run.presentation, Presentation::Foreground);
        assert_eq!(run.status, RunStatus::AwaitingHostCommit);
        let back = serde_json::to_value(&run).unwrap();
        assert_eq!(back["status"], "awaiting_host_commit");
        assert!(back.get("skillScopeRefs").is_none());
        assert_eq!(back["presentation"], "foreground");
    }
}
