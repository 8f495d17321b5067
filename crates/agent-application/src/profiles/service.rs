//! [`ProfileService`]: profiles by id over the profile store, with the built-in
//! `default-writer` filled in where no file replaces it.

use std::sync::Arc;

use agent_domain::ErrorCode;
use agent_domain::event::ROOT_INVOCATION_ID;
use agent_domain::profile::{
    AgentProfileDocument, DEFAULT_PROFILE_ID, ModelBinding, ProfileError, ProfileId, ProfileSource,
    ProfileSummary, ResolvedAgentProfile, default_writer, resolve,
};
use agent_domain::tool::{ExitPolicy, SnapshotInputs, builtin_catalog, compile_snapshot};

use super::health::{ConnectionCheck, ProfileHealth, ToolCheck, diagnose_loaded, unloadable};
use super::stored::read_stored;
use super::{LoadedProfile, ProfileListing, ProfileServiceError};
use crate::ports::{ConnectionStore, McpRegistry, ProfileStore};
use crate::prompt::agent_system_prompt;

/// Lists, loads, resolves, saves, deletes and diagnoses agent profiles.
#[derive(Clone)]
pub struct ProfileService {
    pub(super) store: Arc<dyn ProfileStore>,
    /// When set, `diagnose` checks that a `connectionRef` profile's connection exists.
    connections: Option<Arc<dyn ConnectionStore>>,
    /// When set, `diagnose` compiles the profile's tool snapshot against the cached MCP
    /// catalogs and reports the MCP tools it would leave out.
    mcp: Option<Arc<dyn McpRegistry>>,
}

impl std::fmt::Debug for ProfileService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ProfileService { .. }")
    }
}

impl ProfileService {
    pub fn new(store: Arc<dyn ProfileStore>) -> Self {
        Self {
            store,
            connections: None,
            mcp: None,
        }
    }

    /// The same service, with `diagnose` checking connections against `connections`.
    pub fn with_connections(mut self, connections: Arc<dyn ConnectionStore>) -> Self {
        self.connections = Some(connections);
        self
    }

    /// The same service, with `diagnose` checking MCP tools against `registry`.
    pub fn with_mcp(mut self, registry: Arc<dyn McpRegistry>) -> Self {
        self.mcp = Some(registry);
        self
    }

    /// Every profile: `default-writer` first (the built-in one unless a file replaces it),
    /// then the stored ones by id. A stored file that does not read or validate is listed
    /// with its problem instead of failing the listing.
    pub async fn list(&self) -> Result<Vec<ProfileListing>, ProfileServiceError> {
        let stored = self.store.list().await?;
        let mut listings = Vec::with_capacity(stored.len() + 1);
        if !stored
            .iter()
            .any(|profile| profile.id == DEFAULT_PROFILE_ID)
        {
            listings.push(ProfileListing::Valid(built_in()?.resolved.summary()));
        }
        for profile in &stored {
            listings.push(match read_stored(profile) {
                Ok(loaded) => ProfileListing::Valid(loaded.resolved.summary()),
                Err(failure) => ProfileListing::Invalid(failure.problem(&profile.id)),
            });
        }
        // A stored default-writer takes the built-in one's place at the top.
        listings.sort_by_key(|listing| listing.id() != DEFAULT_PROFILE_ID);
        Ok(listings)
    }

    /// The profile `id`: its stored file, or the built-in `default-writer` when no file
    /// replaces it. Unknown ids fail with `agent.profile_not_found`; a stored file that does
    /// not read or validate fails with its own code.
    pub async fn load(&self, id: &str) -> Result<LoadedProfile, ProfileServiceError> {
        let id = ProfileId::parse(id)?;
        match self.store.load(id.as_str()).await? {
            Some(stored) => read_stored(&stored).map_err(|failure| failure.error),
            None if id.as_str() == DEFAULT_PROFILE_ID => built_in(),
            None => Err(ProfileError::NotFound { id: id.to_string() }.into()),
        }
    }

    /// The profile a run uses: `id`, or `default-writer` when none is named.
    pub async fn resolve(
        &self,
        id: Option<&str>,
    ) -> Result<ResolvedAgentProfile, ProfileServiceError> {
        let loaded = self.load(id.unwrap_or(DEFAULT_PROFILE_ID)).await?;
        Ok(loaded.resolved)
    }

