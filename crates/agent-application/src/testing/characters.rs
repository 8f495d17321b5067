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

    /// Stores `card` as the card of `character_id`.
    pub fn put(&self, character_id: &str, card: CharacterCard) {
        self.with_state(|s| s.cards.insert(character_id.to_owned(), card));
    }

    /// Makes every later load fail with `error` (as a corrupt card file would).
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
}
