//! In-memory implementations of the ports, for tests of services and tools (and of other
//! crates, with the `testing` feature). They follow the contracts of the real adapters
//! closely enough that a service tested against them behaves the same on disk.

mod characters;
mod chat;
mod connections;
mod environment;
mod profiles;
mod skills;
mod user_data;
mod workspace;

pub use characters::MemoryCharacters;
pub use chat::MemoryChats;
pub use connections::MemoryConnections;
pub use environment::{FixedClock, SequenceRng, SequentialIds, fake_sha256_hex};
pub use profiles::MemoryProfiles;
pub use skills::MemorySkills;
pub use user_data::{
    MemoryGroups, MemoryLorebooks, MemoryPersonaAvatars, MemorySillyTavernSettings,
};
pub use workspace::MemoryWorkspace;
