//! Managing MCP servers: add, import, list, show, remove, pause, resume, refresh the cached
//! catalog and set per-tool permissions.
//!
//! The catalog agents see is the cached one only; `refresh` is the single place that talks
//! to a server to list its tools. Discovery never grants authority: tools a refresh finds
//! stay `Off` until a permission is set.

mod entries;
mod import;

use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::mcp::{
    McpCatalog, McpError, McpRegistration, McpRegistrationError, McpServerStatus,
    McpToolPermission, McpTransport, registration_id_from_hex,
};
use agent_domain::tool::{AliasAllocator, ToolId};

use crate::ports::{
    Clock, IdSource, McpConnector, McpNotice, McpNoticeSink, McpRegistrationList, McpRegistry,
    StoreError,
};

pub use entries::snapshot_entries;
pub use import::{McpImportError, McpImported, McpProblem, parse_import};

/// One tool of a server as listings show it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct McpToolView {
    pub tool_id: String,
    /// The alias a model would see when this is the only server (the real alias is
    /// allocated per invocation and may gain a `__2` suffix on collision).
    pub alias: String,
    pub permission: McpToolPermission,
    pub description: String,
}

/// Why a management request failed.
#[derive(Debug, thiserror::Error)]
pub enum McpServiceError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error(transparent)]
    Registration(#[from] McpRegistrationError),
    #[error(transparent)]
    Server(#[from] McpError),
    #[error("no MCP server is named `{0}`")]
    NotFound(String),
    #[error("an MCP server named `{0}` already exists")]
    NameTaken(String),
    #[error("MCP server `{0}` has no cached catalog; run `mcp refresh {0}` first")]
    CatalogNotCached(String),
    #[error("MCP server `{server}` has no tool `{tool}` in its cached catalog")]
    ToolNotInCatalog { server: String, tool: String },
}

impl ErrorCode for McpServiceError {
    fn code(&self) -> &'static str {
        match self {
            Self::Store(error) => error.code(),
            Self::Registration(error) => error.code(),
            Self::Server(error) => error.code(),
            Self::NotFound(_) => "mcp.registration_not_found",
            Self::NameTaken(_) => "mcp.server_name_taken",
            Self::CatalogNotCached(_) => "mcp.catalog_not_cached",
            Self::ToolNotInCatalog { .. } => "mcp.tool_not_in_cached_catalog",
        }
    }
}

/// Drops every notice: management listings have nobody to show progress to.
struct Discard;

impl McpNoticeSink for Discard {
    fn notice(&self, _notice: McpNotice) {}
}

/// The MCP management service.
#[derive(Clone)]
pub struct McpServers {
    registry: Arc<dyn McpRegistry>,
    connector: Arc<dyn McpConnector>,
    clock: Arc<dyn Clock>,
    ids: Arc<dyn IdSource>,
}

impl std::fmt::Debug for McpServers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServers").finish_non_exhaustive()
    }
}

impl McpServers {
    pub fn new(
        registry: Arc<dyn McpRegistry>,
        connector: Arc<dyn McpConnector>,
        clock: Arc<dyn Clock>,
        ids: Arc<dyn IdSource>,
    ) -> Self {
        Self {
            registry,
            connector,
            clock,
            ids,
        }
    }

    /// Stores a new Active registration with every tool Off. Names are unique ignoring case.
    pub async fn add(
        &self,
        name: &str,
        transport: McpTransport,
    ) -> Result<McpRegistration, McpServiceError> {
        let existing = self.registry.list().await?;
        if existing
            .registrations
            .iter()
            .any(|r| r.display_name.to_lowercase() == name.to_lowercase())
        {
            return Err(McpServiceError::NameTaken(name.to_owned()));
        }
        let id = registration_id_from_hex(&self.ids.new_hex_id())?;
        let registration = McpRegistration::new(id, name.to_owned(), transport)?;
        self.registry.put(&registration).await?;
        Ok(registration)
    }

    pub async fn list(&self) -> Result<McpRegistrationList, McpServiceError> {
        Ok(self.registry.list().await?)
    }

