//! [`MemoryPorts`]: every port the runtime needs, in memory, wired in one call, with each
//! adapter kept at its concrete type so a test can plan faults and inspect what a run left
//! (its journal, audit documents, the commits the host received).

use std::sync::Arc;

use super::{
    FakeDigest, FixedClock, MemoryAudit, MemoryCancelRequests, MemoryChatCommits, MemoryChats,
    MemoryCheckpoints, MemoryGuidanceMailbox, MemoryJournal, MemoryPersist, MemoryProfiles,
    MemoryRuns, MemorySkills, MemoryWorkspace, SequenceRng, SequentialIds,
};
use crate::runtime::RuntimePorts;

/// The in-memory adapters of one runtime: no profiles or skills stored (the built-in
/// `default-writer` runs), no chats until a test puts one, a clock that steps a millisecond
/// per reading, sequential ids and dice that always roll 1.
#[derive(Debug, Clone)]
pub struct MemoryPorts {
    pub runs: Arc<MemoryRuns>,
    pub journal: Arc<MemoryJournal>,
    pub audit: Arc<MemoryAudit>,
    pub workspace: Arc<MemoryWorkspace>,
    pub checkpoints: Arc<MemoryCheckpoints>,
    pub persist: Arc<MemoryPersist>,
    pub chats: Arc<MemoryChats>,
    pub chat_commits: Arc<MemoryChatCommits>,
    pub skills: Arc<MemorySkills>,
    pub profiles: Arc<MemoryProfiles>,
    pub cancel_requests: Arc<MemoryCancelRequests>,
    pub guidance: Arc<MemoryGuidanceMailbox>,
    pub clock: Arc<FixedClock>,
    pub ids: Arc<SequentialIds>,
    pub rng: Arc<SequenceRng>,
}

impl Default for MemoryPorts {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryPorts {
    pub fn new() -> Self {
        let workspace = Arc::new(MemoryWorkspace::new());
        let chats = Arc::new(MemoryChats::new());
        Self {
            runs: Arc::new(MemoryRuns::new()),
            journal: Arc::new(MemoryJournal::new()),
            audit: Arc::new(MemoryAudit::new()),
            checkpoints: Arc::new(MemoryCheckpoints::new(Arc::clone(&workspace))),
            workspace,
            persist: Arc::new(MemoryPersist::new()),
            chat_commits: Arc::new(MemoryChatCommits::new(Arc::clone(&chats))),
            chats,
            skills: Arc::new(MemorySkills::new()),
            profiles: Arc::new(MemoryProfiles::new()),
            cancel_requests: Arc::new(MemoryCancelRequests::new()),
            guidance: Arc::new(MemoryGuidanceMailbox::new()),
            clock: Arc::new(FixedClock::default()),
            ids: Arc::new(SequentialIds::default()),
            rng: Arc::new(SequenceRng::new(vec![1])),
        }
    }

    /// The same adapters as the runtime's ports.
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
            clock: self.clock.clone(),
            ids: self.ids.clone(),
            digest: Arc::new(FakeDigest),
            rng: self.rng.clone(),
        }
    }
}
