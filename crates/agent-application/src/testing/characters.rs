//! An in-memory [`CharacterCards`]: cards by character id, with an optional failure to
//! stand in for an unreadable card file.

use std::collections::BTreeMap;
use std::sync::Mutex;

use async_trait::async_trait;

use crate::ports::{CharacterCard, CharacterCards, StoreError};

#[derive(Debug, Default)]
struct State {
    cards: BTreeMap<String, CharacterCard>,
    failure: Option<StoreError>,
    loads: Vec<String>,
}

/// Character cards in memory. A character without a card loads as `None`.
#[derive(Debug, Default)]
pub struct MemoryCharacters {
    state: Mutex<State>,
}

impl MemoryCharacters {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_state<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Stores `card` as the card of `character_id`. A card without an `avatar` is given
    /// `<character_id>.png`, as a PNG card on disk would be.
    pub fn put(&self, character_id: &str, mut card: CharacterCard) {
        if card.avatar.is_empty() {
            card.avatar = format!("{character_id}.png");
        }
        self.with_state(|s| s.cards.insert(character_id.to_owned(), card));
    }

    /// Makes every later load and list fail with `error` (as a corrupt card file or an
    /// unreadable folder would).
    pub fn fail_with(&self, error: StoreError) {
        self.with_state(|s| s.failure = Some(error));
    }

    /// The character ids `load` was asked for, in call order.
    pub fn loads(&self) -> Vec<String> {
        self.with_state(|s| s.loads.clone())
    }
}

#[async_trait]
impl CharacterCards for MemoryCharacters {
    async fn load(&self, character_id: &str) -> Result<Option<CharacterCard>, StoreError> {
        self.with_state(|s| {
            s.loads.push(character_id.to_owned());
            match &s.failure {
                Some(error) => Err(error.clone()),
                None => Ok(s.cards.get(character_id).cloned()),
            }
        })
    }

    async fn list(&self) -> Result<Vec<String>, StoreError> {
        self.with_state(|s| match &s.failure {
            Some(error) => Err(error.clone()),
            None => Ok(s.cards.keys().cloned().collect()),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn cards_load_by_id_and_list_in_order() {
        let cards = MemoryCharacters::new();
        cards.put("Seraphina", CharacterCard::default());
        cards.put(
            "Bram",
            CharacterCard {
                avatar: "Bram.json".into(),
                ..CharacterCard::default()
            },
        );
        assert_eq!(cards.list().await.unwrap(), ["Bram", "Seraphina"]);
        let seraphina = cards.load("Seraphina").await.unwrap().unwrap();
        assert_eq!(seraphina.avatar, "Seraphina.png");
        assert_eq!(seraphina.character_id(), "Seraphina");
        assert_eq!(
            cards.load("Bram").await.unwrap().unwrap().avatar,
            "Bram.json"
        );
        assert_eq!(cards.load("Nobody").await.unwrap(), None);
        assert_eq!(cards.loads(), ["Seraphina", "Bram", "Nobody"]);
        cards.fail_with(StoreError::Io("gone".into()));
        assert!(cards.list().await.is_err());
    }
}
