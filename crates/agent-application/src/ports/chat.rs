//! SillyTavern chats: reading the messages a run may see, and committing its message.

use std::ops::Range;

use agent_domain::ErrorCode;
use agent_domain::event::ChatRef;
use agent_domain::json::OrderedJson;
pub use agent_domain::run::ChatRole;
use agent_domain::run::{AgentMessageRecord, RollbackStrategy, RunId, StateId};
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

/// How a commit changes the run's message text; the runtime composes the text, so the host
/// only ever sets it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CommitMode {
    #[default]
    Replace,
    Append,
}

impl CommitMode {
    /// `replace` or `append`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Replace => "replace",
            Self::Append => "append",
        }
    }
}

/// Where a commit lands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommitTarget {
    /// The first commit of a `normal` run: a new reply after the last message.
    NewReply,
    /// The first commit of a `regenerate` or `swipe` run: a new swipe of message `index`,
    /// selected; its earlier swipes stay as they were.
    NewSwipe { index: usize },
    /// A later commit: the message the run's first commit wrote (its receipt's id).
    Revise { message_id: String },
}

/// Who a reply is from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReplyAuthor {
    /// The speaker's display name (`name`).
    pub name: String,
    /// In a group chat, the speaking member's card file (`original_avatar`, and the source
    /// of `force_avatar`).
    pub avatar: Option<String>,
    /// In a group chat, the generation's id (`extra.gen_id`, milliseconds since the epoch).
    pub generation_id: Option<u64>,
}

/// What wrote a reply, as SillyTavern records it on the message.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ReplyModel {
    /// `extra.api`: SillyTavern's name for the API (`openai`, `claude`, `makersuite`, …).
    pub api: String,
    /// `extra.model`.
    pub model: String,
}

/// Publish text as this run's chat message.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatCommitRequest {
    pub chat: ChatRef,
    pub run_id: RunId,
    pub target: CommitTarget,
    /// The message's whole text after this commit (`mes`), already composed from the run's
    /// commits and cleaned.
    pub text: String,
    pub author: ReplyAuthor,
    pub model: ReplyModel,
    /// `extra.reasoning`: the reasoning of the model turn that committed, or empty.
    pub reasoning: String,
    /// `gen_started`: when the run started (RFC 3339, UTC).
    pub generation_started: String,
    /// `send_date` and `gen_finished`: now (RFC 3339, UTC).
    pub committed_at: String,
    /// `extra.tauritavern.agent`; the host sets its `rollback`.
    pub record: AgentMessageRecord,
    /// `chat_metadata` keys to set in the same write (such as `timedWorldInfo`).
    pub metadata: Vec<(String, OrderedJson)>,
}

/// Where the commit landed.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatCommitReceipt {
    pub message_id: String,
    pub message_index: Option<usize>,
    /// How to undo the run on this message, as written into its record.
    pub rollback: RollbackStrategy,
    /// For the first commit onto an existing message (a new swipe): the message exactly as
    /// it was before, which a rollback may restore byte for byte.
    pub previous_message: Option<String>,
    /// The `chat_metadata` keys the commit set, with their values before; empty when the
    /// request set none or the chat has no header to hold them.
    pub metadata_changes: Vec<MetadataChange>,
}

/// A `chat_metadata` key a commit set.
#[derive(Debug, Clone, PartialEq)]
pub struct MetadataChange {
    pub key: String,
    /// The value before the commit; `None` when the key was absent.
    pub before: Option<OrderedJson>,
    /// The value the commit wrote.
    pub after: OrderedJson,
}

/// Record on a committed message the persistent state its run promoted.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PersistStateUpdate {
    pub chat: ChatRef,
    pub run_id: RunId,
    pub message_id: String,
    pub state_id: StateId,
    pub base_state_id: Option<StateId>,
    pub change_count: u32,
}

/// Undo a run's commits on the chat.
#[derive(Debug, Clone, PartialEq)]
pub struct ChatRollbackRequest {
    pub chat: ChatRef,
    pub run_id: RunId,
    pub targets: Vec<RollbackTarget>,
    /// The `chat_metadata` keys the run set: each goes back to its value before the run
    /// (or away, when it had none) while it still holds what the run wrote; a key changed
    /// since is left as it is.
    pub metadata: Vec<MetadataChange>,
}

/// One message a run committed to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RollbackTarget {
    pub message_id: String,
    /// [`ChatCommitReceipt::previous_message`] of the run's first commit onto it.
    pub previous_message: Option<String>,
}

/// What a rollback changed.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatRollbackReport {
    /// Messages removed, by index.
    pub deleted_messages: Vec<usize>,
    /// Swipes removed, as (message index, swipe id).
    pub removed_swipes: Vec<(usize, u64)>,
    /// Messages put back exactly as they were before the run.
    pub restored_messages: Vec<usize>,
    /// `chat_metadata` keys put back as they were before the run.
    pub restored_metadata: Vec<String>,
}

/// The host's side of committing: writes into the chat, serialised with other writers.
#[async_trait]
pub trait ChatCommitPort: Send + Sync {
    async fn commit(&self, request: ChatCommitRequest) -> Result<ChatCommitReceipt, ChatError>;

    async fn record_persist_state(&self, update: PersistStateUpdate) -> Result<(), ChatError>;

    /// Undoes a run on each target by the strategy its record names, highest index first,
    /// all in one atomic write; every check passes before anything changes.
    async fn rollback(&self, request: ChatRollbackRequest)
    -> Result<ChatRollbackReport, ChatError>;
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
    /// A later commit's message is no longer this run's (another run or a person changed it).
    #[error("message {0} is no longer this run's message")]
    MessageMismatch(String),
    #[error("cannot roll back: {0}")]
    Rollback(#[from] RollbackError),
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
            Self::MessageMismatch(_) => "agent.chat_commit_message_mismatch",
            Self::Rollback(err) => err.code(),
            Self::Io(_) => "agent.storage_io",
        }
    }
}

/// Why a run's message cannot be rolled back (TauriTavern's rollback checks).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RollbackError {
    #[error("message {0} does not exist")]
    TargetMissing(String),
    #[error("message {index} was not written by this run")]
    RunMismatch { index: usize },
    #[error("message {index} does not say how to undo the run (no rollback strategy)")]
    StrategyMissing { index: usize },
    #[error("message {index} names the rollback strategy `{strategy}`, which is not supported")]
    StrategyUnsupported { index: usize, strategy: String },
    #[error("message {index} does not have the swipes its rollback needs")]
    SwipeStateInvalid { index: usize },
    #[error("message {index} has no swipe {swipe_id} to remove")]
    SwipeIdInvalid { index: usize, swipe_id: String },
}

impl ErrorCode for RollbackError {
    fn code(&self) -> &'static str {
        match self {
            Self::TargetMissing(_) => "agent.rollback_target_missing",
            Self::RunMismatch { .. } => "agent.rollback_run_mismatch",
            Self::StrategyMissing { .. } => "agent.rollback_strategy_missing",
            Self::StrategyUnsupported { .. } => "agent.rollback_strategy_unsupported",
            Self::SwipeStateInvalid { .. } => "agent.rollback_swipe_state_invalid",
            Self::SwipeIdInvalid { .. } => "agent.rollback_swipe_id_invalid",
        }
    }
}