    /// Validates a profile document (any supported schema version) and stores it under its
    /// id, written in the current schema. Saving `default-writer` replaces the built-in.
    pub async fn save(&self, json: &str) -> Result<ProfileSummary, ProfileServiceError> {
        let mut document = AgentProfileDocument::from_json(json)?;
        let resolved = resolve(&document, ProfileSource::File)?;
        // The id may have come with surrounding spaces; the file and document use it bare.
        document.id = resolved.id.to_string();
        let mut text = document.to_json_pretty()?;
        text.push('\n');
        self.store.save(resolved.id.as_str(), &text).await?;
        Ok(resolved.summary())
    }

    /// Deletes the stored profile `id`; `false` when there was none. The built-in
    /// `default-writer` cannot be deleted (`agent.profile_builtin_readonly`), only a file
    /// that replaces it.
    pub async fn delete(&self, id: &str) -> Result<bool, ProfileServiceError> {
        let id = ProfileId::parse(id)?;
        let removed = self.store.delete(id.as_str()).await?;
        if !removed && id.as_str() == DEFAULT_PROFILE_ID {
            return Err(ProfileServiceError::BuiltinReadonly { id: id.to_string() });
        }
        Ok(removed)
    }

    /// The health of profile `id`. A profile that does not load is reported as unloadable
    /// with its error; only an unknown id or a store failure is an error here.
    pub async fn diagnose(&self, id: &str) -> Result<ProfileHealth, ProfileServiceError> {
        match self.load(id).await {
            Ok(loaded) => {
                let connection = self.connection_check(&loaded).await;
                let tools = self.tool_check(&loaded).await;
                Ok(diagnose_loaded(&loaded, connection, tools))
            }
            Err(err @ (ProfileServiceError::Store(_) | ProfileServiceError::Profile(_))) => {
                Err(err)
            }
            Err(err) => Ok(unloadable(id.trim(), &err)),
        }
    }

    /// What the connection store says about a `connectionRef` profile's connection; `None`
    /// when there is nothing to check or no store to check it in.
    async fn connection_check(&self, loaded: &LoadedProfile) -> Option<ConnectionCheck> {
        let ModelBinding::ConnectionRef { connection_ref, .. } = &loaded.resolved.model else {
            return None;
        };
        let store = self.connections.as_ref()?;
        Some(match store.get(connection_ref).await {
            Ok(Some(config)) => ConnectionCheck::Found(config),
            Ok(None) => ConnectionCheck::Missing,
            Err(error) => ConnectionCheck::Unusable(error.to_string()),
        })
    }

    /// The tool snapshot a root invocation of the profile would get, compiled as a run
    /// compiles it (cached MCP catalogs only); `None` without an MCP registry to read.
    async fn tool_check(&self, loaded: &LoadedProfile) -> Option<ToolCheck> {
        let registry = self.mcp.as_ref()?;
        let policy = loaded.resolved.tool_policy();
        let mcp = crate::mcp::snapshot_entries(registry.as_ref(), &policy.allow).await;
        let builtins = match builtin_catalog() {
            Ok(builtins) => builtins,
            Err(error) => return Some(ToolCheck::Refused(error.code(), error.to_string())),
        };
        let compiled = compile_snapshot(SnapshotInputs {
            invocation_id: ROOT_INVOCATION_ID,
            policy: &policy,
            exit_policy: ExitPolicy::RunFinishAllowed,
            builtins: &builtins,
            mcp: &mcp,
        });
        Some(match compiled {
            Ok(compiled) => ToolCheck::Compiled(compiled.diagnostics),
            Err(error) => ToolCheck::Refused(error.code(), error.to_string()),
        })
    }

    /// The Agent system prompt of profile `id` (or `default-writer`): its replacement text
    /// when it sets one, otherwise the default.
    pub async fn system_prompt(&self, id: Option<&str>) -> Result<String, ProfileServiceError> {
        let profile = self.resolve(id).await?;
        Ok(agent_system_prompt(&profile).to_owned())
    }
}

/// The compiled-in `default-writer`.
fn built_in() -> Result<LoadedProfile, ProfileServiceError> {
    let document = default_writer();
    let resolved = resolve(&document, ProfileSource::BuiltIn)?;
    Ok(LoadedProfile {
        document,
        source: ProfileSource::BuiltIn,
        resolved,
    })
}
