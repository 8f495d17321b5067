//! An in-memory [`ProfileStore`]: profile texts by id, with the id checks of the file
//! store and an optional failure to stand in for an unreadable profile folder.

use std::collections::BTreeMap;
use std::sync::Mutex;

use agent_domain::profile::ProfileId;
use async_trait::async_trait;

use crate::ports::{ProfileStore, StoreError, StoredProfile};

#[derive(Debug, Default)]
struct State {
    texts: BTreeMap<String, String>,
    failure: Option<StoreError>,
}

/// Profile files in memory, listed in id order like the file store lists them.
#[derive(Debug, Default)]
pub struct MemoryProfiles {
    state: Mutex<State>,
}

impl MemoryProfiles {
    pub fn new() -> Self {
        Self::default()
    }

    fn with_state<T>(&self, f: impl FnOnce(&mut State) -> T) -> T {
        f(&mut self.state.lock().unwrap_or_else(|p| p.into_inner()))
    }

    /// Stores `text` as the file of `id`, whatever it contains.
    pub fn put(&self, id: &str, text: &str) {
        self.with_state(|s| s.texts.insert(id.to_owned(), text.to_owned()));
    }

    /// The stored text of `id`.
    pub fn text(&self, id: &str) -> Option<String> {
        self.with_state(|s| s.texts.get(id).cloned())
    }

    /// Makes every later call fail with `error`.
    pub fn fail_with(&self, error: StoreError) {
        self.with_state(|s| s.failure = Some(error));
    }

    fn call<T>(&self, f: impl FnOnce(&mut State) -> T) -> Result<T, StoreError> {
        self.with_state(|s| match &s.failure {
            Some(error) => Err(error.clone()),
            None => Ok(f(s)),
        })
    }
}

/// The file store refuses ids that cannot be file names; so does this one.
fn checked(id: &str) -> Result<&str, StoreError> {
    match ProfileId::parse(id) {
        Ok(parsed) if parsed.as_str() == id => Ok(id),
        _ => Err(StoreError::Invalid {
            code: "agent.profile_id_invalid",
            message: format!("`{id}` is not a profile id"),
        }),
    }
}

#[async_trait]
impl ProfileStore for MemoryProfiles {
    async fn list(&self) -> Result<Vec<StoredProfile>, StoreError> {
        self.call(|s| {
            s.texts
                .iter()
                .map(|(id, text)| StoredProfile {
                    id: id.clone(),
                    text: text.clone(),
                })
                .collect()
        })
    }

    async fn load(&self, id: &str) -> Result<Option<StoredProfile>, StoreError> {
        let id = checked(id)?;
        self.call(|s| {
            s.texts.get(id).map(|text| StoredProfile {
                id: id.to_owned(),
                text: text.clone(),
            })
        })
    }

    async fn save(&self, id: &str, text: &str) -> Result<(), StoreError> {
        let id = checked(id)?;
        self.call(|s| {
            s.texts.insert(id.to_owned(), text.to_owned());
        })
    }

    async fn delete(&self, id: &str) -> Result<bool, StoreError> {
        let id = checked(id)?;
        self.call(|s| s.texts.remove(id).is_some())
    }
}
