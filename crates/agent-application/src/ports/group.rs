//! SillyTavern groups: the definitions group chats belong to, one JSON document per group.

use async_trait::async_trait;
use serde_json::{Map, Value};

use super::StoreError;

/// The code of a group file that does not read ([`StoreError::Damaged`]).
pub const GROUP_INVALID: &str = "sillytavern.group_invalid";
/// The code of an id that cannot name a group file ([`StoreError::Invalid`]).
pub const INVALID_GROUP_ID: &str = "sillytavern.invalid_group_id";

/// A group as its file describes it: the typed fields group chats need, and the whole
/// document for the rest (`activation_strategy`, `generation_mode`,
/// `allow_self_responses`, …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Group {
    /// The group id (`id`, else the file stem); SillyTavern uses `String(Date.now())`.
    pub id: String,
    pub name: String,
    /// The members' card file names (`Seraphina.png`), in the group's order.
    pub members: Vec<String>,
    /// Members muted in this group (card file names).
    pub disabled_members: Vec<String>,
    /// The group's current chat id; `None` when the file names none.
    pub chat_id: Option<String>,
    /// Every chat id of the group.
    pub chats: Vec<String>,
    /// The whole file, a JSON object.
    pub raw: Value,
}

impl Group {
    /// Whether `chat_id` is one of this group's chats (its current one, or in `chats`).
    pub fn has_chat(&self, chat_id: &str) -> bool {
        self.chat_id.as_deref() == Some(chat_id) || self.chats.iter().any(|id| id == chat_id)
    }

    /// The metadata the group file keeps for its chat `chat_id`, as SillyTavern before the
    /// per-chat header format did: `chat_metadata` for the current chat (`chat_id`), else
    /// `past_metadata[chat_id]`. `None` when the file keeps none for that chat; a group chat
    /// whose file has a header line keeps its metadata there instead.
    pub fn chat_metadata(&self, chat_id: &str) -> Option<&Map<String, Value>> {
        let key = if self.chat_id.as_deref() == Some(chat_id) {
            self.raw.get("chat_metadata")
        } else {
            self.raw.get("past_metadata")?.get(chat_id)
        };
        key?.as_object()
    }
}

/// Read access to the groups of the data directory.
#[async_trait]
pub trait Groups: Send + Sync {
    /// The group `group_id`; `None` when there is none. An id that cannot be a plain file
    /// name is [`StoreError::Invalid`] with [`INVALID_GROUP_ID`]; a file that is not a JSON
    /// object, or whose typed fields have the wrong type, is [`StoreError::Damaged`] with
    /// [`GROUP_INVALID`], naming the file (and the field or line).
    async fn load(&self, group_id: &str) -> Result<Option<Group>, StoreError>;

    /// The group a group chat belongs to (the chat id is the chat file's stem): the first
    /// group, by id, whose [`Group::has_chat`] holds. `None` when no group claims it. A group
    /// file that does not read is skipped while another group claims the chat, and reported
    /// when none does (it might have been the one).
    async fn find_by_chat(&self, chat_id: &str) -> Result<Option<Group>, StoreError>;
}
