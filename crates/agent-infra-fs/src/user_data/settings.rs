//! [`FsSillyTavernSettings`]: SillyTavern's `settings.json` at the root of the data folder.

use agent_application::ports::{SETTINGS_INVALID, SillyTavernSettings, StoreError};
use async_trait::async_trait;
use serde_json::Value;

use super::read_object;
use crate::layout::DataDir;
use crate::runs::store_io::blocking;

/// SillyTavern's user settings of one data directory, read-only.
#[derive(Debug, Clone)]
pub struct FsSillyTavernSettings {
    data: DataDir,
}

impl FsSillyTavernSettings {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }

    /// [`SillyTavernSettings::load`] without the async wrapper (blocking).
    pub fn load_blocking(&self) -> Result<Option<Value>, StoreError> {
        let path = self.data.sillytavern_settings_file();
        Ok(read_object(&path, SETTINGS_INVALID)?.map(|read| Value::Object(read.object)))
    }
}

#[async_trait]
impl SillyTavernSettings for FsSillyTavernSettings {
    async fn load(&self) -> Result<Option<Value>, StoreError> {
        let settings = self.clone();
        blocking(move || settings.load_blocking(), StoreError::Io).await
    }
}
