//! The ports over SillyTavern's own user data, bundled for the services that resolve
//! personas, names, group speakers and world info from it.

use std::sync::Arc;

use super::{CharacterCards, Groups, Lorebooks, PersonaAvatars, SillyTavernSettings};

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
