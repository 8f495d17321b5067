//! SillyTavern character cards: who a character is, as a prompt and world info need it.
//!
//! The card formats (V1 flat JSON, V2 `chara_card_v2` and V3 `chara_card_v3` with their
//! fields under `data`, cards embedded in PNG images) stay inside the adapter; this port
//! carries the fields, typed.

use agent_domain::run::ChatRole;
use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::StoreError;

/// The fields of a character card a prompt, world info and group chats need.
///
/// Absent or `null` text fields are empty strings and absent lists are empty, so callers only
/// ever test for emptiness; only fields whose absence means something else are `Option`s.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CharacterCard {
    /// The card's file name in the characters folder: `Seraphina.png` for a PNG card (what
    /// SillyTavern calls the character's `avatar`, its id), `Bram.json` for a bare JSON card.
    /// Group `members`, a reply's `original_avatar` and world info's `characterFilter.names`
    /// and `charLore` name a character by this (the last two without the extension, see
    /// [`Self::character_id`]).
    #[serde(default)]
    pub avatar: String,
    pub name: String,
    pub description: String,
    pub personality: String,
    pub scenario: String,
    /// The greeting SillyTavern opens a new chat with (`first_mes`).
    pub first_message: String,
    /// The other greetings a new chat can open with (`alternate_greetings`), in card order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub alternate_greetings: Vec<String>,
    /// Example exchanges (`mes_example`), `<START>`-separated as the card author wrote them.
    pub example_dialogue: String,
    /// Notes for people rather than the model (`creator_notes`, V1 `creatorcomment`); never
    /// put into a prompt by default. `None` when blank.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creator_notes: Option<String>,
    /// The card's main prompt override (`system_prompt`); empty when the card has none.
    #[serde(default)]
    pub system_prompt: String,
    /// The card's jailbreak / post-history instructions (`post_history_instructions`).
    #[serde(default)]
    pub post_history_instructions: String,
    /// The card's own tags (`tags`). World info's `characterFilter.tags` holds SillyTavern
    /// tag ids from `settings.json`, not these names.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// The lorebook linked to the character (`data.extensions.world`, a world name); `None`
    /// when absent or empty.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub world: Option<String>,
    /// The character's note at depth (`data.extensions.depth_prompt`), `None` when the card
    /// has none. SillyTavern writes one on every card it saves, usually with an empty prompt;
    /// an empty prompt injects nothing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth_prompt: Option<DepthPrompt>,
    /// The lorebook embedded in the card (`data.character_book`) as written, for an import
    /// into `worlds/`. SillyTavern never scans it directly.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub character_book: Option<Value>,
}

impl CharacterCard {
    /// Whether the card embeds a lorebook (`data.character_book`).
    pub fn has_character_book(&self) -> bool {
        self.character_book.is_some()
    }

    /// [`Self::avatar`] without its extension: the id this port loads the card by, the name
    /// SillyTavern files the character's chats under, and what world info's
    /// `characterFilter.names` and `charLore` use.
    pub fn character_id(&self) -> &str {
        self.avatar
            .rsplit_once('.')
            .map_or(self.avatar.as_str(), |(stem, _)| stem)
    }
}

/// A card's note at depth: `prompt` goes `depth` messages from the end of the chat, as a
/// message of `role`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DepthPrompt {
    pub prompt: String,
    /// Messages from the end of the chat; SillyTavern's default is 4.
    pub depth: u32,
    /// SillyTavern stores `"system"`, `"user"` or `"assistant"` (or 0, 1, 2); anything else
    /// counts as the system role, as it does there.
    pub role: ChatRole,
}

/// Read access to the character cards of the data directory.
///
/// `character_id` is the card's file name without its extension (`Seraphina` for
/// `Seraphina.png`): the name SillyTavern files the character's chats under
/// (`chats/<character_id>/`). A group member `Seraphina.png` is the id `Seraphina`.
#[async_trait]
pub trait CharacterCards: Send + Sync {
    /// The card of `character_id`; `None` when there is none. A card that exists but cannot
    /// be read is [`StoreError::Integrity`] naming the file (and the field, for a field of
    /// the wrong type); an id that cannot name a file is [`StoreError::Invalid`].
    async fn load(&self, character_id: &str) -> Result<Option<CharacterCard>, StoreError>;

    /// The ids of the cards there are: the `.png` and `.json` files of the characters folder
    /// without their extension, each once, sorted by byte order. Listed ids need not load: a
    /// PNG may be a plain avatar, or damaged.
    async fn list(&self) -> Result<Vec<String>, StoreError>;
}
