//! The small traits through which services reach storage, chats, models, time and chance.
//!
//! Each port is narrow enough that one adapter implements all of it. Paths inside a run are
//! always [`WorkspacePath`]s or named documents; no port exposes the on-disk layout.
//!
//! [`WorkspacePath`]: agent_domain::workspace::WorkspacePath

mod audit;
mod cancel;
mod character;
mod chat;
mod chat_workspaces;
mod checkpoint;
mod connection;
mod data_dir;
mod environment;
mod group;
mod guidance;
mod journal;
mod lore_engines;
mod lorebook;
mod mcp;
mod model;
mod persist;
mod persona;
mod profile;
mod retention;
mod run_store;
mod skill;
mod st_settings;
mod store_error;
mod user_data;
mod workspace;

pub use audit::{AuditRef, AuditStore, InputDocument};
pub use cancel::CancelRequests;
pub use character::{CharacterCard, CharacterCards, DepthPrompt};
pub use chat::{
    ChatCommitPort, ChatCommitReceipt, ChatCommitRequest, ChatError, ChatInfo, ChatMessage,
    ChatRole, ChatRollbackReport, ChatRollbackRequest, ChatStore, CommitMode, CommitTarget,
    MetadataChange, PersistStateUpdate, ReplyAuthor, ReplyModel, RollbackError, RollbackTarget,
};
pub use chat_workspaces::{ChatWorkspaceStore, DiskUse, ListedChat, WorkspaceContents};
pub use checkpoint::{CheckpointFile, CheckpointRecord, CheckpointStore};
pub use connection::{ConnectionList, ConnectionProblem, ConnectionStore};
pub use data_dir::{
    ChatProblem, ChatScan, DataDirInspector, EnvironmentVariables, LayoutProblem, LayoutScan,
};
pub use environment::{Clock, Digest, IdSource, Rng};
pub use group::{GROUP_INVALID, Group, Groups, INVALID_GROUP_ID};
pub use guidance::{GuidanceItem, GuidanceMailbox, MailboxLimits, Submission};
pub use journal::{EventDraft, EventJournal, EventQuery, EventStream, JournalError};
pub use lore_engines::{EngineUnavailable, LoreEngines};
pub use lorebook::{INVALID_WORLD_NAME, Lorebook, Lorebooks, WORLD_INVALID, compare_world_names};
pub use mcp::{
    McpConnector, McpNotice, McpNoticeSink, McpRegistrationList, McpRegistrationProblem,
    McpRegistry, McpSession,
};
pub use model::{ModelCall, ModelDelta, ModelError, ModelErrorKind, ModelGateway, ModelStreamItem};
pub use persist::{PersistError, PersistSnapshot, PersistentStateStore, PromotedState};
pub use persona::PersonaAvatars;
pub use profile::{ProfileStore, SettingsStore, StoredProfile};
pub use retention::{MaintenanceGuard, MaintenanceLock, RunRetentionStore, RunStorage};
pub use run_store::{RunCursor, RunListQuery, RunPage, RunStore};
pub use skill::{
    SKILL_PATH_IS_FOLDER, SkillFile, SkillIndexEntry, SkillListing, SkillProblem, SkillRef,
    SkillScope, SkillStore,
};
pub use st_settings::{SETTINGS_INVALID, SillyTavernSettings};
pub use store_error::StoreError;
pub use user_data::UserDataPorts;
pub use workspace::{
    EntryKind, ListedEntry, Listing, SearchCorpus, SearchFile, WorkspaceError, WorkspaceFile,
    WorkspaceStore, WriteGuard, WriteReceipt,
};
