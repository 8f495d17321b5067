//! [`RuntimePorts`]: every port the runtime reaches the world through.

use std::sync::Arc;

use crate::ports::{
    AuditStore, CancelRequests, ChatCommitPort, ChatStore, CheckpointStore, Clock, Digest,
    EventJournal, GuidanceMailbox, IdSource, PersistentStateStore, ProfileStore, Rng, RunStore,
    SkillStore, WorkspaceStore,
};
use crate::tools::ToolPorts;

/// The adapters a host hands to [`AgentRuntime::new`](super::AgentRuntime::new). The model
/// gateway is not here: each run names its own (see [`StartRun`](super::StartRun)).
#[derive(Clone)]
pub struct RuntimePorts {
    pub runs: Arc<dyn RunStore>,
    pub journal: Arc<dyn EventJournal>,
    pub audit: Arc<dyn AuditStore>,
    pub workspace: Arc<dyn WorkspaceStore>,
    pub checkpoints: Arc<dyn CheckpointStore>,
    pub persist: Arc<dyn PersistentStateStore>,
    pub chats: Arc<dyn ChatStore>,
    pub chat_commits: Arc<dyn ChatCommitPort>,
    pub skills: Arc<dyn SkillStore>,
    pub profiles: Arc<dyn ProfileStore>,
    pub cancel_requests: Arc<dyn CancelRequests>,
    pub guidance: Arc<dyn GuidanceMailbox>,
    pub clock: Arc<dyn Clock>,
    pub ids: Arc<dyn IdSource>,
    pub digest: Arc<dyn Digest>,
    pub rng: Arc<dyn Rng>,
}

impl std::fmt::Debug for RuntimePorts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("RuntimePorts { .. }")
    }
}

impl RuntimePorts {
    /// The ports builtin tools use.
    pub(super) fn tool_ports(&self) -> ToolPorts {
        ToolPorts {
            workspace: Arc::clone(&self.workspace),
            chats: Arc::clone(&self.chats),
            skills: Arc::clone(&self.skills),
            rng: Arc::clone(&self.rng),
        }
    }

    /// A fresh id with a prefix: `commit_<hex>`, `update_<hex>`.
    pub(super) fn new_id(&self, prefix: &str) -> String {
        format!("{prefix}_{}", self.ids.new_hex_id())
    }
}