    /// The registration named `name` (ignoring case) or with id `name`.
    pub async fn find(&self, name: &str) -> Result<McpRegistration, McpServiceError> {
        let list = self.registry.list().await?;
        list.registrations
            .into_iter()
            .find(|r| {
                r.id == name.to_lowercase() || r.display_name.to_lowercase() == name.to_lowercase()
            })
            .ok_or_else(|| McpServiceError::NotFound(name.to_owned()))
    }

    /// The registration and its cached catalog, if any.
    pub async fn show(
        &self,
        name: &str,
    ) -> Result<(McpRegistration, Option<McpCatalog>), McpServiceError> {
        let registration = self.find(name).await?;
        let catalog = self.registry.catalog(&registration.id).await?;
        Ok((registration, catalog))
    }

    pub async fn remove(&self, name: &str) -> Result<McpRegistration, McpServiceError> {
        let registration = self.find(name).await?;
        self.registry.remove(&registration.id).await?;
        Ok(registration)
    }

    pub async fn set_status(
        &self,
        name: &str,
        status: McpServerStatus,
    ) -> Result<McpRegistration, McpServiceError> {
        let mut registration = self.find(name).await?;
        registration.status = status;
        self.registry.put(&registration).await?;
        Ok(registration)
    }

    /// Lists the server's tools now and replaces the cached catalog. Permissions are kept;
    /// new tools are Off.
    pub async fn refresh(&self, name: &str) -> Result<McpCatalog, McpServiceError> {
        let registration = self.find(name).await?;
        let session = self
            .connector
            .connect(&registration.transport, Arc::new(Discard))
            .await?;
        let tools = session.list_tools().await;
        session.close().await;
        let catalog = McpCatalog {
            registration_id: registration.id.clone(),
            refreshed_at: self.clock.now_rfc3339(),
            tools: tools?,
        };
        self.registry.put_catalog(&catalog).await?;
        Ok(catalog)
    }

    /// Each cached tool with its ToolId, alias and permission.
    pub async fn tools(&self, name: &str) -> Result<Vec<McpToolView>, McpServiceError> {
        let (registration, catalog) = self.show(name).await?;
        let catalog = catalog.ok_or_else(|| McpServiceError::CatalogNotCached(name.to_owned()))?;
        let mut aliases = AliasAllocator::default();
        catalog
            .tools
            .iter()
            .map(|tool| {
                let id = ToolId::mcp(&registration.id, &tool.name).map_err(|_| {
                    McpServiceError::ToolNotInCatalog {
                        server: registration.display_name.clone(),
                        tool: tool.name.clone(),
                    }
                })?;
                Ok(McpToolView {
                    tool_id: id.to_string(),
                    alias: aliases.allocate_mcp(&registration.display_name, &tool.name),
                    permission: registration.permission(&tool.name),
                    description: tool.description.clone(),
                })
            })
            .collect()
    }

    /// Every cached tool a profile could be given (active server, permission not off), with
    /// its alias as `tools` shows it, ordered by server name (ignoring case), then ToolId.
    pub async fn usable_tools(
        &self,
    ) -> Result<Vec<(String, agent_domain::tool::ToolDescriptor)>, McpServiceError> {
        let mut usable = Vec::new();
        for registration in self.registry.list().await?.registrations {
            if registration.status != McpServerStatus::Active {
                continue;
            }
            let Some(catalog) = self.registry.catalog(&registration.id).await? else {
                continue;
            };
            // Listed for another registration: snapshots leave it out too.
            if catalog.registration_id != registration.id {
                continue;
            }
            let mut aliases = AliasAllocator::default();
            let mut tools: Vec<_> = catalog
                .tools
                .iter()
                .map(|tool| {
                    let alias = aliases.allocate_mcp(&registration.display_name, &tool.name);
                    (alias, tool)
                })
                .filter(|(_, tool)| registration.permission(&tool.name) != McpToolPermission::Off)
                .filter_map(|(alias, tool)| Some((alias, tool.descriptor(&registration.id).ok()?)))
                .collect();
            tools.sort_by(|a, b| a.1.id.cmp(&b.1.id));
            usable.extend(tools);
        }
        Ok(usable)
    }

