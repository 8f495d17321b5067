//! SillyTavern character cards: who the character of a one-to-one chat is.
//!
//! Only the fields a prompt needs travel through this port; the card formats (V1 flat JSON,
//! V2/V3 `data` objects, cards embedded in PNG images) stay inside the adapter.

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::StoreError;

/// The prompt-relevant fields of a character card. Absent text fields are empty strings,
/// so callers only ever test for emptiness.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CharacterCard {
    pub name: String,
    pub description: String,
    pub personality: String,
    pub scenario: String,
    /// The greeting SillyTavern opens a new chat with (`first_mes`).
    pub first_message: String,
    /// Example exchanges (`mes_example`), `<START>`-separated as the card author wrote them.
    pub example_dialogue: String,
    /// Notes for people rather than the model; never put into a prompt by default.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creator_notes: Option<String>,
}

/// Read access to the character cards of the data directory.
///
/// `character_id` is the name SillyTavern files the character's chats under
/// (`chats/<character_id>/`), which is also its card's file name.
#[async_trait]
pub trait CharacterCards: Send + Sync {
    /// The card of `character_id`; `None` when there is none. A card that exists but cannot
    /// be read is [`StoreError::Integrity`] naming the file; an id that cannot name a file
    /// is [`StoreError::Invalid`].
    async fn load(&self, character_id: &str) -> Result<Option<CharacterCard>, StoreError>;
}
