//! An in-memory [`ConnectionStore`]: connection documents by name, with the checks of the
//! file store, so services and hosts can be tested without a data directory.

use std::collections::BTreeMap;
use std::sync::Mutex;

use agent_domain::connection::{ConnectionConfig, ConnectionError, ConnectionName};
use async_trait::async_trait;

use crate::ports::{ConnectionList, ConnectionProblem, ConnectionStore, StoreError};

/// Connection documents in memory, by name. [`put_text`](Self::put_text) stores any text,
/// so a broken record can be listed like a broken file.
#[derive(Debug, Default)]
pub struct MemoryConnections {
    texts: Mutex<BTreeMap<String, String>>,
}

impl MemoryConnections {
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores `text` as the record of `name`, whatever it contains.
    pub fn put_text(&self, name: &str, text: &str) {
        self.with(|texts| texts.insert(name.to_owned(), text.to_owned()));
    }

    fn with<T>(&self, f: impl FnOnce(&mut BTreeMap<String, String>) -> T) -> T {
        f(&mut self.texts.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn write(&self, config: &ConnectionConfig, create: bool) -> Result<(), StoreError> {
        config.validate()?;
        let text = serde_json::to_string_pretty(config)
            .map_err(|err| StoreError::Integrity(err.to_string()))?;
        let name = config.connection_name()?;
        self.with(|texts| {
            if let Some(existing) = texts.keys().find(|stored| name.clashes_with(stored)) {
                return Err(ConnectionError::NameClash {
                    name: config.name.clone(),
                    existing: existing.clone(),
                }
                .into());
            }
            if create && texts.contains_key(&config.name) {
                return Err(ConnectionError::AlreadyExists {
                    name: config.name.clone(),
                }
                .into());
            }
            texts.insert(config.name.clone(), text);
            Ok(())
        })
    }
}

/// A stored text read like a file: the document must parse, validate and carry its name.
fn read(name: &str, text: &str) -> Result<ConnectionConfig, ConnectionError> {
    let config = ConnectionConfig::from_json(text)?;
    if config.name != name {
        return Err(ConnectionError::NameMismatch {
            file_name: name.to_owned(),
            document_name: config.name,
        });
    }
    Ok(config)
}

#[async_trait]
impl ConnectionStore for MemoryConnections {
    async fn list(&self) -> Result<ConnectionList, StoreError> {
        Ok(self.with(|texts| {
            let mut list = ConnectionList::default();
            for (name, text) in texts.iter() {
                match read(name, text) {
                    Ok(config) => list.connections.push(config),
                    Err(error) => list.problems.push(ConnectionProblem::new(name, &error)),
                }
            }
            list
        }))
    }

    async fn get(&self, name: &str) -> Result<Option<ConnectionConfig>, StoreError> {
        let name = ConnectionName::parse(name)?;
        self.with(|texts| {
            texts
                .get(name.as_str())
                .map(|text| {
                    read(name.as_str(), text)
                        .map_err(|err| StoreError::Integrity(format!("connection {name}: {err}")))
                })
                .transpose()
        })
    }

    async fn create(&self, config: &ConnectionConfig) -> Result<(), StoreError> {
        self.write(config, true)
    }

    async fn replace(&self, config: &ConnectionConfig) -> Result<(), StoreError> {
        self.write(config, false)
    }

    async fn remove(&self, name: &str) -> Result<(), StoreError> {
        let name = ConnectionName::parse(name)?;
        match self.with(|texts| texts.remove(name.as_str())) {
            Some(_) => Ok(()),
            None => Err(ConnectionError::NotFound {
                name: name.to_string(),
            }
            .into()),
        }
    }
}

#[cfg(test)]
mod tests {
    use agent_domain::ErrorCode;
    use agent_domain::connection::ProviderFormat;

    use super::*;

    #[tokio::test]
    async fn the_memory_store_keeps_the_port_contract() {
        let store = MemoryConnections::new();
        let config = ConnectionConfig::new("b", ProviderFormat::Gemini, "gemini-2.5-pro");
        store.create(&config).await.unwrap();
        let err = store.create(&config).await.unwrap_err();
        assert_eq!(err.code(), "connection.already_exists");
        store.replace(&config).await.unwrap();
        store.put_text("a", "{");
        let list = store.list().await.unwrap();
        assert_eq!(list.connections, std::slice::from_ref(&config));
        assert_eq!(list.problems[0].code, "connection.contract_invalid");
        assert_eq!(store.get("b").await.unwrap(), Some(config));
        assert!(store.get("c").await.unwrap().is_none());
        let err = store.get("../b").await.unwrap_err();
        assert_eq!(err.code(), "connection.invalid_name");
        store.remove("b").await.unwrap();
        let err = store.remove("b").await.unwrap_err();
        assert_eq!(err.code(), "connection.not_found");
        let bad = ConnectionConfig::new("c", ProviderFormat::Anthropic, " ");
        let err = store.create(&bad).await.unwrap_err();
        assert_eq!(err.code(), "connection.model_required");
    }
}
