//! Which top-level names of a run directory the workspace port can reach.
//!
//! A run directory holds the five workspace roots, the runtime's `tool-results/`, and hidden
//! runtime storage (`input/`, `events.jsonl`, `checkpoints/`, …). Only the first two are
//! reachable: the roots read and write, `tool-results/` read-only. Hidden storage behaves
//! as if it did not exist for reads and as read-only for writes.

use agent_domain::workspace::{RUNTIME_RESULTS_ROOT, WorkspacePath, WorkspaceRoot};

/// A reachable top-level directory of a run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Area {
    Root(WorkspaceRoot),
    ToolResults,
}

impl Area {
    /// The five roots in manifest order, then `tool-results`.
    pub(crate) fn all() -> impl Iterator<Item = Area> {
        WorkspaceRoot::ALL
            .into_iter()
            .map(Area::Root)
            .chain([Area::ToolResults])
    }

    /// The area `path` lies in, or `None` for hidden runtime storage. Matching is exact,
    /// so `Output/x` or `output_extra/x` are hidden too, also on case-insensitive disks.
    pub(crate) fn of(path: &WorkspacePath) -> Option<Area> {
        Self::all().find(|area| area.dir_name() == path.first_segment())
    }

    pub(crate) fn dir_name(self) -> &'static str {
        match self {
            Area::Root(root) => root.as_str(),
            Area::ToolResults => RUNTIME_RESULTS_ROOT,
        }
    }

    /// Only the five roots are writable through the port.
    pub(crate) fn is_writable(self) -> bool {
        matches!(self, Area::Root(_))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_roots_and_tool_results_are_reachable() {
        let area = |raw: &str| Area::of(&WorkspacePath::parse(raw).unwrap());
        assert_eq!(area("output/a.md"), Some(Area::Root(WorkspaceRoot::Output)));
        assert_eq!(area("persist"), Some(Area::Root(WorkspaceRoot::Persist)));
        assert_eq!(area("tool-results/call_1.json"), Some(Area::ToolResults));
        for hidden in [
            "input/x",
            "events.jsonl",
            "checkpoints",
            "Output/x",
            "output_extra",
        ] {
            assert_eq!(area(hidden), None, "{hidden}");
        }
        assert!(!Area::ToolResults.is_writable());
        assert_eq!(Area::all().count(), 6);
    }
}
