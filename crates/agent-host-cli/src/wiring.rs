//! The composition root: finds the data directory and builds the adapters and services
//! over it. Nothing here decides anything about runs; it only connects parts.

use std::env;
use std::path::PathBuf;
use std::sync::Arc;

use agent_application::chat_workspaces::ChatWorkspaces;
use agent_application::doctor::Doctor;
use agent_application::mcp::McpServers;
use agent_application::ports::SkillStore;
use agent_application::profiles::ProfileService;
use agent_application::retention::RetentionService;
use agent_application::runtime::AgentRuntime;
use agent_domain::ErrorCode;
use agent_infra_fs::FsStorage;
use agent_infra_fs::digest::Sha256Digest;
use agent_infra_fs::durability::{Durability, UnknownDurability};
use agent_infra_fs::environment::{ProcessEnvironment, SystemClock, UuidIds};
use agent_infra_fs::inspect::FsDataDirInspector;
use agent_infra_fs::layout::DataDir;
use agent_mcp::McpClient;
use agent_text::TextEngines;

use crate::exit::{CmdResult, Exit, Failed, codes};

/// The environment variable that names the data directory when `--data-dir` is absent.
pub const DATA_DIR_ENV: &str = "TAVERN_AGENT_DATA_DIR";
/// The environment variable that names the durability policy when `--durability` is absent.
pub const DURABILITY_ENV: &str = "TAVERN_AGENT_DURABILITY";
/// The folder name under the platform's data directory.
const APP_DIR: &str = "tavern-agent";

/// The data directory: `--data-dir`, else `$TAVERN_AGENT_DATA_DIR`, else the platform's.
pub fn data_dir(flag: Option<PathBuf>) -> CmdResult<DataDir> {
    if let Some(dir) = flag {
        return Ok(DataDir::new(dir));
    }
    if let Some(dir) = env::var_os(DATA_DIR_ENV).filter(|dir| !dir.is_empty()) {
        return Ok(DataDir::new(PathBuf::from(dir)));
    }
    platform_data_dir().map(DataDir::new).ok_or_else(|| {
        Failed::new(
            Exit::Usage,
            codes::DATA_DIR_MISSING,
            format!("no data directory: pass --data-dir DIR or set ${DATA_DIR_ENV}"),
        )
    })
}

/// The durability policy: `--durability`, else `$TAVERN_AGENT_DURABILITY`, else the default.
pub fn durability(flag: Option<Durability>) -> CmdResult<Durability> {
    if let Some(policy) = flag {
        return Ok(policy);
    }
    match env::var(DURABILITY_ENV) {
        Ok(name) if !name.trim().is_empty() => name.parse().map_err(|err: UnknownDurability| {
            Failed::new(Exit::Usage, err.code(), format!("${DURABILITY_ENV}: {err}"))
        }),
        _ => Ok(Durability::default()),
    }
}

/// `$XDG_DATA_HOME/tavern-agent` or `~/.local/share/tavern-agent` (Linux and other Unix),
/// `~/Library/Application Support/tavern-agent` (macOS), `%APPDATA%\tavern-agent` (Windows).
fn platform_data_dir() -> Option<PathBuf> {
    let var = |name: &str| {
        env::var_os(name)
            .filter(|v| !v.is_empty())
            .map(PathBuf::from)
    };
    let base = if cfg!(windows) {
        var("APPDATA")
    } else if cfg!(target_os = "macos") {
        var("HOME").map(|home| home.join("Library").join("Application Support"))
    } else {
        var("XDG_DATA_HOME").or_else(|| var("HOME").map(|home| home.join(".local").join("share")))
    };
    base.map(|base| base.join(APP_DIR))
}

/// Everything a command may need, over one data directory.
#[derive(Debug)]
pub struct Host {
    pub storage: FsStorage,
    pub runtime: AgentRuntime,
}

impl Host {
    /// Wires the file-system adapters, writing under `durability`, and the real
    /// environment to the runtime.
    pub fn open(data: DataDir, durability: Durability) -> Self {
        let storage = FsStorage::open_with(data, durability);
        let runtime = AgentRuntime::new(storage.runtime_ports())
            .with_user_data(storage.user_data_ports())
            .with_lore_engines(Arc::new(TextEngines::new()))
            .with_mcp(storage.mcp.clone(), Arc::new(McpClient::default()));
        Self { storage, runtime }
    }

    /// The profile service over the data directory's profile store; diagnoses check LLM
    /// connections and MCP tools against the same data directory.
    pub fn profiles(&self) -> ProfileService {
        ProfileService::new(self.storage.profiles.clone())
            .with_connections(self.storage.connections.clone())
            .with_mcp(self.storage.mcp.clone())
    }

    /// The MCP management service: the data directory's registry and the rmcp client.
    pub fn mcp(&self) -> McpServers {
        McpServers::new(
            self.storage.mcp.clone(),
            Arc::new(McpClient::default()),
            Arc::new(SystemClock),
            Arc::new(UuidIds),
        )
    }

    /// Run retention over the data directory's settings, runs and journals.
    pub fn retention(&self) -> RetentionService {
        RetentionService::new(
            self.storage.settings.clone(),
            self.storage.runs.clone(),
            self.storage.journal.clone(),
            self.storage.retention.clone(),
            Arc::new(SystemClock),
        )
    }

    /// The chats and their agent workspaces, removed under the maintenance lock retention
    /// also holds.
    pub fn chat_workspaces(&self) -> ChatWorkspaces {
        ChatWorkspaces::new(
            self.storage.chat_workspaces.clone(),
            self.storage.runs.clone(),
            self.storage.retention.clone(),
            Arc::new(Sha256Digest),
        )
    }

    /// The skills of every scope.
    pub fn skills(&self) -> Arc<dyn SkillStore> {
        self.storage.skills.clone()
    }

    /// The doctor over the whole data directory: layout, profiles, connections and their
    /// key variables in this process's environment, skills, chats and runs.
    pub fn doctor(&self) -> Doctor {
        Doctor::new(
            self.profiles(),
            self.storage.connections.clone(),
            self.skills(),
        )
        .with_data_dir(Arc::new(FsDataDirInspector::new(self.storage.data.clone())))
        .with_environment(Arc::new(ProcessEnvironment))
        .with_runs(self.runtime.clone())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[tokio::test]
    async fn the_host_wires_the_user_data_of_its_directory() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("worlds")).unwrap();
        std::fs::write(dir.path().join("worlds/Eldoria.json"), "{\"entries\": {}}").unwrap();
        let host = Host::open(DataDir::new(dir.path()), Durability::default());
        let user_data = host.storage.user_data_ports();
        assert_eq!(user_data.lorebooks.list().await.unwrap(), ["Eldoria"]);
        assert_eq!(user_data.settings.load().await.unwrap(), None);
        assert!(user_data.groups.load("1").await.unwrap().is_none());
    }
}
