//! Stored agent profiles and host settings, as raw JSON the domain parses and validates.

use async_trait::async_trait;
use serde_json::Value;

use super::StoreError;

/// A profile file as stored: its id (from the file name) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredProfile {
    pub id: String,
    pub text: String,
}

#[async_trait]
pub trait ProfileStore: Send + Sync {
    /// Every stored profile, by id.
    async fn list(&self) -> Result<Vec<StoredProfile>, StoreError>;
    async fn load(&self, id: &str) -> Result<Option<StoredProfile>, StoreError>;
    /// Writes atomically (staged, then renamed into place).
    async fn save(&self, id: &str, text: &str) -> Result<(), StoreError>;
    /// Returns whether a profile was removed.
    async fn delete(&self, id: &str) -> Result<bool, StoreError>;
}

#[async_trait]
pub trait SettingsStore: Send + Sync {
    /// The settings document; `{}` when none was saved yet.
    async fn load(&self) -> Result<Value, StoreError>;
    async fn save(&self, settings: &Value) -> Result<(), StoreError>;
}
