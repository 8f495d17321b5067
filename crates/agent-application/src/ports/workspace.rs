//! A run's workspace: the five roots plus read-only `tool-results/`.
//!
//! The store confines every path to the run directory: a symlink anywhere on the path, or a
//! path resolving outside the run, is refused as an integrity fault. Which roots a given
//! invocation may see or write is the caller's policy (`RootAccess`), except that
//! `tool-results/` is never writable through this port.

use agent_domain::ErrorCode;
use agent_domain::run::RunId;
use agent_domain::workspace::WorkspacePath;
use async_trait::async_trait;

/// A text file as read, with its version.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkspaceFile {
    pub text: String,
    /// Lower-case hex SHA-256 of the bytes.
    pub sha256: String,
    pub bytes: u64,
}

/// The precondition of a write, checked atomically with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WriteGuard {
    Unchecked,
    /// Fails with [`WorkspaceError::AlreadyExists`] if the file exists.
    MustNotExist,
    /// Fails with [`WorkspaceError::VersionMismatch`] unless the file exists with this SHA-256.
    MustMatchSha256(String),
}

/// What a write or append left behind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WriteReceipt {
    /// SHA-256 of the whole file after the write.
    pub sha256: String,
    pub bytes: u64,
    /// SHA-256 before the write; `None` when the file was created.
    pub previous_sha256: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum EntryKind {
    Directory,
    File,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListedEntry {
    pub path: WorkspacePath,
    pub kind: EntryKind,
}

/// A depth-limited listing: directories first, then by path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub entries: Vec<ListedEntry>,
    /// More entries existed than `max_entries`.
    pub truncated: bool,
}

/// One file offered to a search.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchFile {
    pub path: WorkspacePath,
    /// `None` when the file is not UTF-8 text (counted as skipped by searches).
    pub text: Option<String>,
    pub sha256: String,
}

/// The files under some paths, for a search to scan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchCorpus {
    pub files: Vec<SearchFile>,
    /// More files existed than `max_files`.
    pub truncated: bool,
}

#[async_trait]
pub trait WorkspaceStore: Send + Sync {
    /// Creates the run's workspace directories: the five roots and `tool-results/`.
    async fn initialize(&self, run: &RunId) -> Result<(), WorkspaceError>;

    async fn read(
        &self,
        run: &RunId,
        path: &WorkspacePath,
    ) -> Result<WorkspaceFile, WorkspaceError>;

    /// Replaces (or creates) the file atomically, parents created as needed.
    async fn write(
        &self,
        run: &RunId,
        path: &WorkspacePath,
        text: &str,
        guard: WriteGuard,
    ) -> Result<WriteReceipt, WorkspaceError>;

    /// Appends verbatim, creating a missing file.
    async fn append(
        &self,
        run: &RunId,
        path: &WorkspacePath,
        text: &str,
    ) -> Result<WriteReceipt, WorkspaceError>;

    /// Lists `path` (the workspace root when `None`) to `depth` levels, at most `max_entries`.
    async fn list(
        &self,
        run: &RunId,
        path: Option<&WorkspacePath>,
        depth: u32,
        max_entries: usize,
    ) -> Result<Listing, WorkspaceError>;

    /// The files under `paths` (each a file or a directory), up to `max_depth` levels and
    /// `max_files` files, in path order.
    async fn search_corpus(
        &self,
        run: &RunId,
        paths: &[WorkspacePath],
        max_depth: u32,
        max_files: usize,
    ) -> Result<SearchCorpus, WorkspaceError>;

    /// Whether `path` is a file, a directory, or absent.
    async fn kind_of(
        &self,
        run: &RunId,
        path: &WorkspacePath,
    ) -> Result<Option<EntryKind>, WorkspaceError>;
}

/// A workspace operation failed. The first group is the request's fault and recoverable for
/// a model; `Integrity` and `Io` are runtime faults.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    #[error("no file or folder at `{0}`")]
    NotFound(WorkspacePath),
    #[error("`{0}` is a directory")]
    IsDirectory(WorkspacePath),
    #[error("`{0}` is not UTF-8 text")]
    NotText(WorkspacePath),
    #[error("`{0}` already exists")]
    AlreadyExists(WorkspacePath),
    #[error("`{path}` changed: it is now at version {current:?}")]
    VersionMismatch {
        path: WorkspacePath,
        current: Option<String>,
    },
    #[error("`{0}` is read-only")]
    ReadOnly(WorkspacePath),
    /// The run has no workspace: it was never created (or its index record is gone).
    #[error("{0}")]
    RunNotFound(String),
    #[error("workspace integrity: {0}")]
    Integrity(String),
    #[error("workspace I/O: {0}")]
    Io(String),
}

impl WorkspaceError {
    /// Whether the run must stop (the workspace itself is unsafe or unreadable).
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            Self::RunNotFound(_) | Self::Integrity(_) | Self::Io(_)
        )
    }
}

impl ErrorCode for WorkspaceError {
    fn code(&self) -> &'static str {
        match self {
            Self::NotFound(_) => "workspace.file_not_found",
            Self::IsDirectory(_) => "workspace.path_is_directory",
            Self::NotText(_) => "workspace.file_not_text",
            Self::AlreadyExists(_) => "workspace.write_requires_read",
            Self::VersionMismatch { .. } => "workspace.write_stale_file",
            Self::ReadOnly(_) => "workspace.path_not_writable",
            Self::RunNotFound(_) => "agent.not_found",
            Self::Integrity(_) => "workspace.integrity_violation",
            Self::Io(_) => "workspace.io_error",
        }
    }
}
