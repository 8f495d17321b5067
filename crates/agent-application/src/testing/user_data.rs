//! In-memory doubles of the ports over SillyTavern's own user data: its settings
//! ([`MemorySillyTavernSettings`]), persona avatars ([`MemoryPersonaAvatars`]), lorebooks
//! ([`MemoryLorebooks`]) and groups ([`MemoryGroups`]). Each can be told to fail, as an
//! unreadable file would make the real adapter.

use std::collections::BTreeMap;
use std::sync::Mutex;

use async_trait::async_trait;
use serde_json::Value;

use crate::ports::{
    Group, Groups, INVALID_WORLD_NAME, Lorebook, Lorebooks, PersonaAvatars, SillyTavernSettings,
    StoreError, WORLD_INVALID, compare_world_names,
};

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|p| p.into_inner())
}

/// What a double serves: its records, or the failure it was told to report.
#[derive(Debug)]
struct Served<T> {
    records: T,
    failure: Option<StoreError>,
}

impl<T: Default> Default for Served<T> {
    fn default() -> Self {
        Self {
            records: T::default(),
            failure: None,
        }
    }
}

impl<T> Served<T> {
    fn read<R>(&self, f: impl FnOnce(&T) -> Result<R, StoreError>) -> Result<R, StoreError> {
        match &self.failure {
            Some(error) => Err(error.clone()),
            None => f(&self.records),
        }
    }
}

/// SillyTavern's settings in memory; absent until [`Self::put`].
#[derive(Debug, Default)]
pub struct MemorySillyTavernSettings {
    state: Mutex<Served<Option<Value>>>,
}

impl MemorySillyTavernSettings {
    pub fn new() -> Self {
        Self::default()
    }

    /// Makes `settings` the settings document.
    pub fn put(&self, settings: Value) {
        lock(&self.state).records = Some(settings);
    }

    /// Makes every later load fail with `error` (as a damaged `settings.json` would).
    pub fn fail_with(&self, error: StoreError) {
        lock(&self.state).failure = Some(error);
    }
}

#[async_trait]
impl SillyTavernSettings for MemorySillyTavernSettings {
    async fn load(&self) -> Result<Option<Value>, StoreError> {
        lock(&self.state).read(|settings| Ok(settings.clone()))
    }
}

/// Persona avatar file names in memory.
#[derive(Debug, Default)]
pub struct MemoryPersonaAvatars {
    state: Mutex<Served<Vec<String>>>,
}

impl MemoryPersonaAvatars {
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the avatar file `avatar` (once).
    pub fn put(&self, avatar: &str) {
        let mut state = lock(&self.state);
        if !state.records.iter().any(|name| name == avatar) {
            state.records.push(avatar.to_owned());
            state.records.sort();
        }
    }

    /// Removes the avatar file `avatar`, as deleting a persona's image would.
    pub fn remove(&self, avatar: &str) {
        lock(&self.state).records.retain(|name| name != avatar);
    }

    /// Makes every later call fail with `error`.
    pub fn fail_with(&self, error: StoreError) {
        lock(&self.state).failure = Some(error);
    }
}

#[async_trait]
impl PersonaAvatars for MemoryPersonaAvatars {
    async fn list(&self) -> Result<Vec<String>, StoreError> {
        lock(&self.state).read(|avatars| Ok(avatars.clone()))
    }
}

/// Lorebook files in memory, by world name, kept as text and parsed on load as the real
/// adapter does (so a book put with broken JSON loads as [`StoreError::Damaged`]).
#[derive(Debug, Default)]
pub struct MemoryLorebooks {
    state: Mutex<Served<BTreeMap<String, String>>>,
}

impl MemoryLorebooks {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `text` as the file of world `name`.
    pub fn put(&self, name: &str, text: &str) {
        lock(&self.state)
            .records
            .insert(name.to_owned(), text.to_owned());
    }

    /// Makes every later call fail with `error`.
    pub fn fail_with(&self, error: StoreError) {
        lock(&self.state).failure = Some(error);
    }
}

#[async_trait]
impl Lorebooks for MemoryLorebooks {
    async fn list(&self) -> Result<Vec<String>, StoreError> {
        lock(&self.state).read(|books| {
            let mut names: Vec<String> = books.keys().cloned().collect();
            names.sort_by(|a, b| compare_world_names(a, b));
            Ok(names)
        })
    }

