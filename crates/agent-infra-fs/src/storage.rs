//! [`FsStorage`]: every file-system adapter over one data directory, wired to share one
//! [`RunLocator`], ready for a host to hand to the runtime.

use std::sync::Arc;

use agent_application::ports::UserDataPorts;
use agent_application::runtime::RuntimePorts;

use crate::audit::FsAuditStore;
use crate::cancel::FsCancelRequests;
use crate::characters::FsCharacterCards;
use crate::chat::{FsChatCommitter, FsChatStore};
use crate::chat_workspaces::FsChatWorkspaces;
use crate::checkpoint::FsCheckpointStore;
use crate::connections::FsConnectionStore;
use crate::digest::Sha256Digest;
use crate::durability::Durability;
use crate::environment::{OsRng, SystemClock, UuidIds};
use crate::guidance::FsGuidanceMailbox;
use crate::journal::FsEventJournal;
use crate::layout::DataDir;
use crate::mcp::FsMcpRegistry;
use crate::persist::FsPersistentStateStore;
use crate::profiles::{FsProfileStore, FsSettingsStore};
use crate::retention::FsRetentionStore;
use crate::run_locator::RunLocator;
use crate::runs::FsRunStore;
use crate::skills::FsSkillStore;
use crate::user_data::{FsGroups, FsLorebooks, FsPersonaAvatars, FsSillyTavernSettings};
use crate::workspace::FsWorkspaceStore;

/// The storage adapters of one data directory.
#[derive(Debug, Clone)]
pub struct FsStorage {
    pub data: DataDir,
    pub locator: RunLocator,
    pub runs: Arc<FsRunStore>,
    pub journal: Arc<FsEventJournal>,
    pub audit: Arc<FsAuditStore>,
    pub workspace: Arc<FsWorkspaceStore>,
    pub checkpoints: Arc<FsCheckpointStore>,
    pub persist: Arc<FsPersistentStateStore>,
    pub chats: Arc<FsChatStore>,
    pub chat_commits: Arc<FsChatCommitter>,
    /// The chats and their agent workspaces, for chat deletion and the orphan sweep.
    pub chat_workspaces: Arc<FsChatWorkspaces>,
    pub profiles: Arc<FsProfileStore>,
    pub settings: Arc<FsSettingsStore>,
    pub retention: Arc<FsRetentionStore>,
    pub skills: Arc<FsSkillStore>,
    /// Saved LLM connections; the host reads them to build model gateways.
    pub connections: Arc<FsConnectionStore>,
    pub cancel_requests: Arc<FsCancelRequests>,
    pub guidance: Arc<FsGuidanceMailbox>,
    pub characters: Arc<FsCharacterCards>,
    /// SillyTavern's own `settings.json` (read-only; ours is `settings`).
    pub sillytavern_settings: Arc<FsSillyTavernSettings>,
    pub persona_avatars: Arc<FsPersonaAvatars>,
    pub lorebooks: Arc<FsLorebooks>,
    pub groups: Arc<FsGroups>,
    /// MCP server registrations and their cached catalogs.
    pub mcp: Arc<FsMcpRegistry>,
}

impl FsStorage {
    /// Opens (lazily: nothing is created until written) the data directory at `data`, under
    /// the default durability policy.
    pub fn open(data: DataDir) -> Self {
        Self::open_with(data, Durability::default())
    }

    /// [`open`](Self::open) with the durability policy of the run stores' writes.
    pub fn open_with(data: DataDir, durability: Durability) -> Self {
        let locator = RunLocator::with_durability(data.clone(), durability);
        Self {
            runs: Arc::new(FsRunStore::new(locator.clone())),
            journal: Arc::new(FsEventJournal::new(locator.clone())),
            audit: Arc::new(FsAuditStore::new(locator.clone())),
            workspace: Arc::new(FsWorkspaceStore::new(locator.clone())),
            checkpoints: Arc::new(FsCheckpointStore::new(locator.clone())),
            persist: Arc::new(FsPersistentStateStore::new(data.clone())),
            chats: Arc::new(FsChatStore::new(data.clone())),
            chat_commits: Arc::new(FsChatCommitter::new(data.clone())),
            chat_workspaces: Arc::new(FsChatWorkspaces::new(data.clone())),
            profiles: Arc::new(FsProfileStore::new(data.clone())),
            settings: Arc::new(FsSettingsStore::new(data.clone())),
            retention: Arc::new(FsRetentionStore::new(data.clone())),
            skills: Arc::new(FsSkillStore::new(data.clone())),
            connections: Arc::new(FsConnectionStore::new(data.clone())),
            cancel_requests: Arc::new(FsCancelRequests::new(locator.clone())),
            guidance: Arc::new(FsGuidanceMailbox::new(locator.clone())),
            characters: Arc::new(FsCharacterCards::new(data.clone())),
            sillytavern_settings: Arc::new(FsSillyTavernSettings::new(data.clone())),
            persona_avatars: Arc::new(FsPersonaAvatars::new(data.clone())),
            lorebooks: Arc::new(FsLorebooks::new(data.clone())),
            groups: Arc::new(FsGroups::new(data.clone())),
            mcp: Arc::new(FsMcpRegistry::new(data.clone())),
            locator,
            data,
        }
    }
}

impl FsStorage {
    /// The runtime's ports over this storage, with the real clock, UUID ids, SHA-256 and the
    /// operating system's randomness: what a host hands to `AgentRuntime::new`.
    pub fn runtime_ports(&self) -> RuntimePorts {
        RuntimePorts {
            runs: self.runs.clone(),
            journal: self.journal.clone(),
            audit: self.audit.clone(),
            workspace: self.workspace.clone(),
            checkpoints: self.checkpoints.clone(),
            persist: self.persist.clone(),
            chats: self.chats.clone(),
            chat_commits: self.chat_commits.clone(),
            skills: self.skills.clone(),
            profiles: self.profiles.clone(),
            cancel_requests: self.cancel_requests.clone(),
            guidance: self.guidance.clone(),
            clock: Arc::new(SystemClock),
            ids: Arc::new(UuidIds),
            digest: Arc::new(Sha256Digest),
            rng: Arc::new(OsRng),
        }
    }
}

impl FsStorage {
    /// The ports over SillyTavern's own user data in this directory: character cards, its
    /// `settings.json`, persona avatars, lorebooks and groups.
    pub fn user_data_ports(&self) -> UserDataPorts {
        UserDataPorts {
            characters: self.characters.clone(),
            settings: self.sillytavern_settings.clone(),
            persona_avatars: self.persona_avatars.clone(),
            lorebooks: self.lorebooks.clone(),
            groups: self.groups.clone(),
        }
    }
}
