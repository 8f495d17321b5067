//! SillyTavern chats: reading the messages a run may see, and committing its message.

use std::ops::Range;

use agent_domain::ErrorCode;
use agent_domain::event::ChatRef;
pub use agent_domain::run::ChatRole;
use agent_domain::run::{GenerationType, RunId, StateId};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// One chat message. Index 0 is the first message: the line after the header, or the first
/// line of an old-format group chat, which has no header line.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessage {
    pub index: usize,
    /// User if `is_user`, else system if `is_system`, else assistant.
    pub role: ChatRole,
    /// The speaker's display name as written with the message (`name`).
    pub name: String,
    /// The message's current text (`mes`).
    pub text: String,
    /// `send_date` as written (an ISO string since SillyTavern 1.15, a humanized date before,
    /// epoch milliseconds in the oldest files).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub send_date: Option<String>,
    /// `is_system`: SillyTavern leaves such messages out of prompts and the world info scan.
    /// Hiding a message (`/hide`) sets it on messages of any role, so a hidden user message is
    /// `role: User` with `is_system: true`.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub is_system: bool,
    /// The card file name (`Seraphina.png`) of the group member who wrote this reply
    /// (`original_avatar`); the way to tie a group message to its card, as names can change.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_avatar: Option<String>,
    /// The avatar SillyTavern shows for the message (`force_avatar`): a thumbnail URL naming
    /// the card (`/thumbnail?type=avatar&file=Seraphina.png`) or persona, or, before 1.15, a
    /// path such as `User Avatars/user-default.png`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub force_avatar: Option<String>,
    /// `extra.gen_id`: the group generation a reply belongs to (a timestamp in milliseconds,
    /// fractional for group greetings); replies of one group turn share it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gen_id: Option<f64>,
    /// `extra.tauritavern.agent`, when an agent run wrote this message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<Value>,
}

impl ChatMessage {
    /// A plain message: no send date, not hidden, no avatars, no generation id, not written
    /// by an agent run.
    pub fn new(index: usize, role: ChatRole, name: &str, text: &str) -> Self {
        Self {
            index,
            role,
            name: name.to_owned(),
            text: text.to_owned(),
            send_date: None,
            is_system: false,
            original_avatar: None,
            force_avatar: None,
            gen_id: None,
            agent: None,
        }
    }
}

/// What a run needs to know about its chat up front.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatInfo {
    pub chat: ChatRef,
    /// `chat_metadata.integrity`; a chat with a header but no id is given a fresh one, saved
    /// atomically. A chat without a header line (an old-format group chat) is never
    /// rewritten: its stable id is its chat id (the file stem).
    pub stable_chat_id: String,
    pub message_count: usize,
    /// The header's `character_name`; `None` when absent, blank or `"unused"` (what
    /// SillyTavern 1.18 writes there: the header names are deprecated, and messages carry
    /// their own names).
    pub character_name: Option<String>,
    /// The header's `user_name`, by the same rule as `character_name`.
    pub user_name: Option<String>,
    /// The header's `chat_metadata`, always an object (`{}` when absent). For a chat without
    /// a header line it is `{}`: such a chat keeps its metadata in its group's file (see
    /// [`Group::chat_metadata`](super::Group::chat_metadata)).
    pub chat_metadata: Value,
    /// The header's `create_date`, written by SillyTavern before 1.18.
    pub create_date: Option<String>,
    /// Whether the chat file has a header line. Old group chats (SillyTavern 1.12 and
    /// earlier) hold only messages.
    pub has_header: bool,
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