    async fn load(&self, name: &str) -> Result<Option<Lorebook>, StoreError> {
        if name.is_empty() || name == "." || name == ".." || name.contains(['/', '\\', '\0']) {
            return Err(StoreError::Invalid {
                code: INVALID_WORLD_NAME,
                message: format!("`{name}` cannot name a lorebook: it must be a plain file name"),
            });
        }
        lock(&self.state).read(|books| {
            let Some(text) = books.get(name) else {
                return Ok(None);
            };
            match serde_json::from_str(text) {
                Ok(value @ Value::Object(_)) => Ok(Some(Lorebook {
                    name: name.to_owned(),
                    text: text.clone(),
                    value,
                })),
                _ => Err(StoreError::Damaged {
                    code: WORLD_INVALID,
                    message: format!("world `{name}` is not a JSON object"),
                }),
            }
        })
    }
}

/// Groups in memory, by id.
#[derive(Debug, Default)]
pub struct MemoryGroups {
    state: Mutex<Served<BTreeMap<String, Group>>>,
}

impl MemoryGroups {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `group` under its id.
    pub fn put(&self, group: Group) {
        lock(&self.state).records.insert(group.id.clone(), group);
    }

    /// Makes every later call fail with `error`.
    pub fn fail_with(&self, error: StoreError) {
        lock(&self.state).failure = Some(error);
    }
}

#[async_trait]
impl Groups for MemoryGroups {
    async fn load(&self, group_id: &str) -> Result<Option<Group>, StoreError> {
        lock(&self.state).read(|groups| Ok(groups.get(group_id).cloned()))
    }

    async fn find_by_chat(&self, chat_id: &str) -> Result<Option<Group>, StoreError> {
        lock(&self.state).read(|groups| {
            Ok(groups
                .values()
                .find(|group| group.has_chat(chat_id))
                .cloned())
        })
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[tokio::test]
    async fn settings_are_absent_until_put() {
        let settings = MemorySillyTavernSettings::new();
        assert_eq!(settings.load().await.unwrap(), None);
        settings.put(json!({"username": "Ann"}));
        assert_eq!(
            settings.load().await.unwrap(),
            Some(json!({"username": "Ann"}))
        );
        settings.fail_with(StoreError::Io("gone".into()));
        assert!(settings.load().await.is_err());
    }

    #[tokio::test]
    async fn avatars_come_and_go() {
        let avatars = MemoryPersonaAvatars::new();
        avatars.put("user-default.png");
        avatars.put("alt.png");
        avatars.put("alt.png");
        assert_eq!(
            avatars.list().await.unwrap(),
            ["alt.png", "user-default.png"]
        );
        assert!(avatars.exists("alt.png").await.unwrap());
        avatars.remove("alt.png");
        assert!(!avatars.exists("alt.png").await.unwrap());
    }

    #[tokio::test]
    async fn lorebooks_keep_their_text_and_refuse_bad_names() {
        let books = MemoryLorebooks::new();
        books.put("eldoria", r#"{"entries": {"1": {"b": 1, "a": 2}}}"#);
        books.put("Broken", "{");
        assert_eq!(books.list().await.unwrap(), ["Broken", "eldoria"]);
        let book = books.load("eldoria").await.unwrap().unwrap();
        assert_eq!(book.text, r#"{"entries": {"1": {"b": 1, "a": 2}}}"#);
        assert_eq!(book.value["entries"]["1"]["a"], 2);
        assert_eq!(books.load("missing").await.unwrap(), None);
        let err = books.load("Broken").await.unwrap_err();
        assert!(matches!(
            err,
            StoreError::Damaged {
                code: WORLD_INVALID,
                ..
            }
        ));
        let err = books.load("../x").await.unwrap_err();
        assert!(matches!(
            err,
            StoreError::Invalid {
                code: INVALID_WORLD_NAME,
                ..
            }
        ));
    }

    #[tokio::test]
    async fn groups_are_found_by_their_chats() {
        let groups = MemoryGroups::new();
        groups.put(Group {
            id: "1".into(),
            name: "Party".into(),
            members: vec!["Seraphina.png".into()],
            disabled_members: Vec::new(),
            chat_id: Some("now".into()),
            chats: vec!["old".into(), "now".into()],
            raw: json!({"id": "1"}),
        });
        assert_eq!(groups.load("1").await.unwrap().unwrap().name, "Party");
        assert_eq!(
            groups.find_by_chat("old").await.unwrap().map(|g| g.id),
            Some("1".into())
        );
        assert_eq!(groups.find_by_chat("other").await.unwrap(), None);
    }
}
