//! [`FsMcpRegistry`]: MCP server registrations and their cached tool catalogs.
//!
//! ```text
//! _tauritavern/mcp/servers/<uuid>.json      one registration
//! _tauritavern/mcp/catalogs/<uuid>.json     its cached catalog (written by `refresh`)
//! ```
//!
//! Ids are checked to be UUIDs before any path is built. Writes are atomic (temp file +
//! rename). Listing is tolerant: a registration file that does not read is reported as a
//! problem with `mcp.registration_storage_issue` and the others are still listed.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use agent_application::ports::{
    McpRegistrationList, McpRegistrationProblem, McpRegistry, StoreError,
};
use agent_domain::mcp::{McpCatalog, McpRegistration, registration_id};
use async_trait::async_trait;

use crate::layout::{DataDir, record_file};
use crate::runs::store_io::{
    blocking, integrity, io_error, json_files, read_file, read_json, write_json,
};

/// The code of a stored registration that does not read.
const STORAGE_ISSUE: &str = "mcp.registration_storage_issue";

/// The MCP registrations of one data directory.
#[derive(Debug, Clone)]
pub struct FsMcpRegistry {
    data: DataDir,
}

impl FsMcpRegistry {
    pub fn new(data: DataDir) -> Self {
        Self { data }
    }

    fn file(dir: PathBuf, id: &str) -> Result<(String, PathBuf), StoreError> {
        let id = registration_id(id).map_err(|error| StoreError::Invalid {
            code: agent_domain::ErrorCode::code(&error),
            message: error.to_string(),
        })?;
        let path = record_file(&dir, &id);
        Ok((id, path))
    }
}

/// Reads a registration file; a document that does not parse, validate or match its file
/// name is `Err(message)`.
fn read_registration(
    path: &Path,
    stem: &str,
) -> Result<Option<Result<McpRegistration, String>>, StoreError> {
    let Some(bytes) = read_file(path)? else {
        return Ok(None);
    };
    let parsed = serde_json::from_slice::<McpRegistration>(&bytes)
        .map_err(|error| format!("{}: {error}", path.display()))
        .and_then(|registration| {
            registration
                .validate()
                .map_err(|error| format!("{}: {error}", path.display()))?;
            if registration.id != stem {
                return Err(format!(
                    "{}: the document's id `{}` does not match its file name",
                    path.display(),
                    registration.id
                ));
            }
            Ok(registration)
        });
    Ok(Some(parsed))
}

fn list(dir: &Path) -> Result<McpRegistrationList, StoreError> {
    let mut list = McpRegistrationList::default();
    for (stem, path) in json_files(dir)? {
        match read_registration(&path, &stem)? {
            Some(Ok(registration)) => list.registrations.push(registration),
            Some(Err(message)) => list.problems.push(McpRegistrationProblem {
                id: stem,
                code: STORAGE_ISSUE.to_owned(),
                message,
            }),
            None => {}
        }
    }
    list.registrations.sort_by(|a, b| {
        let key = |r: &McpRegistration| (r.display_name.to_lowercase(), r.id.clone());
        key(a).cmp(&key(b))
    });
    Ok(list)
}

fn remove_file(path: &Path) -> Result<bool, StoreError> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(err) if err.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(err) => Err(io_error(path, err)),
    }
}

#[async_trait]
impl McpRegistry for FsMcpRegistry {
    async fn list(&self) -> Result<McpRegistrationList, StoreError> {
        let dir = self.data.mcp_servers();
        blocking(move || list(&dir), StoreError::Io).await
    }

    async fn get(&self, id: &str) -> Result<Option<McpRegistration>, StoreError> {
        let (id, path) = Self::file(self.data.mcp_servers(), id)?;
        blocking(
            move || match read_registration(&path, &id)? {
                Some(Ok(registration)) => Ok(Some(registration)),
                Some(Err(message)) => {
                    Err(integrity(&path, format_args!("{STORAGE_ISSUE}: {message}")))
                }
                None => Ok(None),
            },
            StoreError::Io,
        )
        .await
    }

    async fn put(&self, registration: &McpRegistration) -> Result<(), StoreError> {
        registration
            .validate()
            .map_err(|error| StoreError::Invalid {
                code: agent_domain::ErrorCode::code(&error),
                message: error.to_string(),
            })?;
        let (_, path) = Self::file(self.data.mcp_servers(), &registration.id)?;
        let registration = registration.clone();
        blocking(move || write_json(&path, &registration), StoreError::Io).await
    }

    async fn remove(&self, id: &str) -> Result<(), StoreError> {
        let (id, path) = Self::file(self.data.mcp_servers(), id)?;
        let (_, catalog) = Self::file(self.data.mcp_catalogs(), &id)?;
        blocking(
            move || {
                if !remove_file(&path)? {
                    return Err(StoreError::NotFound(format!("MCP server {id}")));
                }
                remove_file(&catalog).map(drop)
            },
            StoreError::Io,
        )
        .await
    }

