//! In-memory implementations of the ports, for tests of services and tools (and of other
//! crates, with the `testing` feature). They follow the contracts of the real adapters
//! closely enough that a service tested against them behaves the same on disk.
//!
//! [`MemoryPorts`] wires the whole runtime in memory and [`FakeModel`] answers its model
//! calls, so the crate tests its own driver; [`Faults`] planned on the journal, the audit
//! store, the persistent states or the chat commits make a chosen operation fail.

mod audit;
mod cancel;
mod characters;
mod chat;
mod chat_commits;
mod checkpoints;
mod connections;
mod environment;
mod faults;
mod guidance;
mod journal;
mod model;
mod persist;
mod profiles;
mod request;
mod runs;
mod runtime;
mod skills;
mod user_data;
mod workspace;

pub use audit::MemoryAudit;
pub use cancel::MemoryCancelRequests;
pub use characters::MemoryCharacters;
pub use chat::MemoryChats;
pub use chat_commits::MemoryChatCommits;
pub use checkpoints::MemoryCheckpoints;
pub use connections::MemoryConnections;
pub use environment::{FakeDigest, FixedClock, SequenceRng, SequentialIds, fake_sha256_hex};
pub use faults::Faults;
pub use guidance::MemoryGuidanceMailbox;
pub use journal::MemoryJournal;
pub use model::{FakeModel, text_turn, tool_turn};
pub use persist::MemoryPersist;
pub use profiles::MemoryProfiles;
pub use request::snapshot_request;
pub use runs::MemoryRuns;
pub use runtime::MemoryPorts;
pub use skills::MemorySkills;
pub use user_data::{
    MemoryGroups, MemoryLorebooks, MemoryPersonaAvatars, MemorySillyTavernSettings,
};
pub use workspace::MemoryWorkspace;
