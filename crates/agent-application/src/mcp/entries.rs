//! The MCP entries a snapshot compiles from: for each MCP tool a profile allows, either its
//! cached descriptor or the reason it cannot be offered, read from the registry only (cached
//! catalogs; nothing is listed over the network when an invocation starts).

use std::collections::BTreeMap;
use std::sync::Arc;

use agent_domain::mcp::{McpCatalog, McpRegistration, McpServerStatus, McpToolPermission};
use agent_domain::tool::{McpToolEntry, ToolId, ToolProvider};

use crate::ports::{McpRegistry, StoreError};

fn unavailable(code: &str, message: String) -> McpToolEntry {
    McpToolEntry::Unavailable {
        code: code.to_owned(),
        message,
    }
}

/// What the registry holds for one registration: its document and catalog, or the
/// storage problem that hides them.
type Stored = Result<(Option<McpRegistration>, Option<McpCatalog>), StoreError>;

/// The entry of every MCP tool among `allowed` (builtin ids are skipped). Each registration
/// is read once however many of its tools are allowed. Diagnostic codes:
/// `mcp.registration_storage_issue`, `mcp.registration_not_found`, `mcp.server_paused`,
/// `mcp.catalog_not_cached`, `mcp.tool_provider_invalid` (the cached catalog was listed for
/// another registration: a copied or hand-edited file, whose tools this server may not
/// have), `mcp.tool_not_in_cached_catalog` and `mcp.tool_permission_off`.
pub async fn snapshot_entries<'a>(
    registry: &dyn McpRegistry,
    allowed: impl IntoIterator<Item = &'a ToolId>,
) -> BTreeMap<ToolId, McpToolEntry> {
    let mut stored: BTreeMap<String, Stored> = BTreeMap::new();
    let mut entries = BTreeMap::new();
    for id in allowed {
        let ToolProvider::Mcp { registration } = id.provider() else {
            continue;
        };
        if !stored.contains_key(registration) {
            let read = async {
                let document = registry.get(registration).await?;
                let catalog = registry.catalog(registration).await?;
                Ok((document, catalog))
            };
            stored.insert(registration.clone(), read.await);
        }
        let entry = match &stored[registration] {
            Err(error) => unavailable(
                "mcp.registration_storage_issue",
                format!("the MCP registration {registration} cannot be read: {error}"),
            ),
            Ok((document, catalog)) => entry_of(id, document.as_ref(), catalog.as_ref()),
        };
        entries.insert(id.clone(), entry);
    }
    entries
}

fn entry_of(
    id: &ToolId,
    registration: Option<&McpRegistration>,
    catalog: Option<&McpCatalog>,
) -> McpToolEntry {
    let native = id.native_name();
    let Some(registration) = registration else {
        return unavailable(
            "mcp.registration_not_found",
            format!("no MCP server is registered for {id}"),
        );
    };
    let server = &registration.display_name;
    if registration.status == McpServerStatus::Paused {
        return unavailable(
            "mcp.server_paused",
            format!("MCP server `{server}` is paused"),
        );
    }
    let Some(catalog) = catalog else {
        return unavailable(
            "mcp.catalog_not_cached",
            format!("MCP server `{server}` has no cached catalog (run `mcp refresh`)"),
        );
    };
    if catalog.registration_id != registration.id {
        return unavailable(
            "mcp.tool_provider_invalid",
            format!(
                "the cached catalog of MCP server `{server}` was listed for registration {}, \
                 not this one (run `mcp refresh`)",
                catalog.registration_id
            ),
        );
    }
    let Some(definition) = catalog.tool(native) else {
        return unavailable(
            "mcp.tool_not_in_cached_catalog",
            format!("MCP server `{server}` has no tool `{native}` in its cached catalog"),
        );
    };
    if registration.permission(native) == McpToolPermission::Off {
        return unavailable(
            "mcp.tool_permission_off",
            format!("the permission of `{native}` on MCP server `{server}` is off"),
        );
    }
    McpToolEntry::Available {
        server_display_name: server.clone(),
        descriptor: Arc::new(definition.descriptor_as(id.clone())),
    }
}
