//! From a [`WorkspaceError`] to the failure a workspace tool reports.
//!
//! Request faults (a missing file, a folder, binary content, a lost write race, a read-only
//! path) are recoverable and tell the model what to call next; integrity and I/O faults of
//! the workspace itself stop the run.

use agent_domain::tool::BuiltinTool;
use agent_domain::workspace::WorkspacePath;

use crate::ports::WorkspaceError;
use crate::tools::{InvocationScope, ToolFailure, ToolFault};

const PATH_IS_DIRECTORY: &str = "workspace.path_is_directory";

/// What the tool was doing when the store failed; decides codes and wording.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Access {
    /// Listing or searching a path that may be a file or a folder.
    Browse,
    /// Reading, writing or patching one file.
    File,
}

/// The failure for `error`, met while doing `access`.
pub(super) fn store_failure(
    error: WorkspaceError,
    access: Access,
    scope: &InvocationScope,
) -> ToolFailure {
    let list = scope.alias(BuiltinTool::WorkspaceListFiles);
    let read = scope.alias(BuiltinTool::WorkspaceReadFile);
    match error {
        WorkspaceError::NotFound(path) if access == Access::Browse => ToolFailure::recoverable(
            "workspace.path_not_found",
            format!("Nothing exists at `{path}`. See what exists with {list}."),
        ),
        WorkspaceError::NotFound(path) => ToolFailure::recoverable(
            "workspace.file_not_found",
            format!("No file exists at `{path}`. See what exists with {list}."),
        ),
        WorkspaceError::IsDirectory(path) => is_directory(&path, scope),
        WorkspaceError::NotText(path) => ToolFailure::recoverable(
            "workspace.file_not_text",
            format!("`{path}` is not UTF-8 text, so it cannot be read or edited; use a text file."),
        ),
        WorkspaceError::AlreadyExists(path) => ToolFailure::recoverable(
            "workspace.write_requires_read",
            format!(
                "`{path}` was created by someone else while you wrote it; read it with {read} \
                 before rewriting it."
            ),
        ),
        WorkspaceError::VersionMismatch {
            path,
            current: None,
        } => ToolFailure::recoverable(
            "workspace.write_stale_file",
            format!(
                "`{path}` was deleted since you last read or wrote it; check its folder with \
                 {list} before writing again."
            ),
        ),
        WorkspaceError::VersionMismatch { path, .. } => ToolFailure::recoverable(
            "workspace.write_stale_file",
            format!(
                "`{path}` changed since you last read or wrote it; read it again with {read} \
                 before rewriting it."
            ),
        ),
        WorkspaceError::ReadOnly(path) => ToolFailure::recoverable(
            "workspace.path_not_writable",
            format!("`{path}` is read-only."),
        ),
        fatal => ToolFailure::Fatal(ToolFault::from(&fatal)),
    }
}

/// `workspace.path_is_directory`, pointing the model to the listing tool.
pub(super) fn is_directory(path: &WorkspacePath, scope: &InvocationScope) -> ToolFailure {
    let list = scope.alias(BuiltinTool::WorkspaceListFiles);
    ToolFailure::recoverable(
        PATH_IS_DIRECTORY,
        format!(
            "`{path}` is a folder, not a file. List its contents with {list} path={path} and \
             pick a file."
        ),
    )
}
