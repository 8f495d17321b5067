//! Saved LLM connections, as validated [`ConnectionConfig`]s.

use agent_domain::ErrorCode;
use agent_domain::connection::{ConnectionConfig, ConnectionError};
use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::StoreError;

/// What a listing found: the usable connections and the stored ones that are not.
///
/// A broken file never breaks a listing (the same rule profiles follow): it is reported in
/// `problems` so a host can show it next to the good ones, and the good ones stay usable.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ConnectionList {
    /// Every connection that reads and validates, sorted by name.
    pub connections: Vec<ConnectionConfig>,
    /// Every stored connection that does not, sorted by name.
    pub problems: Vec<ConnectionProblem>,
}

/// A stored connection that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectionProblem {
    /// The name the stored record is kept under (for a file, its name without `.json`).
    pub name: String,
    /// The `connection.*` code of the first broken rule, e.g. `connection.kind_invalid`.
    pub code: String,
    pub message: String,
}

impl ConnectionProblem {
    /// The problem of the record stored as `name`.
    pub fn new(name: impl Into<String>, error: &ConnectionError) -> Self {
        Self {
            name: name.into(),
            code: error.code().to_owned(),
            message: error.to_string(),
        }
    }
}

/// Where named LLM connections are kept.
///
/// Names are checked before anything is looked up, and configs are validated before they
/// are written, so every store refuses the same things with the same codes: a bad name is
/// `connection.invalid_name`, a broken rule its own `connection.*` code. Those refusals and
/// the two below come back as [`StoreError::Invalid`] carrying the `connection.*` code (see
/// the `From<ConnectionError>` conversion), so hosts read one code whatever the store.
/// A stored record that no longer reads is [`StoreError::Integrity`] naming it.
#[async_trait]
pub trait ConnectionStore: Send + Sync {
    /// Every stored connection, sorted by name, with the broken ones set apart.
    async fn list(&self) -> Result<ConnectionList, StoreError>;
    /// The connection `name`; `None` when there is none.
    async fn get(&self, name: &str) -> Result<Option<ConnectionConfig>, StoreError>;
    /// Stores a new connection; `connection.already_exists` when one of that name exists,
    /// even when two callers race for the same name.
    async fn create(&self, config: &ConnectionConfig) -> Result<(), StoreError>;
    /// Stores the connection whether or not one of that name exists (replacing it
    /// atomically when it does).
    async fn replace(&self, config: &ConnectionConfig) -> Result<(), StoreError>;
    /// Removes the connection `name`; `connection.not_found` when there is none.
    async fn remove(&self, name: &str) -> Result<(), StoreError>;
}

/// A connection rule refusing the request becomes [`StoreError::Invalid`] with the rule's
/// own `connection.*` code, so the code survives the trip through the port.
impl From<ConnectionError> for StoreError {
    fn from(error: ConnectionError) -> Self {
        StoreError::Invalid {
            code: error.code(),
            message: error.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connection_codes_survive_the_store_error() {
        let error = ConnectionError::NotFound {
            name: "openai".into(),
        };
        let store: StoreError = error.clone().into();
        assert_eq!(store.code(), "connection.not_found");
        assert_eq!(store.to_string(), error.to_string());
        let problem = ConnectionProblem::new("x", &ConnectionError::ModelRequired);
        assert_eq!(problem.code, "connection.model_required");
    }
}
