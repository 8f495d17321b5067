//! SillyTavern persona avatars: which persona images exist.
//!
//! A persona's id is its avatar file name (`user-default.png`); its name and description
//! live in SillyTavern's settings (see [`SillyTavernSettings`](super::SillyTavernSettings)).
//! A chat locks its persona by that id (`chat_metadata.persona`), and the lock only holds
//! while the avatar file still exists, which is what this port answers.

use async_trait::async_trait;

use super::StoreError;

/// Read access to the persona avatar folder.
#[async_trait]
pub trait PersonaAvatars: Send + Sync {
    /// The file names in the persona avatar folder, sorted by byte order; empty when the
    /// folder does not exist. Only regular files count (not folders, not links).
    async fn list(&self) -> Result<Vec<String>, StoreError>;

    /// Whether `avatar` is one of [`Self::list`]. A name that cannot be a plain file name
    /// is simply absent.
    async fn exists(&self, avatar: &str) -> Result<bool, StoreError> {
        Ok(self.list().await?.iter().any(|name| name == avatar))
    }
}