    /// Sets the permission of one cached tool, or of every cached tool when `tool` is `*`.
    /// Returns the names of the tools changed.
    pub async fn set_permission(
        &self,
        name: &str,
        tool: &str,
        permission: McpToolPermission,
    ) -> Result<Vec<String>, McpServiceError> {
        let (mut registration, catalog) = self.show(name).await?;
        let catalog = catalog.ok_or_else(|| McpServiceError::CatalogNotCached(name.to_owned()))?;
        let names: Vec<String> = if tool == "*" {
            catalog.tools.iter().map(|t| t.name.clone()).collect()
        } else if catalog.tool(tool).is_some() {
            vec![tool.to_owned()]
        } else {
            return Err(McpServiceError::ToolNotInCatalog {
                server: registration.display_name,
                tool: tool.to_owned(),
            });
        };
        for tool in &names {
            match permission {
                McpToolPermission::Off => registration.permissions.remove(tool),
                other => registration.permissions.insert(tool.clone(), other),
            };
        }
        self.registry.put(&registration).await?;
        Ok(names)
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use agent_domain::tool::McpToolEntry;

    use agent_domain::mcp::{McpCallOutcome, McpErrorKind, McpToolDefinition};
    use async_trait::async_trait;
    use serde_json::{Map, Value, json};
    use tokio_util::sync::CancellationToken;

    use super::*;
    use crate::ports::McpSession;
    use crate::testing::{FixedClock, SequentialIds};

    #[derive(Default)]
    struct MemoryRegistry {
        servers: Mutex<BTreeMap<String, McpRegistration>>,
        catalogs: Mutex<BTreeMap<String, McpCatalog>>,
    }

    #[async_trait]
    impl McpRegistry for MemoryRegistry {
        async fn list(&self) -> Result<McpRegistrationList, StoreError> {
            Ok(McpRegistrationList {
                registrations: self.servers.lock().unwrap().values().cloned().collect(),
                problems: vec![],
            })
        }
        async fn get(&self, id: &str) -> Result<Option<McpRegistration>, StoreError> {
            Ok(self.servers.lock().unwrap().get(id).cloned())
        }
        async fn put(&self, registration: &McpRegistration) -> Result<(), StoreError> {
            self.servers
                .lock()
                .unwrap()
                .insert(registration.id.clone(), registration.clone());
            Ok(())
        }
        async fn remove(&self, id: &str) -> Result<(), StoreError> {
            self.catalogs.lock().unwrap().remove(id);
            self.servers
                .lock()
                .unwrap()
                .remove(id)
                .map(drop)
                .ok_or_else(|| StoreError::NotFound(id.to_owned()))
        }
        async fn catalog(&self, id: &str) -> Result<Option<McpCatalog>, StoreError> {
            Ok(self.catalogs.lock().unwrap().get(id).cloned())
        }
        async fn put_catalog(&self, catalog: &McpCatalog) -> Result<(), StoreError> {
            self.catalogs
                .lock()
                .unwrap()
                .insert(catalog.registration_id.clone(), catalog.clone());
            Ok(())
        }
    }

    /// A server with the tools `issue.create` and `issue.list`; a URL containing `down`
    /// cannot be reached.
    struct FakeConnector;

    #[derive(Debug)]
    struct FakeSession;

    #[async_trait]
    impl McpConnector for FakeConnector {
        async fn connect(
            &self,
            transport: &McpTransport,
            _notices: Arc<dyn McpNoticeSink>,
        ) -> Result<Box<dyn McpSession>, McpError> {
            match transport {
                McpTransport::StreamableHttp { url, .. } if url.contains("down") => {
                    Err(McpError::new(McpErrorKind::ConnectFailed, "refused"))
                }
                _ => Ok(Box::new(FakeSession)),
            }
        }
    }

    #[async_trait]
    impl McpSession for FakeSession {
        async fn list_tools(&self) -> Result<Vec<McpToolDefinition>, McpError> {
            Ok(["issue.create", "issue.list"]
                .into_iter()
                .map(|name| McpToolDefinition {
                    name: name.into(),
                    title: None,
                    description: format!("{name}."),
                    input_schema: json!({"type": "object"}),
                    output_schema: None,
                    annotations: Value::Null,
                })
                .collect())
        }
        async fn call_tool(
            &self,
            _name: &str,
            _arguments: Map<String, Value>,
            _cancel: &CancellationToken,
        ) -> Result<McpCallOutcome, McpError> {
            Err(McpError::new(McpErrorKind::ProtocolError, "not used"))
        }
        async fn close(&self) {}
    }

    fn service() -> McpServers {
        McpServers::new(
            Arc::new(MemoryRegistry::default()),
            Arc::new(FakeConnector),
            Arc::new(FixedClock::default()),
            Arc::new(SequentialIds::default()),
        )
    }

    fn http(url: &str) -> McpTransport {
        McpTransport::StreamableHttp {
            url: url.into(),
            headers: vec![],
        }
    }

    #[tokio::test]
    async fn add_refresh_and_permit_tools() {
        let servers = service();
        let added = servers
            .add("My Server", http("https://x/mcp"))
            .await
            .unwrap();
        assert_eq!(added.id, "00000000-0000-0000-0000-000000000001");
        let taken = servers
            .add("my server", http("https://y/mcp"))
            .await
            .unwrap_err();
        assert_eq!(taken.code(), "mcp.server_name_taken");

        let not_cached = servers.tools("my server").await.unwrap_err();
        assert_eq!(not_cached.code(), "mcp.catalog_not_cached");
        servers.refresh("My Server").await.unwrap();

        let tools = servers.tools("My Server").await.unwrap();
        assert_eq!(tools.len(), 2);
        assert_eq!(
            tools[0].tool_id,
            "mcp/00000000-0000-0000-0000-000000000001:issue.create"
        );
        assert_eq!(tools[0].alias, "mcp__My_Server__issue_create");
        assert!(tools.iter().all(|t| t.permission == McpToolPermission::Off));

        let changed = servers
            .set_permission("My Server", "issue.list", McpToolPermission::Allow)
            .await
            .unwrap();
        assert_eq!(changed, vec!["issue.list"]);
        let unknown = servers
            .set_permission("My Server", "issue.delete", McpToolPermission::Allow)
            .await
            .unwrap_err();
        assert_eq!(unknown.code(), "mcp.tool_not_in_cached_catalog");
        servers
            .set_permission("My Server", "*", McpToolPermission::Ask)
            .await
            .unwrap();
        let tools = servers.tools(&added.id).await.unwrap();
        assert!(tools.iter().all(|t| t.permission == McpToolPermission::Ask));
        servers
            .set_permission("My Server", "issue.create", McpToolPermission::Off)
            .await
            .unwrap();
        let usable = servers.usable_tools().await.unwrap();
        assert_eq!(usable.len(), 1);
        assert_eq!(usable[0].0, "mcp__My_Server__issue_list");

        let paused = servers
            .set_status("my server", McpServerStatus::Paused)
            .await
            .unwrap();
        assert_eq!(paused.status, McpServerStatus::Paused);
        servers.remove("My Server").await.unwrap();
        assert_eq!(
            servers.find("My Server").await.unwrap_err().code(),
            "mcp.registration_not_found"
        );
    }

    #[tokio::test]
    async fn snapshot_entries_come_from_the_cache_with_a_code_for_each_omission() {
        let registry = Arc::new(MemoryRegistry::default());
        let servers = McpServers::new(
            registry.clone(),
            Arc::new(FakeConnector),
            Arc::new(FixedClock::default()),
            Arc::new(SequentialIds::default()),
        );
        let one = servers.add("one", http("https://one/mcp")).await.unwrap();
        let two = servers.add("two", http("https://two/mcp")).await.unwrap();
        servers.refresh("one").await.unwrap();
        servers
            .set_permission("one", "issue.create", McpToolPermission::Allow)
            .await
            .unwrap();
        let tool = |reg: &McpRegistration, name: &str| ToolId::mcp(&reg.id, name).unwrap();
        let gone = ToolId::mcp("11111111-2222-4333-8444-555555555555", "x").unwrap();
        let allowed = vec![
            ToolId::builtin("workspace.read_file").unwrap(),
            tool(&one, "issue.create"),
            tool(&one, "issue.list"),
            tool(&one, "issue.delete"),
            tool(&two, "anything"),
            gone.clone(),
        ];
        let code = |entries: &BTreeMap<ToolId, McpToolEntry>, id: &ToolId| match &entries[id] {
            McpToolEntry::Available { .. } => "available".to_owned(),
            McpToolEntry::Unavailable { code, .. } => code.clone(),
        };

        let entries = snapshot_entries(registry.as_ref(), &allowed).await;
        assert_eq!(entries.len(), 5, "builtins are not MCP entries");
        assert_eq!(code(&entries, &allowed[1]), "available");
        assert_eq!(code(&entries, &allowed[2]), "mcp.tool_permission_off");
        assert_eq!(
            code(&entries, &allowed[3]),
            "mcp.tool_not_in_cached_catalog"
        );
        assert_eq!(code(&entries, &allowed[4]), "mcp.catalog_not_cached");
        assert_eq!(code(&entries, &gone), "mcp.registration_not_found");
        let McpToolEntry::Available {
            server_display_name,
            descriptor,
        } = &entries[&allowed[1]]
        else {
            unreachable!()
        };
        assert_eq!(server_display_name, "one");
        assert_eq!(descriptor.description, "issue.create.");

        servers
            .set_status("one", McpServerStatus::Paused)
            .await
            .unwrap();
        let entries = snapshot_entries(registry.as_ref(), &allowed).await;
        assert_eq!(code(&entries, &allowed[1]), "mcp.server_paused");

        // `one`'s catalog copied over `two`'s: it was listed for another provider.
        let mut copied = registry.catalog(&one.id).await.unwrap().unwrap();
        registry
            .catalogs
            .lock()
            .unwrap()
            .insert(two.id.clone(), copied.clone());
        let listed = tool(&two, "issue.create");
        let entries = snapshot_entries(registry.as_ref(), [&listed]).await;
        assert_eq!(code(&entries, &listed), "mcp.tool_provider_invalid");
        copied.registration_id = two.id.clone();
        registry.put_catalog(&copied).await.unwrap();
        let entries = snapshot_entries(registry.as_ref(), [&listed]).await;
        assert_eq!(code(&entries, &listed), "mcp.tool_permission_off");
    }

    /// A registry whose files are all damaged.
    struct DamagedRegistry;

    #[async_trait]
    impl McpRegistry for DamagedRegistry {
        async fn list(&self) -> Result<McpRegistrationList, StoreError> {
            Err(StoreError::Integrity("damaged".into()))
        }
        async fn get(&self, _id: &str) -> Result<Option<McpRegistration>, StoreError> {
            Err(StoreError::Integrity("damaged".into()))
        }
        async fn put(&self, _registration: &McpRegistration) -> Result<(), StoreError> {
            Err(StoreError::Integrity("damaged".into()))
        }
        async fn remove(&self, _id: &str) -> Result<(), StoreError> {
            Err(StoreError::Integrity("damaged".into()))
        }
        async fn catalog(&self, _id: &str) -> Result<Option<McpCatalog>, StoreError> {
            Err(StoreError::Integrity("damaged".into()))
        }
        async fn put_catalog(&self, _catalog: &McpCatalog) -> Result<(), StoreError> {
            Err(StoreError::Integrity("damaged".into()))
        }
    }

    #[tokio::test]
    async fn a_registration_that_cannot_be_read_is_a_storage_issue() {
        let id = ToolId::mcp("11111111-2222-4333-8444-555555555555", "x").unwrap();
        let entries = snapshot_entries(&DamagedRegistry, [&id]).await;
        assert!(matches!(
            &entries[&id],
            McpToolEntry::Unavailable { code, .. } if code == "mcp.registration_storage_issue"
        ));
    }

    #[tokio::test]
    async fn a_failed_refresh_keeps_the_old_catalog() {
        let servers = service();
        servers.add("down", http("https://down/mcp")).await.unwrap();
        let error = servers.refresh("down").await.unwrap_err();
        assert_eq!(error.code(), "mcp.connect_failed");
        assert_eq!(servers.show("down").await.unwrap().1, None);
    }
}
