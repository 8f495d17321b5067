//! The workspace root universe and per-invocation root access.

use std::fmt;

use serde::{Deserialize, Serialize};

use super::WorkspacePath;
use crate::error::ErrorCode;

/// The runtime-owned root that holds tool-result audit files and readable views. It is
/// visible to every invocation, never writable, never committed, and not configurable.
pub const RUNTIME_RESULTS_ROOT: &str = "tool-results";

/// One of the five model-facing workspace roots. Profiles can only narrow this universe.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum WorkspaceRoot {
    Output,
    Scratch,
    Plan,
    Summaries,
    Persist,
}

impl WorkspaceRoot {
    /// All roots in manifest order.
    pub const ALL: [WorkspaceRoot; 5] = [
        Self::Output,
        Self::Scratch,
        Self::Plan,
        Self::Summaries,
        Self::Persist,
    ];

    /// The directory name of the root.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Output => "output",
            Self::Scratch => "scratch",
            Self::Plan => "plan",
            Self::Summaries => "summaries",
            Self::Persist => "persist",
        }
    }

    /// Parses a root name; a trailing `/` is accepted (`output/`).
    pub fn parse(raw: &str) -> Result<Self, WorkspaceRootError> {
        let name = raw.strip_suffix('/').unwrap_or(raw);
        Self::ALL
            .into_iter()
            .find(|root| root.as_str() == name)
            .ok_or_else(|| WorkspaceRootError::Unknown(raw.to_owned()))
    }

    /// Whether files under this root outlive the run (promoted into a persistent state).
    pub fn is_persistent(self) -> bool {
        self == Self::Persist
    }

    /// Which root a path lives under, if any.
    pub fn of_path(path: &WorkspacePath) -> Option<Self> {
        Self::parse(path.first_segment()).ok()
    }
}

impl fmt::Display for WorkspaceRoot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The roots one invocation may see and write, resolved from its profile.
///
/// Invariant: every writable root is visible (checked where profiles are validated).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RootAccess {
    pub visible: Vec<WorkspaceRoot>,
    pub writable: Vec<WorkspaceRoot>,
}

impl RootAccess {
    /// Every root visible and writable: the default-writer's access.
    pub fn full() -> Self {
        Self {
            visible: WorkspaceRoot::ALL.to_vec(),
            writable: WorkspaceRoot::ALL.to_vec(),
        }
    }

    /// A path is visible when it is a visible root, lies below one, or lies in the
    /// read-only runtime results root.
    pub fn is_visible(&self, path: &WorkspacePath) -> bool {
        path.first_segment() == RUNTIME_RESULTS_ROOT
            || WorkspaceRoot::of_path(path).is_some_and(|root| self.visible.contains(&root))
    }

    /// A path is writable only strictly below a writable root (the root itself is not a file).
    pub fn is_writable(&self, path: &WorkspacePath) -> bool {
        path.segments().nth(1).is_some()
            && WorkspaceRoot::of_path(path).is_some_and(|root| self.writable.contains(&root))
    }

    /// `output/, scratch/` style listing for tool descriptions.
    pub fn describe(roots: &[WorkspaceRoot]) -> String {
        if roots.is_empty() {
            return "none".to_owned();
        }
        roots
            .iter()
            .map(|r| format!("{r}/"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// A name that is not one of the five workspace roots.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceRootError {
    #[error("`{0}` is not a workspace root (output, scratch, plan, summaries, persist)")]
    Unknown(String),
}

impl ErrorCode for WorkspaceRootError {
    fn code(&self) -> &'static str {
        "agent.invalid_workspace_root"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn path(raw: &str) -> WorkspacePath {
        WorkspacePath::parse(raw).unwrap()
    }

    #[test]
    fn roots_parse_with_or_without_slash() {
        assert_eq!(
            WorkspaceRoot::parse("persist/").unwrap(),
            WorkspaceRoot::Persist
        );
        assert_eq!(WorkspaceRoot::parse("plan").unwrap(), WorkspaceRoot::Plan);
        let err = WorkspaceRoot::parse("input").unwrap_err();
        assert_eq!(err.code(), "agent.invalid_workspace_root");
        assert!(WorkspaceRoot::Persist.is_persistent());
        assert!(!WorkspaceRoot::Output.is_persistent());
    }

    #[test]
    fn visibility_and_writability() {
        let access = RootAccess {
            visible: vec![WorkspaceRoot::Output, WorkspaceRoot::Scratch],
            writable: vec![WorkspaceRoot::Output],
        };
        assert!(access.is_visible(&path("output")));
        assert!(access.is_visible(&path("output/main.md")));
        assert!(access.is_visible(&path("tool-results/call_1.json")));
        assert!(!access.is_visible(&path("persist/a.md")));
        assert!(!access.is_visible(&path("input/prompt_snapshot.json")));
        assert!(!access.is_visible(&path("output_extra/x")));
        assert!(access.is_writable(&path("output/main.md")));
        assert!(!access.is_writable(&path("output")));
        assert!(!access.is_writable(&path("scratch/x.md")));
        assert!(!access.is_writable(&path("tool-results/x.json")));
        assert_eq!(RootAccess::describe(&access.visible), "output/, scratch/");
        assert_eq!(RootAccess::describe(&[]), "none");
    }
}
