//! The ports over SillyTavern's own user data, bundled for the services that resolve
//! personas, names, group speakers and world info from it.

use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use super::{
    CharacterCard, CharacterCards, Group, Groups, Lorebook, Lorebooks, PersonaAvatars,
    SillyTavernSettings, StoreError,
};

/// Read access to everything SillyTavern keeps about a user besides chats: character cards,
/// its settings, persona avatars, lorebooks and groups. Cheap to clone.
#[derive(Clone)]
pub struct UserDataPorts {
    pub characters: Arc<dyn CharacterCards>,
    pub settings: Arc<dyn SillyTavernSettings>,
    pub persona_avatars: Arc<dyn PersonaAvatars>,
    pub lorebooks: Arc<dyn Lorebooks>,
    pub groups: Arc<dyn Groups>,
}

impl std::fmt::Debug for UserDataPorts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("UserDataPorts { .. }")
    }
}

impl UserDataPorts {
    /// No user data at all: no cards, settings, personas, lorebooks or groups. For hosts that
    /// keep no SillyTavern folder; prompts are then assembled without them.
    pub fn none() -> Self {
        let none = Arc::new(NoUserData);
        Self {
            characters: none.clone(),
            settings: none.clone(),
            persona_avatars: none.clone(),
            lorebooks: none.clone(),
            groups: none,
        }
    }
}

/// The empty user folder of [`UserDataPorts::none`].
#[derive(Debug)]
struct NoUserData;

#[async_trait]
impl CharacterCards for NoUserData {
    async fn load(&self, _character_id: &str) -> Result<Option<CharacterCard>, StoreError> {
        Ok(None)
    }

    async fn list(&self) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }
}

#[async_trait]
impl SillyTavernSettings for NoUserData {
    async fn load(&self) -> Result<Option<Value>, StoreError> {
        Ok(None)
    }
}

#[async_trait]
impl PersonaAvatars for NoUserData {
    async fn list(&self) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }
}

#[async_trait]
impl Lorebooks for NoUserData {
    async fn list(&self) -> Result<Vec<String>, StoreError> {
        Ok(Vec::new())
    }

    async fn load(&self, _name: &str) -> Result<Option<Lorebook>, StoreError> {
        Ok(None)
    }
}

#[async_trait]
impl Groups for NoUserData {
    async fn load(&self, _group_id: &str) -> Result<Option<Group>, StoreError> {
        Ok(None)
    }

    async fn find_by_chat(&self, _chat_id: &str) -> Result<Option<Group>, StoreError> {
        Ok(None)
    }
}
