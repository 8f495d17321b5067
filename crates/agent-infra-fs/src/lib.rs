//! File-system adapters for the storage ports of `agent-application`.
//!
//! Everything lives under a SillyTavern-shaped data directory (see [`layout::DataDir`]):
//! chats where SillyTavern keeps them, and everything of ours under `_tauritavern/`.
//! Writes that could be torn are atomic (temp file + rename, see [`atomic`]) or append-only
//! with a tolerant reader; audit files are create-only.

pub mod atomic;
pub mod audit;
mod blobs;
pub mod cancel;
pub mod characters;
pub mod chat;
pub mod chat_workspaces;
pub mod checkpoint;
pub mod confine;
pub mod connections;
pub mod digest;
mod dir_names;
pub mod durability;
pub mod environment;
pub mod guidance;
pub mod inspect;
pub mod journal;
pub mod layout;
pub mod mcp;
pub mod persist;
pub mod profiles;
pub mod retention;
pub mod run_locator;
pub mod runs;
pub mod skills;
pub mod staging;
pub mod stale;
pub mod storage;
pub mod user_data;
pub mod workspace;

pub use storage::FsStorage;
