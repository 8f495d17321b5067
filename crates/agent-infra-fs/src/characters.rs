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
//!
//! The PNG is read with the `png` crate (image-rs, the PNG reader most of the Rust
//! ecosystem uses) and the base64 text with the `base64` crate; see `png.rs` for how chunks
//! behind the image data are reached without decoding the image.

mod card;
mod png;

use std::fs;
use std::io;
use std::path::Path;

use agent_application::ports::{CharacterCard, CharacterCards, StoreError};
use async_trait::async_trait;
use base64::Engine;
use base64::engine::general_purpose::STANDARD_PAD_INDIFFERENT;

use crate::layout::DataDir;
use crate::runs::store_io::{blocking, integrity, io_error, read_file};

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

    /// [`CharacterCards::load`] without the async wrapper (blocking).
    pub fn load_blocking(&self, character_id: &str) -> Result<Option<CharacterCard>, StoreError> {
        load_card(&self.data.characters(), checked_id(character_id)?)
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
    let png_name = format!("{id}.png");
    let png_path = dir.join(&png_name);
    if let Some(bytes) = read_file(&png_path)?
        && let Some(card) =
            card_from_png(&bytes, &png_name).map_err(|err| integrity(&png_path, err))?
    {
        return Ok(Some(card));
    }
    let json_name = format!("{id}.json");
    let json_path = dir.join(&json_name);
    match read_file(&json_path)? {
        Some(bytes) => card::parse_card(&bytes, &json_name)
            .map(Some)
            .map_err(|err| integrity(&json_path, err)),
        None => Ok(None),
    }
}

/// The card in a PNG, or `None` for an avatar without one.
fn card_from_png(bytes: &[u8], avatar: &str) -> Result<Option<CharacterCard>, String> {
    let chunks = png::text_chunks(bytes, &CARD_KEYWORDS)?;
    let best = CARD_KEYWORDS
        .iter()
        .find_map(|wanted| chunks.iter().find(|(keyword, _)| keyword == wanted));
    let Some((keyword, text)) = best else {
        return Ok(None);
    };
    let json = decode_base64(text).map_err(|err| format!("`{keyword}` chunk: {err}"))?;
    card::parse_card(&json, avatar)
        .map(Some)
        .map_err(|err| format!("`{keyword}` chunk: {err}"))
}

/// Standard-alphabet base64 with or without padding; line breaks and spaces are ignored, as
/// card writers differ on both.
fn decode_base64(text: &str) -> Result<Vec<u8>, String> {
    let decoded = if text.bytes().any(|b| b.is_ascii_whitespace()) {
        let compact: Vec<u8> = text.bytes().filter(|b| !b.is_ascii_whitespace()).collect();
        STANDARD_PAD_INDIFFERENT.decode(compact)
    } else {
        STANDARD_PAD_INDIFFERENT.decode(text)
    };
    decoded.map_err(|err| format!("the card data is not base64: {err}"))
}

/// The ids of the `.png` and `.json` regular files in `dir`, each once, sorted.
fn list_ids(dir: &Path) -> Result<Vec<String>, StoreError> {
    let entries = match fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(err) => return Err(io_error(dir, err)),
    };
    let mut ids = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|err| io_error(dir, err))?;
        let Ok(name) = entry.file_name().into_string() else {
            continue;
        };
        let Some(id) = name
            .strip_suffix(".png")
            .or_else(|| name.strip_suffix(".json"))
        else {
            continue;
        };
        let is_file = entry
            .file_type()
            .map_err(|err| io_error(&entry.path(), err))?
            .is_file();
        if is_file && checked_id(id).is_ok() {
            ids.push(id.to_owned());
        }
    }
    ids.sort();
    ids.dedup();
    Ok(ids)
}

#[async_trait]
impl CharacterCards for FsCharacterCards {
    async fn load(&self, character_id: &str) -> Result<Option<CharacterCard>, StoreError> {
        let (cards, id) = (self.clone(), character_id.to_owned());
        blocking(move || cards.load_blocking(&id), StoreError::Io).await
    }

    async fn list(&self) -> Result<Vec<String>, StoreError> {
        let dir = self.data.characters();
        blocking(move || list_ids(&dir), StoreError::Io).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base64_tolerates_missing_padding_and_line_breaks() {
        assert_eq!(decode_base64("Zg==").unwrap(), b"f");
        assert_eq!(decode_base64("Zm8").unwrap(), b"fo");
        assert_eq!(decode_base64("Zm9vYmFy\r\nYmF6").unwrap(), b"foobarbaz");
        assert_eq!(decode_base64("5qOu").unwrap(), "森".as_bytes());
        for bad in ["Zm9v!", "Zg==Zg", "Z"] {
            let err = decode_base64(bad).unwrap_err();
            assert!(err.contains("not base64"), "{bad}: {err}");
        }
    }

    #[test]
    fn listing_skips_what_cannot_be_a_card() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "b.png",
            "a.json",
            "a.png",
            ".hidden.png",
            "notes.txt",
            "c.PNG",
        ] {
            fs::write(dir.path().join(name), b"").unwrap();
        }
        fs::create_dir(dir.path().join("folder.png")).unwrap();
        assert_eq!(list_ids(dir.path()).unwrap(), ["a", "b"]);
        assert!(list_ids(&dir.path().join("missing")).unwrap().is_empty());
    }
}
