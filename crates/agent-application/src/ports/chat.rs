//! SillyTavern chats: reading the messages a run may see, and committing its message.

use std::ops::Range;

use agent_domain::ErrorCode;
use agent_domain::event::ChatRef;
pub use agent_domain::run::ChatRole;
use agent_domain::run::{GenerationType, RunId, StateId};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One chat message (index 0 is the first line after the header).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessage {
    pub index: usize,
    pub role: ChatRole,
    pub name: String,
    /// The message's current text (`mes`).
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_date: Option<String>,
    /// `extra.tauritavern.agent`, when an agent run wrote this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<Value>,
}

/// What a run needs to know about its chat up front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatInfo {
    pub chat: ChatRef,
    /// `chat_metadata.integrity`; a chat without one is given a fresh id, saved atomically.
    pub stable_chat_id: String,
    pub message_count: usize,
    pub character_name: Option<String>,
    pub user_name: Option<String>,
}

#[async_trait]
pub trait ChatStore: Send + Sync {
    async fn open(&self, chat: &ChatRef) -> Result<ChatInfo, ChatError>;

    /// Messages by index range (clamped to the chat).
    async fn read_messages(
        &self,
        chat: &ChatRef,
        range: Range<usize>,
    ) -> Result<Vec<ChatMessage>, ChatError>;
}

/// `replace` overwrites this run's message; `append` adds to it. Either creates the message
/// on the run's first commit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitMode {
    #[default]
    Replace,
    Append,
}

/// Publish text as this run's chat message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatCommitRequest {
    pub chat: ChatRef,
    pub run_id: RunId,
    pub generation_type: GenerationType,
    /// The frozen prefix the run read; regenerate and swipe target the message right after it.
    pub input_message_count: usize,
    /// The message an earlier commit of this run created, if any.
    pub message_id: Option<String>,
    pub mode: CommitMode,
    pub text: String,
}

/// Where the commit landed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatCommitReceipt {
    pub message_id: String,
    pub message_index: Option<usize>,
}

/// Record on a committed message the persistent state its run promoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersistStateUpdate {
    pub chat: ChatRef,
    pub run_id: RunId,
    pub message_id: String,
    pub state_id: StateId,
}

/// The host's side of committing: writes into the chat, serialised with other writers.
#[async_trait]
pub trait ChatCommitPort: Send + Sync {
    async fn commit(&self, request: ChatCommitRequest) -> Result<ChatCommitReceipt, ChatError>;

    async fn record_persist_state(&self, update: PersistStateUpdate) -> Result<(), ChatError>;
}

/// A chat could not be read or written.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ChatError {
    #[error("chat not found: {0}")]
    NotFound(String),
    /// A chat path or name that cannot name a chat file (outside the data directory, `..`,
    /// a symlink, the wrong shape).
    #[error("chat path is not usable: {0}")]
    InvalidPath(String),
    #[error("chat line {line} is not valid: {detail}")]
    InvalidMessage { line: usize, detail: String },
    #[error("chat header is not valid: {0}")]
    InvalidHeader(String),
    #[error("the chat has no message a {0} can target")]
    NoTarget(&'static str),
    #[error("message {0} of this run is gone from the chat")]
    MessageMissing(String),
    #[error("chat I/O: {0}")]
    Io(String),
}

impl ErrorCode for ChatError {
    fn code(&self) -> &'static str {
        match self {
            Self::NotFound(_) => "chat.not_found",
            Self::InvalidPath(_) => "agent.invalid_chat_path",
            Self::InvalidMessage { .. } => "agent.chat_message_invalid_json",
            Self::InvalidHeader(_) => "agent.invalid_chat_integrity",
            Self::NoTarget(_) => "agent.swipe_target_invalid",
            Self::MessageMissing(_) => "agent.chat_commit_failed",
            Self::Io(_) => "agent.storage_io",
        }
    }
}
