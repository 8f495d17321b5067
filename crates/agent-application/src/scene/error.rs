//! [`SceneError`]: why the scene of a chat could not be gathered.

use agent_domain::ErrorCode;
use agent_domain::sillytavern::SpeakerChoice;

use crate::ports::{ChatError, StoreError};

/// The user data a scene is read from is damaged, or the member asked for is not in the
/// group. Every variant keeps the code of its cause.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SceneError {
    #[error("SillyTavern settings: {0}")]
    Settings(StoreError),
    #[error("character card: {0}")]
    Card(StoreError),
    #[error("group: {0}")]
    Group(StoreError),
    #[error("persona avatars: {0}")]
    Personas(StoreError),
    #[error(transparent)]
    Chat(#[from] ChatError),
    #[error(transparent)]
    Speaker(#[from] SpeakerChoice),
}

impl ErrorCode for SceneError {
    fn code(&self) -> &'static str {
        match self {
            Self::Settings(error)
            | Self::Card(error)
            | Self::Group(error)
            | Self::Personas(error) => error.code(),
            Self::Chat(error) => error.code(),
            Self::Speaker(error) => error.code(),
        }
    }
}
