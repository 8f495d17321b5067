//! [`DataDirInspector`]: what the doctor reads of a data directory as a whole — its
//! layout, temps left by processes that died, and chat files that do not parse — without
//! changing anything (except [`DataDirInspector::sweep_stale_temps`], the doctor's fix).

use async_trait::async_trait;

use super::{ChatError, EntryKind, StoreError};

/// One thing wrong with the layout; `path` is relative to the data directory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayoutProblem {
    /// A path every data directory has (the chats folder) is missing.
    Missing { path: String, expected: EntryKind },
    /// A path of the layout is there but of the wrong kind (or a symbolic link).
    WrongKind { path: String, expected: EntryKind },
    /// An entry in one of our folders this version neither writes nor reads.
    Unknown { path: String },
    /// A temp staged by a process that died (its writer's lock is free), which nobody will
    /// rename or remove.
    StaleTemp { path: String },
}

/// The layout's paths that are there, and what is wrong.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LayoutScan {
    /// How many paths of the layout exist (and are of the right kind).
    pub present: usize,
    /// In path order.
    pub problems: Vec<LayoutProblem>,
}

/// A chat file that cannot be opened: `path` relative to the data directory, the error
/// (its message names the line where there is one).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChatProblem {
    pub path: String,
    pub error: ChatError,
}

/// Every chat file read, and those that failed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChatScan {
    pub checked: usize,
    pub problems: Vec<ChatProblem>,
}

#[async_trait]
pub trait DataDirInspector: Send + Sync {
    /// The layout's problems. The data directory itself missing is an error
    /// (`agent.storage_io`).
    async fn scan_layout(&self) -> Result<LayoutScan, StoreError>;

    /// Reads every chat file (character and group chats) as opening it for a run would:
    /// every line JSON, the header's `chat_metadata.integrity` a valid string.
    async fn scan_chats(&self) -> Result<ChatScan, StoreError>;

    /// Removes the stale temps [`scan_layout`](Self::scan_layout) reports; returns how many
    /// there were.
    async fn sweep_stale_temps(&self) -> Result<usize, StoreError>;
}

/// Which environment variables are set, for checking connections' key variables.
pub trait EnvironmentVariables: Send + Sync {
    /// Whether `name` is set to something (an empty value counts as unset).
    fn is_set(&self, name: &str) -> bool;
}