    async fn catalog(&self, id: &str) -> Result<Option<McpCatalog>, StoreError> {
        let (_, path) = Self::file(self.data.mcp_catalogs(), id)?;
        blocking(move || read_json(&path), StoreError::Io).await
    }

    async fn put_catalog(&self, catalog: &McpCatalog) -> Result<(), StoreError> {
        let (_, path) = Self::file(self.data.mcp_catalogs(), &catalog.registration_id)?;
        let catalog = catalog.clone();
        blocking(move || write_json(&path, &catalog), StoreError::Io).await
    }
}

#[cfg(test)]
mod tests {
    use agent_domain::mcp::{McpCatalog, McpToolDefinition, McpToolPermission, McpTransport};
    use serde_json::json;

    use super::*;

    const ID: &str = "0f8fad5b-d9cb-469f-a165-70867728950e";

    fn registration(id: &str, name: &str) -> McpRegistration {
        let transport = McpTransport::StreamableHttp {
            url: "https://mcp.example.com/mcp".into(),
            headers: vec![],
        };
        McpRegistration::new(id.into(), name.into(), transport).unwrap()
    }

    #[tokio::test]
    async fn registrations_and_catalogs_round_trip_and_remove_together() {
        let dir = tempfile::tempdir().unwrap();
        let store = FsMcpRegistry::new(DataDir::new(dir.path()));
        assert_eq!(store.list().await.unwrap(), McpRegistrationList::default());

        let mut files = registration(ID, "files");
        files
            .permissions
            .insert("read".into(), McpToolPermission::Allow);
        store.put(&files).await.unwrap();
        let other = registration("1f8fad5b-d9cb-469f-a165-70867728950e", "Alpha");
        store.put(&other).await.unwrap();
        let catalog = McpCatalog {
            registration_id: ID.into(),
            refreshed_at: "2026-01-01T00:00:00Z".into(),
            tools: vec![McpToolDefinition {
                name: "read".into(),
                title: None,
                description: "Reads.".into(),
                input_schema: json!({"type": "object"}),
                output_schema: None,
                annotations: serde_json::Value::Null,
            }],
        };
        store.put_catalog(&catalog).await.unwrap();

        let on_disk = dir
            .path()
            .join(format!("_tauritavern/mcp/servers/{ID}.json"));
        assert!(on_disk.is_file());
        let listed = store.list().await.unwrap();
        assert_eq!(listed.registrations, vec![other.clone(), files.clone()]);
        assert_eq!(store.get(ID).await.unwrap(), Some(files));
        assert_eq!(store.catalog(ID).await.unwrap(), Some(catalog));

        store.remove(ID).await.unwrap();
        assert_eq!(store.get(ID).await.unwrap(), None);
        assert_eq!(store.catalog(ID).await.unwrap(), None);
        assert!(matches!(
            store.remove(ID).await,
            Err(StoreError::NotFound(_))
        ));
    }

    #[tokio::test]
    async fn broken_files_are_problems_and_bad_ids_never_become_paths() {
        let dir = tempfile::tempdir().unwrap();
        let store = FsMcpRegistry::new(DataDir::new(dir.path()));
        let folder = dir.path().join("_tauritavern/mcp/servers");
        fs::create_dir_all(&folder).unwrap();
        fs::write(folder.join(format!("{ID}.json")), "{ not json").unwrap();
        let listed = store.list().await.unwrap();
        assert!(listed.registrations.is_empty());
        assert_eq!(listed.problems.len(), 1);
        assert_eq!(listed.problems[0].code, "mcp.registration_storage_issue");
        assert!(matches!(store.get(ID).await, Err(StoreError::Integrity(_))));

        // A registration of a schema version this build does not know is refused on write
        // with its own code, and listed as a problem (naming the version) when found stored.
        let mut future = registration(ID, "files");
        future.schema_version = 2;
        let refused = store.put(&future).await.unwrap_err();
        assert_eq!(
            agent_domain::ErrorCode::code(&refused),
            "mcp.registration_schema_unsupported"
        );
        fs::write(
            folder.join(format!("{ID}.json")),
            serde_json::to_vec(&future).unwrap(),
        )
        .unwrap();
        let listed = store.list().await.unwrap();
        assert_eq!(listed.problems[0].code, "mcp.registration_storage_issue");
        assert!(
            listed.problems[0].message.contains("schema version 2"),
            "{:?}",
            listed.problems[0]
        );

        let err = store.get("../../etc/passwd").await.unwrap_err();
        assert_eq!(
            agent_domain::ErrorCode::code(&err),
            "mcp.registration_id_invalid"
        );
    }
}
