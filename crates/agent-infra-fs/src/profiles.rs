//! [`FsProfileStore`] (agent profiles as raw JSON files) and [`FsSettingsStore`] (the host
//! settings document).
//!
//! ```text
//! _tauritavern/agent-profiles/profiles/<id>.json
//! _tauritavern/agent-profiles/.staging/<id>.<uuid>.json   a save in progress
//! _tauritavern/settings.json
//! ```
//!
//! The stores keep text; parsing, migration and validation belong to the domain. File names
//! are ids, so ids are checked before they touch the disk.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{ProfileStore, SettingsStore, StoreError, StoredProfile};
use agent_domain::profile::ProfileId;
use async_trait::async_trait;
use serde_json::Value;

use crate::atomic::{sync_dir, write_atomic};
use crate::layout::DataDir;
use crate::runs::store_io::{
    blocking, integrity, io_error, json_files, read_file, read_json, write_json,
};

/// Whether `raw` is exactly a `[a-z0-9_-]{1,128}` name, the shape of profile ids and skill
/// names (and so safe as a file or folder name everywhere).
pub(crate) fn is_simple_name(raw: &str) -> bool {
    ProfileId::parse(raw).is_ok_and(|id| id.as_str() == raw)
}

fn checked_id(id: &str) -> Result<&str, StoreError> {
    if is_simple_name(id) {
        Ok(id)
    } else {
        Err(StoreError::Invalid {
            code: "agent.profile_id_invalid",
            message: format!(
                "`{id}` is not a profile id: use 1-128 characters of a-z, 0-9, `_` and `-`"
            ),
        })
    }
}

/// Agent profiles, one `<id>.json` each. Files whose names are not valid ids are not
/// profiles and are left alone.
#[derive(Debug, Clone)]
pub struct FsProfileStore {
    data: DataDir,
}

impl FsProfileStore {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }

    fn profile_file(&self, id: &str) -> PathBuf {
        self.data.profile_file(id)
    }
}

fn read_profile(path: &Path, id: &str) -> Result<Option<StoredProfile>, StoreError> {
    let Some(bytes) = read_file(path)? else {
        return Ok(None);
    };
    let text = String::from_utf8(bytes).map_err(|_| integrity(path, "is not UTF-8 text"))?;
    Ok(Some(StoredProfile {
        id: id.to_owned(),
        text,
    }))
}

fn list_profiles(dir: &Path) -> Result<Vec<StoredProfile>, StoreError> {
    let mut profiles = Vec::new();
    for (stem, path) in json_files(dir)? {
        if is_simple_name(&stem)
            && let Some(profile) = read_profile(&path, &stem)?
        {
            profiles.push(profile);
        }
    }
    Ok(profiles)
}

/// Stages the text in `staging/<id>.<uuid>.json`, then renames it over `target`.
fn save_profile(staging: &Path, target: &Path, id: &str, text: &str) -> Result<(), StoreError> {
    let staged = staging.join(format!("{id}.{}.json", uuid::Uuid::new_v4().simple()));
    write_atomic(&staged, text.as_bytes()).map_err(|err| io_error(&staged, err))?;
    let moved = target
        .parent()
        .map_or(Ok(()), fs::create_dir_all)
        .and_then(|()| fs::rename(&staged, target));
    if let Err(err) = moved {
        let _ = fs::remove_file(&staged);
        return Err(io_error(target, err));
    }
    if let Some(parent) = target.parent() {
        sync_dir(parent);
    }
    Ok(())
}

fn delete_profile(path: &Path) -> Result<bool, StoreError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(io_error(path, err)),
    }
}

#[async_trait]
impl ProfileStore for FsProfileStore {
    async fn list(&self) -> Result<Vec<StoredProfile>, StoreError> {
        let dir = self.data.profiles_dir();
        blocking(move || list_profiles(&dir), StoreError::Io).await
    }

    async fn load(&self, id: &str) -> Result<Option<StoredProfile>, StoreError> {
        let id = checked_id(id)?.to_owned();
        let path = self.profile_file(&id);
        blocking(move || read_profile(&path, &id), StoreError::Io).await
    }

    async fn save(&self, id: &str, text: &str) -> Result<(), StoreError> {
        let id = checked_id(id)?.to_owned();
        let (staging, target, text) = (
            self.data.profiles_staging(),
            self.profile_file(&id),
            text.to_owned(),
        );
        blocking(
            move || save_profile(&staging, &target, &id, &text),
            StoreError::Io,
        )
        .await
    }

    async fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let path = self.profile_file(checked_id(id)?);
        blocking(move || delete_profile(&path), StoreError::Io).await
    }
}

/// The host settings document, `_tauritavern/settings.json`.
#[derive(Debug, Clone)]
pub struct FsSettingsStore {
    data: DataDir,
}

impl FsSettingsStore {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }
}

#[async_trait]
impl SettingsStore for FsSettingsStore {
    async fn load(&self) -> Result<Value, StoreError> {
        let path = self.data.settings_file();
        blocking(
            move || Ok(read_json(&path)?.unwrap_or_else(|| Value::Object(Default::default()))),
            StoreError::Io,
        )
        .await
    }

    async fn save(&self, settings: &Value) -> Result<(), StoreError> {
        let (path, settings) = (self.data.settings_file(), settings.clone());
        blocking(move || write_json(&path, &settings), StoreError::Io).await
    }
}
