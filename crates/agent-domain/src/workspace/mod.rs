//! Workspace paths and the root rules every workspace tool and store obeys.

mod path;
mod root;

pub use path::{MAX_PATH_BYTES, MAX_SEGMENT_BYTES, WorkspacePath, WorkspacePathError};
pub use root::{RUNTIME_RESULTS_ROOT, RootAccess, WorkspaceRoot, WorkspaceRootError};
