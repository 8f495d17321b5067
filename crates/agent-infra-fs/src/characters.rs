//! [`FsCharacterCards`]: SillyTavern character cards from `<data>/characters/`.
//!
//! ```text
//! characters/<character_id>.png    the avatar, with the card in a `tEXt` chunk
//! characters/<character_id>.json   a bare card document
//! ```
//!
//! SillyTavern files a character's chats under `chats/<character_id>/` and its card as
//! `characters/<character_id>.png`: the card JSON, base64-encoded, in a `tEXt` chunk with
//! the keyword `chara` (V1/V2) or `ccv3` (V3, preferred when both are present). A PNG
//! without either chunk is a plain avatar; then a `.json` card is looked for instead.

mod base64;
mod card;
mod png;

use std::path::Path;

use agent_application::ports::{CharacterCard, CharacterCards, StoreError};
use async_trait::async_trait;

use crate::layout::DataDir;
use crate::runs::store_io::{blocking, integrity, read_file};

/// The text-chunk keywords of a card, most preferred first.
const CARD_KEYWORDS: [&str; 2] = ["ccv3", "chara"];

/// Character cards of one data directory.
#[derive(Debug, Clone)]
pub struct FsCharacterCards {
    data: DataDir,
}

impl FsCharacterCards {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }
}

/// A character id names a file in `characters/`: it must be one plain path component.
fn checked_id(id: &str) -> Result<&str, StoreError> {
    let plain = !id.is_empty()
        && id != "."
        && id != ".."
        && !id.contains(['/', '\\', '\0'])
        && !id.starts_with('.');
    if plain {
        Ok(id)
    } else {
        Err(StoreError::Invalid {
            code: "agent.invalid_character_id",
            message: format!("`{id}` cannot name a character: it must be a plain file name"),
        })
    }
}

fn load_card(dir: &Path, id: &str) -> Result<Option<CharacterCard>, StoreError> {
    let png_path = dir.join(format!("{id}.png"));
    if let Some(bytes) = read_file(&png_path)?
        && let Some(card) = card_from_png(&bytes).map_err(|err| integrity(&png_path, err))?
    {
        return Ok(Some(card));
    }
    let json_path = dir.join(format!("{id}.json"));
    match read_file(&json_path)? {
        Some(bytes) => card::parse_card(&bytes)
            .map(Some)
            .map_err(|err| integrity(&json_path, err)),
        None => Ok(None),
    }
}

/// The card in a PNG, or `None` for an avatar without one.
fn card_from_png(bytes: &[u8]) -> Result<Option<CharacterCard>, String> {
    let chunks = png::text_chunks(bytes, &CARD_KEYWORDS).map_err(|err| err.to_string())?;
    let best = CARD_KEYWORDS
        .iter()
        .find_map(|wanted| chunks.iter().find(|(keyword, _)| keyword == wanted));
    let Some((keyword, text)) = best else {
        return Ok(None);
    };
    let json = base64::decode(text).map_err(|err| format!("`{keyword}` chunk: {err}"))?;
    card::parse_card(&json)
        .map(Some)
        .map_err(|err| format!("`{keyword}` chunk: {err}"))
}

#[async_trait]
impl CharacterCards for FsCharacterCards {
    async fn load(&self, character_id: &str) -> Result<Option<CharacterCard>, StoreError> {
        let id = checked_id(character_id)?.to_owned();
        let dir = self.data.characters();
        blocking(move || load_card(&dir, &id), StoreError::Io).await
    }
}
