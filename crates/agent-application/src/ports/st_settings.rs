//! SillyTavern's own user settings, as SillyTavern writes them (read-only here; not the
//! runtime's own settings, see [`SettingsStore`](super::SettingsStore)).

use async_trait::async_trait;
use serde_json::Value;

use super::StoreError;

/// The code of a `settings.json` that does not read ([`StoreError::Damaged`]).
pub const SETTINGS_INVALID: &str = "sillytavern.settings_invalid";

/// Read access to SillyTavern's user settings.
///
/// The document is handed over whole and untyped: persona names and descriptions
/// (`power_user.personas`, `power_user.persona_descriptions`), the world info settings
/// (`world_info_settings`), the active persona (`user_avatar`), tags and the API settings
/// all live in it, and each reader takes what it needs.
#[async_trait]
pub trait SillyTavernSettings: Send + Sync {
    /// The parsed settings; `None` when the file does not exist. A file that is not a JSON
    /// object is [`StoreError::Damaged`] with [`SETTINGS_INVALID`], naming the file and, for
    /// broken JSON, the line.
    async fn load(&self) -> Result<Option<Value>, StoreError>;
}
